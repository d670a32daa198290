// Scalar semantics of the interpreter through evaluate_scalar: integer
// division and modulus, wrapping, Float(32) rounding, casts, intrinsics.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "InterpTestUtil.h"
#include "loom/Error.h"

namespace loom {
namespace internal {
namespace {

using namespace interp_test;

Expr c(Type t, int64_t v) {
    if (t.is_int()) return IntImm::make(t, v);
    return UIntImm::make(t, (uint64_t)v);
}
Expr f32(float v) { return FloatImm::make(Float(32), v); }
Expr f64(double v) { return FloatImm::make(Float(64), v); }
ScalarValue eval(const Expr &e) { return evaluate_scalar(e, {}); }
int64_t eval_i(const Expr &e) { return eval(e).i; }
uint64_t eval_u(const Expr &e) { return eval(e).u; }
float eval_f(const Expr &e) { return (float)eval(e).f; }
uint32_t bits_of(float x) {
    uint32_t b;
    std::memcpy(&b, &x, 4);
    return b;
}

Expr intrinsic_call(Type t, const char *name, const std::vector<Expr> &args) {
    return Call::make(t, name, args, CallType::PureIntrinsic);
}

// Independent reference: exact arithmetic in __int128, then wrapped.
int64_t wrap_to(int bits, __int128 v) {
    if (bits == 64) return (int64_t)(uint64_t)(unsigned __int128)v;
    uint64_t mask = (uint64_t(1) << bits) - 1;
    uint64_t low = (uint64_t)(unsigned __int128)v & mask;
    if (low >> (bits - 1)) low |= ~mask;
    return (int64_t)low;
}
// Euclidean: the remainder is in [0, |b|) and (a / b) * b + a % b == a, so
// the quotient rounds toward -infinity for b > 0 and up for b < 0 (Halide's
// rule, shared with constant folding through IRUtil's div_euclid/mod_euclid).
int64_t ref_mod(int bits, int64_t a, int64_t b) {
    if (b == 0) return 0;
    __int128 r = (__int128)a % b;
    if (r < 0) r += b < 0 ? -(__int128)b : (__int128)b;
    return wrap_to(bits, r);
}
int64_t ref_div(int bits, int64_t a, int64_t b) {
    if (b == 0) return 0;
    __int128 r = (__int128)a % b;
    if (r < 0) r += b < 0 ? -(__int128)b : (__int128)b;
    return wrap_to(bits, ((__int128)a - r) / b);
}

TEST(InterpSemantics, SignedDivModTable) {
    for (int bits : {8, 16, 32, 64}) {
        Type t = Int(bits);
        int64_t lo = bits == 64 ? INT64_MIN : -(int64_t(1) << (bits - 1));
        int64_t hi = bits == 64 ? INT64_MAX : (int64_t(1) << (bits - 1)) - 1;
        std::vector<int64_t> as = {lo, lo + 1, -8, -7, -6, -1, 0, 1, 6, 7, 8, hi};
        std::vector<int64_t> bs = {lo, -4, -3, -2, -1, 0, 1, 2, 3, 4, hi};
        for (int64_t a : as) {
            for (int64_t b : bs) {
                SCOPED_TRACE("int" + std::to_string(bits) + " " + std::to_string(a) + " op " + std::to_string(b));
                EXPECT_EQ(eval_i(Div::make(c(t, a), c(t, b))), ref_div(bits, a, b));
                EXPECT_EQ(eval_i(Mod::make(c(t, a), c(t, b))), ref_mod(bits, a, b));
            }
        }
    }
}

TEST(InterpSemantics, SignedDivModExamples) {
    Type t = Int(32);
    auto div = [&](int a, int b) { return eval_i(Div::make(c(t, a), c(t, b))); };
    auto mod = [&](int a, int b) { return eval_i(Mod::make(c(t, a), c(t, b))); };
    EXPECT_EQ(div(7, 2), 3);
    EXPECT_EQ(div(-7, 2), -4);  // toward -infinity
    EXPECT_EQ(mod(-7, 2), 1);   // never negative
    EXPECT_EQ(div(7, -2), -3);  // negative divisor: rounds up, so that
    EXPECT_EQ(mod(7, -2), 1);   // (a / b) * b + a % b == a
    EXPECT_EQ(div(-7, -2), 4);
    EXPECT_EQ(mod(-7, -2), 1);
    EXPECT_EQ(div(-8, 2), -4);
    EXPECT_EQ(mod(-8, 2), 0);
    EXPECT_EQ(div(5, 0), 0);
    EXPECT_EQ(mod(5, 0), 0);
    EXPECT_EQ(eval_i(Div::make(c(Int(8), -128), c(Int(8), -1))), -128);  // wraps
    EXPECT_EQ(eval_i(Mod::make(c(Int(8), -128), c(Int(8), -1))), 0);
    EXPECT_EQ(eval_i(Div::make(c(Int(64), INT64_MIN), c(Int(64), -1))), INT64_MIN);
}

TEST(InterpSemantics, UnsignedDivModTable) {
    for (int bits : {8, 16, 32, 64}) {
        Type t = UInt(bits);
        uint64_t max = bits == 64 ? UINT64_MAX : (uint64_t(1) << bits) - 1;
        for (uint64_t a : {uint64_t(0), uint64_t(1), uint64_t(7), uint64_t(200), max - 1, max}) {
            for (uint64_t b : {uint64_t(0), uint64_t(1), uint64_t(3), uint64_t(16), max}) {
                SCOPED_TRACE("uint" + std::to_string(bits) + " " + std::to_string(a) + " op " + std::to_string(b));
                uint64_t wa = a & max;
                EXPECT_EQ(eval_u(Div::make(c(t, (int64_t)a), c(t, (int64_t)b))), b == 0 ? 0 : wa / b);
                EXPECT_EQ(eval_u(Mod::make(c(t, (int64_t)a), c(t, (int64_t)b))), b == 0 ? 0 : wa % b);
            }
        }
    }
}

TEST(InterpSemantics, IntegerWrapping) {
    Type u8 = UInt(8);
    EXPECT_EQ(eval_u(Add::make(c(u8, 200), c(u8, 100))), 44u);
    EXPECT_EQ(eval_u(Sub::make(c(u8, 3), c(u8, 5))), 254u);
    EXPECT_EQ(eval_u(Mul::make(c(u8, 16), c(u8, 17))), 16u);
    EXPECT_EQ(eval_u(Mul::make(c(u8, 255), c(u8, 255))), 1u);
    EXPECT_EQ(eval_i(Add::make(c(Int(8), 127), c(Int(8), 1))), -128);
    EXPECT_EQ(eval_i(Sub::make(c(Int(16), -32768), c(Int(16), 1))), 32767);
    EXPECT_EQ(eval_u(Sub::make(c(UInt(32), 0), c(UInt(32), 1))), 4294967295u);
    EXPECT_EQ(eval_i(Mul::make(c(Int(32), 65536), c(Int(32), 65536))), 0);
    EXPECT_EQ(eval_i(Add::make(c(Int(64), INT64_MAX), c(Int(64), 1))), INT64_MIN);
    // Wrapping happens after every operation, not at the end.
    Expr sum = Add::make(c(u8, 250), c(u8, 10));                    // 4
    EXPECT_EQ(eval_u(Div::make(sum, c(u8, 2))), 2u);
}

TEST(InterpSemantics, Float32RoundsEveryOperation) {
    EXPECT_EQ(eval_f(Add::make(f32(16777216.0f), f32(1.0f))), 16777216.0f);
    EXPECT_EQ(eval(Add::make(f64(16777216.0), f64(1.0))).f, 16777217.0);
    volatile float a = 0.1f, b = 0.2f;
    EXPECT_EQ(bits_of(eval_f(Add::make(f32(0.1f), f32(0.2f)))), bits_of(a + b));
    EXPECT_EQ(bits_of(eval_f(Mul::make(f32(1.1f), f32(1.1f)))), bits_of((float)(1.1f * 1.1f)));
    EXPECT_EQ(bits_of(eval_f(Div::make(f32(1.0f), f32(3.0f)))), bits_of(1.0f / 3.0f));
    // (x * x) + c with the product rounded first, not fused: exactly 0.
    float x = 1.0f + std::ldexp(1.0f, -12);
    float minus = -(1.0f + std::ldexp(1.0f, -11));
    EXPECT_EQ(eval_f(Add::make(Mul::make(f32(x), f32(x)), f32(minus))), 0.0f);
    // Float modulus: a - b * floor(a / b).
    EXPECT_EQ(eval_f(Mod::make(f32(-7.5f), f32(2.0f))), 0.5f);
    EXPECT_EQ(eval_f(Mod::make(f32(7.5f), f32(-2.0f))), -0.5f);
    // Float literals and int->float casts round to float.
    EXPECT_EQ(eval_f(Cast::make(Float(32), c(Int(32), 16777217))), 16777216.0f);
    EXPECT_EQ(eval(Cast::make(Float(64), c(Int(32), 16777217))).f, 16777217.0);
}

TEST(InterpSemantics, Casts) {
    EXPECT_EQ(eval_i(Cast::make(Int(32), f32(-2.7f))), -2);
    EXPECT_EQ(eval_i(Cast::make(Int(32), f32(2.7f))), 2);
    EXPECT_EQ(eval_i(Cast::make(Int(32), f32(1e10f))), INT32_MAX);    // saturates (UB in C)
    EXPECT_EQ(eval_i(Cast::make(Int(32), f32(-1e10f))), INT32_MIN);
    EXPECT_EQ(eval_i(Cast::make(Int(32), f32(NAN))), 0);
    EXPECT_EQ(eval_u(Cast::make(UInt(8), f32(-5.5f))), 0u);
    EXPECT_EQ(eval_u(Cast::make(UInt(8), f32(300.0f))), 255u);
    EXPECT_EQ(eval_u(Cast::make(UInt(8), c(Int(32), -1))), 255u);
    EXPECT_EQ(eval_i(Cast::make(Int(8), c(UInt(8), 200))), -56);
    EXPECT_EQ(eval_u(Cast::make(UInt(16), c(Int(8), -1))), 65535u);
    EXPECT_EQ(eval_i(Cast::make(Int(64), c(UInt(32), 4000000000))), 4000000000);
    EXPECT_EQ(eval_u(Cast::make(Bool(), c(Int(32), 2))), 1u);  // x != 0, not the low bit
    EXPECT_EQ(eval_u(Cast::make(Bool(), c(Int(32), 0))), 0u);
    EXPECT_EQ(eval_f(Cast::make(Float(32), f64(0.1))), 0.1f);
    EXPECT_EQ(eval_u(Reinterpret::make(UInt(32), f32(1.0f))), 0x3f800000u);
    EXPECT_EQ(eval_u(Reinterpret::make(UInt(8), c(Int(8), -1))), 255u);
    EXPECT_EQ(eval_i(Reinterpret::make(Int(16), c(UInt(16), 65535))), -1);
    EXPECT_EQ(eval_f(Reinterpret::make(Float(32), c(UInt(32), 0x40400000))), 3.0f);
}

TEST(InterpSemantics, ComparisonsLogicSelect) {
    Expr one = i32(1), two = i32(2);
    EXPECT_EQ(eval_u(LT::make(one, two)), 1u);
    EXPECT_EQ(eval_u(GE::make(one, two)), 0u);
    EXPECT_EQ(eval_u(EQ::make(two, two)), 1u);
    EXPECT_EQ(eval_u(NE::make(two, two)), 0u);
    EXPECT_EQ(eval_u(LT::make(c(Int(8), -1), c(Int(8), 0))), 1u);
    EXPECT_EQ(eval_u(LT::make(c(UInt(8), 255), c(UInt(8), 0))), 0u);
    EXPECT_EQ(eval_u(LT::make(f32(NAN), f32(0))), 0u);
    Expr t = LT::make(one, two), f = GT::make(one, two);
    EXPECT_EQ(eval_u(And::make(t, f)), 0u);
    EXPECT_EQ(eval_u(Or::make(t, f)), 1u);
    EXPECT_EQ(eval_u(Not::make(f)), 1u);
    EXPECT_EQ(eval_i(Select::make(t, i32(10), i32(20))), 10);
    EXPECT_EQ(eval_i(Select::make(f, i32(10), i32(20))), 20);
    EXPECT_EQ(eval_i(Min::make(i32(-3), i32(5))), -3);
    EXPECT_EQ(eval_i(Max::make(i32(-3), i32(5))), 5);
    EXPECT_EQ(eval_u(Max::make(c(UInt(8), 3), c(UInt(8), 250))), 250u);
    EXPECT_EQ(eval_f(Min::make(f32(1.5f), f32(-2.5f))), -2.5f);
}

TEST(InterpSemantics, EvaluateScalarWithVariables) {
    std::map<std::string, ScalarValue> vars;
    ScalarValue x, y;
    x.type = Int(32);
    x.i = 7;
    y.type = Int(32);
    y.i = -3;
    vars["x"] = x;
    vars["y"] = y;
    Expr e = Add::make(Mul::make(var("x"), i32(2)), var("y"));  // x * 2 + y
    ScalarValue r = evaluate_scalar(e, vars);
    EXPECT_EQ(r.type, Int(32));
    EXPECT_EQ(r.i, 11);
    // let z = x - y in z * z (shadowing an outer binding of z as well)
    ScalarValue z;
    z.type = Int(32);
    z.i = 1000;
    vars["z"] = z;
    Expr let = Let::make("z", Sub::make(var("x"), var("y")), Mul::make(var("z"), var("z")));
    EXPECT_EQ(evaluate_scalar(Add::make(let, var("z")), vars).i, 1100);
    // Nested lets of the same name.
    Expr nested = Let::make("a", i32(3), Let::make("a", Mul::make(var("a"), i32(5)), Add::make(var("a"), i32(1))));
    EXPECT_EQ(evaluate_scalar(nested, vars).i, 16);
    // Values given unwrapped are wrapped to their type.
    ScalarValue big;
    big.type = UInt(8);
    big.u = 0x1ff;
    EXPECT_EQ(evaluate_scalar(var("b", UInt(8)), {{"b", big}}).u, 255u);
}

TEST(InterpSemantics, EvaluateScalarErrors) {
    EXPECT_THROW(evaluate_scalar(var("nope"), {}), InternalError);
    EXPECT_THROW(evaluate_scalar(Load::make(Int(32), "buf", i32(0)), {}), InternalError);
    EXPECT_THROW(evaluate_scalar(Broadcast::make(i32(1), 4), {}), InternalError);
    ScalarValue x;
    x.type = Int(16);
    EXPECT_THROW(evaluate_scalar(var("x", Int(32)), {{"x", x}}), InternalError);  // type mismatch
    Expr unknown = Call::make(Float(32), "no_such_function", {f32(1)}, CallType::PureExtern);
    EXPECT_THROW(evaluate_scalar(unknown, {}), InternalError);
}

TEST(InterpSemantics, MathFunctions) {
    auto call1 = [](Type t, const char *name, Expr a) { return Call::make(t, name, {a}, CallType::PureExtern); };
    auto call2 = [](Type t, const char *name, Expr a, Expr b) {
        return Call::make(t, name, {a, b}, CallType::PureExtern);
    };
    volatile float two = 2.0f, half = 0.5f;
    EXPECT_EQ(bits_of(eval_f(call1(Float(32), "sqrtf", f32(2.0f)))), bits_of(sqrtf(two)));
    EXPECT_EQ(bits_of(eval_f(call1(Float(32), "sinf", f32(0.5f)))), bits_of(sinf(half)));
    EXPECT_EQ(bits_of(eval_f(call1(Float(32), "expf", f32(0.5f)))), bits_of(expf(half)));
    EXPECT_EQ(bits_of(eval_f(call2(Float(32), "powf", f32(2.0f), f32(0.5f)))), bits_of(powf(two, half)));
    EXPECT_EQ(bits_of(eval_f(call2(Float(32), "atan2f", f32(2.0f), f32(0.5f)))), bits_of(atan2f(two, half)));
    EXPECT_EQ(eval_f(call1(Float(32), "floorf", f32(-2.5f))), -3.0f);
    EXPECT_EQ(eval_f(call1(Float(32), "nearbyintf", f32(2.5f))), 2.0f);
    EXPECT_EQ(eval(call1(Float(64), "sqrt", f64(2.0))).f, std::sqrt(2.0));
    EXPECT_EQ(eval(call1(Float(64), "ceil", f64(-2.5))).f, -2.0);
    EXPECT_EQ(eval(call2(Float(64), "pow", f64(3.0), f64(4.0))).f, 81.0);
    EXPECT_EQ(eval(call1(Float(64), "tanh", f64(0.25))).f, std::tanh(0.25));
}

TEST(InterpSemantics, Intrinsics) {
    EXPECT_EQ(eval_u(intrinsic_call(UInt(8), intrinsic::abs, {c(Int(8), -128)})), 128u);
    EXPECT_EQ(eval_u(intrinsic_call(UInt(32), intrinsic::abs, {i32(-5)})), 5u);
    EXPECT_EQ(eval_f(intrinsic_call(Float(32), intrinsic::abs, {f32(-1.5f)})), 1.5f);
    EXPECT_EQ(eval_u(intrinsic_call(Bool(), intrinsic::is_nan, {f32(NAN)})), 1u);
    EXPECT_EQ(eval_u(intrinsic_call(Bool(), intrinsic::is_nan, {f32(1.0f)})), 0u);
    EXPECT_EQ(eval_i(intrinsic_call(Int(32), intrinsic::bitwise_and, {i32(12), i32(10)})), 8);
    EXPECT_EQ(eval_i(intrinsic_call(Int(32), intrinsic::bitwise_or, {i32(12), i32(10)})), 14);
    EXPECT_EQ(eval_i(intrinsic_call(Int(32), intrinsic::bitwise_xor, {i32(12), i32(10)})), 6);
    EXPECT_EQ(eval_i(intrinsic_call(Int(32), intrinsic::bitwise_not, {i32(0)})), -1);
    EXPECT_EQ(eval_u(intrinsic_call(UInt(8), intrinsic::bitwise_not, {c(UInt(8), 1)})), 254u);
    EXPECT_EQ(eval_i(intrinsic_call(Int(32), intrinsic::shift_right, {i32(-8), i32(1)})), -4);
    EXPECT_EQ(eval_u(intrinsic_call(UInt(32), intrinsic::shift_right, {c(UInt(32), 0x80000000u), c(UInt(32), 31)})),
              1u);
    EXPECT_EQ(eval_u(intrinsic_call(UInt(8), intrinsic::shift_left, {c(UInt(8), 0x81), c(UInt(8), 1)})), 2u);
    EXPECT_EQ(eval_i(intrinsic_call(Int(8), intrinsic::shift_left, {c(Int(8), 64), c(Int(8), 1)})), -128);
    EXPECT_EQ(eval_i(intrinsic_call(Int(32), intrinsic::shift_left, {i32(1), i32(-1)})), 0);  // negative: right
    EXPECT_EQ(eval_i(intrinsic_call(Int(32), intrinsic::likely, {i32(42)})), 42);
    EXPECT_EQ(eval_i(intrinsic_call(Int(32), intrinsic::promise_clamped, {i32(42), i32(0), i32(100)})), 42);
}

TEST(InterpSemantics, VectorExpressions) {
    // VectorReduce(Add, ramp(1, 1, 8) * 2, 2) = (2+4+6+8, 10+12+14+16); extract lane 1.
    Expr ramp = Ramp::make(i32(1), i32(1), 8);
    Expr doubled = Mul::make(ramp, Broadcast::make(i32(2), 8));
    Expr reduced = VectorReduce::make(VectorReduce::Add, doubled, 2);
    EXPECT_EQ(eval_i(Shuffle::make_extract_element(reduced, 0)), 20);
    EXPECT_EQ(eval_i(Shuffle::make_extract_element(reduced, 1)), 52);
    EXPECT_EQ(eval_i(VectorReduce::make(VectorReduce::Max, ramp, 1)), 8);
    EXPECT_EQ(eval_i(VectorReduce::make(VectorReduce::Min, ramp, 1)), 1);
    // Shuffle across two vectors: concat(ramp(0,1,4), ramp(10,10,4))[5] = 20.
    Expr cat = Shuffle::make({Ramp::make(i32(0), i32(1), 4), Ramp::make(i32(10), i32(10), 4)}, {5, 0, 7});
    EXPECT_EQ(eval_i(Shuffle::make_extract_element(cat, 0)), 20);
    EXPECT_EQ(eval_i(Shuffle::make_extract_element(cat, 2)), 40);
    // A ramp of uint8 wraps per lane.
    Expr u8ramp = Ramp::make(c(UInt(8), 250), c(UInt(8), 3), 4);
    EXPECT_EQ(eval_u(Shuffle::make_extract_element(u8ramp, 3)), 3u);  // 259 wraps to 3
    // Lane-wise select and comparison.
    Expr sel = Select::make(LT::make(ramp, Broadcast::make(i32(4), 8)), ramp, Broadcast::make(i32(0), 8));
    EXPECT_EQ(eval_i(VectorReduce::make(VectorReduce::Add, sel, 1)), 1 + 2 + 3);
}

// Scalar integer arithmetic reads a variable or constant operand in place
// (CompileArith.cpp): every mix of a variable, a constant and a computed
// operand must give what the exact reference gives, wrapped to the type.
TEST(InterpSemantics, ScalarIntegerOperandsReadInPlace) {
    const std::vector<int64_t> values = {-128, -7, -1, 0, 1, 3, 100, 127};
    for (Type t : {Int(8), UInt(8), Int(32), UInt(32), Int(64)}) {
        for (int64_t av : values) {
            for (int64_t bv : values) {
                ScalarValue a, b;
                a.type = b.type = t;
                a.i = av;
                b.i = bv;
                const std::map<std::string, ScalarValue> vars = {{"a", a}, {"b", b}};
                // The value a variable holds once wrapped to t, and an operand
                // of each form that evaluates to it.
                const int64_t aw = evaluate_scalar(var("a", t), vars).i;
                const int64_t bw = evaluate_scalar(var("b", t), vars).i;
                const std::vector<Expr> as = {var("a", t), c(t, aw), Add::make(var("a", t), c(t, 0))};
                const std::vector<Expr> bs = {var("b", t), c(t, bw), Sub::make(var("b", t), c(t, 0))};
                const bool is_signed = t.is_int();
                // Unsigned values are held zero-extended: compare on the type's bits.
                auto ref = [&](__int128 v) { return wrap_to(t.bits(), v); };
                auto same = [&](const Expr &e, int64_t expected) {
                    const int64_t got = evaluate_scalar(e, vars).i;
                    return is_signed ? got == expected : wrap_to(t.bits(), got) == expected;
                };
                for (const Expr &x : as) {
                    for (const Expr &y : bs) {
                        const __int128 xa = aw, yb = bw;
                        EXPECT_TRUE(same(Add::make(x, y), ref(xa + yb))) << t << " " << Add::make(x, y);
                        EXPECT_TRUE(same(Sub::make(x, y), ref(xa - yb))) << t << " " << Sub::make(x, y);
                        EXPECT_TRUE(same(Mul::make(x, y), ref(xa * yb))) << t << " " << Mul::make(x, y);
                        EXPECT_TRUE(same(Min::make(x, y), ref(xa < yb ? xa : yb))) << t << " " << Min::make(x, y);
                        EXPECT_TRUE(same(Max::make(x, y), ref(xa < yb ? yb : xa))) << t << " " << Max::make(x, y);
                        if (is_signed) {
                            EXPECT_EQ(evaluate_scalar(Div::make(x, y), vars).i, ref_div(t.bits(), aw, bw)) << t << " " << Div::make(x, y);
                            EXPECT_EQ(evaluate_scalar(Mod::make(x, y), vars).i, ref_mod(t.bits(), aw, bw)) << t << " " << Mod::make(x, y);
                        }
                    }
                }
            }
        }
    }
}

}  // namespace
}  // namespace internal
}  // namespace loom
