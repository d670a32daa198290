// The profile and debug target features (lower/InjectProfiling.h,
// lower/InjectDebugLogging.h): what they print through the print handler (a
// JITUserContext's custom_print), and that the pipelines still compute what
// C++ does. The interpreter refuses profile (it cannot call the profiler);
// on Vulkan a profiled pipeline runs on the CPU (GPU kernels cannot call the
// profiler), and debug logs the host side of a GPU pipeline.

#include <cmath>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "e2e/E2ETest.h"
#include "e2e/ProfileReport.h"

namespace {

using namespace loom;
using loom::internal::Backend;
using loom_test::compile_error_message;
using loom_test::contains;

using loom_test::PrintedContext;
using loom_test::record;

Target with(Target::Feature f) { return get_jit_target_from_environment().with_feature(f); }

using loom_test::func_line;
using loom_test::percent_of;

class ProfileDebug : public loom_test::BackendTest {};

TEST_P(ProfileDebug, ProfileReportsEachFuncAfterEachRealize) {
    // cheap -> expensive (200 sines per point) -> cheap.
    const int w = 128, h = 64, terms = 200;
    Var x("x"), y("y");
    RDom r(0, terms, "r");
    Func cheap_in("cheap_in"), costly("costly"), cheap_out("cheap_out");
    cheap_in(x, y) = cast<uint16_t>(x + y);
    costly(x, y) = 0.0f;
    costly(x, y) += sin(cast<float>(cheap_in(x, y)) * 0.01f + cast<float>(r) * 0.001f);
    cheap_out(x, y) = costly(x, y) + 1.0f;
    cheap_in.compute_root();
    costly.compute_root();
    if (GetParam() == Backend::Interpreter) {
        const std::string m = compile_error_message([&] { cheap_out.realize({w, h}, with(Target::Profile)); });
        EXPECT_TRUE(contains(m, "profile")) << m;
        EXPECT_TRUE(contains(m, "interpreter")) << m;
        return;
    }
    PrintedContext ctx;
    ctx.handlers.custom_print = record;
    Buffer<float> out = cheap_out.realize(&ctx, {w, h}, with(Target::Profile));
    for (int yy = 0; yy < h; yy++) {
        for (int xx = 0; xx < w; xx++) {
            float sum = 0.0f;
            for (int k = 0; k < terms; k++) sum += std::sin(float(uint16_t(xx + yy)) * 0.01f + float(k) * 0.001f);
            ASSERT_NEAR(out(xx, yy), sum + 1.0f, 1e-3f) << xx << ", " << yy;
        }
    }
    const std::string report = ctx.text;
    // Header: the pipeline, total time, samples, runs, time per run.
    EXPECT_TRUE(std::regex_search(report, std::regex(R"(^jit_cheap_out\n total time: [0-9.]+ ms  samples: \d+  runs: 1  )"
                                                     R"(time/run: [0-9.]+ ms\n heap allocations: \d+  peak heap usage: )"
                                                     R"(\d+ bytes\n)")))
        << report;
    int sum = 0, largest = -1;
    std::string largest_name;
    for (const char *name : {"cheap_in", "costly", "cheap_out"}) {
        const std::string line = func_line(report, name);
        ASSERT_FALSE(line.empty()) << name << " is not in\n" << report;
        const int share = percent_of(line);
        sum += share;
        if (share > largest) largest = share, largest_name = name;
    }
    const std::string overhead = func_line(report, "overhead");
    if (!overhead.empty()) sum += percent_of(overhead);
    // The times are samples (runtime/Profiler.c): the shares need a few.
    // ProfileSampling grows the work until there are enough.
    std::smatch samples;
    ASSERT_TRUE(std::regex_search(report, samples, std::regex(R"(samples: (\d+))"))) << report;
    if (std::stoll(samples[1]) >= 20) {
        // Each share is rounded down: 4 lines lose less than 4%.
        EXPECT_GE(sum, 96) << report;
        EXPECT_LE(sum, 100) << report;
        EXPECT_EQ(largest_name, "costly") << report;
    }
    // cheap_in: one allocation of 128 x 64 uint16 = 16384 bytes.
    EXPECT_TRUE(contains(func_line(report, "cheap_in"), "peak: 16384")) << report;
    EXPECT_TRUE(contains(func_line(report, "cheap_in"), "num: 1")) << report;
    EXPECT_TRUE(contains(func_line(report, "cheap_in"), "avg: 16384")) << report;
    // costly: 128 x 64 float = 32768 bytes; the output allocates nothing.
    EXPECT_TRUE(contains(func_line(report, "costly"), "peak: 32768")) << report;
    EXPECT_FALSE(contains(func_line(report, "cheap_out"), "peak:")) << report;

    // After each realize: a second one reports its own run.
    ctx.text.clear();
    cheap_out.realize(&ctx, {w, h}, with(Target::Profile));
    EXPECT_TRUE(contains(ctx.text, "runs: 1")) << ctx.text;
    EXPECT_FALSE(func_line(ctx.text, "costly").empty()) << ctx.text;
}

TEST_P(ProfileDebug, DebugLogsCallsChecksAndAllocations) {
    ImageParam in(Int(32), 1, "in");
    Param<int> offset("offset");
    Var x("x");
    Func f("f"), g("g");
    f(x) = in(x) * 2;
    g(x) = f(x) + f(x + 1) + offset;
    f.compute_root();
    Buffer<int> input(9);
    input.for_each_element([&](const std::vector<int> &p) { input(p) = p[0] * p[0]; });
    in.set(input);
    offset.set(5);
    PrintedContext ctx;
    ctx.handlers.custom_print = record;
    Buffer<int> out = g.realize(&ctx, {8}, with(Target::Debug));
    loom_test::expect_buffer_eq(out, [&](const std::vector<int> &p) {
        return input(p[0]) * 2 + input(p[0] + 1) * 2 + 5;
    });
    // The last call (a realize may first run a bounds query, which logs too).
    const size_t last = ctx.text.rfind("Entering Pipeline jit_g\n");
    ASSERT_NE(last, std::string::npos) << ctx.text;
    const std::string run = ctx.text.substr(last);
    const std::vector<std::string> in_order = {
        "Entering Pipeline jit_g\n",
        "Target: ",
        " Input (int32) offset: 5\n",
        "Check passed: ",
        " Input Buffer in (int32): dim 0 min 0 extent 9 stride 1\n",
        " Output Buffer g (int32): dim 0 min 0 extent 8 stride 1\n",
        "Allocating f: 36 bytes\n",
        "Freeing f: 36 bytes\n",
        "Exiting Pipeline jit_g\n",
    };
    size_t at = 0;
    for (const std::string &part : in_order) {
        const size_t found = run.find(part, at);
        ASSERT_NE(found, std::string::npos) << "'" << part << "' (in this order) is not in\n" << run;
        at = found + part.size();
    }
    EXPECT_TRUE(std::regex_search(run, std::regex(R"(Target: x86-64-linux[^\n]*-debug)"))) << run;
    // Every check of the buffers is reported: is each non-NULL, its type, its rank, its region.
    std::regex check(R"(Check passed: [^\n]*in\.buffer)");
    EXPECT_GE(std::distance(std::sregex_iterator(run.begin(), run.end(), check), std::sregex_iterator()), 3) << run;
}

TEST_P(ProfileDebug, MemoryIsReportedReleasedWhereItIsFreed) {
    // a -> b -> c -> out, each 64 x 32 int32 (8192 bytes) and computed
    // whole. On the CPU a is freed once b is computed, before c is allocated
    // (lower/ShrinkAllocations.h), so at most two are allocated at once; on
    // Vulkan each keeps its scope (its device copy goes with it). Debug logs
    // each allocation and release where it happens; profile's peak counts
    // the early frees (a profiled pipeline always runs on the CPU).
    const int w = 64, h = 32, bytes = w * h * 4;
    Var x("x"), y("y");
    Func a("early_a"), b("early_b"), c("early_c"), out("early_out");
    a(x, y) = x + y;
    b(x, y) = a(x, y) * 2;
    c(x, y) = b(x, y) + 3;
    out(x, y) = c(x, y) - 1;
    a.compute_root();
    b.compute_root();
    c.compute_root();
    auto expect_values = [&](const Buffer<int> &result) {
        loom_test::expect_buffer_eq(result, [](const std::vector<int> &p) { return (p[0] + p[1]) * 2 + 2; });
    };
    PrintedContext debug;
    debug.handlers.custom_print = record;
    expect_values(out.realize(&debug, {w, h}, with(Target::Debug)));
    const std::string run = debug.text.substr(debug.text.rfind("Entering Pipeline jit_early_out\n"));
    const bool early = GetParam() != Backend::Vulkan;
    const std::vector<std::string> events =
        early ? std::vector<std::string>{"Allocating early_a", "Allocating early_b", "Freeing early_a",
                                         "Allocating early_c", "Freeing early_b", "Freeing early_c"}
              : std::vector<std::string>{"Allocating early_a", "Allocating early_b", "Allocating early_c",
                                         "Freeing early_c", "Freeing early_b", "Freeing early_a"};
    const std::string size = ": " + std::to_string(bytes) + " bytes\n";
    size_t at = 0;
    for (const std::string &event : events) {
        const size_t found = run.find(event + size, at);
        ASSERT_NE(found, std::string::npos) << "'" << event << "' (in this order) is not in\n" << run;
        at = found;
    }
    if (GetParam() == Backend::Interpreter) return;  // it refuses profile (above)
    PrintedContext profile;
    profile.handlers.custom_print = record;
    expect_values(out.realize(&profile, {w, h}, with(Target::Profile)));
    EXPECT_TRUE(contains(profile.text, "peak heap usage: " + std::to_string(2 * bytes) + " bytes\n"))
        << profile.text;
    for (const char *name : {"early_a", "early_b", "early_c"}) {
        EXPECT_TRUE(contains(func_line(profile.text, name), "peak: " + std::to_string(bytes))) << profile.text;
    }
}

TEST_P(ProfileDebug, DebugReportsAFailedCheckAndNoExit) {
    ImageParam in(Int(32), 1, "in");
    Var x("x");
    Func g("g");
    g(x) = in(x + 4);
    Buffer<int> small(3);
    in.set(small);
    PrintedContext ctx;
    ctx.handlers.custom_print = record;
    const std::string m =
        loom_test::runtime_error_message([&] { g.realize(&ctx, {8}, with(Target::Debug)); });
    EXPECT_TRUE(contains(m, "in")) << m;
    EXPECT_TRUE(contains(ctx.text, "Entering Pipeline jit_g\n")) << ctx.text;
    EXPECT_FALSE(contains(ctx.text.substr(ctx.text.rfind("Entering Pipeline")), "Exiting Pipeline")) << ctx.text;
}

LOOM_INSTANTIATE_BACKENDS(ProfileDebug);

TEST(ProfileDebugGpu, GpuKernelsRefuseProfileAndLargeBuffers) {
    // Lowering refuses them (no device needed): GPU kernels cannot call the
    // profiler, and index with 32-bit arithmetic.
    Var x("x"), xo("xo"), xi("xi");
    Func f("gpu_f");
    f(x) = x * 2;
    f.gpu_tile(x, xo, xi, 16);
    const std::string file = ::testing::TempDir() + std::to_string(getpid()) + "_gpu_features.stmt";
    for (const char *feature : {"profile", "large_buffers"}) {
        const std::string m = compile_error_message(
            [&] { f.compile_to_lowered_stmt(file, Target(std::string("x86-64-linux-avx2-vulkan-") + feature)); });
        EXPECT_TRUE(contains(m, "GPU kernels")) << m;
        EXPECT_TRUE(contains(m, std::string("has ") + feature)) << m;
        EXPECT_TRUE(contains(m, "without GPU loops")) << m;
    }
    // debug logs the host side of a GPU pipeline.
    f.compile_to_lowered_stmt(file, Target("x86-64-linux-avx2-vulkan-debug"));
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    std::remove(file.c_str());
    EXPECT_TRUE(contains(text.str(), "Entering Pipeline")) << text.str();
    EXPECT_TRUE(contains(text.str(), "Exiting Pipeline")) << text.str();
}

}  // namespace
