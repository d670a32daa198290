// What the simplifier's cost depends on, checked without timing: min/max
// chains that unions of region endpoints build stay short, and the symbolic
// fallback runs interval arithmetic once per distinct question.
#include <gtest/gtest.h>

#include <algorithm>

#include "ir/IR.h"
#include "ir/IREquality.h"
#include "ir/IRPrinter.h"
#include "ir/IRUtil.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "ir/simplify/SimplifyInternal.h"

using namespace loom;
using namespace loom::internal;

namespace {

Expr var(const std::string &name, Type t = Int(32)) { return Variable::make(t, name); }
Expr c32(int v) { return IntImm::make(Int(32), v); }

const Expr x = var("x"), y = var("y"), z = var("z"), n = var("n");

::testing::AssertionResult simplifies_to(const Expr &in, const Expr &want,
                                         const Scope<Interval> &s = Scope<Interval>()) {
    Expr got = simplify(in, s);
    if (equal(got, want)) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "simplify(" << in << ")\n  got:  " << got << "\n  want: " << want;
}

/** min (or max) of the operands, nested to the left as merge_boxes builds it. */
Expr chain(const std::vector<Expr> &ops, bool is_max) {
    Expr e = ops[0];
    for (size_t i = 1; i < ops.size(); i++) e = is_max ? Expr(Max::make(e, ops[i])) : Expr(Min::make(e, ops[i]));
    return e;
}

uint64_t fallbacks() { return simplify_impl::simplifier_counters().symbolic_fallbacks; }
uint64_t bounds_computed() { return simplify_impl::simplifier_counters().fallback_bounds_computed; }

}  // namespace

// The union of the regions of four call sites of one Func, each endpoint a
// constant away from another: the chain keeps only the operands that can win.
TEST(SimplifyCost, MinChainDropsOperandsDominatedByAConstant) {
    Expr a = Sub::make(c32(12), y), b = Sub::make(c32(14), y);
    Expr want = Min::make(Sub::make(c32(12), y), c32(2));
    EXPECT_TRUE(simplifies_to(chain({a, c32(2), b, a, b, a, b}, false), want));
    // Dominated operands anywhere in the chain, on either side.
    EXPECT_TRUE(simplifies_to(Min::make(Min::make(x, y), Add::make(x, c32(1))), Min::make(x, y)));
    EXPECT_TRUE(simplifies_to(Min::make(Add::make(x, c32(1)), Min::make(y, x)), Min::make(y, x)));
    EXPECT_TRUE(simplifies_to(Min::make(Min::make(Add::make(x, c32(3)), y), x), Min::make(y, x)));
}

TEST(SimplifyCost, MaxChainDropsOperandsDominatedByAConstant) {
    Expr a = Sub::make(c32(-5), y), b = Sub::make(c32(-3), y);
    Expr got = simplify(chain({a, c32(-1), b, a, b, a, b}, true));
    // Two operands left: -1 and -3 - y (which one comes first is the
    // simplifier's canonical order, not the point here).
    EXPECT_TRUE(equal(got, Max::make(Sub::make(c32(-3), y), c32(-1))) ||
                equal(got, Max::make(c32(-1), Sub::make(c32(-3), y))))
        << got;
    EXPECT_TRUE(simplifies_to(Max::make(Max::make(x, y), Add::make(x, c32(-1))), Max::make(x, y)));
}

TEST(SimplifyCost, MinChainKeepsOperandsThatMayWin) {
    // No constant difference: nothing to drop.
    Expr e = Min::make(Min::make(x, y), z);
    EXPECT_TRUE(simplifies_to(e, e));
    Expr f = Min::make(Min::make(x, y), Add::make(x, y));
    EXPECT_TRUE(simplifies_to(f, f));
    // Wrapping types: x + 1 may wrap below x, so it is not dominated.
    Expr u = var("u", UInt(8));
    Expr g = Min::make(Min::make(u, var("v", UInt(8))), Add::make(u, UIntImm::make(UInt(8), 1)));
    EXPECT_TRUE(simplifies_to(g, g));
}

TEST(SimplifyCost, ChainOfManyCallSitesStaysShort) {
    // 40 call sites of a stencil, at x + 0..6 and y + 0..4: the 80-operand
    // union stays a few nodes, with the right value.
    std::vector<Expr> ops;
    for (int k = 0; k < 40; k++) {
        ops.push_back(Add::make(x, c32(k % 7)));
        ops.push_back(Add::make(y, c32(k % 5)));
    }
    EXPECT_TRUE(simplifies_to(chain(ops, false), Min::make(x, y)));
    Expr hi = simplify(chain(ops, true));
    EXPECT_LE(expr_size(hi, 100), 16) << hi;  // max(max(max(x, y) + 1, y + 4), x + 6): 13
    for (auto [xv, yv] : {std::pair{0, 0}, {10, 3}, {-4, 9}, {7, 5}}) {
        Expr at = simplify(substitute("y", c32(yv), substitute("x", c32(xv), hi)));
        EXPECT_TRUE(equal(at, c32(std::max(xv + 6, yv + 4)))) << hi << " at x = " << xv << ", y = " << yv;
    }
}

// The fallback's interval arithmetic depends only on the question and on the
// intervals of its variables: asked again, it is answered from memory, with
// the same decision.
TEST(SimplifyCost, SymbolicFallbackRemembersItsBounds) {
    Scope<Interval> loop;
    loop.push("x", Interval(c32(0), Sub::make(n, c32(1))));
    Expr cmp = LT::make(x, n);  // x in [0, n - 1]: true only through the fallback
    const uint64_t asked = fallbacks(), computed = bounds_computed();
    EXPECT_TRUE(is_const_one(simplify(cmp, loop)));
    EXPECT_EQ(fallbacks(), asked + 1);
    EXPECT_EQ(bounds_computed(), computed + 1);
    for (int k = 0; k < 5; k++) EXPECT_TRUE(is_const_one(simplify(cmp, loop)));
    EXPECT_EQ(fallbacks(), asked + 6);
    EXPECT_EQ(bounds_computed(), computed + 1) << "the same question computed its bounds again";

    // Another interval for x is another question: computed, and decided by it.
    Scope<Interval> wider;
    wider.push("x", Interval(c32(0), n));
    EXPECT_FALSE(is_const_one(simplify(cmp, wider)));
    EXPECT_EQ(bounds_computed(), computed + 2);
    EXPECT_TRUE(is_const_one(simplify(cmp, loop)));
    EXPECT_EQ(bounds_computed(), computed + 2);
}
