// loom::Runtime::Buffer (include/loom/runtime/Buffer.h) is header-only: a C++
// program that includes it compiles and links without libLoom, and passes
// its buffers straight to an AOT-compiled pipeline.

#include <gtest/gtest.h>

#include "AotPipelines.h"
#include "AotTestSupport.h"

using namespace loom;
using namespace loom_test;

namespace {

const char *kBufferProgram = R"(
#include <loom/runtime/Buffer.h>
#include <cstdio>

#define CHECK(c) do { if (!(c)) { std::printf("FAILED line %d: %s\n", __LINE__, #c); return 1; } } while (0)

int main() {
    loom::Runtime::Buffer<int> b(5, 4, 3);
    CHECK(b.dimensions() == 3);
    CHECK(b.width() == 5 && b.height() == 4 && b.channels() == 3);
    CHECK(b.dim(1).extent() == 4 && b.dim(1).stride() == 5 && b.dim(2).stride() == 20);
    b.fill(7);
    CHECK(b(4, 3, 2) == 7);
    b.set_min(10, 20, 0);
    CHECK(b.dim(0).min() == 10 && b.dim(1).min() == 20);
    b(12, 21, 1) = 99;
    CHECK(b(12, 21, 1) == 99);
    loom::Runtime::Buffer<int> c = b.copy();
    CHECK(c(12, 21, 1) == 99 && c.dim(0).min() == 10);
    c(12, 21, 1) = 5;
    CHECK(b(12, 21, 1) == 99);  // a deep copy
    loom::Runtime::Buffer<int> d(5, 4, 3);
    d.set_min(10, 20, 0);
    d.copy_from(b);
    CHECK(d(12, 21, 1) == 99 && d(10, 20, 0) == 7);
    loom_buffer_t *raw = b;
    CHECK(raw == b.raw_buffer() && raw->dimensions == 3 && raw->dim[0].min == 10 && raw->type.bits == 32);
    loom::Runtime::Buffer<float> gray(8, 2);
    CHECK(gray.channels() == 1 && gray.number_of_elements() == 16);
    std::printf("ok\n");
    return 0;
}
)";

TEST(AotRuntimeBuffer, WorksWithoutLibLoom) {
    ASSERT_TRUE(have_tool("c++")) << kToolsHint;
    ScratchDir dir;
    write_file(dir.file("buffer.cpp"), kBufferProgram);
    CommandResult build = run_command("c++ -std=c++17 -Wall -I'" + repository_root() + "/include' -o '" +
                                      dir.file("buffer") + "' '" + dir.file("buffer.cpp") + "' 2>&1");
    ASSERT_EQ(build.exit_code, 0) << build.output;
    CommandResult run = run_command("'" + dir.file("buffer") + "' 2>&1");
    EXPECT_EQ(run.exit_code, 0);
    EXPECT_EQ(run.output, "ok\n");
}

const char *kPipelineProgram = R"(
#include <loom/runtime/Buffer.h>
#include "brighten.h"
#include <algorithm>
#include <cstdio>

int main() {
    loom::Runtime::Buffer<uint8_t> in(40, 9), out(40, 9);
    in.for_each_element([&](int x, int y) { in(x, y) = (uint8_t)(x * 5 + y); });
    int rc = brighten(in, 2, 1, out);
    if (rc != 0) { std::printf("rc %d\n", rc); return 1; }
    int bad = 0;
    out.for_each_element([&](int x, int y) { bad += out(x, y) != std::min((x * 5 + y) * 2 + 1, 255); });
    std::printf("bad %d\n", bad);
    return 0;
}
)";

TEST(AotRuntimeBuffer, PassesBuffersToAStaticLibrary) {
    ASSERT_TRUE(have_tool("c++")) << kToolsHint;
    ScratchDir dir;
    BrightenPipeline p;
    p.out.compile_to_static_library(dir.file("brighten"), p.args(), "brighten");
    write_file(dir.file("main.cpp"), kPipelineProgram);
    CommandResult build = run_command("cd '" + dir.path() + "' && c++ -std=c++17 -I'" + repository_root() +
                                      "/include' -o main main.cpp brighten.a -lpthread -ldl -lm 2>&1");
    ASSERT_EQ(build.exit_code, 0) << build.output;
    CommandResult run = run_command("'" + dir.file("main") + "' 2>&1");
    EXPECT_EQ(run.exit_code, 0);
    EXPECT_EQ(run.output, "bad 0\n");
}

}  // namespace
