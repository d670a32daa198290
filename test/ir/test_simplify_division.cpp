// The simplifier and bounds inference follow Loom's integer division:
// Euclidean (the remainder is in [0, |b|), so a / b rounds down for b > 0 and
// up for b < 0), x / 0 == x % 0 == 0, for every integer width and signedness.
// Every expected value here was checked against the reference interpreter.
#include <gtest/gtest.h>

#include <cstdint>

#include "ir/Bounds.h"
#include "ir/IR.h"
#include "ir/IREquality.h"
#include "ir/IRPrinter.h"
#include "ir/Interpreter.h"
#include "ir/Simplify.h"
#include "loom/IROperator.h"

using namespace loom;
using namespace loom::internal;

namespace {

Expr var(const std::string &name, Type t = Int(32)) { return Variable::make(t, name); }

const Expr x = var("x"), y = var("y");

Expr imm(Type t, int64_t v) { return t.is_uint() ? (Expr)UIntImm::make(t, (uint64_t)v) : (Expr)IntImm::make(t, v); }

Scope<Interval> scope_of(std::initializer_list<std::pair<std::string, Interval>> vars) {
    Scope<Interval> s;
    for (const auto &[name, i] : vars) s.push(name, i);
    return s;
}

::testing::AssertionResult simplifies_to(const Expr &in, const Expr &want,
                                         const Scope<Interval> &s = Scope<Interval>()) {
    Expr got = simplify(in, s);
    if (equal(got, want)) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "simplify(" << in << ")\n  got:  " << got << "\n  want: " << want;
}

/** The interpreter's value of a constant expression. */
ScalarValue interpret(const Expr &e) { return evaluate_scalar(e, {}); }

/** Folding a op b in type t gives what the interpreter computes. */
::testing::AssertionResult folds_like_interpreter(Type t, int64_t a, int64_t b, bool is_div) {
    Expr e = is_div ? (Expr)Div::make(imm(t, a), imm(t, b)) : (Expr)Mod::make(imm(t, a), imm(t, b));
    Expr folded = simplify(e);
    ScalarValue want = interpret(e), got = interpret(folded);
    bool constant = folded.as<IntImm>() || folded.as<UIntImm>();
    if (constant && want.u == got.u) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << e << " folds to " << folded << "; the interpreter gives " << want.i;
}

}  // namespace

TEST(SimplifyDivision, FoldsEuclideanForNegativeDivisors) {
    EXPECT_TRUE(simplifies_to(Expr(7) / -2, -3));
    EXPECT_TRUE(simplifies_to(Expr(-7) / -2, 4));
    EXPECT_TRUE(simplifies_to(Expr(-7) / 2, -4));
    EXPECT_TRUE(simplifies_to(Expr(7) % -2, 1));
    EXPECT_TRUE(simplifies_to(Expr(-7) % -2, 1));
    EXPECT_TRUE(simplifies_to(Expr(6) / -3, -2));
    EXPECT_TRUE(simplifies_to(Expr(-1) / -3, 1));
    EXPECT_TRUE(simplifies_to(Expr(1) / -3, 0));
}

TEST(SimplifyDivision, DivisionByZeroIsZeroInEveryType) {
    for (Type t : {Int(8), Int(16), Int(32), Int(64), UInt(8), UInt(16), UInt(32), UInt(64)}) {
        Expr v = var("v", t);
        EXPECT_TRUE(simplifies_to(Div::make(v, imm(t, 0)), imm(t, 0))) << t;
        EXPECT_TRUE(simplifies_to(Mod::make(v, imm(t, 0)), imm(t, 0))) << t;
        EXPECT_TRUE(simplifies_to(Div::make(imm(t, 5), imm(t, 0)), imm(t, 0))) << t;
        EXPECT_TRUE(simplifies_to(Mod::make(imm(t, 5), imm(t, 0)), imm(t, 0))) << t;
    }
}

