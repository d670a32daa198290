// Common-subexpression elimination (ir/CSE.h): linear in the graph, the
// same value, and nothing moved that must stay (side effects, names bound
// inside the expression).
#include <gtest/gtest.h>

#include "ir/CSE.h"
#include "ir/IR.h"
#include "ir/IRPrinter.h"
#include "ir/IRUtil.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "loom/IROperator.h"

using namespace loom;
using namespace loom::internal;

namespace {

Expr var(const std::string &name) { return Variable::make(Int(32), name); }

std::optional<int64_t> value_at(const Expr &e, int x) {
    return as_const_int(simplify(substitute("x", Expr(x), e)));
}

// e_k = e_{k-1} * e_{k-1} + e_{k-1}: a graph of 3 nodes per level whose tree
// has 3^k leaves.
Expr doubling_graph(int levels) {
    Expr e = var("x") + 1;
    for (int k = 0; k < levels; k++) e = e * e % 1000 + e;
    return e;
}

TEST(CSE, AGraphWithAnExponentialTreeBecomesALinearTree) {
    Expr e = doubling_graph(40);
    EXPECT_EQ(expr_tree_size(e, 1000000), 1000000);  // capped: far bigger as a tree
    Expr c = common_subexpression_elimination(e);
    EXPECT_LT(expr_tree_size(c, 1000000), 40 * 12);
}

TEST(CSE, KeepsTheValue) {
    Expr e = doubling_graph(5);
    Expr c = common_subexpression_elimination(e);
    for (int x : {-3, 0, 2, 7}) EXPECT_EQ(value_at(c, x), value_at(e, x)) << c;
}

TEST(CSE, MergesStructurallyEqualSubexpressions) {
    Expr x = var("x");
    Expr e = (x * 3 + 1) * (x * 3 + 1);  // two separate trees, equal in structure
    Expr c = common_subexpression_elimination(e);
    const Let *l = c.as<Let>();
    ASSERT_NE(l, nullptr) << c;
    EXPECT_EQ(to_string(l->value), to_string(x * 3 + 1));
}

TEST(CSE, LeavesCallsWithSideEffectsAsWritten) {
    Expr x = var("x");
    Expr call = Call::make(Int(32), "count_and_return", {x}, CallType::Extern);
    Expr e = call + call;  // two calls: two side effects
    Expr c = common_subexpression_elimination(e);
    EXPECT_EQ(c.as<Let>(), nullptr) << c;
    Expr pure = Call::make(Int(32), "pure_fn", {x}, CallType::PureExtern);
    EXPECT_NE(common_subexpression_elimination(pure * 2 + pure * 2).as<Let>(), nullptr);
}

TEST(CSE, DoesNotMoveWhatReadsANameBoundInside) {
    Expr x = var("x"), y = var("y");
    // let y = x + 1 in (y * 2) + (y * 2): y * 2 cannot move above the let.
    Expr e = Let::make("y", x + 1, y * 2 + y * 2);
    Expr c = common_subexpression_elimination(e);
    for (int v : {-1, 4}) EXPECT_EQ(value_at(c, v), value_at(e, v)) << c;
    EXPECT_EQ(to_string(c), to_string(e));
}

}  // namespace
