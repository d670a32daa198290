// Interval arithmetic names a big endpoint (bound.N, bound by a Let around
// the result) so endpoints stay linear in the expression; the constant
// bounds of the named value go with the name, so the sign of a product's
// operands stays known (issue 12, fuzz seed 1102077: with the sign lost,
// each product took all four corners, which doubled the endpoints of a
// fused loop's region at each enclosing loop they were bounded over).
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>

#include "common/LoopNestBuilders.h"

#include "ir/Bounds.h"
#include "ir/IR.h"
#include "ir/IRPrinter.h"
#include "ir/IRUtil.h"
#include "ir/IRVisitor.h"
#include "ir/Scope.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "loom/IROperator.h"

using namespace loom;
using namespace loom::internal;

namespace {

using loom_test::var;

/** Products of two non-constant factors, as a tree: every copy counts. */
int count_muls(const Expr &e) {
    struct Count : IRVisitor {
        int muls = 0;
        using IRVisitor::visit;
        void visit(const Mul *op) override {
            muls += !is_const(op->a) && !is_const(op->b);
            IRVisitor::visit(op);
        }
    } c;
    e.accept(&c);
    return c.muls;
}

int64_t value_at(const Expr &e, const std::string &name, int v) {
    Expr s = simplify(substitute_in_all_lets(substitute(name, Expr(v), e)));
    auto c = as_const_int(s);
    EXPECT_TRUE(c.has_value()) << s;
    return c ? *c : 0;
}

// a and b vary with x, are at least 1 and are big enough to be named; a * b
// over x in [0, n] is [min a * min b, max a * max b]: one product per
// endpoint (four, each a copy of both named ends, when the names hid the
// signs), exact.
TEST(NamedBoundsFacts, ProductOfNamedPositiveValuesTakesOneCorner) {
    Expr x = var("x"), n = var("n");
    // Each increasing in x, so interval arithmetic bounds each exactly.
    Expr a_value = max(min(x + n, 9) + min(x, 4) + max(x, 2) + min(x + 1, n) + max(x - n, 3), 1);
    Expr b_value = max(min(x + 2, 11) + max(x, n - 3) + min(x + 5, 6) + min(x, n + n) + max(x, 4), 1);
    Expr a = Variable::make(Int(32), "a"), b = Variable::make(Int(32), "b");
    Expr e = Let::make("a", a_value, Let::make("b", b_value, a * b));
    Scope<Interval> scope;
    scope.push("x", Interval(Expr(0), n));
    Interval i = bounds_of_expr_in_scope(e, scope);
    ASSERT_TRUE(i.min.defined() && i.max.defined());
    EXPECT_EQ(count_muls(i.min), 1) << i.min;
    EXPECT_EQ(count_muls(i.max), 1) << i.max;

    // Exact: the extremes of each factor over x, multiplied (both >= 1),
    // checked against a loop for several n.
    for (int nv : {0, 1, 3, 7, 12}) {
        int64_t amin = INT64_MAX, amax = INT64_MIN, bmin = INT64_MAX, bmax = INT64_MIN;
        int64_t pmin = INT64_MAX, pmax = INT64_MIN;
        for (int xv = 0; xv <= nv; xv++) {
            auto at = [&](const Expr &v) { return value_at(substitute("n", Expr(nv), v), "x", xv); };
            int64_t av = at(a_value), bv = at(b_value);
            amin = std::min(amin, av), amax = std::max(amax, av);
            bmin = std::min(bmin, bv), bmax = std::max(bmax, bv);
            pmin = std::min(pmin, av * bv), pmax = std::max(pmax, av * bv);
        }
        EXPECT_EQ(value_at(i.min, "n", nv), amin * bmin) << "n = " << nv;
        EXPECT_EQ(value_at(i.max, "n", nv), amax * bmax) << "n = " << nv;
        // The box contains every product the loop computes.
        EXPECT_LE(value_at(i.min, "n", nv), pmin);
        EXPECT_GE(value_at(i.max, "n", nv), pmax);
    }
}

}  // namespace
