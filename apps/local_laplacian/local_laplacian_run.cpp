// Runs the generated local Laplacian filter (8 levels) on an RGB PNG and
// writes the result as a 16-bit RGB PNG; prints the best time of --runs runs.
//
//     local_laplacian_run <in.png> <out.png> [alpha (1)] [beta (1)] [--runs N]
#include <cstdio>
#include <exception>

#include "common/png_io.h"
#include "common/runner.h"
#include "common/timing.h"
#include "local_laplacian_aot.h"

int main(int argc, char **argv) {
    try {
        apps::RunnerArgs args = apps::parse_runner_args(argc, argv);
        if (args.positional.size() < 2 || args.positional.size() > 4) {
            std::fprintf(stderr, "usage: %s <in.png> <out.png> [alpha (1)] [beta (1)] [--runs N]\n", argv[0]);
            return 2;
        }
        const float alpha = apps::float_arg(args, 2, 1.0f), beta = apps::float_arg(args, 3, 1.0f);
        auto input = apps::load_png16(args.positional[0]);
        if (input.dim(2).extent() != 3) throw std::runtime_error(args.positional[0] + " is not an RGB image");
        loom::Runtime::Buffer<uint16_t> output(input.dim(0).extent(), input.dim(1).extent(), 3);
        const double ms = apps::best_time_ms(
            [&] { apps::check_status("local_laplacian", local_laplacian(input, alpha, beta, output)); }, args.runs);
        std::printf("local_laplacian: %dx%d, alpha %g, beta %g, best of %d runs: %.3f ms\n", input.dim(0).extent(),
                    input.dim(1).extent(), alpha, beta, args.runs, ms);
        apps::save_png(args.positional[1], output);
        return 0;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
        return 1;
    }
}
