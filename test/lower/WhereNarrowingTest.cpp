// A where() predicate on a pure Var narrows the region of an update through
// the splits of that Var (fuzz seed 1030343, docs/FUZZING.md): the loop
// nests below are the ones StageLoopNest builds for
// f(x, y) += in(x + r.x, y + r.y + 2) with r.where(4 < y + r.y), r.y in
// [-1, 1], and boxes_required must give exactly the rows read.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>

#include "common/LoopNestBuilders.h"

#include "ir/Bounds.h"
#include "ir/IR.h"
#include "ir/Substitute.h"
#include "loom/IROperator.h"

using namespace loom;
using namespace loom::internal;

namespace {

using loom_test::interval_is;
using loom_test::loop;
using loom_test::read_input;
using loom_test::var;

/** The rows y + r.y + 2 that rows [0, height) of the output read where
 * `holds` (a plain loop over the output and r.y). */
template<typename P>
std::pair<int, int> rows_read(int height, P holds) {
    int lo = INT_MAX, hi = INT_MIN;
    for (int y = 0; y < height; y++) {
        for (int ry = -1; ry <= 1; ry++) {
            if (!holds(y, ry)) continue;
            lo = std::min(lo, y + ry + 2);
            hi = std::max(hi, y + ry + 2);
        }
    }
    return {lo, hi};
}

/** The box of "in", with the output's first row M 0 and its height H
 * given its value (both symbolic in the query, as in a pipeline's). */
Interval rows_asked(const Stmt &s, int height) {
    auto boxes = boxes_required(s);
    EXPECT_EQ(boxes["in"].size(), 1u);
    if (boxes["in"].size() != 1) return Interval();
    const std::map<std::string, Expr> values = {{"H", Expr(height)}, {"M", Expr(0)}};
    const Interval &i = boxes["in"][0];
    return Interval(substitute(values, i.min), substitute(values, i.max));
}

// The seed's schedule: split(y, yo, yi, 5, GuardWithIf), then
// split(yo, yo, yoi, 5, PredicateStores), the RDom's loops innermost.
// Each split's variable is a let inside the loops, its guard just inside
// the let. Bounding y and r.y each by the whole predicate gave
// max(y, 5 - r.y) + max(r.y, 5 - y) + 2, whose two terms were relaxed
// apart over yi and yoi: rows from 5. Solved innermost loop first (r.y,
// then y >= 4 for r.y <= 1) the row is max(max(y, 4) + r.y + 2, 7).
TEST(WhereNarrowing, PredicateNarrowsThroughTwoGuardedSplits) {
    Expr H = var("H"), M = var("M"), yo = var("yo"), yoi = var("yoi"), yi = var("yi"), ry = var("ry");
    Expr y = var("y"), yo1 = var("yo1");
    Expr yo1_extent = (H + 4) / 5;
    Stmt body = IfThenElse::make(4 < y + ry, read_input({y + ry + 2}));
    body = LetStmt::make("y", M + yo1 * 5 + yi, IfThenElse::make(y <= M + H - 1, body));
    body = LetStmt::make("yo1", yo * 5 + yoi, IfThenElse::make(yo1 <= yo1_extent - 1, body));
    Stmt inner_rdom = loop("yo", 0, (yo1_extent + 4) / 5, loop("yoi", 0, 5, loop("yi", 0, 5, loop("ry", -1, 3, body))));
    Stmt outer_rdom = loop("ry", -1, 3, loop("yo", 0, (yo1_extent + 4) / 5, loop("yoi", 0, 5, loop("yi", 0, 5, body))));
    for (int height : {8, 13, 27, 60}) {
        auto [lo, hi] = rows_read(height, [](int y, int ry) { return 4 < y + ry; });
        EXPECT_TRUE(interval_is(rows_asked(inner_rdom, height), lo, hi)) << height << " rows";
        EXPECT_TRUE(interval_is(rows_asked(outer_rdom, height), lo, hi)) << height << " rows, r.y outermost";
    }
}

// Two conditions, r.y - y >= -3 && y + r.y > 2, through the seed's two
// splits (exact before too, each variable bounded by each whole
// condition): solved innermost first, the second gives r.y >= 3 - y and
// then y >= 2, which the row y + max(max(r.y, 3 - y), y - 3) + 2 moves
// with only once its sum is moved into the max
// (max(max(y + r.y + 2, 5), 2 y - 1)).
TEST(WhereNarrowing, TwoConditionsNarrowThroughTwoGuardedSplits) {
    Expr H = var("H"), M = var("M"), yo = var("yo"), yoi = var("yoi"), yi = var("yi"), ry = var("ry");
    Expr y = var("y"), yo1 = var("yo1");
    Expr yo1_extent = (H + 4) / 5;
    Stmt body = IfThenElse::make(ry - y >= -3 && y + ry > 2, read_input({y + ry + 2}));
    body = LetStmt::make("y", M + yo1 * 5 + yi, IfThenElse::make(y <= M + H - 1, body));
    body = LetStmt::make("yo1", yo * 5 + yoi, IfThenElse::make(yo1 <= yo1_extent - 1, body));
    Stmt s = loop("yo", 0, (yo1_extent + 4) / 5, loop("yoi", 0, 5, loop("yi", 0, 5, loop("ry", -1, 3, body))));
    for (int height : {8, 13, 27}) {
        auto [lo, hi] = rows_read(height, [](int y, int ry) { return ry - y >= -3 && y + ry > 2; });
        EXPECT_TRUE(interval_is(rows_asked(s, height), lo, hi)) << height << " rows";
    }
}

// An upper bound: y + r.y < 6 narrows the last row read to 7 however many
// rows the output has, and r.y's lower bound -1 gives y <= 6 to the loops
// of y.
TEST(WhereNarrowing, UpperBoundNarrowsThroughTwoGuardedSplits) {
    Expr H = var("H"), M = var("M"), yo = var("yo"), yoi = var("yoi"), yi = var("yi"), ry = var("ry");
    Expr y = var("y"), yo1 = var("yo1");
    Expr yo1_extent = (H + 2) / 3;
    Stmt body = IfThenElse::make(y + ry < 6, read_input({y + ry + 2}));
    body = LetStmt::make("y", M + yo1 * 3 + yi, IfThenElse::make(y <= M + H - 1, body));
    body = LetStmt::make("yo1", yo * 2 + yoi, IfThenElse::make(yo1 <= yo1_extent - 1, body));
    Stmt s = loop("yo", 0, (yo1_extent + 1) / 2, loop("yoi", 0, 2, loop("yi", 0, 3, loop("ry", -1, 3, body))));
    for (int height : {4, 8, 13, 27}) {
        auto [lo, hi] = rows_read(height, [](int y, int ry) { return y + ry < 6; });
        EXPECT_TRUE(interval_is(rows_asked(s, height), lo, hi)) << height << " rows";
    }
}

}  // namespace
