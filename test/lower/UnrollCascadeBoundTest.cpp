// unroll_loops leaves out the blocks of an unroll cascade that are larger
// than the loop's largest extent (they never run): in fuzz seed 1001848,
// in0_bc's rows split by 8 and unrolled {4, 2, 1} with 2 rows per
// realization kept only the single iterations' loop. The values of such a
// cascade are checked in test/e2e/UnrollCascadeNestTest.cpp.
#include "LoopShapingUtil.h"

#include "lower/StageLoopNest.h"
#include "lower/UnrollLoops.h"

using namespace shaping_test;

namespace {

bool has(const std::string &t, const std::string &part) { return t.find(part) != std::string::npos; }

/** let y.unroll_cascade = {4, 2, 1}; unrolled for (y, 0, extent) { out[y] = y } */
Stmt cascade_over(Expr extent) {
    Stmt body = Store::make("out", v("y"), v("y"));
    Stmt loop = For::make("y", Expr(0), std::move(extent), ForType::Unrolled, DeviceAPI::None, body);
    return LetStmt::make(unroll_cascade_marker("y"), Shuffle::make_concat({Expr(4), Expr(2), Expr(1)}), loop);
}

TEST(UnrollCascadeBound, UnboundedExtentKeepsEveryBlock) {
    std::string t = text(unroll_loops(cascade_over(v("m"))));
    EXPECT_TRUE(has(t, "y.block4")) << t;
    EXPECT_TRUE(has(t, "y.block2")) << t;
}

TEST(UnrollCascadeBound, BlocksLongerThanTheLargestExtentAreLeftOut) {
    std::string t = text(unroll_loops(cascade_over(min(v("m"), 3))));
    EXPECT_FALSE(has(t, "y.block4")) << t;
    EXPECT_TRUE(has(t, "y.block2")) << t;
}

TEST(UnrollCascadeBound, SeedExtentBoundedThroughItsMin) {
    // (min(o * 8, m) + 1) / 8 - o + 1 is at most 1 (min(o * 8, m) <= o * 8):
    // only the loop of single iterations is left.
    Expr o = v("o");
    std::string t = text(unroll_loops(cascade_over((min(o * 8, v("m")) + 1) / 8 - o + 1)));
    EXPECT_FALSE(has(t, "y.block4")) << t;
    EXPECT_FALSE(has(t, "y.block2")) << t;
    EXPECT_TRUE(has(t, "for (y, y.cascade_start")) << t;
}

}  // namespace
