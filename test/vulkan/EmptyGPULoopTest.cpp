// GPU loops over empty regions (GPU fuzz seeds 2311, 2445, 2491, 2498, 2784,
// 2888, 2889): a GPU loop runs like the serial loop it replaces, so one whose
// extent is 0 or negative runs no iteration. The host code skipped nothing
// and passed the negative block count to loom_vulkan_run, which refused it
// ("-1 blocks"). Each test
// realizes the pipeline for sizes that make a producer's region empty and
// others that do not, and compares with plain C++ loops.

#include <string>

#include "vulkan/VulkanTestUtil.h"

using namespace loom;

namespace {

/** out(x) = the sum over r in [0, n) of x * 3 + r * 5 + 1 (0 when n <= 0). */
int sum_reference(int x, int n) {
    int s = 0;
    for (int r = 0; r < n; r++) s += (x + r) * 3 + 1 + r * 2;
    return s;
}

TEST(EmptyGPULoop, BlockLoopOverAnEmptyProducerRegionLaunchesNothing) {
    LOOM_REQUIRE_VULKAN();
    // p's region is [0, 9 + n - 1]: empty for n <= -9, and for n <= -16 its
    // block count, (extent + 7) / 8 rounded down, is negative.
    Param<int> n("n");
    Var x("x"), xo("xo"), xi("xi");
    RDom r(0, n, "r");
    Func p("p"), out("out");
    p(x) = x * 3 + 1;
    out(x) = 0;
    out(x) += p(x + r) + r * 2;
    p.compute_root().gpu_tile(x, xo, xi, 8, TailStrategy::GuardWithIf);
    out.gpu_tile(x, xo, xi, 4, TailStrategy::GuardWithIf);
    out.update(0).gpu_tile(x, xo, xi, 4, TailStrategy::GuardWithIf);
    for (int value : {5, 1, 0, -3, -9, -16, -40}) {
        SCOPED_TRACE("n = " + std::to_string(value));
        n.set(value);
        Buffer<int> result = out.realize({10}, loom_test::vulkan_jit_target());
        for (int i = 0; i < 10; i++) EXPECT_EQ(result(i), sum_reference(i, value)) << "at " << i;
    }
}

TEST(EmptyGPULoop, OneEmptyDimensionOfATwoDimensionalGridLaunchesNothing) {
    LOOM_REQUIRE_VULKAN();
    // p's rows [0, 5 + n - 1] are empty for n <= -5 while its columns are
    // not: blocks_x stays positive and blocks_y goes to 0 and below.
    Param<int> n("n");
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    RDom r(0, n, "r");
    Func p("p"), out("out");
    p(x, y) = x * 7 + y;
    out(x, y) = x - y;
    out(x, y) += p(x, y + r);
    p.compute_root().gpu_tile(x, y, xo, yo, xi, yi, 4, 2, TailStrategy::GuardWithIf);
    out.gpu_tile(x, y, xo, yo, xi, yi, 4, 2, TailStrategy::GuardWithIf);
    out.update(0).gpu_tile(x, y, xo, yo, xi, yi, 4, 2, TailStrategy::GuardWithIf);
    for (int value : {3, 0, -5, -6, -12}) {
        SCOPED_TRACE("n = " + std::to_string(value));
        n.set(value);
        Buffer<int> result = out.realize({6, 5}, loom_test::vulkan_jit_target());
        for (int j = 0; j < 5; j++) {
            for (int i = 0; i < 6; i++) {
                int expected = i - j;
                for (int k = 0; k < value; k++) expected += i * 7 + j + k;
                EXPECT_EQ(result(i, j), expected) << "at (" << i << ", " << j << ")";
            }
        }
    }
}

}  // namespace
