// A where() predicate on a pure Var narrows the region of an update through
// the splits of that Var (fuzz seed 1030343, docs/FUZZING.md): the loop
// nests below are the ones StageLoopNest builds for
// f(x, y) += in(x + r.x, y + r.y + 2) with r.where(4 < y + r.y), r.y in
// [-1, 1], and boxes_required must give exactly the rows read. The last
// ones are fuzz seed 1104's (r.where(r.x + x < 17), x on GPU blocks and
// threads), and nests where the predicate must not narrow.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <functional>
#include <vector>

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

/** Point reads of "in" in one dimension, each at `at` of the loop
 * variables where `holds` (a C++ model of a loop nest). */
struct PointRead {
    std::function<int(int x, int r)> at;
};

/** The smallest and largest index reads take over x in [m, m + h) and r in
 * [r_min, r_min + r_extent) where holds(x, r). */
std::pair<int, int> range_read(int m, int h, int r_min, int r_extent, const std::function<bool(int, int)> &holds,
                               const std::vector<PointRead> &reads) {
    int lo = INT_MAX, hi = INT_MIN;
    for (int x = m; x < m + h; x++) {
        for (int r = r_min; r < r_min + r_extent; r++) {
            if (!holds(x, r)) continue;
            for (const PointRead &p : reads) {
                lo = std::min(lo, p.at(x, r));
                hi = std::max(hi, p.at(x, r));
            }
        }
    }
    return {lo, hi};
}

/** boxes_required's interval for "in" with M and H given values. */
Interval asked(const Stmt &s, int m, int h, const Scope<Interval> &scope = Scope<Interval>()) {
    auto boxes = boxes_required(s, scope);
    EXPECT_EQ(boxes["in"].size(), 1u);
    if (boxes["in"].size() != 1) return Interval();
    const std::map<std::string, Expr> values = {{"H", Expr(h)}, {"M", Expr(m)}};
    const Interval &i = boxes["in"][0];
    return Interval(substitute(values, i.min), substitute(values, i.max));
}

Stmt gpu_loop(const std::string &name, ForType type, Expr min, Expr extent, Stmt body) {
    return For::make(name, std::move(min), std::move(extent), type, DeviceAPI::Vulkan, std::move(body));
}

// Fuzz seed 1104 (the CI GPU fuzz): f5's update, r.where(r.x + x < 17),
// split x by 11 with PredicateStores onto GPU blocks and threads, the RDom
// innermost. x is a let of the block and thread variables; its guard and
// the predicate sit inside r's loop. The rows x + 1 and r + 2 read stop at
// 16 (x <= 15 where r >= 1), whatever the output's width.
TEST(WhereNarrowing, PredicateNarrowsThroughGpuBlocksAndThreads) {
    Expr H = var("H"), M = var("M"), xb = var("xb"), xt = var("xt"), r = var("r"), x = var("x");
    Stmt reads = Block::make(read_input({x + 1}), read_input({r + 2}));
    Stmt body = IfThenElse::make(x <= M + H - 1, IfThenElse::make(r + x < 17, reads));
    body = loop("r", 1, 5, LetStmt::make("x", M + xb * 11 + xt, body));
    Stmt s = gpu_loop("xb", ForType::GPUBlock, 0, (H + 10) / 11, gpu_loop("xt", ForType::GPUThread, 0, 11, body));
    const std::vector<PointRead> model = {{[](int x, int) { return x + 1; }}, {[](int, int r) { return r + 2; }}};
    for (int m : {0, 6}) {
        for (int h : {4, 11, 16, 23, 40}) {
            auto [lo, hi] = range_read(m, h, 1, 5, [](int x, int r) { return r + x < 17; }, model);
            if (lo > hi) continue;  // the predicate never holds: nothing to compare
            EXPECT_TRUE(interval_is(asked(s, m, h), lo, hi)) << "M = " << m << ", H = " << h;
        }
    }
}

// The same seed's unscheduled pipeline: x outermost, r inside, and two
// reads in one dimension, x + 1 and r + 4 (with 17, from a producer's
// fixed RDom). Solved innermost loop first alone, r's bound min(r, 16 - x)
// left max(max(min(r, 16 - x) + 4, 17), x + 1) not monotonic in x, so x's
// bound was not substituted and the read reached x's last value + 1 (the
// unscheduled pipeline asked rows up to 22 for 18, and the seed's GPU
// schedule, exact, was reported as asking too little). Each variable
// bounded by the whole condition narrows it; the endpoint keeps the
// narrower of the two.
TEST(WhereNarrowing, ReadsOfTheVarAndTheRVarInOneDimension) {
    Expr H = var("H"), M = var("M"), r = var("r"), x = var("x");
    Stmt reads = Block::make({read_input({x + 1}), read_input({r + 4}), read_input({17})});
    Stmt s = loop("x", M, H, loop("r", 1, 5, IfThenElse::make(r + x < 17, reads)));
    const std::vector<PointRead> model = {
        {[](int x, int) { return x + 1; }}, {[](int, int r) { return r + 4; }}, {[](int, int) { return 17; }}};
    for (int m : {0, 6}) {
        for (int h : {4, 11, 16, 23, 40}) {
            auto [lo, hi] = range_read(m, h, 1, 5, [](int x, int r) { return r + x < 17; }, model);
            if (lo > hi) continue;
            EXPECT_TRUE(interval_is(asked(s, m, h), lo, hi)) << "M = " << m << ", H = " << h;
        }
    }
}

