// Runs the generated IIR blur on a PNG (as floats in [0, 1], all channels)
// and writes the result as a 16-bit PNG; prints the best time of --runs runs.
//
//     iir_blur_run <in.png> <out.png> [alpha (0.75)] [--runs N]
#include <cstdio>
#include <exception>

#include "common/image_util.h"
#include "common/png_io.h"
#include "common/runner.h"
#include "common/timing.h"
#include "iir_blur_aot.h"

int main(int argc, char **argv) {
    try {
        apps::RunnerArgs args = apps::parse_runner_args(argc, argv);
        if (args.positional.size() < 2 || args.positional.size() > 3) {
            std::fprintf(stderr, "usage: %s <in.png> <out.png> [alpha (0.75)] [--runs N]\n", argv[0]);
            return 2;
        }
        const float alpha = apps::float_arg(args, 2, 0.75f);
        auto input = apps::to_float(apps::load_png16(args.positional[0]));
        loom::Runtime::Buffer<float> output(input.dim(0).extent(), input.dim(1).extent(), input.dim(2).extent());
        const double ms =
            apps::best_time_ms([&] { apps::check_status("iir_blur", iir_blur(input, alpha, output)); }, args.runs);
        std::printf("iir_blur: %dx%dx%d, alpha %g, best of %d runs: %.3f ms\n", input.dim(0).extent(),
                    input.dim(1).extent(), input.dim(2).extent(), alpha, args.runs, ms);
        apps::save_png(args.positional[1], apps::from_float<uint16_t>(output));
        return 0;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
        return 1;
    }
}
