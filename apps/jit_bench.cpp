// apps_jit_bench: every app's pipeline compiled with the JIT twice in one
// process, with its CPU schedule (<app>/jit_cpu, Loom's thread pool) and
// with its GPU schedule on the Vulkan device (<app>/jit_vulkan; lavapipe
// where there is no GPU), on the same input as <app>_bench. Each result is
// compared with the C++ reference (the app's tolerance) before it is timed.
// Without a Vulkan device the jit_vulkan entries report an error, not a
// time. A Vulkan run includes waiting for the kernels and copying the
// output back to the host; the input stays on the device between runs.
//
//   build/apps/apps_jit_bench --benchmark_repetitions=3
//
// local_laplacian runs with 4 pyramid levels here (the library, 8), to keep
// each JIT compile short: 8 levels take about 12 s to compile (bench/apps
// times them against Halide 14: scripts/bench_apps.sh).
#include <algorithm>
#include <cstdlib>
#include <functional>
#include <memory>

#include "bilateral_grid/bilateral_grid_algorithm.h"
#include "bilateral_grid/bilateral_grid_reference.h"
#include "blur/blur_algorithm.h"
#include "blur/blur_reference.h"
#include "common/bench_util.h"
#include "histogram_equalize/histogram_equalize_algorithm.h"
#include "histogram_equalize/histogram_equalize_reference.h"
#include "local_laplacian/local_laplacian_algorithm.h"
#include "local_laplacian/local_laplacian_reference.h"
#include "matmul/matmul_algorithm.h"
#include "matmul/matmul_reference.h"

#include <loom/runtime/loom_runtime.h>

