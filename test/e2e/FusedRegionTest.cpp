// A producer whose loops are fused, computed inside a loop of its consumer:
// the region of an input it reads is exactly what the pipeline reads
// (infer_input_bounds answers it, and an input of exactly that size runs),
// and the results equal a plain C++ loop. The shapes are campaign seeds
// 962586 (the fused loop split with GuardWithIf and vectorized) and its
// neighbours (issue 12, docs/FUZZING.md "Regions that are correct but not
// exact").

#include "e2e/E2ETest.h"

#include <vector>

using namespace loom;
using loom_test::expect_buffer_eq;

namespace {

class FusedRegion : public loom_test::BackendTest {};

void expect_region(const Buffer<> &b, const std::vector<int> &min, const std::vector<int> &max) {
    ASSERT_EQ(b.dimensions(), (int)min.size());
    for (int d = 0; d < b.dimensions(); d++) {
        EXPECT_EQ(b.min(d), min[d]) << "dimension " << d;
        EXPECT_EQ(b.min(d) + b.extent(d) - 1, max[d]) << "dimension " << d;
    }
}

enum class FusedLoop { Whole, SplitGuarded, SplitGuardedVectorized };

// f4 reads f2 at (x / 2, 2 y + 2) and at (y - 1, x + 1); f2 is computed per
// column of f4's 1 x 8 GuardWithIf tiles and fused. Per column, f2's rows
// run from min(16 yo + 2, x + 1) to max(2 min(8 yo + 7, 26) + 2, x + 1):
// the fused loop's last row is select(c, max(hi - lo + 1, 0), 0) + lo - 1,
// whose lo is itself a min, and interval arithmetic over the columns took
// the two lo independently ([1, 76] of in1, [1, 1480] with the fused loop
// split by 4 under GuardWithIf, where [1, 56] is read).
void check_fused_per_column(FusedLoop shape) {
    ImageParam in1(Int(32), 2, "fr_in1");
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi"), xy("xy"), xyo("xyo"), xyi("xyi");
    Func f2("fr_f2"), f4("fr_f4");
    f2(x, y) = in1(x, y) * 3 + in1(x - 1, y + 2);
    f4(x, y) = f2(x / 2, 2 * y + 2) + f2(y - 1, x + 1);
    f4.tile(x, y, xo, yo, xi, yi, 1, 8, TailStrategy::GuardWithIf);
    f2.compute_at(f4, xo).fuse(x, y, xy);
    if (shape != FusedLoop::Whole) f2.split(xy, xyo, xyi, 4, TailStrategy::GuardWithIf);
    if (shape == FusedLoop::SplitGuardedVectorized) f2.vectorize(xyi);

    f4.infer_input_bounds({21, 27});
    // Columns x - 1 of f2 for x in [0, 25] ([-1, 25]) and its x - 1 ([-2, 24]);
    // rows 2 y + 2 for y in [0, 26] ([2, 54], and 2 + 2 more) and x + 1 for x
    // in [0, 20]: [1, 56].
    expect_region(in1.get(), {-2, 1}, {25, 56});

    Buffer<int> input(28, 56);
    input.set_min({-2, 1});
    input.for_each_element([&](const std::vector<int> &p) { input(p) = p[0] * 7 + p[1] * 31; });
    in1.set(input);
    Buffer<int> out = f4.realize({21, 27});
    auto f2_ref = [&](int i, int j) { return input(i, j) * 3 + input(i - 1, j + 2); };
    expect_buffer_eq(out, [&](const std::vector<int> &p) {
        const int i = p[0], j = p[1];
        return f2_ref(i / 2, 2 * j + 2) + f2_ref(j - 1, i + 1);
    });
}

TEST_P(FusedRegion, FusedProducerPerTileColumnReadsExactly) { check_fused_per_column(FusedLoop::Whole); }

TEST_P(FusedRegion, SplitFusedProducerPerTileColumnReadsExactly) {
    check_fused_per_column(FusedLoop::SplitGuarded);
}

TEST_P(FusedRegion, VectorizedFusedProducerPerTileColumnReadsExactly) {
    check_fused_per_column(FusedLoop::SplitGuardedVectorized);
}

// Seed 960722's shape: a fused producer computed at its consumer's
// innermost pure loop, reading a stencil, so its box per point starts at a
// min of two reads.
TEST_P(FusedRegion, FusedProducerPerPointReadsExactly) {
    ImageParam in(Int(32), 2, "fr_point_in");
    Var x("x"), y("y"), xy("xy");
    Func g("fr_point_g"), h("fr_point_h");
    g(x, y) = in(x, y) + in(x + 1, y - 1);
    h(x, y) = g(x, 2 * y) + g(y, x - 1);
    g.compute_at(h, x).fuse(x, y, xy);

    h.infer_input_bounds({9, 12});
    // g's columns: x in [0, 8] and y in [0, 11], so [0, 11] and [1, 12];
    // rows: 2 y in [0, 22] and x - 1 in [-1, 7], minus one: [-2, 22].
    expect_region(in.get(), {0, -2}, {12, 22});

    Buffer<int> input(13, 25);
    input.set_min({0, -2});
    input.for_each_element([&](const std::vector<int> &p) { input(p) = p[0] * 5 - p[1] * 17; });
    in.set(input);
    Buffer<int> out = h.realize({9, 12});
    auto g_ref = [&](int i, int j) { return input(i, j) + input(i + 1, j - 1); };
    expect_buffer_eq(out, [&](const std::vector<int> &p) {
        return g_ref(p[0], 2 * p[1]) + g_ref(p[1], p[0] - 1);
    });
}

// Campaign seed 962294 (and CI seed 1164): a fused producer computed at the
// inner loop of its consumer's PredicateStores split. Past the consumer's
// last column the producer's box is empty ([x, min(x, 18)]) and its fused
// loop runs no iteration, but interval arithmetic over the division gave
// the columns back as [x, x], so the tail's columns 19 asked for one
// column and one row more of in than is read ([0, 19] x [0, 19]).
TEST_P(FusedRegion, FusedProducerPastAPredicatedTailAsksNothing) {
    ImageParam in(Int(32), 2, "fr_tail_in");
    Var x("x"), y("y"), xo("xo"), xi("xi"), xy("xy");
    RDom r(12, 4, "fr_tail_r");
    Func f1("fr_tail_f1"), f2("fr_tail_f2");
    f1(x, y) = in(x, y) * 2 + in(y / 2 - 1, x);
    f2(x, y) = x - y;
    f2(x, r.x) = f2(x, r.x - 1) + f1(x, r.x);
    f2.update(0).split(x, xo, xi, 4, TailStrategy::PredicateStores);
    f1.compute_at(f2, xi).fuse(x, y, xy);

    f2.infer_input_bounds({19, 29});
    // f1 over columns [0, 18] and rows [12, 15]: in(x, y) over
    // [0, 18] x [12, 15], in(y / 2 - 1, x) over [5, 6] x [0, 18].
    expect_region(in.get(), {0, 0}, {18, 18});

    Buffer<int> input(19, 19);
    input.for_each_element([&](const std::vector<int> &p) { input(p) = p[0] * 3 + p[1] * 41; });
    in.set(input);
    Buffer<int> out = f2.realize({19, 29});
    auto f1_ref = [&](int i, int j) { return input(i, j) * 2 + input(j / 2 - 1, i); };
    expect_buffer_eq(out, [&](const std::vector<int> &p) {
        const int i = p[0], j = p[1];
        int v = i - j;
        if (j < 12 || j > 15) return v;
        // f2(x, r) = f2(x, r - 1) + f1(x, r) for r = 12..j, each reading the
        // row before as the pure definition or the previous update left it.
        v = i - 11;
        for (int k = 12; k <= j; k++) v += f1_ref(i, k);
        return v;
    });
}

// The neighbour where the fused loop does run past its extent: split by 4
// with RoundUp, the 5 x 3 producer computes 16 points, the last at
// (0, 3), whose read of in must be in the region asked for. (Bounds
// inference may take the fused variables' own loop ranges only where every
// later split of the fused loop is guarded.)
TEST_P(FusedRegion, RoundedUpFusedLoopAsksForItsExtraPoint) {
    ImageParam in(Int(32), 2, "fr_round_in");
    Var x("x"), y("y"), xy("xy"), xyo("xyo"), xyi("xyi");
    Func g("fr_round_g"), h("fr_round_h");
    g(x, y) = in(x, y) + 1;
    h(x, y) = g(x, y) * 2;
    g.compute_root().fuse(x, y, xy).split(xy, xyo, xyi, 4, TailStrategy::RoundUp);

    h.infer_input_bounds({5, 3});
    expect_region(in.get(), {0, 0}, {4, 3});

    Buffer<int> input(5, 4);
    input.for_each_element([&](const std::vector<int> &p) { input(p) = p[0] * 3 - p[1] * 7; });
    in.set(input);
    Buffer<int> out = h.realize({5, 3});
    expect_buffer_eq(out, [&](const std::vector<int> &p) { return (input(p[0], p[1]) + 1) * 2; });
}

LOOM_INSTANTIATE_BACKENDS(FusedRegion);

}  // namespace
