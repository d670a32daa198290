// boxes_required over loops whose bounds depend on outer loops (tiles), and
// over branch conditions: regions are the union of the exact per-iteration
// regions, never the largest min plus the largest extent.
#include <gtest/gtest.h>

#include <algorithm>

#include "common/LoopNestBuilders.h"

#include "ir/Bounds.h"
#include "ir/IR.h"
#include "ir/IREquality.h"
#include "ir/IRPrinter.h"
#include "ir/IRUtil.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "loom/IROperator.h"

using namespace loom;
using namespace loom::internal;

namespace {

using loom_test::interval_is;
using loom_test::loop;
using loom_test::read_input;
using loom_test::var;

// for t in [0, 4): lo = 32 t, hi = min(32 t + 31, 99), for y in [lo, hi]: in(y + 1)
// The loop's min and extent both grow with t; the last tile is rows 96..99.
TEST(BoxesTouched, LoopWhoseMinAndExtentDependOnAnOuterLoop) {
    Expr t = var("t"), y = var("y");
    Stmt body = loop("y", var("y.loop_min"), var("y.loop_extent"), read_input({y + 1}));
    body = LetStmt::make("y.loop_extent", var("y.loop_max") - var("y.loop_min") + 1, body);
    body = LetStmt::make("y.loop_max", min(t * 32 + 31, 99), body);
    body = LetStmt::make("y.loop_min", t * 32, body);
    Stmt s = loop("t", 0, 4, body);
    auto boxes = boxes_required(s);
    ASSERT_EQ(boxes["in"].size(), 1u);
    EXPECT_TRUE(interval_is(boxes["in"][0], 1, 100));
}

// A shifted tile start: base = min(8 t, 29 - 7), x = base + xi; the tiles
// cover [0, 29] exactly.
TEST(BoxesTouched, ShiftedTilesCoverExactlyTheRange) {
    Expr t = var("t"), xi = var("xi"), x = var("x");
    Stmt body = LetStmt::make("x", min(t * 8, 22) + xi, read_input({x * 2}));
    Stmt s = loop("t", 0, 4, loop("xi", 0, 8, body));
    auto boxes = boxes_required(s);
    EXPECT_TRUE(interval_is(boxes["in"][0], 0, 58));
}

// A guard on a variable defined by a let: the guarded tile reads [0, 29].
TEST(BoxesTouched, GuardNarrowsTheLetItTests) {
    Expr t = var("t"), xi = var("xi"), x = var("x");
    Stmt guarded = IfThenElse::make(x <= 29, read_input({x}));
    Stmt s = loop("t", 0, 4, loop("xi", 0, 8, LetStmt::make("x", t * 8 + xi, guarded)));
    auto boxes = boxes_required(s);
    EXPECT_TRUE(interval_is(boxes["in"][0], 0, 29));
}

// A fused loop in each tile of 7 rows of [0, 24] (the last tile guarded to
// rows 21..24), as StageLoopNest writes it: xy runs over
// select(X >= 1, max(Y, 0), 0) * max(X, 1) points and gives y back as
// xy / max(X, 1) + y.loop_min. The last row per tile simplifies to
// max(min(24 - 7 t, 6), -1) + 7 t, which interval arithmetic bounded as
// 6 + 21 (t read in and out of the min); with the sum moved into the max
// it is max(min(24, 7 t + 6), 7 t - 1), monotonic in t, and exact.
TEST(BoxesTouched, FusedLoopPerGuardedTileIsExact) {
    for (bool symbolic : {false, true}) {
        Expr t = var("t"), xy = var("xy"), X = symbolic ? var("X") : Expr(5);
        Expr y_min = var("y.loop_min"), y_max = var("y.loop_max");
        Stmt read = read_input({xy % max(X, 1), xy / max(X, 1) + y_min});
        Stmt body = loop("xy", 0, select(X >= 1, max(y_max - y_min + 1, 0), 0) * max(X, 1), read);
        body = LetStmt::make("y.loop_max", min(t * 7 + 6, 24), body);
        body = LetStmt::make("y.loop_min", t * 7, body);
        auto boxes = boxes_required(loop("t", 0, 4, body));
        ASSERT_EQ(boxes["in"].size(), 2u);
        EXPECT_TRUE(interval_is(boxes["in"][1], 0, 24)) << (symbolic ? "symbolic X" : "X = 5");
        if (!symbolic) EXPECT_TRUE(interval_is(boxes["in"][0], 0, 4));
    }
}

// A producer rounded up to blocks of 3 rows (RoundUp) per 8-row tile of a
// GuardWithIf split of 14 rows: tile t computes rows 8 t up to
// 8 t + ((min(8 t + 7, 13) - 8 t + 3) / 3) * 3 - 1, i.e. [0, 8] and [8, 13].
// Interval arithmetic took t = 0 in the min and t = 1 outside it (22; Halide
// 14 asks for 16); split where the min switches operands (t <= 0 and
// t >= 1), each side is exact. Also with the height symbolic, and at 16
// rows, where the second side is empty for no tile is cut.
TEST(BoxesTouched, RoundedUpBlocksPerGuardedTileAreExact) {
    for (int height : {14, 16, 100}) {
        for (bool symbolic : {false, true}) {
            Expr t = var("t"), y = var("y"), H = symbolic ? var("H") : Expr(height);
            Expr lo = t * 8, hi = min(t * 8 + 7, H - 1);
            Expr rows = ((hi - lo + 1 + 2) / 3) * 3;
            Stmt body = loop("y", lo, rows, read_input({y}));
            Stmt s = loop("t", 0, (H + 7) / 8, body);
            auto boxes = boxes_required(s);
            ASSERT_EQ(boxes["in"].size(), 1u);
            Interval i = boxes["in"][0];
            if (symbolic) i = Interval(substitute("H", Expr(height), i.min), substitute("H", Expr(height), i.max));
            // The last row any tile computes (13, 16 and 101).
            int last = 0;
            for (int tile = 0; tile * 8 < height; tile++) {
                int rows = std::min(tile * 8 + 7, height - 1) - tile * 8 + 1;
                last = std::max(last, tile * 8 + (rows + 2) / 3 * 3 - 1);
            }
            EXPECT_TRUE(interval_is(i, 0, last)) << height << (symbolic ? " symbolic" : "");
        }
    }
}

// A branch that some iterations never take (i < 2 j is false for every i
// when j = 0) must not widen the region below what the taken ones read.
TEST(BoxesTouched, BranchNeverTakenInSomeIterationsAddsNothing) {
    Expr i = var("i"), j = var("j");
    Stmt s = loop("j", 0, 3, loop("i", 0, 8, IfThenElse::make(i < j * 2, read_input({i, j}))));
    auto boxes = boxes_required(s);
    ASSERT_EQ(boxes["in"].size(), 2u);
    EXPECT_TRUE(interval_is(boxes["in"][0], 0, 3));
    // i < 2j with i >= 0 holds only for j >= 1: the row j = 0 is not read.
    EXPECT_TRUE(interval_is(boxes["in"][1], 1, 2));
}

// Nested lets that shadow an outer name are substituted innermost first.
TEST(BoxesTouched, ShadowedLetNames) {
    Expr a = var("a"), k = var("k");
    Stmt inner = LetStmt::make("a", a * 2, read_input({a}));
    Stmt s = loop("k", 0, 5, LetStmt::make("a", k + 1, inner));
    auto boxes = boxes_required(s);
    EXPECT_TRUE(interval_is(boxes["in"][0], 2, 10));
}

}  // namespace

