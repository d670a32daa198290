// The generated local Laplacian filter (8 levels) against the C++ reference
// on the synthetic RGB image at benchmark size (16 bits), alpha 1, beta 1.
// Bytes counted: input + output.
#include "common/bench_util.h"
#include "local_laplacian_aot.h"
#include "local_laplacian_reference.h"

namespace {

constexpr float kAlpha = 1.0f, kBeta = 1.0f;
constexpr double kTolerance = 8;

struct Data {
    apps::Buffer<uint16_t> input, output, expected;
    Data() : input(apps::bench_image16()) {
        output = apps::Buffer<uint16_t>(input.dim(0).extent(), input.dim(1).extent(), 3);
        expected = apps::Buffer<uint16_t>(input.dim(0).extent(), input.dim(1).extent(), 3);
        apps::local_laplacian_reference(input, 8, kAlpha, kBeta, expected);
    }
    double bytes() const { return 2.0 * input.number_of_elements() * sizeof(uint16_t); }
};

Data &data() {
    static Data d;
    return d;
}

void loom_local_laplacian(benchmark::State &state) {
    Data &d = data();
    apps::run_benchmark(
        state,
        [&] {
            return local_laplacian(d.input, kAlpha, kBeta, d.output) ? "local_laplacian failed"
                                                                    : apps::mismatch(d.output, d.expected, kTolerance);
        },
        [&] { return local_laplacian(d.input, kAlpha, kBeta, d.output); }, d.bytes());
}

void cpp_local_laplacian(benchmark::State &state) {
    Data &d = data();
    apps::run_benchmark(
        state, [] { return std::string(); },
        [&] {
            apps::local_laplacian_reference(d.input, 8, kAlpha, kBeta, d.output);
            return 0;
        },
        d.bytes());
}

}  // namespace

BENCHMARK(loom_local_laplacian)->Name("local_laplacian/loom")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(cpp_local_laplacian)->Name("local_laplacian/cpp")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_MAIN();
