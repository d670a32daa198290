// Runs the generated bilateral grid (s_sigma 8) on a PNG (converted to gray
// floats in [0, 1]) and writes the result as a 16-bit gray PNG; prints the
// best time of --runs runs.
//
//     bilateral_grid_run <in.png> <out.png> [r_sigma (0.1)] [--runs N]
#include <cstdio>
#include <exception>

#include "bilateral_grid_aot.h"
#include "common/image_util.h"
#include "common/png_io.h"
#include "common/runner.h"
#include "common/timing.h"

int main(int argc, char **argv) {
    try {
        apps::RunnerArgs args = apps::parse_runner_args(argc, argv);
        if (args.positional.size() < 2 || args.positional.size() > 3) {
            std::fprintf(stderr, "usage: %s <in.png> <out.png> [r_sigma (0.1)] [--runs N]\n", argv[0]);
            return 2;
        }
        const float r_sigma = apps::float_arg(args, 2, 0.1f);
        auto input = apps::to_float(apps::to_gray(apps::load_png16(args.positional[0])));
        loom::Runtime::Buffer<float> output(input.dim(0).extent(), input.dim(1).extent());
        const double ms = apps::best_time_ms(
            [&] { apps::check_status("bilateral_grid", bilateral_grid(input, r_sigma, output)); }, args.runs);
        std::printf("bilateral_grid: %dx%d, r_sigma %g, best of %d runs: %.3f ms\n", input.dim(0).extent(),
                    input.dim(1).extent(), r_sigma, args.runs, ms);
        apps::save_png(args.positional[1], apps::from_float<uint16_t>(output));
        return 0;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
        return 1;
    }
}
