// The cost of one Vulkan dispatch: a trivial kernel (64 threads, one store
// each) launched 1,000 times, batched or not.
//
//   vulkan/dispatch/batched   f(x, t) = x + t over 64 x 1000, x a GPU loop
//                             and t a host loop: one realize records 1,000
//                             dispatches and waits once, at the end
//   vulkan/dispatch/sync      g(x) = x + p over 64, realized 1,000 times:
//                             every dispatch is submitted and waited for
//                             (and its 256 bytes copied back)
//
// Both report us_per_dispatch (the time of an iteration over 1,000). On
// lavapipe a dispatch includes running the kernel on the CPU's threads.
#include "bench_common.h"

#include <loom/runtime/loom_runtime.h>

namespace bench {

std::string vulkan_unavailable() {
    loom_vulkan_device_info_t info;
    if (loom_vulkan_get_device_info(nullptr, &info) == 0) return "";
    return "no Vulkan device (install mesa-vulkan-drivers for lavapipe)";
}

namespace {

constexpr int kDispatches = 1000;
constexpr int kThreads = 64;

void report_per_dispatch(benchmark::State &state) {
    state.counters["us_per_dispatch"] =
        benchmark::Counter(double(state.iterations()) * kDispatches * 1e-6,
                           benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void dispatch_batched(benchmark::State &state) {
    if (std::string why = vulkan_unavailable(); !why.empty()) {
        state.SkipWithError(why.c_str());
        return;
    }
    loom::Var x("x"), t("t"), bx("bx"), tx("tx");
    loom::Func f("dispatch_batched");
    f(x, t) = x + t;
    f.gpu_tile(x, bx, tx, kThreads);  // t stays a serial loop on the host
    loom::Buffer<int> out(kThreads, kDispatches);
    f.realize(out, LoomVulkanApi::target());  // compile and warm up
    if (out(5, 7) != 12) {
        state.SkipWithError("wrong result");
        return;
    }
    for (auto _ : state) f.realize(out, LoomVulkanApi::target());
    report_per_dispatch(state);
}

void dispatch_sync(benchmark::State &state) {
    if (std::string why = vulkan_unavailable(); !why.empty()) {
        state.SkipWithError(why.c_str());
        return;
    }
    loom::Var x("x"), bx("bx"), tx("tx");
    loom::Param<int> p("p");
    loom::Func g("dispatch_sync");
    g(x) = x + p;
    g.gpu_tile(x, bx, tx, kThreads);
    loom::Buffer<int> out(kThreads);
    p.set(7);
    g.realize(out, LoomVulkanApi::target());
    if (out(5) != 12) {
        state.SkipWithError("wrong result");
        return;
    }
    for (auto _ : state) {
        for (int i = 0; i < kDispatches; i++) g.realize(out, LoomVulkanApi::target());
    }
    report_per_dispatch(state);
}

}  // namespace

void register_vulkan_dispatch() {
    register_run("vulkan/dispatch/batched", dispatch_batched);
    register_run("vulkan/dispatch/sync", dispatch_sync);
}

}  // namespace bench