TEST(SimplifyDivision, ConstantFoldingMatchesTheInterpreterInEveryType) {
    const int64_t numerators[] = {-128, -100, -9, -7, -1, 0, 1, 7, 9, 100, 127};
    const int64_t divisors[] = {-128, -9, -3, -2, -1, 0, 1, 2, 3, 9, 127};
    for (Type t : {Int(8), Int(16), Int(32), Int(64)}) {
        for (int64_t a : numerators) {
            for (int64_t b : divisors) {
                EXPECT_TRUE(folds_like_interpreter(t, a, b, true));
                EXPECT_TRUE(folds_like_interpreter(t, a, b, false));
            }
        }
    }
    for (Type t : {UInt(8), UInt(16), UInt(32), UInt(64)}) {
        for (int64_t a : {0, 1, 7, 100, 200, 255}) {
            for (int64_t b : {0, 1, 2, 3, 9, 200, 255}) {
                EXPECT_TRUE(folds_like_interpreter(t, a, b, true));
                EXPECT_TRUE(folds_like_interpreter(t, a, b, false));
            }
        }
    }
    // The extremes: INT_MIN / -1 wraps, huge unsigned values stay unsigned.
    EXPECT_TRUE(simplifies_to(Div::make(imm(Int(8), -128), imm(Int(8), -1)), imm(Int(8), -128)));
    EXPECT_TRUE(simplifies_to(Mod::make(imm(Int(8), -128), imm(Int(8), -1)), imm(Int(8), 0)));
    EXPECT_TRUE(simplifies_to(Div::make(imm(Int(16), -32768), imm(Int(16), 3)), imm(Int(16), -10923)));
    EXPECT_TRUE(simplifies_to(Div::make(imm(Int(16), -32768), imm(Int(16), -3)), imm(Int(16), 10923)));
    EXPECT_TRUE(simplifies_to(Div::make(imm(Int(64), INT64_MIN), imm(Int(64), -1)), imm(Int(64), INT64_MIN)));
    EXPECT_TRUE(simplifies_to(Div::make(imm(Int(64), INT64_MIN), imm(Int(64), -7)), imm(Int(64), 1317624576693539402)));
    EXPECT_TRUE(simplifies_to(Mod::make(imm(Int(64), INT64_MIN), imm(Int(64), -7)), imm(Int(64), 6)));
    Expr big = UIntImm::make(UInt(64), UINT64_MAX - 4);  // 2^64 - 5
    EXPECT_TRUE(simplifies_to(Div::make(big, UIntImm::make(UInt(64), 3)), UIntImm::make(UInt(64), 6148914691236517203)));
    EXPECT_TRUE(simplifies_to(Mod::make(big, UIntImm::make(UInt(64), 3)), UIntImm::make(UInt(64), 2)));
    EXPECT_TRUE(simplifies_to(Div::make(big, big), UIntImm::make(UInt(64), 1)));
    EXPECT_TRUE(simplifies_to(Div::make(imm(UInt(32), 4000000000), imm(UInt(32), 3)), imm(UInt(32), 1333333333)));
}

TEST(SimplifyDivision, RangeRulesForNegativeDivisors) {
    // x in [2, 4]: x / -14 is 0 (Euclidean), not -1 (floor).
    auto small = scope_of({{"x", Interval(Expr(2), Expr(4))}});
    EXPECT_TRUE(simplifies_to(x / -14, 0, small));
    EXPECT_TRUE(simplifies_to(x % -14, x, small));
    auto negative = scope_of({{"x", Interval(Expr(-3), Expr(-1))}});
    EXPECT_TRUE(simplifies_to(x / -3, 1, negative));  // -1 == 1 * -3 + 2
    EXPECT_TRUE(simplifies_to(x / 3, -1, negative));
    EXPECT_TRUE(simplifies_to(x % -3, x + 3, negative));
    auto mixed = scope_of({{"x", Interval(Expr(-5), Expr(-1))}});
    Expr e = x / -3;  // 2 for x = -5, 1 for x = -1: not a constant
    EXPECT_TRUE(simplifies_to(e, e, mixed));
}

