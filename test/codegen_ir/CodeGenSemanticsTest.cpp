// The arithmetic that the LLVM back end must get exactly right: Halide's
// Euclidean division and modulus (with zero divisors), wrap-around of narrow
// integers, shifts, conversions, and float32 math.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <type_traits>

#include "CodeGenTestUtil.h"
#include "loom/runtime/Buffer.h"

namespace loom_test_ir {
namespace {

using loom::Float;
using loom::Int;
using loom::UInt;
using loom::Runtime::Buffer;

// ------------------------------------------------------------------ division

// Halide's integer division, written independently of the code under test:
// a == (a / b) * b + a % b with 0 <= a % b < |b|; x / 0 == x % 0 == 0.
template<typename T>
T euclid_div(T a, T b) {
    using U = std::make_unsigned_t<T>;
    if (b == 0) return 0;
    if constexpr (std::is_signed_v<T>) {
        if (b == -1) return T(U(0) - U(a));  // INT_MIN / -1 wraps
        T q = T(a / b), r = T(a % b);
        if (r < 0) q = b > 0 ? T(q - 1) : T(q + 1);
        return q;
    } else {
        return T(a / b);
    }
}

template<typename T>
T euclid_mod(T a, T b) {
    using U = std::make_unsigned_t<T>;
    if (b == 0) return 0;
    if constexpr (std::is_signed_v<T>) {
        if (b == -1) return 0;
        T r = T(a % b);
        if (r < 0) r = T(b > 0 ? U(r) + U(b) : U(r) - U(b));
        return r;
    } else {
        return T(a % b);
    }
}

template<typename T>
std::vector<T> interesting_values() {
    const int64_t lo = (int64_t)std::numeric_limits<T>::min(), hi = (int64_t)std::numeric_limits<T>::max();
    std::vector<T> v;
    for (int64_t x : {lo, lo + 1, int64_t(-9), int64_t(-8), int64_t(-7), int64_t(-3), int64_t(-2), int64_t(-1),
                      int64_t(0), int64_t(1), int64_t(2), int64_t(3), int64_t(7), int64_t(8), int64_t(9),
                      int64_t(100), hi - 1, hi}) {
        if (std::is_unsigned_v<T> && x < 0) continue;
        if (x < lo || (uint64_t)x > (uint64_t)hi) continue;
        v.push_back(T(x));
    }
    if constexpr (std::is_same_v<T, uint64_t>) v.push_back(std::numeric_limits<T>::max());
    return v;
}

// q(i, j) = a(i) / b(j) and r(i, j) = a(i) % b(j) with b a runtime value,
// and qc(i, j) = a(i) / c_j, rc(i, j) = a(i) % c_j for constant divisors c_j.
template<typename T>
void check_div_mod_table() {
    const Type t = loom::type_of<T>();
    SCOPED_TRACE(t.to_string());
    const std::vector<T> values = interesting_values<T>();
    const int n = (int)values.size();

    Expr i = var("i"), j = var("j");
    Expr a = Load::make(t, "a", flat_index("a", {i}));
    Expr b = Load::make(t, "b", flat_index("b", {j}));
    Stmt variable = Block::make(Store::make("q", Div::make(a, b), flat_index("q", {i, j})),
                                Store::make("r", Mod::make(a, b), flat_index("r", {i, j})));
    Stmt body = loop_over("j", "b", 0, loop_over("i", "a", 0, variable));
    std::vector<Stmt> constant;
    for (int k = 0; k < n; k++) {
        Expr c = imm(t, (int64_t)values[k]);
        if constexpr (std::is_same_v<T, uint64_t>) c = UIntImm::make(t, values[k]);
        constant.push_back(Store::make("qc", Div::make(a, c), flat_index("qc", {i, i32(k)})));
        constant.push_back(Store::make("rc", Mod::make(a, c), flat_index("rc", {i, i32(k)})));
    }
    body = Block::make(body, loop_over("i", "a", 0, Block::make(constant)));
    std::vector<LoweredArgument> args = {buffer_arg("a", LoweredArgument::InputBuffer, t, 1),
                                         buffer_arg("b", LoweredArgument::InputBuffer, t, 1)};
    for (const char *o : {"q", "r", "qc", "rc"}) {
        args.push_back(buffer_arg(o, LoweredArgument::OutputBuffer, t, 2));
        body = with_buffer_lets(o, 2, body);
    }
    body = with_buffer_lets("a", 1, with_buffer_lets("b", 1, body));
    JITPipeline p = compile_jit(make_func("div_mod", args, body), jit_target());

    Buffer<T> av(n), bv(n), q(n, n), r(n, n), qc(n, n), rc(n, n);
    for (int k = 0; k < n; k++) av(k) = bv(k) = values[k];
    void *argv[] = {av.raw_buffer(), bv.raw_buffer(), q.raw_buffer(), r.raw_buffer(), qc.raw_buffer(), rc.raw_buffer()};
    ASSERT_EQ(p.argv(argv), 0);
    for (int x = 0; x < n; x++) {
        for (int y = 0; y < n; y++) {
            const T va = values[x], vb = values[y];
            SCOPED_TRACE(std::to_string((int64_t)va) + " and " + std::to_string((int64_t)vb));
            EXPECT_EQ(q(x, y), euclid_div(va, vb));
            EXPECT_EQ(r(x, y), euclid_mod(va, vb));
            EXPECT_EQ(qc(x, y), euclid_div(va, vb)) << "constant divisor";
            EXPECT_EQ(rc(x, y), euclid_mod(va, vb)) << "constant divisor";
        }
    }
}

TEST(CodeGenSemantics, DivModInt8) { check_div_mod_table<int8_t>(); }
TEST(CodeGenSemantics, DivModInt16) { check_div_mod_table<int16_t>(); }
TEST(CodeGenSemantics, DivModInt32) { check_div_mod_table<int32_t>(); }
TEST(CodeGenSemantics, DivModInt64) { check_div_mod_table<int64_t>(); }
TEST(CodeGenSemantics, DivModUInt8) { check_div_mod_table<uint8_t>(); }
TEST(CodeGenSemantics, DivModUInt32) { check_div_mod_table<uint32_t>(); }

// The reference above, pinned to Halide's published values.
TEST(CodeGenSemantics, EuclideanReferenceMatchesHalide) {
    EXPECT_EQ(euclid_div<int32_t>(7, 2), 3);
    EXPECT_EQ(euclid_div<int32_t>(-7, 2), -4);
    EXPECT_EQ(euclid_div<int32_t>(7, -2), -3);
    EXPECT_EQ(euclid_div<int32_t>(-7, -2), 4);
    EXPECT_EQ(euclid_mod<int32_t>(-7, 2), 1);
    EXPECT_EQ(euclid_mod<int32_t>(7, -2), 1);
    EXPECT_EQ(euclid_mod<int32_t>(-7, -2), 1);
    EXPECT_EQ(euclid_div<int32_t>(5, 0), 0);
    EXPECT_EQ(euclid_mod<int32_t>(5, 0), 0);
    EXPECT_EQ(euclid_div<int32_t>(INT32_MIN, -1), INT32_MIN);
    EXPECT_EQ(euclid_mod<int8_t>(-128, 127), 126);
}

// ------------------------------------------------------------------ scalar expression tables

// Compiles out[k] = exprs[k](a, b) for scalar params a and b of type t.
JITPipeline compile_scalar_table(const std::string &name, Type t, Type out_type, const std::vector<Expr> &exprs) {
    std::vector<Stmt> stores;
    for (size_t k = 0; k < exprs.size(); k++) stores.push_back(Store::make("out", exprs[k], i32((int)k)));
    LoweredFunc f = make_func(name,
                              {scalar_arg("a", t), scalar_arg("b", t),
                               buffer_arg("out", LoweredArgument::OutputBuffer, out_type, 1)},
                              with_buffer_lets("out", 1, Block::make(stores)));
    return compile_jit(f, jit_target());
}

TEST(CodeGenSemantics, UInt8Wraps) {
    const Type u8 = UInt(8);
    Expr a = var("a", u8), b = var("b", u8);
    std::vector<Expr> exprs = {
        Add::make(a, b), Sub::make(a, b), Sub::make(b, a), Mul::make(a, b),
        Cast::make(u8, Mul::make(Cast::make(Int(32), a), i32(3))),
        Cast::make(u8, Div::make(Cast::make(Int(8), a), IntImm::make(Int(8), 4))),
        Cast::make(u8, Sub::make(Cast::make(Int(8), b), IntImm::make(Int(8), 127))),
    };
    JITPipeline p = compile_scalar_table("u8_wrap", u8, u8, exprs);
    uint8_t va = 250, vb = 10;
    Buffer<uint8_t> out((int)exprs.size());
    void *args[] = {&va, &vb, out.raw_buffer()};
    ASSERT_EQ(p.argv(args), 0);
    EXPECT_EQ(out(0), 4);    // 260
    EXPECT_EQ(out(1), 240);
    EXPECT_EQ(out(2), 16);   // -240
    EXPECT_EQ(out(3), 196);  // 2500
    EXPECT_EQ(out(4), 238);  // 750
    EXPECT_EQ(out(5), 254);  // int8(250) = -6; -6 / 4 = -2
    EXPECT_EQ(out(6), 139);  // 10 - 127 = -117
}

// Shifts: a negative amount shifts the other way, and an amount of the
// type's width or more leaves 0 (or the sign bits for a signed right shift).
template<typename T>
T reference_shift(T a, int64_t amount, bool left) {
    constexpr int bits = sizeof(T) * 8;
    using U = std::make_unsigned_t<T>;
    if (amount < 0) return reference_shift<T>(a, -amount, !left);
    if (left) return amount >= bits ? T(0) : T(U(a) << amount);
    if (amount >= bits) return std::is_signed_v<T> && a < 0 ? T(-1) : T(0);
    return T(a >> amount);
}

template<typename T>
void check_shifts() {
    const Type t = loom::type_of<T>();
    SCOPED_TRACE(t.to_string());
    Expr a = var("a", t), b = var("b", t);
    auto shift = [&](const char *which) { return Call::make(t, which, {a, b}, CallType::PureIntrinsic); };
    JITPipeline p = compile_scalar_table("shifts", t, t, {shift(intrinsic::shift_left), shift(intrinsic::shift_right)});
    for (T va : interesting_values<T>()) {
        for (int64_t amount : {-100, -40, -9, -3, -1, 0, 1, 3, 7, 8, 9, 15, 16, 31, 32, 33, 63, 64, 100}) {
            if (std::is_unsigned_v<T> && amount < 0) continue;
            if (amount < (int64_t)std::numeric_limits<T>::min() || amount > (int64_t)std::numeric_limits<T>::max()) {
                continue;
            }
            T vb = T(amount);
            Buffer<T> out(2);
            void *args[] = {&va, &vb, out.raw_buffer()};
            ASSERT_EQ(p.argv(args), 0);
            EXPECT_EQ(out(0), reference_shift<T>(va, amount, true)) << (int64_t)va << " << " << amount;
            EXPECT_EQ(out(1), reference_shift<T>(va, amount, false)) << (int64_t)va << " >> " << amount;
        }
    }
}

TEST(CodeGenSemantics, ShiftsInt32) { check_shifts<int32_t>(); }
TEST(CodeGenSemantics, ShiftsInt8) { check_shifts<int8_t>(); }
TEST(CodeGenSemantics, ShiftsUInt8) { check_shifts<uint8_t>(); }
TEST(CodeGenSemantics, ShiftsUInt64) { check_shifts<uint64_t>(); }

TEST(CodeGenSemantics, BitwiseAbsAndIsNan) {
    const Type i32t = Int(32);
    Expr a = var("a", i32t), b = var("b", i32t);
    auto call = [&](const char *n, std::vector<Expr> args, Type t) { return Call::make(t, n, args, CallType::PureIntrinsic); };
    std::vector<Expr> exprs = {
        call(intrinsic::bitwise_and, {a, b}, i32t), call(intrinsic::bitwise_or, {a, b}, i32t),
        call(intrinsic::bitwise_xor, {a, b}, i32t), call(intrinsic::bitwise_not, {a}, i32t),
        Reinterpret::make(i32t, call(intrinsic::abs, {a}, UInt(32))),
        Cast::make(i32t, call(intrinsic::is_nan, {Div::make(Cast::make(Float(32), a), Cast::make(Float(32), b))},
                              loom::Bool())),
    };
    JITPipeline p = compile_scalar_table("bits", i32t, i32t, exprs);
    Buffer<int32_t> out((int)exprs.size());
    int32_t va = INT32_MIN, vb = 0;
    void *args[] = {&va, &vb, out.raw_buffer()};
    ASSERT_EQ(p.argv(args), 0);
    EXPECT_EQ(out(3), INT32_MAX);
    EXPECT_EQ(out(4), INT32_MIN) << "abs(INT_MIN) is 2^31 as uint32";
    EXPECT_EQ(out(5), 0) << "-2^31 / 0 is -inf, not NaN";
    va = 12;
    vb = 10;
    ASSERT_EQ(p.argv(args), 0);
    EXPECT_EQ(out(0), 8);
    EXPECT_EQ(out(1), 14);
    EXPECT_EQ(out(2), 6);
    EXPECT_EQ(out(4), 12);
    va = 0;
    vb = 0;
    ASSERT_EQ(p.argv(args), 0);
    EXPECT_EQ(out(5), 1) << "0 / 0 is NaN";
}

// Float -> int conversions truncate, and saturate out of range (NaN -> 0).
TEST(CodeGenSemantics, FloatToIntCastsTruncateAndSaturate) {
    const Type f = Float(32);
    Expr a = var("a", f), b = var("b", f);
    std::vector<Expr> exprs = {
        Cast::make(Int(32), a),  Cast::make(Int(32), Div::make(a, b)), Cast::make(Int(32), Cast::make(UInt(8), a)),
        Cast::make(Int(32), Cast::make(Int(8), a)), Cast::make(Int(32), Cast::make(loom::Bool(), a)),
    };
    JITPipeline p = compile_scalar_table("casts", f, Int(32), exprs);
    Buffer<int32_t> out((int)exprs.size());
    auto run = [&](float va, float vb) {
        void *args[] = {&va, &vb, out.raw_buffer()};
        ASSERT_EQ(p.argv(args), 0);
    };
    run(-1.75f, 0.0f);
    EXPECT_EQ(out(0), -1);
    EXPECT_EQ(out(1), INT32_MIN);  // -inf
    EXPECT_EQ(out(2), 0);
    EXPECT_EQ(out(3), -1);
    EXPECT_EQ(out(4), 1);
    run(3e9f, 1.0f);
    EXPECT_EQ(out(0), INT32_MAX);
    EXPECT_EQ(out(2), 255);
    EXPECT_EQ(out(3), 127);
    run(0.0f, 0.0f);
    EXPECT_EQ(out(1), 0);  // NaN
    EXPECT_EQ(out(4), 0);
}

// ------------------------------------------------------------------ float32 math

Expr math(const char *name, std::vector<Expr> args) {
    return Call::make(args[0].type(), name, args, CallType::PureExtern);
}

// out(x, k) = fn_k(in(x)), scalar and as 8-lane vectors.
TEST(CodeGenSemantics, Float32Math) {
    const std::vector<float> inputs = {-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 0.2f, 3.7f, 10.0f, 0.0f, -0.0f, 1e-3f,
                                       7.25f, -3.5f, 100.5f, 4.0f};
    const int n = (int)inputs.size();
    const char *names[] = {"sqrtf", "expf", "floorf", "nearbyintf", "ceilf", "truncf", "fabsf", "logf", "sinf",
                           "cosf", "tanf", "powf", "roundf"};
    const int count = sizeof(names) / sizeof(names[0]);
    auto reference = [](int k, float x) -> float {
        switch (k) {
        case 0: return std::sqrt(std::fabs(x));
        case 1: return std::exp(x);
        case 2: return std::floor(x);
        case 3: return std::nearbyint(x);
        case 4: return std::ceil(x);
        case 5: return std::trunc(x);
        case 6: return std::fabs(x);
        case 7: return std::log(std::fabs(x));
        case 8: return std::sin(x);
        case 9: return std::cos(x);
        case 10: return std::tan(x);
        case 11: return std::pow(std::fabs(x), 1.5f);
        default: return std::round(x);
        }
    };
    auto build = [&](Expr x, int lanes) {
        std::vector<Expr> r;
        auto abs_x = math("fabsf", {x});
        for (int k = 0; k < count; k++) {
            if (k == 0 || k == 7) {
                r.push_back(math(names[k], {abs_x}));
            } else if (k == 11) {
                Expr e = f32(1.5f);
                r.push_back(math(names[k], {abs_x, lanes > 1 ? Broadcast::make(e, lanes) : e}));
            } else {
                r.push_back(math(names[k], {x}));
            }
        }
        return r;
    };
    Expr x = var("x");
    std::vector<Stmt> scalar, vector;
    std::vector<Expr> scalar_exprs = build(Load::make(Float(32), "in", x), 1);
    Expr xs = Ramp::make(Mul::make(var("xo"), i32(8)), i32(1), 8);
    std::vector<Expr> vector_exprs = build(Load::make(Float(32, 8), "in", xs), 8);
    for (int k = 0; k < count; k++) {
        scalar.push_back(Store::make("out", scalar_exprs[k], Add::make(x, i32(k * n))));
        vector.push_back(Store::make("vout", vector_exprs[k], Add::make(xs, Broadcast::make(i32(k * n), 8))));
    }
    Stmt body = Block::make(
        For::make("x", i32(0), i32(n), ForType::Serial, DeviceAPI::None, Block::make(scalar)),
        For::make("xo", i32(0), i32(n / 8), ForType::Serial, DeviceAPI::None, Block::make(vector)));
    body = with_buffer_lets("in", 1, with_buffer_lets("out", 2, with_buffer_lets("vout", 2, body)));
    LoweredFunc f = make_func("math",
                              {buffer_arg("in", LoweredArgument::InputBuffer, Float(32), 1),
                               buffer_arg("out", LoweredArgument::OutputBuffer, Float(32), 2),
                               buffer_arg("vout", LoweredArgument::OutputBuffer, Float(32), 2)},
                              body);
    JITPipeline p = compile_jit(f, jit_target());
    Buffer<float> in(n), out(n, count), vout(n, count);
    for (int i = 0; i < n; i++) in(i) = inputs[i];
    void *args[] = {in.raw_buffer(), out.raw_buffer(), vout.raw_buffer()};
    ASSERT_EQ(p.argv(args), 0);
    for (int k = 0; k < count; k++) {
        for (int i = 0; i < n; i++) {
            const float expected = reference(k, inputs[i]);
            const bool exact = k != 1 && k != 7 && k != 8 && k != 9 && k != 10 && k != 11;
            SCOPED_TRACE(std::string(names[k]) + "(" + std::to_string(inputs[i]) + ")");
            if (exact) {
                EXPECT_EQ(std::signbit(out(i, k)), std::signbit(expected));
                EXPECT_EQ(out(i, k), expected);
                EXPECT_EQ(vout(i, k), expected);
            } else {
                EXPECT_FLOAT_EQ(out(i, k), expected);
                EXPECT_FLOAT_EQ(vout(i, k), expected);
            }
        }
    }
}

TEST(CodeGenSemantics, Float64Math) {
    const Type f64 = Float(64);
    Expr a = var("a", f64), b = var("b", f64);
    std::vector<Expr> exprs = {math("sqrt", {a}), math("floor", {a}), math("pow", {a, b}), math("sin", {a}),
                               math("atan2", {a, b}), Mod::make(a, b), Min::make(a, b), Div::make(a, b),
                               Cast::make(f64, Cast::make(Float(32), a))};
    JITPipeline p = compile_scalar_table("f64", f64, f64, exprs);
    Buffer<double> out((int)exprs.size());
    double va = 2.75, vb = -1.5;
    void *args[] = {&va, &vb, out.raw_buffer()};
    ASSERT_EQ(p.argv(args), 0);
    EXPECT_EQ(out(0), std::sqrt(2.75));
    EXPECT_EQ(out(1), 2.0);
    EXPECT_DOUBLE_EQ(out(2), std::pow(2.75, -1.5));
    EXPECT_DOUBLE_EQ(out(3), std::sin(2.75));
    EXPECT_DOUBLE_EQ(out(4), std::atan2(2.75, -1.5));
    EXPECT_EQ(out(5), 2.75 - -1.5 * std::floor(2.75 / -1.5));  // -0.25: the sign of b
    EXPECT_EQ(out(6), -1.5);
    EXPECT_EQ(out(7), 2.75 / -1.5);
    EXPECT_EQ(out(8), 2.75);
}

}  // namespace
}  // namespace loom_test_ir
