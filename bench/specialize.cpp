// Specialization on the input's stride (Stage::specialize): the same
// brighten pipeline over a 2048x1024 RGB uint8 image, compiled to accept any
// stride in dimension 0 (in.dim(0).set_stride(Expr())). Without a
// specialization x is indexed with the run-time stride, so the vectorized
// loop gathers; with specialize(in.dim(0).stride() == 1) a planar image
// takes a copy of the loop that Loom compiles with stride 1 (dense vector
// loads). A plain C++ loop over the planar image is the peer.
//
//   ./build/bench/bench_specialize --benchmark_repetitions=5 \
//     --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <algorithm>

#include <loom/Loom.h>

namespace {

constexpr int kWidth = 2048, kHeight = 1024, kChannels = 3;

struct Brighten {
    loom::ImageParam in{loom::UInt(8), 3, "in"};
    loom::Var x{"x"}, y{"y"}, c{"c"};
    loom::Func f{"brighten"};
    explicit Brighten(bool specialized) {
        in.dim(0).set_stride(loom::Expr());
        f(x, y, c) = loom::cast<uint8_t>(loom::min(loom::cast<int>(in(x, y, c)) * 3 / 2 + 5, 255));
        f.vectorize(x, 32);
        if (specialized) f.specialize(in.dim(0).stride() == 1).vectorize(x, 32);
    }
};

loom::Buffer<uint8_t> image(bool interleaved) {
    loom::Buffer<uint8_t> b = interleaved ? loom::Buffer<uint8_t>::make_interleaved(kWidth, kHeight, kChannels)
                                          : loom::Buffer<uint8_t>(kWidth, kHeight, kChannels);
    b.fill([](int i, int j, int k) { return uint8_t(i * 7 + j * 13 + k * 51); });
    return b;
}

void run(benchmark::State &state, bool specialized, bool interleaved) {
    Brighten p(specialized);
    loom::Buffer<uint8_t> input = image(interleaved), out(kWidth, kHeight, kChannels);
    p.in.set(input);
    p.f.realize(out);  // compiles
    for (auto _ : state) {
        p.f.realize(out);
        benchmark::DoNotOptimize(out.data());
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * 2 * kWidth * kHeight * kChannels);
}

void BM_LoomAnyStridePlanar(benchmark::State &state) { run(state, false, false); }
void BM_LoomSpecializedPlanar(benchmark::State &state) { run(state, true, false); }
void BM_LoomAnyStrideInterleaved(benchmark::State &state) { run(state, false, true); }
void BM_LoomSpecializedInterleaved(benchmark::State &state) { run(state, true, true); }
BENCHMARK(BM_LoomAnyStridePlanar)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_LoomSpecializedPlanar)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_LoomAnyStrideInterleaved)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_LoomSpecializedInterleaved)->Unit(benchmark::kMicrosecond);

void BM_CppPlanar(benchmark::State &state) {
    loom::Buffer<uint8_t> input = image(false), out(kWidth, kHeight, kChannels);
    const uint8_t *in = input.data();
    uint8_t *o = out.data();
    const size_t n = size_t(kWidth) * kHeight * kChannels;
    for (auto _ : state) {
        for (size_t i = 0; i < n; i++) o[i] = uint8_t(std::min(in[i] * 3 / 2 + 5, 255));
        benchmark::DoNotOptimize(o);
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * 2 * int64_t(n));
}
BENCHMARK(BM_CppPlanar)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
