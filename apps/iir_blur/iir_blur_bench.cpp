// The generated IIR blur against the C++ reference on the synthetic RGB
// image at benchmark size (floats), alpha 0.75. Bytes counted: input +
// output.
#include "common/bench_util.h"
#include "iir_blur_aot.h"
#include "iir_blur_reference.h"

namespace {

constexpr float kAlpha = 0.75f;
constexpr double kTolerance = 1e-5;

struct Data {
    apps::Buffer<float> input, output, expected;
    Data() : input(apps::to_float(apps::bench_image16())) {
        output = apps::Buffer<float>(input.dim(0).extent(), input.dim(1).extent(), 3);
        expected = apps::Buffer<float>(input.dim(0).extent(), input.dim(1).extent(), 3);
        apps::iir_blur_reference(input, kAlpha, expected);
    }
    double bytes() const { return 2.0 * input.number_of_elements() * sizeof(float); }
};

Data &data() {
    static Data d;
    return d;
}

void loom_iir_blur(benchmark::State &state) {
    Data &d = data();
    apps::run_benchmark(
        state,
        [&] {
            return iir_blur(d.input, kAlpha, d.output) ? "iir_blur failed"
                                                      : apps::mismatch(d.output, d.expected, kTolerance);
        },
        [&] { return iir_blur(d.input, kAlpha, d.output); }, d.bytes());
}

void cpp_iir_blur(benchmark::State &state) {
    Data &d = data();
    apps::run_benchmark(
        state, [] { return std::string(); },
        [&] {
            apps::iir_blur_reference(d.input, kAlpha, d.output);
            return 0;
        },
        d.bytes());
}

}  // namespace

BENCHMARK(loom_iir_blur)->Name("iir_blur/loom")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(cpp_iir_blur)->Name("iir_blur/cpp")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_MAIN();