TEST(SimplifyDivision, LinearRulesHoldForNegativeDivisors) {
    // (k*Q + R) / k == Q + R / k for either sign of k with Euclidean division.
    EXPECT_TRUE(simplifies_to((x * 8 + 3) / -4, x * -2));
    EXPECT_TRUE(simplifies_to((x * 8 - 3) / -4, 1 - x * 2));
    EXPECT_TRUE(simplifies_to((x * 8 + y) / -4, y / -4 - x * 2));
    EXPECT_TRUE(simplifies_to((x * 8 - 3) % -4, 1));
    EXPECT_TRUE(simplifies_to((x * 4 + y) % -4, y % -4));
    Expr r = Ramp::make(x * 4, Expr(4), 4);
    EXPECT_TRUE(simplifies_to(Div::make(r, Broadcast::make(Expr(-2), 4)), Ramp::make(x * -2, Expr(-2), 4)));
    // (x / c1) / c2 == x / (c1 * c2) only for positive divisors.
    Expr nested = (x / -2) / 3;
    EXPECT_TRUE(simplifies_to(nested, nested));
}

TEST(SimplifyDivision, UnsignedAndNarrowTypes) {
    Expr u = var("u", UInt(16));
    auto s = scope_of({{"u", Interval(imm(UInt(16), 10), imm(UInt(16), 19))}});
    EXPECT_TRUE(simplifies_to(Div::make(u, imm(UInt(16), 10)), imm(UInt(16), 1), s));
    EXPECT_TRUE(simplifies_to(Mod::make(u, imm(UInt(16), 10)), Add::make(u, imm(UInt(16), 65526)), s));  // u - 10
    Expr i8v = var("c", Int(8));
    auto negative8 = scope_of({{"c", Interval(imm(Int(8), -4), imm(Int(8), -2))}});
    EXPECT_TRUE(simplifies_to(Div::make(i8v, imm(Int(8), -5)), imm(Int(8), 1), negative8));
    EXPECT_TRUE(simplifies_to(Mod::make(i8v, imm(Int(8), -5)), Add::make(i8v, imm(Int(8), 5)), negative8));
    // INT8_MIN / -1 wraps, so nothing is assumed about c / -1 beyond c's type.
    Expr e = Div::make(i8v, imm(Int(8), -1));
    EXPECT_TRUE(simplifies_to(e, Sub::make(imm(Int(8), 0), i8v)));
    Expr l = var("l", Int(64));
    auto s64 = scope_of({{"l", Interval(imm(Int(64), -(int64_t(1) << 40)), imm(Int(64), -(int64_t(1) << 40) + 5))}});
    EXPECT_TRUE(simplifies_to(Div::make(l, imm(Int(64), -(int64_t(1) << 39))), imm(Int(64), 2), s64));
}

TEST(SimplifyDivision, BoundsOfNegativeAndUnknownSignDivisors) {
    auto s = scope_of({{"x", Interval(Expr(-7), Expr(9))}, {"y", Interval(Expr(-4), Expr(-2))}});
    Interval q = bounds_of_expr_in_scope(x / -2, s);
    EXPECT_TRUE(equal(q.min, Expr(-4)) && equal(q.max, Expr(4))) << q.min << " " << q.max;  // 9/-2, -7/-2
    Interval r = bounds_of_expr_in_scope(x / y, s);
    // Corners: -7/-4 = 2, -7/-2 = 4, 9/-4 = -2, 9/-2 = -4.
    EXPECT_TRUE(equal(r.min, Expr(-4)) && equal(r.max, Expr(4))) << r.min << " " << r.max;
    Interval m = bounds_of_expr_in_scope(x % y, s);
    EXPECT_TRUE(equal(m.min, Expr(0)) && equal(m.max, Expr(3))) << m.min << " " << m.max;
    auto p = scope_of({{"x", Interval(Expr(2), Expr(4))}});
    Interval z = bounds_of_expr_in_scope(x / -14, p);
    EXPECT_TRUE(equal(z.min, Expr(0)) && equal(z.max, Expr(0))) << z.min << " " << z.max;
}
