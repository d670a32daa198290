// Per-call cost of running an already compiled pipeline: Loom's realize()
// into a buffer, a Callable (variadic, std::function, with a
// JITUserContext), Halide 14's realize() (Halide 14 has no Callable), and
// the same work as a plain C++ loop. The work is tiny (64 int32 adds) so
// the fixed cost of a call dominates.
//
//   ./build/bench/bench_callable_overhead --benchmark_repetitions=5 \
//     --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <loom/Loom.h>

#ifdef LOOM_BENCH_HAVE_HALIDE
#include <Halide.h>
#endif

namespace {

constexpr int kSize = 64;

struct LoomOffset {
    loom::ImageParam in{loom::Int(32), 1, "in"};
    loom::Param<int32_t> k{"k"};
    loom::Var x{"x"};
    loom::Func f{"f"};
    loom::Buffer<int32_t> input{kSize}, out{kSize};
    LoomOffset() {
        f(x) = in(x) + k;
        input.fill(1);
        in.set(input);
    }
};

void BM_LoomRealizeInto(benchmark::State &state) {
    LoomOffset p;
    p.f.compile_jit();
    int32_t k = 0;
    for (auto _ : state) {
        p.k.set(k++);
        p.f.realize(p.out);
        benchmark::DoNotOptimize(p.out.data());
    }
}
BENCHMARK(BM_LoomRealizeInto);

void BM_LoomCallable(benchmark::State &state) {
    LoomOffset p;
    loom::Callable c = p.f.compile_to_callable({p.in, p.k});
    int32_t k = 0;
    for (auto _ : state) {
        if (c(p.input, k++, p.out) != 0) state.SkipWithError("call failed");
        benchmark::DoNotOptimize(p.out.data());
    }
}
BENCHMARK(BM_LoomCallable);

void BM_LoomCallableStdFunction(benchmark::State &state) {
    LoomOffset p;
    loom::Callable c = p.f.compile_to_callable({p.in, p.k});
    auto fn = c.make_std_function<loom::Buffer<int32_t>, int32_t, loom::Buffer<int32_t>>();
    int32_t k = 0;
    for (auto _ : state) {
        if (fn(p.input, k++, p.out) != 0) state.SkipWithError("call failed");
        benchmark::DoNotOptimize(p.out.data());
    }
}
BENCHMARK(BM_LoomCallableStdFunction);

void BM_LoomCallableWithContext(benchmark::State &state) {
    LoomOffset p;
    loom::Callable c = p.f.compile_to_callable({p.in, p.k});
    loom::JITUserContext context;
    int32_t k = 0;
    for (auto _ : state) {
        if (c(&context, p.input, k++, p.out) != 0) state.SkipWithError("call failed");
        benchmark::DoNotOptimize(p.out.data());
    }
}
BENCHMARK(BM_LoomCallableWithContext);

#ifdef LOOM_BENCH_HAVE_HALIDE
void BM_Halide14RealizeInto(benchmark::State &state) {
    Halide::ImageParam in(Halide::Int(32), 1, "in");
    Halide::Param<int32_t> k("k");
    Halide::Var x("x");
    Halide::Func f("f");
    f(x) = in(x) + k;
    Halide::Buffer<int32_t> input(kSize), out(kSize);
    input.fill(1);
    in.set(input);
    f.compile_jit();
    int32_t value = 0;
    for (auto _ : state) {
        k.set(value++);
        f.realize(out);
        benchmark::DoNotOptimize(out.data());
    }
}
BENCHMARK(BM_Halide14RealizeInto);
#endif

void BM_PlainCppLoop(benchmark::State &state) {
    std::vector<int32_t> input(kSize, 1), out(kSize);
    int32_t k = 0;
    for (auto _ : state) {
        const int32_t kk = k++;
        for (int i = 0; i < kSize; i++) out[i] = input[i] + kk;
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
}
BENCHMARK(BM_PlainCppLoop);

}  // namespace

BENCHMARK_MAIN();
