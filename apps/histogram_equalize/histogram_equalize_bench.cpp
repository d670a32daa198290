// The generated histogram equalization against the C++ reference on the
// synthetic image at benchmark size (8-bit gray). Bytes counted: input +
// output.
#include "common/bench_util.h"
#include "histogram_equalize_aot.h"
#include "histogram_equalize_reference.h"

namespace {

struct Data {
    apps::Buffer<uint8_t> input, output, expected;
    Data() {
        apps::Buffer<uint16_t> gray16 = apps::to_gray(apps::bench_image16());
        input = apps::Buffer<uint8_t>(gray16.dim(0).extent(), gray16.dim(1).extent());
        input.for_each_element([&](int x, int y) { input(x, y) = static_cast<uint8_t>(gray16(x, y) >> 8); });
        output = apps::Buffer<uint8_t>(input.dim(0).extent(), input.dim(1).extent());
        expected = apps::Buffer<uint8_t>(input.dim(0).extent(), input.dim(1).extent());
        apps::histogram_equalize_reference(input, expected);
    }
    double bytes() const { return 2.0 * input.number_of_elements(); }
};

Data &data() {
    static Data d;
    return d;
}

void loom_histogram_equalize(benchmark::State &state) {
    Data &d = data();
    apps::run_benchmark(
        state,
        [&] {
            return histogram_equalize(d.input, d.output) ? "histogram_equalize failed"
                                                         : apps::mismatch(d.output, d.expected, 0);
        },
        [&] { return histogram_equalize(d.input, d.output); }, d.bytes());
}

void cpp_histogram_equalize(benchmark::State &state) {
    Data &d = data();
    apps::run_benchmark(
        state, [] { return std::string(); },
        [&] {
            apps::histogram_equalize_reference(d.input, d.output);
            return 0;
        },
        d.bytes());
}

}  // namespace

BENCHMARK(loom_histogram_equalize)->Name("histogram_equalize/loom")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(cpp_histogram_equalize)->Name("histogram_equalize/cpp")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_MAIN();
