// Vectorizing or unrolling a whole loop whose extent is not a constant but
// is bounded by one (as Halide's bound_constant_extent_loops): the loop runs
// the bound's lanes or copies, those past the extent guarded off. The
// shapes of fuzz seeds 802088, 802745 and 803342 (docs/FUZZING.md, note
// (g)): a producer stored at the root and computed per point of its
// consumer slides, so its first iteration computes more columns than the
// others (extent select(first, 2, 1)); and a producer computed per tile of
// a GuardWithIf tiling (also with the tile loops fused), whose tail tiles
// are smaller. Values against C++; the lowered statement shows the vector
// stores, no loop left for the unrolled dimension, and the full tile's
// constant-size allocation (lower/BoundSmallAllocations.h).

#include <string>
#include <vector>

#include "E2ETest.h"

namespace {

using namespace loom;
using loom_test::contains;
using loom_test::expect_buffer_eq;

class ConstantBoundExtent : public loom_test::BackendTest {};

Buffer<int> ramp(int w, int h) {
    Buffer<int> b(w, h);
    b.for_each_element([&](int i, int j) { b(i, j) = (i * 11 + j * 7) % 23 - 5; });
    return b;
}

int count(const std::string &text, const std::string &part) {
    int n = 0;
    for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) n++;
    return n;
}

// Seed 803342: p stored at the root and computed per point of c slides
// along c's x; x vectorized and y unrolled whole.
TEST_P(ConstantBoundExtent, SlidingProducerVectorizedAndUnrolledWhole) {
    Var x("x"), y("y");
    constexpr int W = 11, H = 6;
    Buffer<int> in = ramp(W + 1, H + 1);
    Func p("cbe_slide_p"), c("cbe_slide_c");
    p(x, y) = in(x, y) * 3 - y;
    c(x, y) = p(x, y) + p(x + 1, y + 1) * 2;
    p.compute_at(c, x).store_root().vectorize(x).unroll(y);
    std::string stmt = loom_test::lowered_stmt(c, "cbe_slide.stmt");
    EXPECT_EQ(count(stmt, "for (cbe_slide_p.s0.y"), 0) << stmt;
    EXPECT_TRUE(contains(stmt, "cbe_slide_p[ramp(")) << stmt;
    Buffer<int> out = c.realize({W, H});
    expect_buffer_eq(out, [&](const std::vector<int> &q) {
        auto P = [&](int i, int j) { return in(i, j) * 3 - j; };
        return P(q[0], q[1]) + P(q[0] + 1, q[1] + 1) * 2;
    });
}

// Seed 802088: the read x - 2 makes the first iteration's extent
// x - select(x <= x_min, x - 2, x) + 1, three columns, then one.
TEST_P(ConstantBoundExtent, SlidingProducerReadBehindVectorizedWhole) {
    Var x("x"), y("y");
    constexpr int W = 9, H = 4;
    Buffer<int> in(W + 2, H);
    in.set_min({-2, 0});
    in.for_each_element([&](int i, int j) { in(i, j) = (i * 5 + j * 3) % 13 - 4; });
    Func p("cbe_behind_p"), c("cbe_behind_c");
    p(x, y) = in(x, y) + x * y;
    c(x, y) = p(x, y) * 3 - p(x - 2, y);
    p.compute_at(c, x).store_root().vectorize(x).unroll(y);
    std::string stmt = loom_test::lowered_stmt(c, "cbe_behind.stmt");
    EXPECT_TRUE(contains(stmt, "cbe_behind_p[ramp(")) << stmt;
    Buffer<int> out = c.realize({W, H});
    expect_buffer_eq(out, [&](const std::vector<int> &q) {
        auto P = [&](int i, int j) { return in(i, j) + i * j; };
        return P(q[0], q[1]) * 3 - P(q[0] - 2, q[1]);
    });
}

// A producer per tile of a GuardWithIf tiling (13 x 7 in tiles of 8 x 2):
// the tail tiles need fewer columns and rows, at most 8 x 3.
TEST_P(ConstantBoundExtent, ProducerPerGuardedTileVectorizedAndUnrolledWhole) {
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    constexpr int W = 13, H = 7;
    Buffer<int> in = ramp(W, H + 1);
    Func p("cbe_tile_p"), c("cbe_tile_c");
    p(x, y) = in(x, y) * 5 + x;
    c(x, y) = p(x, y) - p(x, y + 1);
    c.tile(x, y, xo, yo, xi, yi, 8, 2, TailStrategy::GuardWithIf);
    p.compute_at(c, xo).vectorize(x).unroll(y);
    std::string stmt = loom_test::lowered_stmt(c, "cbe_tile.stmt");
    EXPECT_EQ(count(stmt, "for (cbe_tile_p.s0.y"), 0) << stmt;
    EXPECT_TRUE(contains(stmt, "cbe_tile_p[ramp(")) << stmt;
    // The tail tiles' smaller storage shares the full tile's constant size.
    EXPECT_TRUE(contains(stmt, "allocate cbe_tile_p[int32 * 8 * 3]")) << stmt;
    Buffer<int> out = c.realize({W, H});
    expect_buffer_eq(out, [&](const std::vector<int> &q) {
        auto P = [&](int i, int j) { return in(i, j) * 5 + i; };
        return P(q[0], q[1]) - P(q[0], q[1] + 1);
    });
}

