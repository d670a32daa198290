// WithFuncValueBounds: while a guard is alive, interval arithmetic and the
// boxes of BoxesTouched bound a call of a listed Func by its values
// (lower/FunctionValueBounds.h computes them); otherwise a call of a Func may
// hold anything of its type.
#include <gtest/gtest.h>

#include "ir/Bounds.h"
#include "ir/IR.h"
#include "ir/IREquality.h"
#include "ir/IRPrinter.h"
#include "ir/Simplify.h"
#include "loom/IROperator.h"

using namespace loom;
using namespace loom::internal;

namespace {

Expr call_func(const std::string &name, const std::vector<Expr> &args, Type t = Int(32), int value_index = 0) {
    return Call::make(t, name, args, CallType::Func, FunctionPtr(), value_index);
}

const Expr x = Variable::make(Int(32), "x");

std::string show(const Expr &e) { return e.defined() ? to_string(e) : std::string("(unbounded)"); }

::testing::AssertionResult is_interval(const Interval &i, const Expr &min, const Expr &max) {
    auto same = [](const Expr &a, const Expr &b) {
        if (!a.defined() || !b.defined()) return a.defined() == b.defined();
        return equal(simplify(a), simplify(b));
    };
    if (same(i.min, min) && same(i.max, max)) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "got [" << show(i.min) << ", " << show(i.max) << "], want [" << show(min)
                                         << ", " << show(max) << "]";
}

TEST(FuncValueBoundsGuard, BoundsACallOnlyWhileAlive) {
    const Expr e = call_func("f", {x}) * 2 + 1;
    EXPECT_TRUE(is_interval(bounds_of_expr_in_scope(e, {}), Expr(), Expr()));
    {
        const FuncValueBounds values = {{{"f", 0}, Interval(Expr(0), Expr(4))}};
        const WithFuncValueBounds guard(values);
        EXPECT_TRUE(is_interval(bounds_of_expr_in_scope(e, {}), Expr(1), Expr(9)));
        // Another Func, and a Tuple element not listed, keep their type's range.
        EXPECT_TRUE(is_interval(bounds_of_expr_in_scope(call_func("g", {x}), {}), Expr(), Expr()));
        EXPECT_TRUE(is_interval(bounds_of_expr_in_scope(call_func("f", {x}, Int(32), 1), {}), Expr(), Expr()));
    }
    {
        // Each Tuple element by its own bounds.
        const FuncValueBounds values = {{{"f", 1}, Interval(Expr(10), Expr(12))}};
        const WithFuncValueBounds guard(values);
        EXPECT_TRUE(is_interval(bounds_of_expr_in_scope(call_func("f", {x}, Int(32), 1), {}), Expr(10), Expr(12)));
        EXPECT_TRUE(is_interval(bounds_of_expr_in_scope(call_func("f", {x}), {}), Expr(), Expr()));
    }
    EXPECT_TRUE(is_interval(bounds_of_expr_in_scope(e, {}), Expr(), Expr()));
}

TEST(FuncValueBoundsGuard, NarrowedByTheTypeAndNested) {
    const Expr n = Variable::make(Int(32), "n");
    const Expr c = call_func("f", {x}, UInt(8));
    const FuncValueBounds outer = {{{"f", 0}, Interval(Expr(), UIntImm::make(UInt(8), 9))}};
    const WithFuncValueBounds guard(outer);
    EXPECT_TRUE(is_interval(bounds_of_expr_in_scope(c, {}), UIntImm::make(UInt(8), 0), UIntImm::make(UInt(8), 9)));
    {
        const FuncValueBounds inner = {{{"f", 0}, Interval(UIntImm::make(UInt(8), 3), Expr())}};
        const WithFuncValueBounds nested(inner);
        EXPECT_TRUE(is_interval(bounds_of_expr_in_scope(c, {}), UIntImm::make(UInt(8), 3), UIntImm::make(UInt(8), 255)));
    }
    // A symbolic bound (a Param's value) is kept as it is.
    const FuncValueBounds symbolic = {{{"g", 0}, Interval(Expr(0), n - 1)}};
    const WithFuncValueBounds guard2(symbolic);
    EXPECT_TRUE(is_interval(bounds_of_expr_in_scope(call_func("g", {x}), {}), Expr(0), n - 1));
}

TEST(FuncValueBoundsGuard, BoxesOfAnIndexReadFromAFunc) {
    // for r in [0, 6]: hist(clamp(f(r), -2, 7)) = ...
    const Expr r = Variable::make(Int(32), "r");
    const Expr bin = Min::make(Max::make(call_func("f", {r}), Expr(-2)), Expr(7));
    const Stmt body = Provide::make("hist", {call_func("hist", {bin}) + 1}, {bin});
    const Stmt s = For::make("r", Expr(0), Expr(7), ForType::Serial, DeviceAPI::None, body);
    auto without = boxes_required(s);
    ASSERT_EQ(without.at("hist").size(), 1u);
    EXPECT_TRUE(is_interval(without.at("hist")[0], Expr(-2), Expr(7)));
    const FuncValueBounds values = {{{"f", 0}, Interval(Expr(0), Expr(4))}};
    const WithFuncValueBounds guard(values);
    EXPECT_TRUE(is_interval(boxes_required(s).at("hist")[0], Expr(0), Expr(4)));
    EXPECT_TRUE(is_interval(boxes_provided(s).at("hist")[0], Expr(0), Expr(4)));
    EXPECT_TRUE(is_interval(boxes_required(s).at("f")[0], Expr(0), Expr(6)));
}

}  // namespace
