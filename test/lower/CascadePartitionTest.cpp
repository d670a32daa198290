// partition_loops leaves whole the loops inside an unroll cascade's body
// (unless their policy is Always), as it does in a prologue or epilogue,
// and a loop of one iteration around an unrolled loop:
// unroll_loops copies that body once per unrolled iteration of each block
// size, and a partition inside it multiplied those copies (fuzz seed
// 1001848: 59,796 lines after unrolling, 80 s of LLVM). Structure is checked
// on partition_loops directly and on the lowered pipeline; values against a
// plain C++ loop through the JIT and the interpreter (LoopShapingUtil's run()).
#include "LoopShapingUtil.h"

#include "lower/PartitionLoops.h"
#include "lower/StageLoopNest.h"

using namespace shaping_test;

namespace {

int count(const std::string &haystack, const std::string &needle) {
    int n = 0;
    for (size_t p = haystack.find(needle); p != std::string::npos; p = haystack.find(needle, p + 1)) n++;
    return n;
}

/** [let y.unroll_cascade = {4, 2, 1}] y_type for (y, 0, h) { for (x, 0, w) {
 * out[x + y * w] = in[max(min(x - 1, w - 1), 0)] } }: x's clamp is a
 * boundary test of x. */
Stmt rows(ForType y_type, bool cascade) {
    Expr w = v("w"), h = v("h");
    Expr clamped = Load::make(Int(32), "in", max(min(v("x") - 1, w - 1), 0));
    Stmt xs = For::make("x", Expr(0), w, ForType::Serial, DeviceAPI::None, Store::make("out", clamped, v("x") + v("y") * w));
    Stmt ys = For::make("y", Expr(0), h, y_type, DeviceAPI::None, xs);
    if (cascade) ys = LetStmt::make(unroll_cascade_marker("y"), Shuffle::make_concat({Expr(4), Expr(2), Expr(1)}), ys);
    return ys;
}

TEST(CascadePartition, LoopsInsideACascadeStayWhole) {
    std::string t = text(partition_loops(rows(ForType::Unrolled, true)));
    EXPECT_EQ(count(t, "for (x"), 1) << t;
    EXPECT_EQ(count(t, "x.steady_min"), 0) << t;
    EXPECT_EQ(count(t, "unrolled for (y"), 1) << t;
}

TEST(CascadePartition, TheSameLoopOutsideACascadeIsPartitioned) {
    // The control: a serial y, or an unrolled y of constant extent without a
    // cascade (copied as often as Halide's unroll would copy it before its
    // partition), still partition x.
    for (bool unrolled : {false, true}) {
        std::string t = text(partition_loops(rows(unrolled ? ForType::Unrolled : ForType::Serial, false)));
        EXPECT_GT(count(t, "x.steady_min"), 0) << t;  // one-iteration ends become ifs
    }
}

TEST(CascadePartition, AlwaysStillPartitionsInsideACascade) {
    std::string t = text(partition_loops(rows(ForType::Unrolled, true), {{"x", Partition::Always}}));
    EXPECT_GT(count(t, "x.steady_min"), 0) << t;
}

/** for (y, r, extent) { u_type for (u, 0, 2) { out[u + y * 2] = in[max(min(y, w - 1), 0)] } } */
Stmt one_row(Expr extent, ForType u_type) {
    Expr y = v("y");
    Expr clamped = Load::make(Int(32), "in", max(min(y, v("w") - 1), 0));
    Stmt us = For::make("u", Expr(0), Expr(2), u_type, DeviceAPI::None, Store::make("out", clamped, v("u") + y * 2));
    return For::make("y", v("r"), std::move(extent), ForType::Serial, DeviceAPI::None, us);
}

TEST(CascadePartition, OneIterationAroundAnUnrolledLoopStaysWhole) {
    // Fuzz seed 1021464's f3 rows: one per row of the consumer, around
    // unrolled loops. Through a let, as the lowered extent is written.
    Stmt s = LetStmt::make("e", v("r") - v("r") + 1, one_row(v("e"), ForType::Unrolled));
    std::string t = text(partition_loops(s));
    EXPECT_EQ(count(t, "y.steady_min"), 0) << t;
    // Without the unrolled loop, or with two iterations, y is partitioned
    // as before (apps/matmul's packed_b, apps/bilateral_grid's z_position).
    for (Stmt other : {one_row(Expr(1), ForType::Serial), one_row(Expr(2), ForType::Unrolled)}) {
        std::string o = text(partition_loops(other));
        EXPECT_GT(count(o, "y.steady_min"), 0) << o;
    }
    std::string a = text(partition_loops(one_row(Expr(1), ForType::Unrolled), {{"y", Partition::Always}}));
    EXPECT_GT(count(a, "y.steady_min"), 0) << a;
}

TEST(CascadePartition, LoweredCascadeCopiesTheWholeInnerLoop) {
    // f(x, y) = min(x, 5) * 10 + y with y unrolled {4, 2, 1} around x: one x
    // loop per unrolled row (4 + 2 + 1), none partitioned on the min.
    FunctionPtr f = make_func("f", {"x", "y"}, min(v("x"), 5) * 10 + v("y"));
    Sched(f).unroll("y", {4, 2, 1});
    for (auto [w, h] : {std::pair{9, 1}, {9, 7}, {12, 11}, {3, 6}}) {
        std::string ir;
        auto out = realize_2d(f, w, h, -2, 3, {}, &ir);
        EXPECT_EQ(count(ir, "for (f.s0.x"), 4 + 2 + 1) << ir;
        EXPECT_EQ(count(ir, "steady"), 0) << ir;
        for (int y = 3; y < 3 + h; y++)
            for (int x = -2; x < w - 2; x++) ASSERT_EQ(out(x, y), std::min(x, 5) * 10 + y) << w << " " << h;
    }
}

}  // namespace
