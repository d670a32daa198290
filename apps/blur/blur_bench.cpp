// The generated blur against the C++ reference on the synthetic image at
// benchmark size (16-bit gray). Bytes counted: input + output.
#include "blur_aot.h"
#include "blur_reference.h"
#include "common/bench_util.h"

namespace {

struct Data {
    apps::Buffer<uint16_t> input, output, expected;
    Data() : input(apps::to_gray(apps::bench_image16())) {
        output = apps::Buffer<uint16_t>(input.dim(0).extent(), input.dim(1).extent());
        expected = apps::Buffer<uint16_t>(input.dim(0).extent(), input.dim(1).extent());
        apps::blur_reference(input, expected);
    }
    double bytes() const { return 2.0 * input.number_of_elements() * sizeof(uint16_t); }
};

Data &data() {
    static Data d;
    return d;
}

void loom_blur(benchmark::State &state) {
    Data &d = data();
    apps::run_benchmark(
        state, [&] { return blur(d.input, d.output) ? "blur failed" : apps::mismatch(d.output, d.expected, 0); },
        [&] { return blur(d.input, d.output); }, d.bytes());
}

void cpp_blur(benchmark::State &state) {
    Data &d = data();
    apps::run_benchmark(
        state, [] { return std::string(); },
        [&] {
            apps::blur_reference(d.input, d.output);
            return 0;
        },
        d.bytes());
}

}  // namespace

BENCHMARK(loom_blur)->Name("blur/loom")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(cpp_blur)->Name("blur/cpp")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_MAIN();
