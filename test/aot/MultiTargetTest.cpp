// compile_to_multitarget_static_library / _object_files: one variant of the
// pipeline per x86 target and a dispatcher that runs the first variant whose
// CPU features this machine has. A C program links the output, checks the
// values against a C++ loop and prints the variant that ran
// (NAME_loom_target), which must be the one this machine's features pick:
// the expectation is computed here from the CPU, so the test holds on any
// x86-64 host. Also the errors: no targets, targets that differ in more
// than CPU features, suffixes that do not match.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "AotTestSupport.h"
#include "loom/Loom.h"

using namespace loom;
using namespace loom_test;

namespace {

template<typename F>
std::string compile_error_of(F fn) {
    try {
        fn();
    } catch (const CompileError &e) {
        return e.what();
    }
    return "<no error>";
}

#define EXPECT_CONTAINS(haystack, needle) \
    EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "in: " << (haystack)

const std::vector<Target> kTargets = {Target("x86-64-linux-avx512_skylake"), Target("x86-64-linux-avx2-fma"),
                                      Target("x86-64-linux")};

/** out(x, y) = saturate(in(x, y) * scale * -7): vectorized, so each target's
 * variant is different code. */
struct Brighten {
    ImageParam in{UInt(8), 2, "mt_in"};
    Param<float> scale{"mt_scale"};
    Func out{"mt_brighten"};
    Brighten() {
        Var x("x"), y("y");
        out(x, y) = cast<uint8_t>(clamp(cast<float>(in(x, y)) * scale * -7.0f, 0.0f, 255.0f));
        out.vectorize(x, 16);
    }
    std::vector<Argument> args() const { return {in, scale}; }
};

const char *kProgram = R"(
#include <stdio.h>
#include <stdint.h>
#include "mt.h"
const char *mt_brighten_loom_target(void);

int main(void) {
    enum { W = 70, H = 2 };
    uint8_t in_host[W * H], out_host[W * H];
    for (int i = 0; i < W * H; i++) in_host[i] = (uint8_t)(i * 3);
    loom_dimension_t dims[2] = {{0, W, 1, 0}, {0, H, W, 0}};
    loom_dimension_t out_dims[2] = {{0, W, 1, 0}, {0, H, W, 0}};
    loom_buffer_t in = {0}, out = {0};
    in.host = in_host; in.type.code = loom_type_uint; in.type.bits = 8; in.type.lanes = 1;
    in.dimensions = 2; in.dim = dims;
    out.host = out_host; out.type = in.type; out.dimensions = 2; out.dim = out_dims;
    int rc = mt_brighten(&in, -0.5f, &out);
    printf("rc %d target %s\n", rc, mt_brighten_loom_target());
    for (int i = 0; i < W * H; i++) printf("%d\n", out_host[i]);
    return 0;
}
)";

/** The text kProgram prints when the variant for `target` runs. */
std::string expected_output(const std::string &target) {
    std::string text = "rc 0 target " + target + "\n";
    for (int i = 0; i < 70 * 2; i++) {
        float v = float(uint8_t(i * 3)) * -0.5f * -7.0f;
        text += std::to_string(int(uint8_t(std::min(std::max(v, 0.0f), 255.0f)))) + "\n";
    }
    return text;
}

/** The first of kTargets this CPU runs, as the dispatcher must choose. */
std::string expected_target() {
    __builtin_cpu_init();
    const bool avx2_fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                          __builtin_cpu_supports("f16c");
    const bool skylake = avx2_fma && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
                         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw") &&
                         __builtin_cpu_supports("avx512dq");
    const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return skylake ? kTargets[0].to_string() : avx2 ? kTargets[1].to_string() : kTargets[2].to_string();
}

bool host_is_x86_64() {
#if defined(__x86_64__)
    return true;
#else
    return false;
#endif
}

TEST(MultiTarget, StaticLibraryRunsTheBestVariant) {
    if (!host_is_x86_64()) GTEST_SKIP() << "runs x86-64 code";
    ASSERT_TRUE(have_tool("cc")) << kToolsHint;
    ScratchDir dir;
    Brighten p;
    p.out.compile_to_multitarget_static_library(dir.file("mt"), p.args(), kTargets);
    ASSERT_TRUE(file_exists(dir.file("mt.a")));
    ASSERT_TRUE(file_exists(dir.file("mt.h")));
    // One member per variant, and the dispatcher's.
    CommandResult members = run_command("ar t '" + dir.file("mt.a") + "' 2>&1");
    EXPECT_CONTAINS(members.output, "mt_brighten_x86_64_linux_avx512_skylake.o");
    EXPECT_CONTAINS(members.output, "mt_brighten_x86_64_linux_avx2_fma.o");
    EXPECT_CONTAINS(members.output, "mt_brighten_x86_64_linux.o");
    EXPECT_CONTAINS(members.output, "mt_brighten.o");
    // The header declares the dispatcher as any pipeline's header does.
    EXPECT_CONTAINS(read_file(dir.file("mt.h")), "int mt_brighten(");

    write_file(dir.file("main.c"), kProgram);
    CommandResult build =
        run_command("cd '" + dir.path() + "' && cc -std=c11 -O1 -Wall -o main main.c mt.a -lpthread -ldl -lm 2>&1");
    ASSERT_EQ(build.exit_code, 0) << build.output;
    CommandResult run = run_command("timeout 60 '" + dir.file("main") + "' 2>&1");
    ASSERT_EQ(run.exit_code, 0) << run.output;
    EXPECT_EQ(run.output, expected_output(expected_target()));
}