// A filter reports only the names it accepts, each with the box the full
// search finds: for t in [0, 4): for y in [8t, 8t + 7]: f(y, in(y - 1)) reads
// in over [-1, 30] and calls f over [0, 31]; provided boxes filter alike.
TEST(BoxesTouched, FilterReportsOnlyTheWantedNamesWithTheSameBoxes) {
    Expr t = var("t"), y = var("y");
    Parameter p(Int(32), true, 1, "in");
    Expr in_call = Call::make(Int(32), "in", {y - 1}, CallType::Image, FunctionPtr(), 0, p);
    Expr f_call = Call::make(Int(32), "f", {y, in_call}, CallType::Func, FunctionPtr(), 0);
    Stmt body = Provide::make("g", {f_call}, {y});
    Stmt s = loop("t", 0, 4, loop("y", t * 8, 8, body));

    auto all = boxes_required(s);
    auto only_in = boxes_required(s, {}, [](const std::string &n) { return n == "in"; });
    ASSERT_EQ(all.size(), 2u);
    ASSERT_EQ(only_in.size(), 1u);
    ASSERT_EQ(only_in.count("in"), 1u);
    EXPECT_TRUE(interval_is(only_in["in"][0], -1, 30));
    EXPECT_TRUE(interval_is(all["in"][0], -1, 30));
    EXPECT_TRUE(interval_is(all["f"][0], 0, 31));

    auto provided_none = boxes_provided(s, {}, [](const std::string &n) { return n == "in"; });
    EXPECT_TRUE(provided_none.empty());
    auto provided_g = boxes_provided(s, {}, [](const std::string &n) { return n == "g"; });
    ASSERT_EQ(provided_g.count("g"), 1u);
    EXPECT_TRUE(interval_is(provided_g["g"][0], 0, 31));
}

