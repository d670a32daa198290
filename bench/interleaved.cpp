// Interleaved RGB as Halide's lesson 16 schedules it: brighten over a
// 1024x768x3 uint8 image with stride 3 in x (input and output constrained to
// it, dim(2) of extent 3 and stride 1), channels unrolled and x vectorized
// by 16, against the planar image (x vectorized, stride 1) and a plain C++
// loop over the interleaved bytes. Lowering makes the stride-3 accesses
// dense loads and one dense store of the three channels interleaved
// (lower/DenseStridedAccesses.h); without it each lane was one scalar
// access.
//
//   ./build/bench/bench_interleaved --benchmark_repetitions=5 \
//     --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <loom/Loom.h>

namespace {

constexpr int kWidth = 1024, kHeight = 768, kChannels = 3;

struct Brighten {
    loom::ImageParam in{loom::UInt(8), 3, "in"};
    loom::Var x{"x"}, y{"y"}, c{"c"};
    loom::Func f{"brighten"};
    explicit Brighten(bool interleaved) {
        f(x, y, c) = in(x, y, c) + loom::cast<uint8_t>(10);
        f.vectorize(x, 16);
        if (!interleaved) return;
        in.dim(0).set_stride(kChannels).dim(2).set_stride(1).set_bounds(0, kChannels);
        f.output_buffer().dim(0).set_stride(kChannels).dim(2).set_stride(1).set_bounds(0, kChannels);
        f.reorder(c, x, y).unroll(c);
    }
};

loom::Buffer<uint8_t> image(bool interleaved) {
    loom::Buffer<uint8_t> b = interleaved ? loom::Buffer<uint8_t>::make_interleaved(kWidth, kHeight, kChannels)
                                          : loom::Buffer<uint8_t>(kWidth, kHeight, kChannels);
    b.fill([](int i, int j, int k) { return uint8_t(i * 7 + j * 13 + k * 51); });
    return b;
}

void run(benchmark::State &state, bool interleaved) {
    Brighten p(interleaved);
    loom::Buffer<uint8_t> input = image(interleaved), out = image(interleaved);
    p.in.set(input);
    p.f.realize(out);  // compiles
    for (auto _ : state) {
        p.f.realize(out);
        benchmark::DoNotOptimize(out.data());
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * 2 * kWidth * kHeight * kChannels);
}

void BM_LoomPlanar(benchmark::State &state) { run(state, false); }
void BM_LoomInterleaved(benchmark::State &state) { run(state, true); }
BENCHMARK(BM_LoomPlanar)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_LoomInterleaved)->Unit(benchmark::kMicrosecond);

void BM_CppInterleaved(benchmark::State &state) {
    loom::Buffer<uint8_t> input = image(true), out = image(true);
    const uint8_t *in = input.data();
    uint8_t *o = out.data();
    const size_t n = size_t(kWidth) * kHeight * kChannels;
    for (auto _ : state) {
        for (size_t i = 0; i < n; i++) o[i] = uint8_t(in[i] + 10);
        benchmark::DoNotOptimize(o);
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * 2 * int64_t(n));
}
BENCHMARK(BM_CppInterleaved)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
