// bench_apps: each app of apps/ timed three ways in one run, on the same
// input, each result compared with the C++ reference first:
//
//   <app>/loom      the app's algorithm and CPU schedule, Loom's JIT
//                   (LOOM_NUM_THREADS threads)
//   <app>/halide14  the same source compiled against Halide 14, Halide's JIT
//                   (HL_JIT_TARGET, HL_NUM_THREADS threads)
//   <app>/cpp       the plain C++ reference (apps/<app>/<app>_reference.cpp,
//                   -O3 -march=native, one thread)
//   machine/fma_peak  register-only FMA chains on OMP_NUM_THREADS threads: the
//                   fp32 rate the cores reach, for matmul's share of peak
//
// Images are the apps' synthetic picture at 1920 x 1080
// (LOOM_APPS_BENCH_SIZE=WxH), matmul 1024 x 1024 (LOOM_APPS_BENCH_MATMUL=n),
// local_laplacian with 8 pyramid levels (LOOM_APPS_BENCH_LEVELS). The JIT
// compile time of the first compile is the counter compile_ms. A result
// outside the app's tolerance is reported as an error, not timed.
// scripts/bench_apps.sh runs this and prints the table.
#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <vector>
#include <functional>
#include <map>
#include <string>

#include <benchmark/benchmark.h>

#include "app_pipelines.h"
#include "bilateral_grid/bilateral_grid_reference.h"
#include "blur/blur_reference.h"
#include "common/bench_util.h"
#include "histogram_equalize/histogram_equalize_reference.h"
#include "iir_blur/iir_blur_reference.h"
#include "local_laplacian/local_laplacian_reference.h"
#include "matmul/matmul_reference.h"

namespace bench {
// bench/reference_kernels.cpp (-O3 -march=native, OpenMP).
double fma_peak_reference(long iterations);
}  // namespace bench

