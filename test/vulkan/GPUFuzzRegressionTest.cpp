// Regression tests for bugs the GPU schedule fuzzer found (test/fuzz,
// docs/FUZZING.md "GPU schedules"): each pipeline is the fuzzer's failing
// one reduced by hand, run on Vulkan and compared with plain C++ loops.

#include "vulkan/VulkanTestUtil.h"

using namespace loom;

namespace {

TEST(GPUFuzzRegression, ThreadNestOfFewerDimensionsThanTheWorkgroupRunsOnce) {
    LOOM_REQUIRE_VULKAN();
    // Fuzzer seed 1139. p's 2-D thread loops make the workgroup 4x4; f's
    // update has 1-D thread loops, and every row of invocations ran it, so
    // its read-modify-write was applied four times per point.
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi"), yb("yb"), yt("yt");
    RDom r(1, 9, "r");
    Func p("p"), f("f");
    p(x, y) = x + 2 * y;
    f(x, y) = x;
    f(r, y) = f(r - 1, y) + f(r, y) + p(r, y);
    f.update(0).split(y, yb, yt, 4, TailStrategy::RoundUp).gpu_blocks(yb).gpu_threads(yt);
    p.compute_at(f, yb).tile(x, y, xo, yo, xi, yi, 4, 4).gpu_threads(xi, yi);
    Buffer<int> out = f.realize({10, 8}, loom_test::vulkan_jit_target());
    int expected[8][10];
    for (int j = 0; j < 8; j++) {
        for (int i = 0; i < 10; i++) expected[j][i] = i;
        for (int i = 1; i < 10; i++) expected[j][i] = expected[j][i - 1] + expected[j][i] + i + 2 * j;
    }
    for (int j = 0; j < 8; j++) {
        for (int i = 0; i < 10; i++) EXPECT_EQ(out(i, j), expected[j][i]) << "at (" << i << ", " << j << ")";
    }
}

}  // namespace
