// A scalar clamp, max(min(x, a), b) or min(max(x, a), b) with bounds that
// are variables or constants, runs as one node (ir/interpreter/
// CompileArith.cpp): every operand form and type against plain C++, NaNs
// and bounds that cross included, and a clamp of a clamp.

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

/** v as type t holds it. */
double held(Type t, double v) {
    if (t.is_float() && t.bits() == 32) return (double)(float)v;
    if (t.is_float() && t.bits() == 16) return (double)float16_t::float_from_bits(float16_t::bits_from_double(v));
    if (t.is_uint() && t.bits() == 8) return (double)(uint8_t)(int)v;
    if (t.is_int() && t.bits() == 8) return (double)(int8_t)(int)v;
    if (t.is_int()) return (double)(int32_t)v;
    return v;
}

// min/max return their first operand when the comparison fails (a NaN
// second operand yields the first).
double min_of(double a, double b) { return b < a ? b : a; }
double max_of(double a, double b) { return b > a ? b : a; }

bool same(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

ScalarValue value_of(Type t, double v) {
    ScalarValue s;
    s.type = t;
    if (t.is_float()) {
        s.f = v;
    } else {
        s.i = (int64_t)v;
    }
    return s;
}

double result_of(Type t, const ScalarValue &s) {
    if (t.is_float()) return s.f;
    return t.is_uint() ? (double)s.u : (double)s.i;
}

TEST(InterpClamp, EveryFormAndTypeMatchesPlainCpp) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (Type t : {Float(32), Float(64), Float(16), Int(32), UInt(8), Int(8)}) {
        std::vector<double> xs = {-2000.5, -3, 0, 7, 250, 1999.25};
        std::vector<double> bounds = {-1000, -2, 5, 1000};
        if (t.is_float()) {
            xs.push_back(nan);
            bounds.push_back(nan);
        }
        for (double xv : xs) {
            for (double av : bounds) {
                for (double bv : bounds) {
                    const double x = held(t, xv), a = held(t, av), b = held(t, bv);
                    const std::map<std::string, ScalarValue> vars = {
                        {"x", value_of(t, x)}, {"a", value_of(t, a)}, {"b", value_of(t, b)}};
                    const std::vector<Expr> x_forms = {var("x", t), Add::make(var("x", t), make_zero(t))};
                    const std::vector<Expr> a_forms = {var("a", t), make_const(t, a)};
                    const std::vector<Expr> b_forms = {var("b", t), make_const(t, b)};
                    for (const Expr &xe : x_forms) {
                        for (const Expr &ae : a_forms) {
                            for (const Expr &be : b_forms) {
                                Expr low_high = Max::make(Min::make(xe, ae), be);
                                Expr high_low = Min::make(Max::make(xe, ae), be);
                                const double got1 = result_of(t, evaluate_scalar(low_high, vars));
                                const double got2 = result_of(t, evaluate_scalar(high_low, vars));
                                EXPECT_TRUE(same(got1, max_of(min_of(x, a), b))) << t << " " << low_high << " = " << got1;
                                EXPECT_TRUE(same(got2, min_of(max_of(x, a), b))) << t << " " << high_low << " = " << got2;
                            }
                        }
                    }
                }
            }
        }
    }
}

// max(min(max(min(x, 9), -9) * 3, 20), -20): a clamp whose value is a
// computation on another clamp.
TEST(InterpClamp, NestedClampsMatchPlainCpp) {
    Expr x = var("x");
    Expr inner = Max::make(Min::make(x, i32(9)), i32(-9));
    Expr outer = Max::make(Min::make(Mul::make(inner, i32(3)), i32(20)), i32(-20));
    Expr twice = Min::make(Max::make(Min::make(Max::make(x, i32(-4)), i32(6)), i32(-1)), i32(2));
    for (int xv = -30; xv <= 30; xv++) {
        ScalarValue s;
        s.type = Int(32);
        s.i = xv;
        const int c = std::max(std::min(xv, 9), -9) * 3;
        EXPECT_EQ(evaluate_scalar(outer, {{"x", s}}).i, std::max(std::min(c, 20), -20)) << xv;
        EXPECT_EQ(evaluate_scalar(twice, {{"x", s}}).i, std::min(std::max(std::min(std::max(xv, -4), 6), -1), 2)) << xv;
    }
}

}  // namespace
}  // namespace internal
}  // namespace loom
