// The large_buffers target feature (lower/LargeBuffers.h): without it, a
// buffer argument or allocation of 2^31 bytes or more is a RuntimeError
// naming it and saying to add large_buffers, before anything is touched (the
// buffers here are descriptors over a few bytes); with it, buffers over 2^31
// bytes work on the JIT, compared with C++ at both ends of the buffer.
// The interpreter refuses the feature (its index arithmetic is 32-bit), and a
// pipeline with GPU kernels too (the Vulkan runs fall back to the CPU).

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "e2e/E2ETest.h"

namespace {

using namespace loom;
using loom::internal::Backend;
using loom_test::compile_error_message;
using loom_test::contains;
using loom_test::runtime_error_message;

// 65536 x 32769 bytes = 2^31 + 65536: the last row starts at byte 2^31.
constexpr int kW = 65536, kH = 32769;
constexpr const char *kBytes = "2147549184";

Target with_large_buffers() { return get_jit_target_from_environment().with_feature(Target::LargeBuffers); }

class LargeBufferChecks : public loom_test::BackendTest {};

TEST_P(LargeBufferChecks, InputOf2GiBIsARuntimeErrorWithoutTheFeature) {
    ImageParam in(UInt(8), 2, "big_in");
    Var x("x");
    Func f("f");
    f(x) = in(x, 0) + in(x, kH - 1);
    static uint8_t few[64];
    in.set(Buffer<uint8_t>(few, {kW, kH}, "big"));  // claims 2^31 + 65536 bytes
    const std::string m = runtime_error_message([&] { f.realize({16}); });
    EXPECT_TRUE(contains(m, "Input buffer big_in")) << m;
    EXPECT_TRUE(contains(m, kBytes)) << m;
    EXPECT_TRUE(contains(m, "add the target feature large_buffers") || contains(m, "Add the target feature large_buffers"))
        << m;
}

TEST_P(LargeBufferChecks, OutputOf2GiBIsARuntimeErrorWithoutTheFeature) {
    Var x("x"), y("y");
    Func f("big_out");
    f(x, y) = cast<uint8_t>(x + y);
    static uint8_t few[64];
    Buffer<uint8_t> out(few, {kW, kH}, "out");
    const std::string m = runtime_error_message([&] { f.realize(out); });
    EXPECT_TRUE(contains(m, "Output buffer big_out")) << m;
    EXPECT_TRUE(contains(m, kBytes)) << m;
    EXPECT_TRUE(contains(m, "large_buffers")) << m;
    EXPECT_EQ(few[0], 0) << "nothing is written";
}

TEST_P(LargeBufferChecks, AllocationOf2GiBIsARuntimeErrorWithoutTheFeature) {
    Param<int> last("last");
    Var x("x"), y("y");
    Func f("big_f"), g("g");
    f(x, y) = cast<uint8_t>(x + y);
    g(x) = f(x, 0) + f(x, last);
    f.compute_root();  // [0, 65536) x [0, last]
    last.set(kH - 1);
    const std::string m = runtime_error_message([&] { g.realize({kW}); });
    EXPECT_TRUE(contains(m, "allocation of big_f")) << m;
    EXPECT_TRUE(contains(m, kBytes)) << m;
    EXPECT_TRUE(contains(m, "large_buffers")) << m;
    // Under 2^31 bytes it runs.
    last.set(99);
    Buffer<uint8_t> out = g.realize({1000});
    loom_test::expect_buffer_eq(out, [](const std::vector<int> &p) { return uint8_t(p[0] + p[0] + 99); });
}

TEST_P(LargeBufferChecks, SmallPipelineWithTheFeatureMatchesCpp) {
    ImageParam in(Int(32), 2, "in");
    Var x("x"), y("y");
    Func f("f"), g("g");
    f(x, y) = in(x, y) * 3 + y;
    g(x, y) = f(x, y) + f(x + 1, y);
    f.compute_root();
    g.vectorize(x, 8).parallel(y);
    Buffer<int> input(33, 9);
    input.for_each_element([&](const std::vector<int> &p) { input(p) = p[0] * 7 - p[1]; });
    in.set(input);
    if (GetParam() == Backend::Interpreter) {
        const std::string m = compile_error_message([&] { g.realize({32, 9}, with_large_buffers()); });
        EXPECT_TRUE(contains(m, "large_buffers")) << m;
        EXPECT_TRUE(contains(m, "interpreter")) << m;
        return;
    }
    Buffer<int> out = g.realize({32, 9}, with_large_buffers());
    loom_test::expect_buffer_eq(out, [&](const std::vector<int> &p) {
        auto fv = [&](int i, int j) { return input(i, j) * 3 + j; };
        return fv(p[0], p[1]) + fv(p[0] + 1, p[1]);
    });
}

LOOM_INSTANTIATE_BACKENDS(LargeBufferChecks);

// With the feature, on the JIT: real buffers of 2^31 + 65536 bytes (one at
// a time, so a test holds ~2 GiB), the far end checked against C++.

uint8_t pattern(int x, int y) { return uint8_t(x * 7 + y * 3); }

void expect_row(const Buffer<uint8_t> &b, int y) {
    int failures = 0;
    for (int x = 0; x < kW && failures < 5; x++) {
        if (b(x, y) != pattern(x, y)) {
            failures++;
            ADD_FAILURE() << "at (" << x << ", " << y << "): " << +b(x, y) << ", expected " << +pattern(x, y);
        }
    }
}

TEST(LargeBuffers, OutputOver2GiB) {
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = cast<uint8_t>(x * 7 + y * 3);
    f.vectorize(x, 64);
    Buffer<uint8_t> out = f.realize({kW, kH}, with_large_buffers());
    for (int y : {0, 1, 16384, kH - 2, kH - 1}) expect_row(out, y);
}

TEST(LargeBuffers, InputOver2GiB) {
    ImageParam in(UInt(8), 2, "in");
    Var x("x");
    Func f("f");
    f(x) = in(x, kH - 1) - in(x, 0);
    Buffer<uint8_t> big(kW, kH);
    for (int y : {0, kH - 1}) {
        for (int x = 0; x < kW; x++) big(x, y) = pattern(x, y);
    }
    in.set(big);
    Buffer<uint8_t> out = f.realize({kW}, with_large_buffers());
    loom_test::expect_buffer_eq(out, [](const std::vector<int> &p) {
        return uint8_t(pattern(p[0], kH - 1) - pattern(p[0], 0));
    });
}

TEST(LargeBuffers, IntermediateOver2GiBFromAParallelLoop) {
    // An allocation over 2^31 bytes, written by a parallel, vectorized loop
    // nest (the 64-bit lets of a closure: LargeBuffersIndexTest.cpp).
    Param<int> last("last");
    Var x("x"), y("y"), xo("xo"), xi("xi");
    Func f("f"), g("g");
    f(x, y) = cast<uint8_t>(x * 7 + y * 3);
    g(x) = f(x, last) - f(x, 0);
    f.compute_root().split(x, xo, xi, 8192).parallel(xo).vectorize(xi, 64);
    last.set(kH - 1);
    Buffer<uint8_t> out = g.realize({kW}, with_large_buffers());
    loom_test::expect_buffer_eq(out, [](const std::vector<int> &p) {
        return uint8_t(pattern(p[0], kH - 1) - pattern(p[0], 0));
    });
}

TEST(LargeBuffers, ThirtyTwoBitTargetsAdviseSmallerBuffersNotTheFeature) {
    // A 32-bit target refuses large_buffers (LLVMTarget), so its size checks
    // must not advise it: they say what a 32-bit target can do instead.
    ImageParam in(UInt(8), 2, "in");
    Var x("x"), y("y");
    Func f("f"), g("g");
    f(x, y) = in(x, y) + 1;
    g(x, y) = f(x, y) * 2;
    f.compute_root();
    auto lowered_text = [&](const Target &t) {
        const std::string path = ::testing::TempDir() + "large_buffers_advice_" + std::to_string(t.bits) + ".stmt";
        g.compile_to_lowered_stmt(path, {in}, t);
        std::ifstream file(path);
        std::stringstream text;
        text << file.rdbuf();
        std::remove(path.c_str());
        return text.str();
    };
    const std::string narrow = lowered_text(Target("x86-32-linux"));
    EXPECT_TRUE(contains(narrow, "A 32-bit target (x86-32-linux) cannot address buffers of 2^31 bytes")) << narrow;
    EXPECT_FALSE(contains(narrow, "Add the target feature large_buffers")) << narrow;
    const std::string wide = lowered_text(Target("x86-64-linux"));
    EXPECT_TRUE(contains(wide, "Add the target feature large_buffers")) << wide;
    EXPECT_FALSE(contains(wide, "32-bit target")) << wide;
}

}  // namespace
