// bench_pipelines: the five scheduling workloads in Loom, Halide 14 and
// plain C++, their JIT compile times, and a memory-bandwidth triad, in one
// process. scripts/bench.sh builds it, runs it and prints the ratio table.
//
//   HL_JIT_TARGET=x86-64-linux-avx-avx2-f16c-fma-sse41 build/bench/bench_pipelines
//       --benchmark_repetitions=10      (on one line)
//
// `--loom_compile_breakdown[=N]` instead times each phase of Loom's JIT
// compile (lowering, IR generation, LLVM optimisation, instruction
// selection) per workload.
//
// Unset thread counts default to the number of cores (all three runtimes
// get the same one). Every Loom and Halide result is compared with the C++
// result before it is timed; a mismatch or a compile failure is reported
// as that benchmark's error instead of a time.
#include "bench_common.h"

#include <algorithm>
#include <cstdio>
#include <thread>

namespace {

// Every runtime reads its thread count at start-up, so set them first.
void set_thread_counts() {
    const char *loom = std::getenv("LOOM_NUM_THREADS");
    std::string n = (loom && *loom) ? std::string(loom) : std::to_string(std::thread::hardware_concurrency());
    setenv("LOOM_NUM_THREADS", n.c_str(), 0);
    setenv("HL_NUM_THREADS", n.c_str(), 0);
    setenv("OMP_NUM_THREADS", n.c_str(), 0);
}

std::string env_or(const char *name, const char *fallback) {
    const char *v = std::getenv(name);
    return (v && *v) ? std::string(v) : std::string(fallback);
}

}  // namespace

int main(int argc, char **argv) {
    set_thread_counts();
    for (int i = 1; i < argc; i++) {
        std::string arg = argv[i];
        if (arg.rfind("--loom_compile_breakdown", 0) == 0) {
            size_t eq = arg.find('=');
            int reps = eq == std::string::npos ? 5 : std::max(1, std::atoi(arg.c_str() + eq + 1));
            return bench::run_compile_breakdown(reps);
        }
    }
    bench::register_machine();
    bench::register_blur();
    bench::register_histogram();
    bench::register_matmul();
    bench::register_iir();
    bench::register_summed_area();
    bench::register_vulkan_dispatch();

    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

    benchmark::AddCustomContext("loom_jit_target", loom::get_jit_target_from_environment().to_string());
#ifdef LOOM_BENCH_HAVE_HALIDE
    benchmark::AddCustomContext("halide_jit_target", bench::halide_target().to_string());
#else
    benchmark::AddCustomContext("halide_jit_target", "none (Halide 14 not found at configure time)");
#endif
    benchmark::AddCustomContext("threads", std::to_string(bench::thread_count()));
    benchmark::AddCustomContext("omp_num_threads", env_or("OMP_NUM_THREADS", "?"));
    benchmark::AddCustomContext("hl_num_threads", env_or("HL_NUM_THREADS", "?"));
    benchmark::AddCustomContext("image_size", std::to_string(bench::image_size()));
    benchmark::AddCustomContext("matmul_size", std::to_string(bench::matmul_size()));

    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