// Nested guards on a variable the read grows with: each guard narrows the
// max endpoint to min(x, n_i) directly (the read is monotonic in x), so the
// endpoint stays linear in the nesting depth instead of doubling per guard.
// for x in [0, 100): if (x <= n0) { if (x <= n1) { ... in(x + 1) } }
TEST(BoxesTouched, NestedGuardsOnAMonotonicReadStaySmall) {
    Expr x = var("x");
    const int depth = 16;
    Stmt body = read_input({x + 1});
    for (int i = 0; i < depth; i++) body = IfThenElse::make(x <= var("n" + std::to_string(i)), body);
    Stmt s = loop("x", 0, 100, body);
    auto boxes = boxes_required(s);
    ASSERT_EQ(boxes["in"].size(), 1u);
    const Interval &i = boxes["in"][0];
    EXPECT_TRUE(is_const(simplify(i.min), 1)) << i.min;
    ASSERT_TRUE(i.max.defined());
    EXPECT_LT(expr_size(i.max, 100000), 20 * depth) << i.max;
    // Every n_i narrows it: with all n_i = 7 the last read is in(8).
    std::map<std::string, Expr> sevens;
    for (int k = 0; k < depth; k++) sevens["n" + std::to_string(k)] = Expr(7);
    EXPECT_TRUE(is_const(simplify(substitute(sevens, i.max)), 8)) << i.max;
}

namespace {

/** The points `for j in [-3, 3]: for i in [0, 5]: if (cond(i, j)) in(f(i, j))`
 * reads, by enumeration: per dimension the smallest and largest coordinate,
 * or nothing if cond never holds. */
struct PointsRead {
    bool any = false;
    int lo[2] = {0, 0}, hi[2] = {0, 0};
    void add(int x, int y) {
        const int p[2] = {x, y};
        for (int d = 0; d < 2; d++) {
            lo[d] = any ? std::min(lo[d], p[d]) : p[d];
            hi[d] = any ? std::max(hi[d], p[d]) : p[d];
        }
        any = true;
    }
};

}  // namespace

// A linear guard over two loop variables (a where() on an RVar and a pure
// Var) narrows both: every such guard, against the points enumerated.
// Soundness: the box contains every point read, for all 5 x 5 x 5
// coefficient pairs, constants and comparisons and three read shapes.
// Tightness: with the read in(i, j) and an inequality, the box is exactly
// the bounding box of the points read (without the linear solve of
// 91d5fd1 it was the whole loop range of a variable the guard did not
// isolate: 165 of these 443 were exact). An equality with a coefficient 2
// reads every other point of a line, which a box of bounds alone cannot
// tell: contained, not exact.
TEST(BoxesTouched, LinearGuardsContainEveryPointRead) {
    Expr i = var("i"), j = var("j");
    int checked = 0, exact = 0, exact_possible = 0;
    for (int a = -2; a <= 2; a++) {
        for (int b = -2; b <= 2; b++) {
            for (int c = -4; c <= 4; c += 2) {
                for (int kind = 0; kind < 5; kind++) {
                    for (int shape = 0; shape < 3; shape++) {
                        auto cond_of = [&](const Expr &u, const Expr &v) -> Expr {
                            Expr lhs = u * a + v * b;
                            switch (kind) {
                            case 0: return lhs < c;
                            case 1: return lhs <= c;
                            case 2: return lhs == c;
                            case 3: return Expr(c) < lhs;
                            default: return Expr(c) >= v - u * a;
                            }
                        };
                        auto cond_value = [&](int u, int v) {
                            const int lhs = u * a + v * b;
                            switch (kind) {
                            case 0: return lhs < c;
                            case 1: return lhs <= c;
                            case 2: return lhs == c;
                            case 3: return c < lhs;
                            default: return c >= v - u * a;
                            }
                        };
                        auto point = [&](int u, int v) -> std::pair<int, int> {
                            if (shape == 0) return {u, v};
                            if (shape == 1) return {u + v, 2 * u - v};
                            return {(u + 7) / 2, v * v};
                        };
                        std::vector<Expr> args;
                        if (shape == 0) args = {i, j};
                        else if (shape == 1) args = {i + j, i * 2 - j};
                        else args = {(i + 7) / 2, j * j};
                        Stmt s = loop("j", -3, 7, loop("i", 0, 6, IfThenElse::make(cond_of(i, j), read_input(args))));
                        PointsRead read;
                        for (int v = -3; v <= 3; v++) {
                            for (int u = 0; u <= 5; u++) {
                                if (cond_value(u, v)) read.add(point(u, v).first, point(u, v).second);
                            }
                        }
                        auto boxes = boxes_required(s);
                        if (!read.any) continue;
                        ASSERT_EQ(boxes["in"].size(), 2u);
                        checked++;
                        bool is_exact = true;
                        for (int d = 0; d < 2; d++) {
                            const Interval &box = boxes["in"][d];
                            auto lo = box.min.defined() ? as_const_int(simplify(box.min)) : std::nullopt;
                            auto hi = box.max.defined() ? as_const_int(simplify(box.max)) : std::nullopt;
                            ASSERT_TRUE(lo && hi) << "a " << a << " b " << b << " c " << c << " kind " << kind;
                            EXPECT_LE(*lo, read.lo[d]) << "a " << a << " b " << b << " c " << c << " kind " << kind
                                                       << " shape " << shape << " dim " << d;
                            EXPECT_GE(*hi, read.hi[d]) << "a " << a << " b " << b << " c " << c << " kind " << kind
                                                       << " shape " << shape << " dim " << d;
                            is_exact = is_exact && *lo == read.lo[d] && *hi == read.hi[d];
                        }
                        if (shape == 0 && kind != 2) {
                            exact_possible++;
                            exact += is_exact;
                            EXPECT_TRUE(is_exact) << "a " << a << " b " << b << " c " << c << " kind " << kind;
                        }
                    }
                }
            }
        }
    }
    EXPECT_GT(checked, 1000);
    EXPECT_EQ(exact, exact_possible);
    std::cout << "[boxes] " << checked << " guards checked; read in(i, j): " << exact << " of " << exact_possible
              << " exact\n";
}