// Fuzz seed 2231 (GPU campaign): r.where(r.y + y < 8) on an update
// computed per point of its consumer, whose producer reads rows
// (y + r.y) * 4 + 1 and (y + r.y) * 2 + 2, i.e. y * 4 + r * 4 + 1. Solved
// innermost first, r's bound made y * 4 + min(r, 7 - y) * 4 + 1, which
// is monotonic in y only with the constant moved into the min
// (min(y * 4 + r * 4, 28) + 1); without that y's bound was not substituted
// and the rows reached 41 for 29 (each variable bounded by the whole
// condition: min(y, 9) * 4 + min(r, 5 - y) * 4 + 1 relaxed apart).
TEST(WhereNarrowing, ConstantTimesTheRestrictedSum) {
    Expr H = var("H"), M = var("M"), r = var("r"), y = var("y");
    Stmt reads = Block::make({read_input({y * 4 + r * 4 + 1}), read_input({y * 2 + r * 2 + 2}), read_input({y + r})});
    Stmt s = loop("y", M, H, loop("r", -2, 5, IfThenElse::make(r + y < 8, reads)));
    const std::vector<PointRead> model = {{[](int y, int r) { return y * 4 + r * 4 + 1; }},
                                          {[](int y, int r) { return y * 2 + r * 2 + 2; }},
                                          {[](int y, int r) { return y + r; }}};
    for (int m : {0, 6}) {
        for (int h : {1, 4, 27}) {
            auto [lo, hi] = range_read(m, h, -2, 5, [](int y, int r) { return r + y < 8; }, model);
            if (lo > hi) continue;
            EXPECT_TRUE(interval_is(asked(s, m, h), lo, hi)) << "M = " << m << ", H = " << h;
        }
    }
}

// x split by 4 with the RDom's loop between the two halves (r inside xo,
// xi innermost): the innermost variable of the condition is x, through
// xi, and r's bound comes from x's values inside xi's loop, xo * 4 + M to
// xo * 4 + M + 3. `exact`: the region is exactly what is read; otherwise
// it must contain it. One case stays loose at some sizes: under the lower
// bound 9 < x + r, the reads x + r and 2x - r together, where r's bound
// (BoundSubstitutedIntoTheOperandItNarrows) comes from x's values inside
// xi's loop without x's guard (x <= M + H - 1), too weak in a partial last
// block (14 for 11 at M = 3 and 5 rows); either read alone is exact.
TEST(WhereNarrowing, RDomLoopBetweenTheSplitsOfTheVar) {
    Expr H = var("H"), M = var("M"), xo = var("xo"), xi = var("xi"), r = var("r"), x = var("x");
    const Expr sum = x + r, diff = x * 2 - r;
    const PointRead read_sum{[](int x, int r) { return x + r; }}, read_diff{[](int x, int r) { return x * 2 - r; }};
    struct Case {
        const char *name;
        Expr cond;
        bool (*holds)(int x, int r);
        std::vector<Expr> reads;
        std::vector<PointRead> model;
        bool exact = true;
    };
    auto upper = [](int x, int r) { return r + x < 17; };
    auto lower = [](int x, int r) { return 9 < x + r; };
    const std::vector<Case> cases = {
        {"r + x < 17, x + r", r + x < 17, upper, {sum}, {read_sum}},
        {"r + x < 17, 2x - r", r + x < 17, upper, {diff}, {read_diff}},
        {"r + x < 17, both", r + x < 17, upper, {sum, diff}, {read_sum, read_diff}},
        {"9 < x + r, x + r", 9 < x + r, lower, {sum}, {read_sum}},
        {"9 < x + r, 2x - r", 9 < x + r, lower, {diff}, {read_diff}},
        {"9 < x + r, both", 9 < x + r, lower, {sum, diff}, {read_sum, read_diff}, false},
    };
    for (const Case &c : cases) {
        std::vector<Stmt> reads;
        for (const Expr &e : c.reads) reads.push_back(read_input({e}));
        Stmt body = LetStmt::make("x", M + xo * 4 + xi,
                                  IfThenElse::make(x <= M + H - 1, IfThenElse::make(c.cond, Block::make(reads))));
        Stmt s = loop("xo", 0, (H + 3) / 4, loop("r", -2, 6, loop("xi", 0, 4, body)));
        for (int m : {0, 3}) {
            for (int h : {5, 8, 13, 21}) {
                auto [lo, hi] = range_read(m, h, -2, 6, c.holds, c.model);
                if (lo > hi) continue;
                const Interval got = asked(s, m, h);
                if (c.exact) {
                    EXPECT_TRUE(interval_is(got, lo, hi)) << c.name << ", M = " << m << ", H = " << h;
                    continue;
                }
                auto a = as_const_int(simplify(got.min)), b = as_const_int(simplify(got.max));
                ASSERT_TRUE(a && b) << c.name;
                EXPECT_LE(*a, lo) << c.name << ", M = " << m << ", H = " << h;
                EXPECT_GE(*b, hi) << c.name << ", M = " << m << ", H = " << h;
            }
        }
    }
}

