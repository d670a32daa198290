// A sliding window along a vectorized dimension (issue 12): f, a polynomial
// of the input, stored for the whole image and computed at each column x of
// g(x, y) = f(x - 1, y) + 3 f(x, y) + f(x + 2, y), vectorized along x by 8
// with GuardWithIf. The window slides in whole vectors (one vector of f
// every 8 columns of g); before, its steady state computed one guarded
// scalar column per iteration, as BM_SlidingScalar (the same window, f not
// vectorized) still does. BM_RowVectorized is the non-sliding schedule: f
// computed per row of g, vectorized by 8. g itself is scalar in all three.
//
//   ./build/bench/bench_sliding_vector --benchmark_repetitions=5 \
//     --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <loom/Loom.h>

namespace {

constexpr int kWidth = 2048, kHeight = 256;

enum class Schedule { SlidingVectorized, SlidingScalar, RowVectorized };

struct Stencil {
    loom::ImageParam in{loom::Float(32), 2, "in"};
    loom::Var x{"x"}, y{"y"};
    loom::Func f{"f"}, g{"g"};
    explicit Stencil(Schedule s) {
        loom::Expr v = in(x, y);
        loom::Expr p = 0.25f;
        for (int k = 1; k <= 8; k++) p = p * v + float(k) * 0.125f;  // Horner, degree 8
        f(x, y) = p;
        g(x, y) = f(x - 1, y) + f(x, y) * 3.0f + f(x + 2, y);
        switch (s) {
        case Schedule::SlidingVectorized:
            f.store_root().compute_at(g, x).vectorize(x, 8, loom::TailStrategy::GuardWithIf);
            break;
        case Schedule::SlidingScalar: f.store_root().compute_at(g, x); break;
        case Schedule::RowVectorized: f.compute_at(g, y).vectorize(x, 8); break;
        }
    }
};

void run(benchmark::State &state, Schedule s) {
    Stencil p(s);
    loom::Buffer<float> input(kWidth + 3, kHeight);
    input.set_min({-1, 0});
    input.fill([](int i, int j) { return float((i * 7 + j * 13) % 64) / 64.0f; });
    p.in.set(input);
    loom::Buffer<float> out(kWidth, kHeight);
    p.g.realize(out);  // compiles
    for (auto _ : state) {
        p.g.realize(out);
        benchmark::DoNotOptimize(out.data());
    }
    state.SetItemsProcessed(int64_t(state.iterations()) * kWidth * kHeight);
}

void BM_SlidingVectorized(benchmark::State &state) { run(state, Schedule::SlidingVectorized); }
void BM_SlidingScalar(benchmark::State &state) { run(state, Schedule::SlidingScalar); }
void BM_RowVectorized(benchmark::State &state) { run(state, Schedule::RowVectorized); }
BENCHMARK(BM_SlidingVectorized)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SlidingScalar)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_RowVectorized)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
