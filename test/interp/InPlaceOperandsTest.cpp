// Scalar float arithmetic and comparisons of every type read a variable or
// constant operand in place (ir/interpreter/CompileArith.cpp): every mix of
// variable, constant and computed operands against plain C++.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "InterpTestUtil.h"
#include "ir/IRUtil.h"
#include "loom/runtime/float16.h"

namespace loom {
namespace internal {
namespace {

using namespace interp_test;

ScalarValue float_value(Type t, double v) {
    ScalarValue s;
    s.type = t;
    s.f = v;
    return s;
}

Expr float_const(Type t, double v) { return FloatImm::make(t, v); }

/** v as held for type t: rounded to float or binary16. */
double held(Type t, double v) {
    if (t.bits() == 32) return (double)(float)v;
    if (t.bits() == 16) return (double)float16_t::float_from_bits(float16_t::bits_from_double(v));
    return v;
}

/** a op b computed as compiled code does for t (in float for 16 and 32 bits,
 * the result rounded to t). */
template<class F>
double reference(Type t, double a, double b, F op) {
    if (t.bits() == 64) return op(a, b);
    return held(t, (double)op((float)a, (float)b));
}

bool same_value(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

TEST(InterpSemantics, ScalarFloatOperandsReadInPlace) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const std::vector<double> values = {-2.25, -0.0, 0.0, 1.5, 3.0, 1e30, nan};
    for (Type t : {Float(16), Float(32), Float(64)}) {
        for (double av : values) {
            for (double bv : values) {
                const std::map<std::string, ScalarValue> vars = {{"a", float_value(t, held(t, av))},
                                                                 {"b", float_value(t, held(t, bv))}};
                const double a = held(t, av), b = held(t, bv);
                const std::vector<Expr> as = {var("a", t), float_const(t, a), Mul::make(var("a", t), float_const(t, 1))};
                const std::vector<Expr> bs = {var("b", t), float_const(t, b), Mul::make(var("b", t), float_const(t, 1))};
                for (const Expr &x : as) {
                    for (const Expr &y : bs) {
                        auto check = [&](const Expr &e, double expected) {
                            const double got = evaluate_scalar(e, vars).f;
                            EXPECT_TRUE(same_value(got, expected)) << t << " " << e << ": " << got << " vs " << expected;
                        };
                        check(Add::make(x, y), reference(t, a, b, [](auto p, auto q) { return p + q; }));
                        check(Sub::make(x, y), reference(t, a, b, [](auto p, auto q) { return p - q; }));
                        check(Mul::make(x, y), reference(t, a, b, [](auto p, auto q) { return p * q; }));
                        check(Div::make(x, y), reference(t, a, b, [](auto p, auto q) { return p / q; }));
                        check(Min::make(x, y), reference(t, a, b, [](auto p, auto q) { return q < p ? q : p; }));
                        check(Max::make(x, y), reference(t, a, b, [](auto p, auto q) { return q > p ? q : p; }));
                        auto truth = [&](const Expr &e, bool expected) {
                            EXPECT_EQ(evaluate_scalar(e, vars).u, expected ? 1u : 0u) << t << " " << e;
                        };
                        truth(LT::make(x, y), a < b);
                        truth(LE::make(x, y), a <= b);
                        truth(GT::make(x, y), a > b);
                        truth(GE::make(x, y), a >= b);
                        truth(EQ::make(x, y), a == b);
                        truth(NE::make(x, y), a != b);
                    }
                }
            }
        }
    }
}

TEST(InterpSemantics, ScalarIntegerComparisonsReadInPlace) {
    const std::vector<int64_t> values = {-128, -1, 0, 1, 127, 255};
    for (Type t : {Int(8), UInt(8), Int(32), UInt(32), Int(64), UInt(64)}) {
        for (int64_t av : values) {
            for (int64_t bv : values) {
                ScalarValue a, b;
                a.type = b.type = t;
                a.i = av;
                b.i = bv;
                const std::map<std::string, ScalarValue> vars = {{"a", a}, {"b", b}};
                // The values as held for t (wrapped), and compared as t compares.
                const int64_t aw = evaluate_scalar(var("a", t), vars).i;
                const int64_t bw = evaluate_scalar(var("b", t), vars).i;
                auto less = [&](int64_t p, int64_t q) { return t.is_int() ? p < q : (uint64_t)p < (uint64_t)q; };
                const std::vector<Expr> as = {var("a", t), make_const(t, aw), Add::make(var("a", t), make_zero(t))};
                const std::vector<Expr> bs = {var("b", t), make_const(t, bw), Sub::make(var("b", t), make_zero(t))};
                for (const Expr &x : as) {
                    for (const Expr &y : bs) {
                        auto truth = [&](const Expr &e, bool expected) {
                            EXPECT_EQ(evaluate_scalar(e, vars).u, expected ? 1u : 0u) << t << " " << e;
                        };
                        truth(LT::make(x, y), less(aw, bw));
                        truth(LE::make(x, y), !less(bw, aw));
                        truth(GT::make(x, y), less(bw, aw));
                        truth(GE::make(x, y), !less(aw, bw));
                        truth(EQ::make(x, y), aw == bw);
                        truth(NE::make(x, y), aw != bw);
                    }
                }
            }
        }
    }
}

}  // namespace
}  // namespace internal
}  // namespace loom
