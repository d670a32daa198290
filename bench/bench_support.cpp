// Sizes, checks and the benchmark runners shared by every workload.
#include "bench_common.h"

#include <cmath>
#include <cstring>
#include <exception>
#include <fstream>
#include <sstream>
#include <thread>

namespace bench {

namespace {

int env_int(const char *name, int fallback) {
    const char *v = std::getenv(name);
    if (!v || !*v) return fallback;
    int n = std::atoi(v);
    return n > 0 ? n : fallback;
}

template<typename T>
std::string value_text(T v) {
    std::ostringstream os;
    if constexpr (std::is_floating_point_v<T>) {
        os.precision(9);
        os << v;
    } else {
        os << int64_t(v);
    }
    return os.str();
}

template<typename T>
bool same_value(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
        return a == b || (std::isnan(a) && std::isnan(b));
    } else {
        return a == b;
    }
}

template<typename T>
std::string compare_any(const std::string &who, const T *got, const T *want, int width, int height) {
    size_t differing = 0;
    int first_x = -1, first_y = -1;
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) {
            size_t i = size_t(y) * size_t(width) + size_t(x);
            if (same_value(got[i], want[i])) continue;
            if (differing++ == 0) {
                first_x = x;
                first_y = y;
            }
        }
    }
    if (differing == 0) return "";
    size_t i = size_t(first_y) * size_t(width) + size_t(first_x);
    return who + " differs from plain C++: first at (" + std::to_string(first_x) + ", " + std::to_string(first_y) +
           ") got " + value_text(got[i]) + ", expected " + value_text(want[i]) + "; " + std::to_string(differing) +
           " of " + std::to_string(size_t(width) * size_t(height)) + " values differ";
}

std::string stmt_path(const std::string &workload, const char *dsl) {
    const char *dir = std::getenv("LOOM_BENCH_STMT_DIR");
    if (!dir || !*dir) return "";
    return std::string(dir) + "/" + workload + "." + dsl + ".stmt";
}

}  // namespace

int image_size() { return env_int("LOOM_BENCH_IMAGE", 4096); }
int matmul_size() { return env_int("LOOM_BENCH_MATMUL", 1024); }

int thread_count() {
    int fallback = int(std::thread::hardware_concurrency());
    return env_int("LOOM_NUM_THREADS", fallback > 0 ? fallback : 1);
}

uint32_t next_random(uint64_t &state, uint32_t bound) {
    // SplitMix64: cheap, deterministic, good enough for test images.
    state += 0x9e3779b97f4a7c15ull;
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return uint32_t(z % bound);
}

std::string compare_2d(const std::string &who, const uint16_t *got, const uint16_t *want, int width, int height) {
    return compare_any(who, got, want, width, height);
}
std::string compare_2d(const std::string &who, const int32_t *got, const int32_t *want, int width, int height) {
    return compare_any(who, got, want, width, height);
}
std::string compare_2d(const std::string &who, const float *got, const float *want, int width, int height) {
    return compare_any(who, got, want, width, height);
}

void run_checked(benchmark::State &state, Verdict &verdict, const std::function<std::string()> &verify,
                 const std::function<void()> &once, double bytes, double flops) {
    if (!verdict.checked) {
        verdict.checked = true;
        try {
            verdict.error = verify();
        } catch (const std::exception &e) {
            verdict.error = std::string("threw: ") + e.what();
        }
    }
    if (!verdict.error.empty()) {
        state.SkipWithError(verdict.error.c_str());
        return;
    }
    try {
        for (auto _ : state) {
            once();
        }
    } catch (const std::exception &e) {
        verdict.error = std::string("threw while timed: ") + e.what();
        state.SkipWithError(verdict.error.c_str());
        return;
    }
    if (bytes > 0) state.counters["bytes"] = bytes;
    if (flops > 0) state.counters["flops"] = flops;
}

void run_compile(benchmark::State &state, bool &warmed, const std::function<void()> &compile) {
    try {
        // The first compile in a process also pays one-time set-up (LLVM
        // target registration, Halide's shared runtime module): keep it out.
        if (!warmed) {
            compile();
            warmed = true;
        }
        for (auto _ : state) {
            compile();
        }
    } catch (const std::exception &e) {
        std::string message = std::string("compile failed: ") + e.what();
        state.SkipWithError(message.c_str());
    }
}

benchmark::internal::Benchmark *register_run(const std::string &name, std::function<void(benchmark::State &)> fn) {
    return benchmark::RegisterBenchmark(name.c_str(), std::move(fn))
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->MinTime(0.2);
}

benchmark::internal::Benchmark *register_compile(const std::string &name,
                                                 std::function<void(benchmark::State &)> fn) {
    return benchmark::RegisterBenchmark(name.c_str(), std::move(fn))
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->Iterations(1);
}

void dump_loom_stmt(loom::Func &output, const std::string &workload) {
    std::string path = stmt_path(workload, "loom");
    if (path.empty()) return;
    try {
        output.compile_to_lowered_stmt(path, loom::get_jit_target_from_environment());
    } catch (const std::exception &e) {
        std::ofstream(path) << "compile_to_lowered_stmt failed: " << e.what() << "\n";
    }
}

#ifdef LOOM_BENCH_HAVE_HALIDE
Halide::Target halide_target() {
    static const Halide::Target target = Halide::get_jit_target_from_environment();
    return target;
}

void dump_halide_stmt(Halide::Func &output, const std::string &workload) {
    std::string path = stmt_path(workload, "halide");
    if (path.empty()) return;
    output.compile_to_lowered_stmt(path, output.infer_arguments(), Halide::Text, halide_target());
    std::string assembly = path.substr(0, path.size() - 5) + ".s";
    output.compile_to_assembly(assembly, output.infer_arguments(), halide_target());
}
#endif

}  // namespace bench