// Reads of x + r and 2x - r in one dimension under 9 < x + r, x's loop
// inside r's: the endpoint max(x + r, x * 2 - r) is not monotonic in r, so
// r's bound (r >= 10 - x, which limits 2x - r) is substituted only into
// the operand it narrows (before, 2x - r was bounded at r's first value:
// 2 * (M + H - 1) + 2).
TEST(WhereNarrowing, BoundSubstitutedIntoTheOperandItNarrows) {
    Expr H = var("H"), M = var("M"), r = var("r"), x = var("x");
    Stmt reads = Block::make(read_input({x + r}), read_input({x * 2 - r}));
    Stmt s = loop("r", -2, 6, loop("x", M, H, IfThenElse::make(9 < x + r, reads)));
    const std::vector<PointRead> model = {{[](int x, int r) { return x + r; }},
                                          {[](int x, int r) { return x * 2 - r; }}};
    for (int m : {0, 3}) {
        for (int h : {5, 8, 13, 21}) {
            auto [lo, hi] = range_read(m, h, -2, 6, [](int x, int r) { return 9 < x + r; }, model);
            if (lo > hi) continue;
            EXPECT_TRUE(interval_is(asked(s, m, h), lo, hi)) << "M = " << m << ", H = " << h;
        }
    }
}

// Where the predicate must not narrow: a read outside its branch, a read of
// a variable the predicate does not mention (y), a predicate that always
// holds, and one that is not linear. Each asks for every row the loops
// reach.
TEST(WhereNarrowing, NoNarrowingWhereThePredicateDoesNotBoundTheRead) {
    Expr H = var("H"), M = var("M"), r = var("r"), x = var("x"), y = var("y");
    struct Case {
        const char *name;
        Stmt body;
        std::pair<int, int> (*want)(int m, int h);
    };
    const std::vector<Case> cases = {
        {"a read before the branch",
         Block::make(read_input({x + 1}), IfThenElse::make(r + x < 17, read_input({x + 1}))),
         [](int m, int h) { return std::make_pair(m + 1, m + h); }},
        {"a read of y under r + x < 17", IfThenElse::make(r + x < 17, read_input({y})),
         [](int, int) { return std::make_pair(0, 9); }},
        {"x - r < 100", IfThenElse::make(x - r < 100, read_input({x + r})),
         [](int m, int h) { return std::make_pair(m + 1, m + h + 4); }},
        {"r * x < 17", IfThenElse::make(r * x < 17, read_input({x})),
         [](int m, int h) { return std::make_pair(m, m + h - 1); }},
    };
    for (const Case &c : cases) {
        Stmt s = loop("y", 0, 10, loop("x", M, H, loop("r", 1, 5, c.body)));
        for (int m : {0, 6}) {
            for (int h : {4, 16, 23}) {
                auto [lo, hi] = c.want(m, h);
                EXPECT_TRUE(interval_is(asked(s, m, h), lo, hi)) << c.name << ", M = " << m << ", H = " << h;
            }
        }
    }
}

// x's loop outside the statement (given by a scope, as bounds inference
// does for the loops around a compute site): the predicate over r and x
// has one variable of a loop in the statement, and narrows as before.
TEST(WhereNarrowing, VariableOfALoopOutsideTheStatement) {
    Expr r = var("r"), x = var("x");
    Stmt s = loop("r", 1, 5, IfThenElse::make(r + x < 17, Block::make(read_input({x + 1}), read_input({r + 4}))));
    for (int h : {4, 16, 23}) {
        Scope<Interval> scope;
        scope.push("x", Interval(Expr(0), Expr(h - 1)));
        auto [lo, hi] = range_read(0, h, 1, 5, [](int x, int r) { return r + x < 17; },
                                   {{[](int x, int) { return x + 1; }}, {[](int, int r) { return r + 4; }}});
        EXPECT_TRUE(interval_is(asked(s, 0, h, scope), lo, hi)) << "H = " << h;
    }
}

}  // namespace
