// JIT compile time of a two-stage 3x3 box blur (blur_x computed at root),
// Loom beside Halide 14 in the same process. Each iteration defines the
// pipeline afresh and compiles it, so nothing is cached between iterations.
//
//   HL_JIT_TARGET=x86-64-linux-avx512-avx512_skylake-avx512_cannonlake \
//     ./build/bench/bench_jit_compile --benchmark_repetitions=10 \
//     --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <loom/Loom.h>

#ifdef LOOM_BENCH_HAVE_HALIDE
#include <Halide.h>
#endif

namespace {

void BM_LoomCompileBlur(benchmark::State &state) {
    for (auto _ : state) {
        loom::ImageParam input(loom::UInt(16), 2, "input");
        loom::Var x("x"), y("y");
        loom::Func blur_x("blur_x"), blur_y("blur_y");
        blur_x(x, y) = (input(x - 1, y) + input(x, y) + input(x + 1, y)) / 3;
        blur_y(x, y) = (blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) / 3;
        blur_x.compute_root();
        blur_y.compile_jit();
        benchmark::DoNotOptimize(blur_y);
    }
}
BENCHMARK(BM_LoomCompileBlur)->Unit(benchmark::kMillisecond)->Iterations(1);

#ifdef LOOM_BENCH_HAVE_HALIDE
void BM_Halide14CompileBlur(benchmark::State &state) {
    for (auto _ : state) {
        Halide::ImageParam input(Halide::UInt(16), 2, "input");
        Halide::Var x("x"), y("y");
        Halide::Func blur_x("blur_x"), blur_y("blur_y");
        blur_x(x, y) = (input(x - 1, y) + input(x, y) + input(x + 1, y)) / 3;
        blur_y(x, y) = (blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) / 3;
        blur_x.compute_root();
        blur_y.compile_jit(Halide::get_jit_target_from_environment());
        benchmark::DoNotOptimize(blur_y);
    }
}
BENCHMARK(BM_Halide14CompileBlur)->Unit(benchmark::kMillisecond)->Iterations(1);
#endif

}  // namespace

BENCHMARK_MAIN();
