// bench_lowering: how long lowering takes (Funcs to the lowered statement, no
// code generation), for Loom and for Halide 14 with the same pipelines and
// schedules, in one run: the pipelines of issue 12's lowering-time targets
// (lowering_pipelines.h). Each iteration defines the pipeline anew and
// writes its lowered statement to a file in the temporary folder.
//
//   build/bench/lowering/bench_lowering --benchmark_repetitions=3
//
// The Time column is wall clock, CPU the benchmark thread's CPU time (the
// steadier one on a busy machine). Results: docs/PERFORMANCE.md, "Lowering
// time".
#include <benchmark/benchmark.h>

#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>

#include "lowering_pipelines.h"

namespace {

using LowerFn = void (*)(int, const std::string &);

void run(benchmark::State &state, LowerFn lower, const char *language) {
    const int size = int(state.range(0));
    const std::string stmt =
        (std::filesystem::temp_directory_path() / ("bench_lowering." + std::string(language) + ".stmt")).string();
    for (auto _ : state) {
        try {
            lower(size, stmt);
        } catch (const std::exception &e) {
            state.SkipWithError(e.what());
            return;
        }
    }
    std::error_code error;
    const auto bytes = std::filesystem::file_size(stmt, error);
    if (error || bytes == 0) {
        state.SkipWithError("no lowered statement was written");
        return;
    }
    state.counters["stmt_bytes"] = double(bytes);
    std::filesystem::remove(stmt, error);
}

#define LOOM_BENCH_LOWERING(name, dsl, ...)                                                                          \
    void name##_##dsl(benchmark::State &state) { run(state, bench_lowering::dsl::lower_##name, #dsl); }               \
    BENCHMARK(name##_##dsl)->Unit(benchmark::kMillisecond)->Name(#name "/" #dsl) __VA_ARGS__;

LOOM_BENCH_LOWERING(vectorized_chain, loom_dsl, ->Arg(16)->Arg(64))
LOOM_BENCH_LOWERING(inlined_select_chain, loom_dsl, ->Arg(12)->Arg(64))
LOOM_BENCH_LOWERING(inlined_select_chain_vectorized, loom_dsl, ->Arg(8))
LOOM_BENCH_LOWERING(local_laplacian, loom_dsl, ->Arg(8))
#ifdef LOOM_BENCH_HAVE_HALIDE
LOOM_BENCH_LOWERING(vectorized_chain, halide14, ->Arg(16)->Arg(64))
LOOM_BENCH_LOWERING(inlined_select_chain, halide14, ->Arg(12))  // 64: exponential in Halide 14
LOOM_BENCH_LOWERING(inlined_select_chain_vectorized, halide14, ->Arg(8))
LOOM_BENCH_LOWERING(local_laplacian, halide14, ->Arg(8))
#endif

}  // namespace

BENCHMARK_MAIN();
