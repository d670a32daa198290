// Runs the generated histogram equalization on a PNG (converted to 8-bit
// gray) and writes the result as an 8-bit gray PNG; prints the best time of
// --runs runs.
//
//     histogram_equalize_run <in.png> <out.png> [--runs N]
#include <cstdio>
#include <exception>

#include "common/image_util.h"
#include "common/png_io.h"
#include "common/runner.h"
#include "common/timing.h"
#include "histogram_equalize_aot.h"

int main(int argc, char **argv) {
    try {
        apps::RunnerArgs args = apps::parse_runner_args(argc, argv);
        if (args.positional.size() != 2) {
            std::fprintf(stderr, "usage: %s <in.png> <out.png> [--runs N]\n", argv[0]);
            return 2;
        }
        auto input = apps::to_gray(apps::load_png8(args.positional[0]));
        loom::Runtime::Buffer<uint8_t> output(input.dim(0).extent(), input.dim(1).extent());
        const double ms = apps::best_time_ms(
            [&] { apps::check_status("histogram_equalize", histogram_equalize(input, output)); }, args.runs);
        std::printf("histogram_equalize: %dx%d, best of %d runs: %.3f ms\n", input.dim(0).extent(),
                    input.dim(1).extent(), args.runs, ms);
        apps::save_png(args.positional[1], output);
        return 0;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
        return 1;
    }
}
