// Multiplies two random n x n matrices with the generated matmul and prints
// the best time of --runs runs and the rate in GFLOP/s.
//
//     matmul_run [n (512)] [--runs N]
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "common/image_util.h"
#include "common/runner.h"
#include "common/timing.h"
#include "matmul_aot.h"

int main(int argc, char **argv) {
    try {
        apps::RunnerArgs args = apps::parse_runner_args(argc, argv);
        if (args.positional.size() > 1) {
            std::fprintf(stderr, "usage: %s [n (512)] [--runs N]\n", argv[0]);
            return 2;
        }
        const int n = args.positional.empty() ? 512 : std::atoi(args.positional[0].c_str());
        if (n < 1) throw std::invalid_argument("n must be positive");
        loom::Runtime::Buffer<float> a(n, n), b(n, n), output(n, n);
        apps::Random random(7);
        a.for_each_element([&](int x, int y) { a(x, y) = float(random.next(1000)) / 1000.0f; });
        b.for_each_element([&](int x, int y) { b(x, y) = float(random.next(1000)) / 1000.0f; });
        const double ms = apps::best_time_ms([&] { apps::check_status("matmul", matmul(a, b, output)); }, args.runs);
        const double gflops = 2.0 * n * double(n) * n / (ms * 1e6);
        std::printf("matmul: %dx%d, best of %d runs: %.3f ms, %.1f GFLOP/s\n", n, n, args.runs, ms, gflops);
        return 0;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
        return 1;
    }
}