namespace {

int64_t min_of(int64_t a, int64_t b) { return std::min(a, b); }
Expr min_of(const Expr &a, const Expr &b) { return min(a, b); }

/** An index of over 2,000 tree nodes: a sum of 40 terms, each a chain of
 * mins whose operands move in opposite directions with t5. */
template<typename T>
T big_index(const T &t1, const T &t3, const T &t4, const T &t5) {
    T sum = t1;
    for (int k = 0; k < 40; k++) {
        T term = t5 * (k % 3 + 1) + t4 + T(k);
        for (int j = 0; j < 8; j++) term = min_of(term + T(j), T(3 * k + j) - t3 * (j % 2 + 1));
        sum = sum + term;
    }
    return sum;
}

}  // namespace

// An endpoint too big to relax one loop at a time (each loop could double
// it: fuzz seed 1102455) is relaxed over all the loops around it at once,
// each loop's range bounded from the outside in (t1 and t4 start where an
// outer loop is). The region still holds every point the nest reads.
TEST(BoxesTouched, BigEndpointRelaxedOverTheWholeNestHoldsEveryPointRead) {
    Expr t0 = var("t0"), t1 = var("t1"), t3 = var("t3"), t4 = var("t4"), t5 = var("t5");
    const Expr index = big_index<Expr>(t1, t3, t4, t5);
    ASSERT_GT(expr_size(index, 4000), 2048);  // past kMaxEndpointRelaxedPerLoop
    Stmt s = loop("t5", 0, 3, read_input({index}));
    s = loop("t4", t3, 2, s);
    s = loop("t3", 0, 3, s);
    s = loop("t2", 0, 2, s);
    s = loop("t1", t0 * 2, 3, s);
    s = loop("t0", 0, 3, s);
    auto boxes = boxes_required(s);
    ASSERT_EQ(boxes["in"].size(), 1u);
    const auto lo = as_const_int(simplify(boxes["in"][0].min)), hi = as_const_int(simplify(boxes["in"][0].max));
    ASSERT_TRUE(lo && hi) << "[" << boxes["in"][0].min << ", " << boxes["in"][0].max << "]";
    int64_t read_min = INT64_MAX, read_max = INT64_MIN;
    for (int64_t v0 = 0; v0 < 3; v0++) {
        for (int64_t v1 = v0 * 2; v1 < v0 * 2 + 3; v1++) {
            for (int64_t v3 = 0; v3 < 3; v3++) {
                for (int64_t v4 = v3; v4 < v3 + 2; v4++) {
                    for (int64_t v5 = 0; v5 < 3; v5++) {
                        const int64_t i = big_index<int64_t>(v1, v3, v4, v5);
                        read_min = std::min(read_min, i);
                        read_max = std::max(read_max, i);
                    }
                }
            }
        }
    }
    EXPECT_LE(*lo, read_min);
    EXPECT_GE(*hi, read_max);
}