TEST(MultiTarget, ObjectFilesLinkedByHand) {
    if (!host_is_x86_64()) GTEST_SKIP() << "runs x86-64 code";
    ASSERT_TRUE(have_tool("cc")) << kToolsHint;
    ScratchDir dir;
    Brighten p;
    // Default suffixes: "-" + each target's string.
    p.out.compile_to_multitarget_object_files(dir.file("mt"), p.args(), kTargets);
    std::string objects;
    for (const Target &t : kTargets) {
        const std::string o = "mt-" + t.to_string() + ".o";
        EXPECT_TRUE(file_exists(dir.file(o))) << o;
        objects += " " + o;
    }
    for (const char *o : {"mt_wrapper.o", "mt_runtime.o", "mt.h"}) EXPECT_TRUE(file_exists(dir.file(o))) << o;
    write_file(dir.file("main.c"), kProgram);
    CommandResult build = run_command("cd '" + dir.path() + "' && cc -std=c11 -O1 -Wall -o main main.c" + objects +
                                      " mt_wrapper.o mt_runtime.o -lpthread -ldl -lm 2>&1");
    ASSERT_EQ(build.exit_code, 0) << build.output;
    CommandResult run = run_command("timeout 60 '" + dir.file("main") + "' 2>&1");
    ASSERT_EQ(run.exit_code, 0) << run.output;
    EXPECT_EQ(run.output, expected_output(expected_target()));
}

TEST(MultiTarget, GivenSuffixesNameTheFilesAndTheVariants) {
    if (!host_is_x86_64()) GTEST_SKIP() << "runs x86-64 code";
    ScratchDir dir;
    Brighten p;
    Pipeline pipeline(p.out);
    pipeline.compile_to_multitarget_object_files(dir.file("mt"), p.args(), {kTargets[1], kTargets[2]},
                                                 {"_fast", "_base"});
    ASSERT_TRUE(file_exists(dir.file("mt_fast.o")));
    ASSERT_TRUE(file_exists(dir.file("mt_base.o")));
    CommandResult nm = run_command("nm '" + dir.file("mt_fast.o") + "' 2>&1");
    EXPECT_CONTAINS(nm.output, " T mt_brighten_fast\n");
    nm = run_command("nm '" + dir.file("mt_wrapper.o") + "' 2>&1");
    EXPECT_CONTAINS(nm.output, " U mt_brighten_fast\n");
    EXPECT_CONTAINS(nm.output, " U mt_brighten_base\n");
    EXPECT_CONTAINS(nm.output, " T mt_brighten\n");
    EXPECT_CONTAINS(nm.output, " T mt_brighten_argv\n");
    EXPECT_CONTAINS(nm.output, " T mt_brighten_metadata\n");
}

TEST(MultiTarget, Errors) {
    ScratchDir dir;
    Brighten p;
    const std::string prefix = dir.file("bad");
    std::string m = compile_error_of([&] { p.out.compile_to_multitarget_static_library(prefix, p.args(), {}); });
    EXPECT_CONTAINS(m, "compile_to_multitarget_static_library");
    EXPECT_CONTAINS(m, "no targets");

    m = compile_error_of([&] {
        p.out.compile_to_multitarget_static_library(prefix, p.args(),
                                                    {Target("x86-64-linux-avx2"), Target("x86-64-windows")});
    });
    EXPECT_CONTAINS(m, "x86-64-windows");
    EXPECT_CONTAINS(m, "differ in architecture, bits or OS");

    m = compile_error_of([&] {
        p.out.compile_to_multitarget_static_library(prefix, p.args(),
                                                    {Target("x86-64-linux-avx2-debug"), Target("x86-64-linux")});
    });
    EXPECT_CONTAINS(m, "'debug'");
    EXPECT_CONTAINS(m, "no CPU feature");

    m = compile_error_of([&] {
        p.out.compile_to_multitarget_static_library(prefix, p.args(), {Target("x86-64-linux"), Target("x86-64-linux")});
    });
    EXPECT_CONTAINS(m, "listed twice");

    m = compile_error_of([&] {
        p.out.compile_to_multitarget_static_library(prefix, p.args(),
                                                    {Target("arm-64-linux-arm_dot_prod"), Target("arm-64-linux")});
    });
    EXPECT_CONTAINS(m, "x86 targets only");

    m = compile_error_of(
        [&] { p.out.compile_to_multitarget_object_files(prefix, p.args(), kTargets, {"_a", "_b"}); });
    EXPECT_CONTAINS(m, "compile_to_multitarget_object_files");
    EXPECT_CONTAINS(m, "2 suffixes for 3 targets");

    m = compile_error_of(
        [&] { p.out.compile_to_multitarget_object_files(prefix, p.args(), {kTargets[1], kTargets[2]}, {"_a", "_a"}); });
    EXPECT_CONTAINS(m, "distinct suffix");

    // A missing argument is reported as for any compile_to_*.
    m = compile_error_of([&] { p.out.compile_to_multitarget_static_library(prefix, {p.in}, kTargets); });
    EXPECT_CONTAINS(m, "Param 'mt_scale'");

    // Nothing was written.
    EXPECT_FALSE(file_exists(prefix + ".a"));
    EXPECT_FALSE(file_exists(prefix + ".h"));
    EXPECT_FALSE(file_exists(prefix + "_wrapper.o"));
}

}  // namespace