namespace bench_apps {
namespace {

using apps::Buffer;

int env_int(const char *name, int fallback) {
    const char *s = std::getenv(name);
    return (s && std::atoi(s) > 0) ? std::atoi(s) : fallback;
}

/** One app on one input: the reference result, and the runs of each
 * implementation into its own output. */
struct App {
    std::string name;
    double tolerance = 0;
    // Makes the compiled pipeline of a language ("loom", "halide14") writing
    // into the output of that language; null if the language is not built.
    std::function<std::unique_ptr<Runner>(const std::string &dsl)> make;
    std::function<void()> reference;           // writes `expected`
    std::function<std::string(const std::string &dsl)> check;  // "" or what differs
    double flops = 0;                          // per run (matmul)
};

template<typename T>
struct Outputs {
    std::map<std::string, Buffer<T>> by_dsl;
    Buffer<T> expected;
    Buffer<T> &of(const std::string &dsl, const Buffer<T> &shape) {
        auto it = by_dsl.find(dsl);
        if (it != by_dsl.end()) return it->second;
        std::vector<int> sizes;
        for (int d = 0; d < shape.dimensions(); d++) sizes.push_back(shape.dim(d).extent());
        return by_dsl.emplace(dsl, Buffer<T>(sizes)).first->second;
    }
    std::string check(const std::string &dsl, double tolerance) {
        std::string problem = apps::mismatch(by_dsl.at(dsl), expected, tolerance);
        if (!problem.empty() && dsl != "loom") problem.replace(problem.find("Loom"), 4, dsl);
        return problem;
    }
};

template<typename T>
Buffer<T> like(const Buffer<T> &b) {
    std::vector<int> sizes;
    for (int d = 0; d < b.dimensions(); d++) sizes.push_back(b.dim(d).extent());
    return Buffer<T>(sizes);
}

// The make_* of a language, chosen by name; null for Halide 14 when it was
// not found at configure time.
#ifdef LOOM_BENCH_HAVE_HALIDE
#define LOOM_BENCH_APPS_CALL(dsl, fn, ...) \
    ((dsl) == "loom" ? loom_dsl::fn(__VA_ARGS__) : halide14::fn(__VA_ARGS__))
#else
#define LOOM_BENCH_APPS_CALL(dsl, fn, ...) \
    ((dsl) == "loom" ? loom_dsl::fn(__VA_ARGS__) : std::unique_ptr<Runner>())
#endif

App blur_app() {
    static Buffer<uint16_t> input = apps::to_gray(apps::bench_image16());
    static Outputs<uint16_t> out;
    const int w = input.dim(0).extent(), h = input.dim(1).extent();
    out.expected = like(input);
    return {"blur", 0,
            [=](const std::string &dsl) {
                return LOOM_BENCH_APPS_CALL(dsl, make_blur, input.data(), w, h, out.of(dsl, input).data());
            },
            [] { apps::blur_reference(input, out.expected); },
            [](const std::string &dsl) { return out.check(dsl, 0); }};
}

App iir_blur_app() {
    static constexpr float kAlpha = 0.75f;
    static Buffer<float> input = apps::to_float(apps::bench_image16());
    static Outputs<float> out;
    const int w = input.dim(0).extent(), h = input.dim(1).extent();
    out.expected = like(input);
    return {"iir_blur", 1e-5,
            [=](const std::string &dsl) {
                return LOOM_BENCH_APPS_CALL(dsl, make_iir_blur, input.data(), w, h, kAlpha,
                                            out.of(dsl, input).data());
            },
            [] { apps::iir_blur_reference(input, kAlpha, out.expected); },
            [](const std::string &dsl) { return out.check(dsl, 1e-5); }};
}

App matmul_app() {
    static const int n = env_int("LOOM_APPS_BENCH_MATMUL", 1024);
    static Buffer<float> a(n, n), b(n, n);
    static Outputs<float> out;
    static bool once = [] {
        apps::Random random(3);
        a.for_each_element([&](int x, int y) { a(x, y) = float(int(random.next(5)) - 2); });
        b.for_each_element([&](int x, int y) { b(x, y) = float(int(random.next(5)) - 2); });
        return true;
    }();
    (void)once;
    out.expected = like(a);
    App app{"matmul", 0,
            [](const std::string &dsl) {
                return LOOM_BENCH_APPS_CALL(dsl, make_matmul, a.data(), b.data(), n, out.of(dsl, a).data());
            },
            [] { apps::matmul_reference(a, b, out.expected); },
            [](const std::string &dsl) { return out.check(dsl, 0); }};
    app.flops = 2.0 * n * n * double(n);
    return app;
}

App bilateral_grid_app() {
    static constexpr float kRSigma = 0.1f;
    static constexpr int kSSigma = 8;
    static Buffer<float> input = apps::to_float(apps::to_gray(apps::bench_image16()));
    static Outputs<float> out;
    const int w = input.dim(0).extent(), h = input.dim(1).extent();
    out.expected = like(input);
    return {"bilateral_grid", 1e-4,
            [=](const std::string &dsl) {
                return LOOM_BENCH_APPS_CALL(dsl, make_bilateral_grid, input.data(), w, h, kSSigma, kRSigma,
                                            out.of(dsl, input).data());
            },
            [] { apps::bilateral_grid_reference(input, kSSigma, kRSigma, out.expected); },
            [](const std::string &dsl) { return out.check(dsl, 1e-4); }};
}

App local_laplacian_app() {
    static const int levels = env_int("LOOM_APPS_BENCH_LEVELS", 8);
    static Buffer<uint16_t> input = apps::bench_image16();
    static Outputs<uint16_t> out;
    const int w = input.dim(0).extent(), h = input.dim(1).extent();
    out.expected = like(input);
    return {"local_laplacian", 8,
            [=](const std::string &dsl) {
                return LOOM_BENCH_APPS_CALL(dsl, make_local_laplacian, input.data(), w, h, levels, 1.0f, 1.0f,
                                            out.of(dsl, input).data());
            },
            [] { apps::local_laplacian_reference(input, levels, 1.0f, 1.0f, out.expected); },
            // Halide 14 contracts multiplies and adds into FMAs (unless the
            // target has strict_float), so a gray value on a step of the
            // remap table, which is indexed by truncating gray * 7 * 256,
            // can land on the neighbouring entry: one step is alpha / 256 of
            // the range, 256 in 16 bits. With strict_float it is within 8.
            [](const std::string &dsl) { return out.check(dsl, dsl == "halide14" ? 300 : 8); }};
}

App histogram_equalize_app() {
    static Buffer<uint8_t> input = [] {
        Buffer<uint16_t> gray16 = apps::to_gray(apps::bench_image16());
        Buffer<uint8_t> in(gray16.dim(0).extent(), gray16.dim(1).extent());
        in.for_each_element([&](int x, int y) { in(x, y) = static_cast<uint8_t>(gray16(x, y) >> 8); });
        return in;
    }();
    static Outputs<uint8_t> out;
    const int w = input.dim(0).extent(), h = input.dim(1).extent();
    out.expected = like(input);
    return {"histogram_equalize", 0,
            [=](const std::string &dsl) {
                return LOOM_BENCH_APPS_CALL(dsl, make_histogram_equalize, input.data(), w, h,
                                            out.of(dsl, input).data());
            },
            [] { apps::histogram_equalize_reference(input, out.expected); },
            [](const std::string &dsl) { return out.check(dsl, 0); }};
}

/** One app, shared by its three benchmarks; the reference result is made
 * once, by whichever benchmark of the app runs first. */
struct Registered {
    App app;
    bool reference_done = false;
    void ensure_reference() {
        if (!reference_done) app.reference();
        reference_done = true;
    }
};

void run_dsl(benchmark::State &state, Registered &r, const std::string &dsl) {
    static std::map<std::string, std::unique_ptr<Runner>> compiled;
    static std::map<std::string, std::string> problems;
    static std::map<std::string, double> compile_ms;
    const std::string key = r.app.name + "/" + dsl;
    if (!compiled.count(key) && !problems.count(key)) {
        // Compiled and checked once; the repetitions reuse it.
        try {
            r.ensure_reference();
            const auto start = std::chrono::steady_clock::now();
            std::unique_ptr<Runner> runner = r.app.make(dsl);
            compile_ms[key] =
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
            if (!runner) throw std::runtime_error("not built (Halide 14 was not found at configure time)");
            runner->run();
            std::string problem = r.app.check(dsl);
            if (problem.empty()) {
                compiled[key] = std::move(runner);
            } else {
                problems[key] = problem;
            }
        } catch (const std::exception &e) {
            problems[key] = e.what();
        }
    }
    if (problems.count(key)) {
        state.SkipWithError(problems[key].c_str());
        return;
    }
    Runner &runner = *compiled[key];
    for (auto _ : state) runner.run();
    state.counters["compile_ms"] = compile_ms[key];
    if (r.app.flops > 0) state.counters["flops"] = r.app.flops;
}

void run_cpp(benchmark::State &state, Registered &r) {
    r.ensure_reference();
    for (auto _ : state) r.app.reference();
    if (r.app.flops > 0) state.counters["flops"] = r.app.flops;
}

void run_fma_peak(benchmark::State &state) {
    constexpr long kIterations = 20'000'000;
    double flops = 0;
    for (auto _ : state) flops = bench::fma_peak_reference(kIterations);
    state.counters["flops"] = flops;
}

void register_app(App (*make)()) {
    static std::vector<std::unique_ptr<Registered>> all;
    all.push_back(std::make_unique<Registered>(Registered{make()}));
    Registered &r = *all.back();
    for (const std::string dsl : {"loom", "halide14"}) {
        benchmark::RegisterBenchmark((r.app.name + "/" + dsl).c_str(),
                                     [&r, dsl](benchmark::State &state) { run_dsl(state, r, dsl); })
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
    }
    benchmark::RegisterBenchmark((r.app.name + "/cpp").c_str(),
                                 [&r](benchmark::State &state) { run_cpp(state, r); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
}

}  // namespace
}  // namespace bench_apps

int main(int argc, char **argv) {
    using namespace bench_apps;
    benchmark::RegisterBenchmark("machine/fma_peak", run_fma_peak)->Unit(benchmark::kMillisecond)->UseRealTime();
    register_app(blur_app);
    register_app(iir_blur_app);
    register_app(matmul_app);
    register_app(bilateral_grid_app);
    register_app(local_laplacian_app);
    register_app(histogram_equalize_app);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
