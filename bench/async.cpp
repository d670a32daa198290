// Func::async with ring_buffer(2): a producer and its consumer of about equal
// cost per pixel over 64x64 tiles of a 1024x1024 image. Without async() the
// producer of a tile runs, then its consumer, on one thread. With async() the
// producer of tile i + 1 runs on a fork thread while the consumer reads tile
// i (double buffering: hoist_storage at the tile row, ring_buffer(2)), so on
// two free cores the run takes about half as long. Each schedule is measured
// with 1 pool thread (no parallel loops here; the fork thread is not the
// pool's). The peer is the same work as plain C++ loops, tile by tile, on
// one thread.
//
//   ./build/bench/bench_async --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cmath>
#include <vector>

#include <loom/Loom.h>

namespace {

constexpr int kSize = 1024, kTile = 64, kRounds = 6;

// v -> v * 0.5 + sin(v), kRounds times: the cost per pixel of each stage.
loom::Expr churn(loom::Expr v) {
    for (int i = 0; i < kRounds; i++) v = v * 0.5f + loom::sin(v);
    return v;
}
float churn(float v) {
    for (int i = 0; i < kRounds; i++) v = v * 0.5f + std::sin(v);
    return v;
}

struct Pipeline {
    loom::Var x{"x"}, y{"y"}, xo{"xo"}, yo{"yo"}, xi{"xi"}, yi{"yi"};
    loom::Func producer{"producer"}, consumer{"consumer"};
    explicit Pipeline(bool async) {
        producer(x, y) = churn(loom::cast<float>(x + y) * 0.001f);
        consumer(x, y) = churn(producer(x, y) + producer(x + 1, y) + producer(x, y + 1));
        consumer.compute_root().tile(x, y, xo, yo, xi, yi, kTile, kTile).vectorize(xi, 8);
        producer.compute_at(consumer, xo).vectorize(x, 8);
        if (async) producer.hoist_storage(consumer, yo).ring_buffer(2).async();
    }
};

void run(benchmark::State &state, bool async) {
    const int previous = loom_set_num_threads(1);
    Pipeline p(async);
    loom::Buffer<float> out(kSize, kSize);
    p.consumer.realize(out);  // compiles
    for (auto _ : state) {
        p.consumer.realize(out);
        benchmark::DoNotOptimize(out.data());
    }
    loom_set_num_threads(previous);
    state.SetItemsProcessed(int64_t(state.iterations()) * kSize * kSize);
}

void BM_LoomProducerThenConsumer(benchmark::State &state) { run(state, false); }
void BM_LoomAsyncRingBuffer2(benchmark::State &state) { run(state, true); }
BENCHMARK(BM_LoomProducerThenConsumer)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_LoomAsyncRingBuffer2)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_CppTiles(benchmark::State &state) {
    std::vector<float> out(size_t(kSize) * kSize), tile(size_t(kTile + 1) * (kTile + 1));
    for (auto _ : state) {
        for (int ty = 0; ty < kSize; ty += kTile) {
            for (int tx = 0; tx < kSize; tx += kTile) {
                for (int y = 0; y <= kTile; y++)
                    for (int x = 0; x <= kTile; x++)
                        tile[size_t(y) * (kTile + 1) + x] = churn(float(tx + x + ty + y) * 0.001f);
                for (int y = 0; y < kTile; y++)
                    for (int x = 0; x < kTile; x++) {
                        const float *t = &tile[size_t(y) * (kTile + 1) + x];
                        out[size_t(ty + y) * kSize + tx + x] = churn(t[0] + t[1] + t[kTile + 1]);
                    }
            }
        }
        benchmark::DoNotOptimize(out.data());
    }
    state.SetItemsProcessed(int64_t(state.iterations()) * kSize * kSize);
}
BENCHMARK(BM_CppTiles)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