// The same inside a fused loop over the tiles: the tile's corner comes
// back as tile % count and tile / count, and the extents stay bounded.
TEST_P(ConstantBoundExtent, ProducerPerFusedGuardedTileVectorizedAndUnrolledWhole) {
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi"), t("t");
    constexpr int W = 13, H = 7;
    Buffer<int> in = ramp(W + 1, H);
    Func p("cbe_fused_p"), c("cbe_fused_c");
    p(x, y) = in(x, y) * 2 - y;
    c(x, y) = p(x + 1, y) + p(x, y);
    c.tile(x, y, xo, yo, xi, yi, 4, 3, TailStrategy::GuardWithIf).fuse(xo, yo, t);
    p.compute_at(c, t).vectorize(x).unroll(y);
    std::string stmt = loom_test::lowered_stmt(c, "cbe_fused.stmt");
    EXPECT_EQ(count(stmt, "for (cbe_fused_p.s0.y"), 0) << stmt;
    EXPECT_TRUE(contains(stmt, "cbe_fused_p[ramp(")) << stmt;
    EXPECT_TRUE(contains(stmt, "allocate cbe_fused_p[int32 * 5 * 3]")) << stmt;
    Buffer<int> out = c.realize({W, H});
    expect_buffer_eq(out, [&](const std::vector<int> &q) {
        auto P = [&](int i, int j) { return in(i, j) * 2 - j; };
        return P(q[0] + 1, q[1]) + P(q[0], q[1]);
    });
}

// A matrix-multiply accumulator per 16 x 4 tile of a GuardWithIf tiling of
// a 37 x 10 output: a constant-size allocation (on the stack), its loops
// vectorized and unrolled whole in every tile, the tail ones too.
TEST_P(ConstantBoundExtent, GuardedTileAccumulatorHasAConstantSize) {
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    ImageParam A(Float(32), 2, "cbe_A"), B(Float(32), 2, "cbe_B");
    constexpr int K = 9, W = 37, H = 10;
    RDom k(0, K, "cbe_k");
    Func acc("cbe_acc"), out("cbe_out");
    acc(x, y) = 0.0f;
    acc(x, y) += A(k, y) * B(x, k);
    out(x, y) = acc(x, y);
    out.tile(x, y, xo, yo, xi, yi, 16, 4, TailStrategy::GuardWithIf);
    acc.compute_at(out, xo).vectorize(x).unroll(y);
    acc.update().reorder(x, y, k).vectorize(x).unroll(y);
    std::string stmt = loom_test::lowered_stmt(out, "cbe_accumulator.stmt");
    EXPECT_TRUE(contains(stmt, "allocate cbe_acc[float32 * 16 * 4]")) << stmt;
    EXPECT_EQ(count(stmt, "for (cbe_acc.s0.y"), 0) << stmt;
    EXPECT_EQ(count(stmt, "for (cbe_acc.s1.y"), 0) << stmt;
    EXPECT_TRUE(contains(stmt, "cbe_acc[ramp(")) << stmt;

    Buffer<float> a(K, H), b(W, K);
    a.for_each_element([&](int i, int j) { a(i, j) = float((i * 3 + j) % 7) - 2.0f; });
    b.for_each_element([&](int i, int j) { b(i, j) = float((i + j * 5) % 11) * 0.5f; });
    A.set(a);
    B.set(b);
    Buffer<float> result = out.realize({W, H});
    expect_buffer_eq(result, [&](const std::vector<int> &p) {
        float sum = 0.0f;
        for (int i = 0; i < K; i++) sum += a(i, p[1]) * b(p[0], i);
        return sum;
    });
}

// A loop whose extent has no constant bound (the output's width) is still
// refused, naming the loop and saying what to do.
TEST_P(ConstantBoundExtent, UnboundedExtentIsACompileError) {
    Var x("x"), y("y");
    Func f("cbe_unbounded");
    f(x, y) = x + y;
    f.vectorize(x);
    std::string m = loom_test::compile_error_message([&] { f.realize({8, 2}); });
    EXPECT_TRUE(contains(m, "loop x of Func cbe_unbounded")) << m;
    EXPECT_TRUE(contains(m, "nor bounded by one")) << m;
    EXPECT_TRUE(contains(m, "vectorize(x, 8)")) << m;
    Func g("cbe_unbounded_unroll");
    g(x, y) = x - y;
    g.unroll(y);
    m = loom_test::compile_error_message([&] { g.realize({8, 2}); });
    EXPECT_TRUE(contains(m, "loop y of Func cbe_unbounded_unroll")) << m;
    EXPECT_TRUE(contains(m, "Split it by a constant factor")) << m;
}

LOOM_INSTANTIATE_BACKENDS(ConstantBoundExtent);

}  // namespace
