// What the large_buffers, profile and debug target features cost at run
// time: a 3x3 box blur of a 2048x2048 uint16 image (blur_x computed per
// 64x32 tile of blur_y, vectorized, rows of tiles in parallel), realized
// for the JIT's host target with and without each feature, and a plain C++
// loop as the peer. large_buffers computes every index in 64 bits; profile
// adds a store of the current Func at each production (here: one per tile),
// a sampling thread and the report after each realize; debug adds a line per call, check and
// allocation (one per tile), printed to a handler that drops it.
//
// The SerialRows variants run on one thread (no parallel loop) and compute
// blur_x per row of a tile (65536 productions per realize, each a switch of
// the profiler's current Func and back): the case a sampling profiler is
// for, since a switch is a store and the clock is read only by the sampling
// thread. They report the CPU time of the thread that runs the pipeline,
// which the sampling thread does not add to, and are steadier than the
// real time on a busy machine.
//
//   ./build/bench/bench_target_features --benchmark_repetitions=5 \
//     --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <vector>

#include <loom/Loom.h>

namespace {

constexpr int kSize = 2048;

struct Blur {
    loom::ImageParam in{loom::UInt(16), 2, "in"};
    loom::Var x{"x"}, y{"y"}, xi{"xi"}, yi{"yi"};
    loom::Func blur_x{"blur_x"}, blur_y{"blur_y"};
    explicit Blur(bool serial_rows = false) {
        blur_x(x, y) = (in(x, y) + in(x + 1, y) + in(x + 2, y)) / 3;
        blur_y(x, y) = (blur_x(x, y) + blur_x(x, y + 1) + blur_x(x, y + 2)) / 3;
        blur_y.tile(x, y, xi, yi, 64, 32).vectorize(xi, 16);
        if (serial_rows) {
            blur_x.store_at(blur_y, x).compute_at(blur_y, yi).vectorize(x, 16);
        } else {
            blur_y.parallel(y);
            blur_x.compute_at(blur_y, x).vectorize(x, 16);
        }
        blur_y.jit_handlers().custom_print = [](loom::JITUserContext *, const char *) {};
    }
};

void run(benchmark::State &state, const loom::Target &target, bool serial_rows = false) {
    Blur p(serial_rows);
    loom::Buffer<uint16_t> input(kSize + 2, kSize + 2), out(kSize, kSize);
    input.fill([](int i, int j) { return uint16_t(i * 7 + j * 13); });
    p.in.set(input);
    p.blur_y.realize(out, target);  // compiles
    for (auto _ : state) {
        p.blur_y.realize(out, target);
        benchmark::DoNotOptimize(out.data());
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * 2 * 2 * kSize * kSize);
}

loom::Target host() { return loom::get_jit_target_from_environment(); }

void BM_Plain(benchmark::State &state) { run(state, host()); }
void BM_LargeBuffers(benchmark::State &state) { run(state, host().with_feature(loom::Target::LargeBuffers)); }
void BM_Profile(benchmark::State &state) { run(state, host().with_feature(loom::Target::Profile)); }
void BM_Debug(benchmark::State &state) { run(state, host().with_feature(loom::Target::Debug)); }
BENCHMARK(BM_Plain)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_LargeBuffers)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_Profile)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_Debug)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_PlainSerialRows(benchmark::State &state) { run(state, host(), true); }
void BM_ProfileSerialRows(benchmark::State &state) { run(state, host().with_feature(loom::Target::Profile), true); }
BENCHMARK(BM_PlainSerialRows)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ProfileSerialRows)->Unit(benchmark::kMicrosecond);

void BM_Cpp(benchmark::State &state) {
    loom::Buffer<uint16_t> input(kSize + 2, kSize + 2), out(kSize, kSize);
    input.fill([](int i, int j) { return uint16_t(i * 7 + j * 13); });
    const uint16_t *in = input.data();
    uint16_t *o = out.data();
    const size_t stride = kSize + 2;
    std::vector<uint16_t> row(size_t(kSize) * 3);
    for (auto _ : state) {
        for (int y = 0; y < kSize; y++) {
            for (int r = 0; r < 3; r++) {
                const uint16_t *src = in + (size_t(y) + r) * stride;
                for (int x = 0; x < kSize; x++) row[size_t(r) * kSize + x] = uint16_t((src[x] + src[x + 1] + src[x + 2]) / 3);
            }
            for (int x = 0; x < kSize; x++) {
                o[size_t(y) * kSize + x] = uint16_t((row[x] + row[kSize + x] + row[2 * size_t(kSize) + x]) / 3);
            }
        }
        benchmark::DoNotOptimize(o);
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * 2 * 2 * kSize * kSize);
}
BENCHMARK(BM_Cpp)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
