// The profile, debug and large_buffers target features ahead of time: a C
// program links each static library and runs it. A profiled library prints
// its report (Halide's format) at process exit through the default print
// handler; a debug library logs its calls; without large_buffers, a buffer
// of 2^31 bytes or more is refused with loom_error_code_buffer_too_large.

#include <gtest/gtest.h>

#include <regex>

#include "AotTestSupport.h"
#include "loom/Loom.h"

using namespace loom;
using namespace loom_test;

namespace {

bool contains(const std::string &text, const std::string &part) { return text.find(part) != std::string::npos; }

const char *kProgram = R"(
#include <stdio.h>
#include "lib.h"

int main(void) {
    static uint8_t few[64];
    int32_t out_host[100];
    loom_dimension_t out_dim = {0, 100, 1, 0};
    loom_buffer_t out = {0};
    out.host = (uint8_t *)out_host; out.type.code = loom_type_int; out.type.bits = 32; out.type.lanes = 1;
    out.dimensions = 1; out.dim = &out_dim;
    loom_dimension_t in_dims[2] = {{0, LOOM_W, 1, 0}, {0, LOOM_H, LOOM_W, 0}};
    loom_buffer_t in = {0};
    in.host = few; in.type.code = loom_type_uint; in.type.bits = 8; in.type.lanes = 1;
    in.dimensions = 2; in.dim = in_dims;
    int rc = lib(&in, &out);
    printf("rc %d out %d\n", rc, (int)out_host[99]);
    fflush(stdout);
    rc = lib(&in, &out);
    printf("rc %d\n", rc);
    fflush(stdout);
    return 0;
}
)";

/** Builds the pipeline for target into a static library, links the program
 * with the input's dimensions w x h, runs it and returns what it printed. */
std::string run_with(const Target &target, int w, int h) {
    ImageParam in(UInt(8), 2, "in");
    Var x("x");
    Func f("aot_f"), g("aot_g");
    f(x) = cast<int32_t>(in(x % 8, 0)) + x;
    g(x) = f(x) * 2;
    f.compute_root();
    ScratchDir dir;
    g.compile_to_static_library(dir.file("lib"), {in}, "lib", target);
    write_file(dir.file("main.c"), kProgram);
    CommandResult build = run_command("cd '" + dir.path() + "' && cc -std=c11 -O1 -Wall -DLOOM_W=" + std::to_string(w) +
                                      " -DLOOM_H=" + std::to_string(h) +
                                      " -o main main.c lib.a -lpthread -ldl -lm 2>&1");
    EXPECT_EQ(build.exit_code, 0) << build.output;
    CommandResult run = run_command("timeout 60 '" + dir.file("main") + "' 2>&1");
    EXPECT_EQ(run.exit_code, 0) << run.output;
    return run.output;
}

TEST(TargetFeaturesAot, ProfiledLibraryReportsAtExit) {
    ASSERT_TRUE(have_tool("cc")) << kToolsHint;
    const std::string out = run_with(get_host_target().with_feature(Target::Profile), 8, 1);
    // Both runs first, then the report of both at exit.
    EXPECT_TRUE(std::regex_search(out, std::regex(R"(^rc 0 out 198\nrc 0\nlib\n total time: [0-9.]+ ms  samples: \d+  )"
                                                  R"(runs: 2  time/run: [0-9.]+ ms\n)")))
        << out;
    // aot_f: 100 int32 = 400 bytes, once per run.
    EXPECT_TRUE(std::regex_search(out, std::regex(R"(\n  aot_f: +[0-9.]+ms +\(\d+%\) +peak: 400 +num: 2 +avg: 400\n)")))
        << out;
    EXPECT_TRUE(std::regex_search(out, std::regex(R"(\n  aot_g: +[0-9.]+ms +\(\d+%\)\n)"))) << out;
}

TEST(TargetFeaturesAot, DebugLibraryLogsItsCalls) {
    ASSERT_TRUE(have_tool("cc")) << kToolsHint;
    const std::string out = run_with(get_host_target().with_feature(Target::Debug), 8, 1);
    EXPECT_TRUE(contains(out, "Entering Pipeline lib\n")) << out;
    EXPECT_TRUE(contains(out, " Input Buffer in (uint8): dim 0 min 0 extent 8 stride 1 | dim 1 min 0 extent 1 stride 8\n"))
        << out;
    EXPECT_TRUE(contains(out, "Allocating aot_f: 400 bytes\nFreeing aot_f: 400 bytes\n")) << out;
    EXPECT_TRUE(contains(out, "Exiting Pipeline lib\nrc 0 out 198\n")) << out;
}

TEST(TargetFeaturesAot, BufferOf2GiBIsAnErrorCodeWithoutLargeBuffers) {
    ASSERT_TRUE(have_tool("cc")) << kToolsHint;
    // The input claims 65536 x 32769 bytes (it has 64): refused before any read.
    const std::string out = run_with(get_host_target(), 65536, 32769);
    EXPECT_TRUE(contains(out, "Input buffer in spans 2147549184 bytes in dimension 1")) << out;
    EXPECT_TRUE(contains(out, "large_buffers")) << out;
    EXPECT_TRUE(contains(out, "rc " + std::to_string(int(loom_error_code_buffer_too_large)) + " out")) << out;
}

}  // namespace