namespace {

using apps::Buffer;

loom::Target target_for(bool gpu) {
    if (!gpu) return loom::get_jit_target_from_environment().without_feature(loom::Target::Vulkan);
    loom::Target t("host-vulkan");
    t.set_feature(loom::Target::JIT);
    return t;
}

bool have_vulkan_device() {
    loom_vulkan_device_info_t info;
    return loom_vulkan_get_device_info(nullptr, &info) == 0;
}

/** One app's pipeline, scheduled and compiled for the CPU or the GPU,
 * realizing into `result` (which aliases the benchmark's output buffer). */
struct Compiled {
    loom::Func output;
    loom::Buffer<> result;
    loom::Target target;
    void run() {
        loom::Realization r(std::vector<loom::Buffer<>>{result});
        output.realize(r, target);
    }
};

/** An app on one input: build(gpu) makes the pipeline; output, expected
 * and the tolerance check it. */
struct App {
    std::function<Compiled(bool gpu)> build;
    std::function<std::string()> check;  // compares the output with the reference
    double bytes = 0;
};

void run_app(benchmark::State &state, App &app, bool gpu) {
    if (gpu && !have_vulkan_device()) {
        state.SkipWithError("no Vulkan device (install mesa-vulkan-drivers for lavapipe)");
        return;
    }
    std::unique_ptr<Compiled> compiled;
    apps::run_benchmark(
        state,
        [&]() -> std::string {
            try {
                compiled = std::make_unique<Compiled>(app.build(gpu));
                compiled->output.compile_jit(compiled->target);
                compiled->run();
            } catch (const std::exception &e) {
                return e.what();
            }
            return app.check();
        },
        [&] {
            compiled->run();
            return 0;
        },
        app.bytes);
}

// ---- The apps ------------------------------------------------------------------

App &blur_app() {
    static Buffer<uint16_t> input = apps::to_gray(apps::bench_image16());
    static Buffer<uint16_t> output(input.dim(0).extent(), input.dim(1).extent()),
        expected(input.dim(0).extent(), input.dim(1).extent());
    static App app{[](bool gpu) {
                       loom::ImageParam in(loom::UInt(16), 2, "input");
                       loom::Func out("blur");
                       apps::Blur b = apps::define_blur(in, in.width(), in.height(), out);
                       gpu ? apps::schedule_blur_gpu(b) : apps::schedule_blur(b);
                       in.set(loom::Buffer<uint16_t>(input, "input"));
                       return Compiled{out, loom::Buffer<uint16_t>(output, "output"), target_for(gpu)};
                   },
                   [] { return apps::mismatch(output, expected, 0); },
                   2.0 * input.number_of_elements() * sizeof(uint16_t)};
    static bool once = (apps::blur_reference(input, expected), true);
    (void)once;
    return app;
}

App &matmul_app() {
    static int n = [] {
        const char *s = std::getenv("LOOM_APPS_BENCH_MATMUL");
        return s ? std::max(1, std::atoi(s)) : 1024;
    }();
    static Buffer<float> a(n, n), b(n, n), output(n, n), expected(n, n);
    static App app{[](bool gpu) {
                       loom::ImageParam pa(loom::Float(32), 2, "a"), pb(loom::Float(32), 2, "b");
                       loom::Func out("matmul");
                       apps::Matmul m = apps::define_matmul(pa, pb, pa.width(), pa.height(), pb.width(), out);
                       gpu ? apps::schedule_matmul_gpu(m) : apps::schedule_matmul(m);
                       pa.set(loom::Buffer<float>(a, "a"));
                       pb.set(loom::Buffer<float>(b, "b"));
                       return Compiled{out, loom::Buffer<float>(output, "output"), target_for(gpu)};
                   },
                   [] { return apps::mismatch(output, expected, 0); }, 0};
    static bool once = [] {
        apps::Random random(3);
        a.for_each_element([&](int x, int y) { a(x, y) = float(int(random.next(5)) - 2); });
        b.for_each_element([&](int x, int y) { b(x, y) = float(int(random.next(5)) - 2); });
        apps::matmul_reference(a, b, expected);
        return true;
    }();
    (void)once;
    return app;
}

App &bilateral_grid_app() {
    static constexpr float kRSigma = 0.1f;
    static Buffer<float> input = apps::to_float(apps::to_gray(apps::bench_image16()));
    static Buffer<float> output(input.dim(0).extent(), input.dim(1).extent()),
        expected(input.dim(0).extent(), input.dim(1).extent());
    static App app{[](bool gpu) {
                       loom::ImageParam in(loom::Float(32), 2, "input");
                       loom::Param<float> r_sigma("r_sigma");
                       loom::Func out("bilateral_grid");
                       apps::BilateralGrid g =
                           apps::define_bilateral_grid(in, in.width(), in.height(), 8, r_sigma, out);
                       gpu ? apps::schedule_bilateral_grid_gpu(g) : apps::schedule_bilateral_grid(g);
                       in.set(loom::Buffer<float>(input, "input"));
                       r_sigma.set(kRSigma);
                       return Compiled{out, loom::Buffer<float>(output, "output"), target_for(gpu)};
                   },
                   [] { return apps::mismatch(output, expected, 1e-4); },
                   2.0 * input.number_of_elements() * sizeof(float)};
    static bool once = (apps::bilateral_grid_reference(input, 8, kRSigma, expected), true);
    (void)once;
    return app;
}

App &local_laplacian_app() {
    static constexpr int kLevels = 4;
    static Buffer<uint16_t> input = apps::bench_image16();
    static Buffer<uint16_t> output(input.dim(0).extent(), input.dim(1).extent(), 3),
        expected(input.dim(0).extent(), input.dim(1).extent(), 3);
    static App app{[](bool gpu) {
                       loom::ImageParam in(loom::UInt(16), 3, "input");
                       loom::Param<float> alpha("alpha"), beta("beta");
                       loom::Func out("local_laplacian");
                       apps::LocalLaplacian p =
                           apps::define_local_laplacian(in, in.width(), in.height(), kLevels, alpha, beta, out);
                       gpu ? apps::schedule_local_laplacian_gpu(p) : apps::schedule_local_laplacian(p);
                       in.set(loom::Buffer<uint16_t>(input, "input"));
                       alpha.set(1.0f);
                       beta.set(1.0f);
                       return Compiled{out, loom::Buffer<uint16_t>(output, "output"), target_for(gpu)};
                   },
                   [] { return apps::mismatch(output, expected, 8); },
                   2.0 * input.number_of_elements() * sizeof(uint16_t)};
    static bool once = (apps::local_laplacian_reference(input, kLevels, 1.0f, 1.0f, expected), true);
    (void)once;
    return app;
}

App &histogram_equalize_app() {
    static Buffer<uint8_t> input = [] {
        Buffer<uint16_t> gray16 = apps::to_gray(apps::bench_image16());
        Buffer<uint8_t> in(gray16.dim(0).extent(), gray16.dim(1).extent());
        in.for_each_element([&](int x, int y) { in(x, y) = static_cast<uint8_t>(gray16(x, y) >> 8); });
        return in;
    }();
    static Buffer<uint8_t> output(input.dim(0).extent(), input.dim(1).extent()),
        expected(input.dim(0).extent(), input.dim(1).extent());
    static App app{[](bool gpu) {
                       loom::ImageParam in(loom::UInt(8), 2, "input");
                       loom::Func out("histogram_equalize");
                       apps::HistogramEqualize h = apps::define_histogram_equalize(in, in.width(), in.height(), out);
                       gpu ? apps::schedule_histogram_equalize_gpu(h) : apps::schedule_histogram_equalize(h);
                       in.set(loom::Buffer<uint8_t>(input, "input"));
                       return Compiled{out, loom::Buffer<uint8_t>(output, "output"), target_for(gpu)};
                   },
                   [] { return apps::mismatch(output, expected, 0); }, 2.0 * input.number_of_elements()};
    static bool once = (apps::histogram_equalize_reference(input, expected), true);
    (void)once;
    return app;
}

void register_app(const std::string &name, App &(*app)()) {
    for (bool gpu : {false, true}) {
        benchmark::RegisterBenchmark((name + (gpu ? "/jit_vulkan" : "/jit_cpu")).c_str(),
                                     [app, gpu](benchmark::State &state) { run_app(state, app(), gpu); })
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
    }
}

}  // namespace

int main(int argc, char **argv) {
    register_app("blur", blur_app);
    register_app("matmul", matmul_app);
    register_app("bilateral_grid", bilateral_grid_app);
    register_app("local_laplacian", local_laplacian_app);
    register_app("histogram_equalize", histogram_equalize_app);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    loom_device_release(nullptr, loom_vulkan_device_interface());
    return 0;
}
