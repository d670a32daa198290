// The generated bilateral grid (s_sigma 8) against the C++ reference on the
// synthetic image at benchmark size (gray floats), r_sigma 0.1. Bytes
// counted: input + output.
#include "bilateral_grid_aot.h"
#include "bilateral_grid_reference.h"
#include "common/bench_util.h"

namespace {

constexpr float kRSigma = 0.1f;
constexpr double kTolerance = 1e-4;

struct Data {
    apps::Buffer<float> input, output, expected;
    Data() : input(apps::to_float(apps::to_gray(apps::bench_image16()))) {
        output = apps::Buffer<float>(input.dim(0).extent(), input.dim(1).extent());
        expected = apps::Buffer<float>(input.dim(0).extent(), input.dim(1).extent());
        apps::bilateral_grid_reference(input, 8, kRSigma, expected);
    }
    double bytes() const { return 2.0 * input.number_of_elements() * sizeof(float); }
};

Data &data() {
    static Data d;
    return d;
}

void loom_bilateral_grid(benchmark::State &state) {
    Data &d = data();
    apps::run_benchmark(
        state,
        [&] {
            return bilateral_grid(d.input, kRSigma, d.output) ? "bilateral_grid failed"
                                                              : apps::mismatch(d.output, d.expected, kTolerance);
        },
        [&] { return bilateral_grid(d.input, kRSigma, d.output); }, d.bytes());
}

void cpp_bilateral_grid(benchmark::State &state) {
    Data &d = data();
    apps::run_benchmark(
        state, [] { return std::string(); },
        [&] {
            apps::bilateral_grid_reference(d.input, 8, kRSigma, d.output);
            return 0;
        },
        d.bytes());
}

}  // namespace

BENCHMARK(loom_bilateral_grid)->Name("bilateral_grid/loom")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(cpp_bilateral_grid)->Name("bilateral_grid/cpp")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_MAIN();
