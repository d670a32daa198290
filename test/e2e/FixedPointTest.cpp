// Saturating, widening and fixed-point operators, concise casts, rounding
// toward zero, bit operators, mux and the extra math functions, against
// plain C++ on every back end: all pairs of 8-bit values, a dense grid of
// 16-bit values, and edge values of 32 and 64 bits.

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "E2ETest.h"
#include "ir/IR.h"

namespace {

using namespace loom;
using loom_test::BackendTest;
using loom_test::expect_buffer_eq;

class FixedPoint : public BackendTest {};

using i128 = __int128;

template<typename T>
std::vector<T> test_values() {
    std::vector<T> v;
    using L = std::numeric_limits<T>;
    if constexpr (sizeof(T) == 1) {
        for (int i = L::min(); i <= L::max(); i++) v.push_back((T)i);
    } else if constexpr (sizeof(T) == 2) {
        for (int i = L::min(); i <= L::max(); i += 257) v.push_back((T)i);
        for (int d = 0; d < 3; d++) {
            v.push_back((T)(L::max() - d));
            v.push_back((T)(L::min() + d));
            v.push_back((T)(d));
            if (L::is_signed) v.push_back((T)(-d));
        }
    } else {
        for (int d = 0; d < 3; d++) {
            v.push_back((T)(L::max() - d));
            v.push_back((T)(L::min() + d));
            v.push_back((T)d);
            if (L::is_signed) v.push_back((T)(-d - 1));
        }
        v.push_back((T)(L::max() / 2));
        v.push_back((T)(L::max() / 2 + 1));
        v.push_back((T)0x12345);
        if (L::is_signed) v.push_back((T)(L::min() / 2));
    }
    return v;
}

template<typename T>
T wrap(i128 v) {
    return (T)(typename std::make_unsigned<T>::type)(unsigned __int128)v;
}

template<typename T>
T saturate(i128 v) {
    using L = std::numeric_limits<T>;
    if (v < (i128)L::min()) return L::min();
    if (v > (i128)L::max()) return L::max();
    return (T)v;
}

i128 floor_div(i128 a, i128 b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }  // b > 0

// out(x, y) = op(values[x], values[y]), vectorized over x (odd counts take
// Loom's tail strategy), compared with ref lane by lane.
template<typename T, typename R>
void check_pairs(const std::function<Expr(Expr, Expr)> &op, const std::function<R(T, T)> &ref,
                 const std::vector<T> &values, int vector = 8) {
    const int n = (int)values.size();
    Buffer<T> in(n);
    for (int i = 0; i < n; i++) in(i) = values[i];
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = op(in(x), in(y));
    ASSERT_EQ(f.value().type().element_of(), type_of<R>()) << "result type";
    if (vector > 1) f.vectorize(x, vector);
    Buffer<R> out = f.realize({n, n});
    expect_buffer_eq(out, [&](const std::vector<int> &p) { return ref(values[p[0]], values[p[1]]); });
}

template<typename T>
void check_saturating() {
    auto v = test_values<T>();
    check_pairs<T, T>([](Expr a, Expr b) { return saturating_add(a, b); },
                      [](T a, T b) { return saturate<T>((i128)a + b); }, v);
    check_pairs<T, T>([](Expr a, Expr b) { return saturating_sub(a, b); },
                      [](T a, T b) { return saturate<T>((i128)a - b); }, v);
}

TEST_P(FixedPoint, SaturatingAddAndSub) {
    check_saturating<uint8_t>();
    check_saturating<int8_t>();
    check_saturating<uint16_t>();
    check_saturating<int16_t>();
    check_saturating<uint32_t>();
    check_saturating<int32_t>();
    check_saturating<int64_t>();
    check_saturating<uint64_t>();
}

template<typename T, typename W, typename WS>
void check_widening() {
    auto v = test_values<T>();
    check_pairs<T, W>([](Expr a, Expr b) { return widening_add(a, b); }, [](T a, T b) { return (W)((W)a + (W)b); }, v);
    check_pairs<T, WS>([](Expr a, Expr b) { return widening_sub(a, b); },
                       [](T a, T b) { return (WS)((WS)a - (WS)b); }, v);
    check_pairs<T, W>([](Expr a, Expr b) { return widening_mul(a, b); },
                      [](T a, T b) { return wrap<W>((i128)a * (i128)b); }, v);
}

TEST_P(FixedPoint, WideningArithmeticReturnsTheDoubleWidthType) {
    check_widening<uint8_t, uint16_t, int16_t>();
    check_widening<int8_t, int16_t, int16_t>();
    check_widening<uint16_t, uint32_t, int32_t>();
    check_widening<int16_t, int32_t, int32_t>();
    check_widening<int32_t, int64_t, int64_t>();
    check_widening<uint32_t, uint64_t, int64_t>();
}

TEST_P(FixedPoint, WideningMulOfMixedSignsAndWidenRight) {
    std::vector<uint8_t> u = test_values<uint8_t>();
    const int n = (int)u.size();
    Buffer<uint8_t> a(n);
    Buffer<int8_t> b(n);
    Buffer<int16_t> wide(n);
    for (int i = 0; i < n; i++) {
        a(i) = u[i];
        b(i) = (int8_t)u[i];
        wide(i) = (int16_t)(u[i] * 97 - 12000);
    }
    Var x("x"), y("y");
    Func mixed("mixed"), add("add"), sub("sub"), mul("mul");
    mixed(x, y) = widening_mul(a(x), b(y));
    add(x, y) = widen_right_add(wide(x), b(y));
    sub(x, y) = widen_right_sub(wide(x), b(y));
    mul(x, y) = widen_right_mul(wide(x), b(y));
    mixed.vectorize(x, 16);
    add.vectorize(x, 8);
    Buffer<int16_t> m = mixed.realize({n, n}), ra = add.realize({n, n}), rs = sub.realize({n, n}),
                    rm = mul.realize({n, n});
    expect_buffer_eq(m, [&](const std::vector<int> &p) { return (int16_t)(a(p[0]) * b(p[1])); });
    expect_buffer_eq(ra, [&](const std::vector<int> &p) { return (int16_t)(wide(p[0]) + b(p[1])); });
    expect_buffer_eq(rs, [&](const std::vector<int> &p) { return (int16_t)(wide(p[0]) - b(p[1])); });
    expect_buffer_eq(rm, [&](const std::vector<int> &p) { return wrap<int16_t>((i128)wide(p[0]) * b(p[1])); });
}

template<typename T>
void check_halving() {
    auto v = test_values<T>();
    auto half = [](i128 s) { return s >= 0 ? s / 2 : -((-s + 1) / 2); };  // floor
    check_pairs<T, T>([](Expr a, Expr b) { return halving_add(a, b); },
                      [&](T a, T b) { return (T)half((i128)a + b); }, v);
    check_pairs<T, T>([](Expr a, Expr b) { return rounding_halving_add(a, b); },
                      [&](T a, T b) { return (T)half((i128)a + b + 1); }, v);
    check_pairs<T, T>([](Expr a, Expr b) { return halving_sub(a, b); },
                      [&](T a, T b) { return wrap<T>(half((i128)a - b)); }, v);
}

TEST_P(FixedPoint, HalvingNeverOverflows) {
    check_halving<uint8_t>();
    check_halving<int8_t>();
    check_halving<uint16_t>();
    check_halving<int16_t>();
    check_halving<int32_t>();
    check_halving<uint32_t>();
    check_halving<int64_t>();
    check_halving<uint64_t>();
}

// Rounding shifts by every amount from -bits to bits (x: value, y: amount).
template<typename T>
void check_rounding_shifts() {
    using S = typename std::make_signed<T>::type;
    auto v = test_values<T>();
    const int n = (int)v.size(), bits = 8 * sizeof(T), amounts = 2 * bits + 1;
    Buffer<T> in(n);
    for (int i = 0; i < n; i++) in(i) = v[i];
    Var x("x"), y("y");
    Func right("right"), left("left");
    Expr amount = cast(type_of<S>(), y - bits);
    right(x, y) = rounding_shift_right(in(x), amount);
    left(x, y) = rounding_shift_left(in(x), amount);
    right.vectorize(x, 8);
    // On lavapipe (Mesa 22.3) a 64-bit comparison with a constant can be
    // wrong (SpirvFuzz.DISABLED_LavapipeSignExtendedCompare), and the shift
    // by a varying int64 amount compares it with 0 and 64; so on Vulkan the
    // varying amounts run for the narrower types only. The constant amounts
    // below run everywhere.
    const bool varying_amounts =
        loom::internal::jit_backend() != loom::internal::Backend::Vulkan || sizeof(T) < 8;
    Buffer<T> r, l;
    if (varying_amounts) r = right.realize({n, amounts}), l = left.realize({n, amounts});
    // x * 2^-s rounded half up, wrapped to T (left shifts by s >= 0 wrap).
    auto ref = [&](T a, int s) -> T {
        if (s <= 0) return wrap<T>(s <= -bits ? 0 : (i128)a << -s);
        if (s > bits + 1) return 0;
        i128 d = (i128)1 << s;
        return wrap<T>(floor_div((i128)a * 2 + d, 2 * d));
    };
    if (varying_amounts) {
        expect_buffer_eq(r, [&](const std::vector<int> &p) { return ref(v[p[0]], p[1] - bits); });
        expect_buffer_eq(l, [&](const std::vector<int> &p) { return ref(v[p[0]], bits - p[1]); });
    }
    // Constant amounts take another path.
    check_pairs<T, T>([](Expr a, Expr) { return rounding_shift_right(a, 3); },
                      [&](T a, T) { return ref(a, 3); }, v);
    check_pairs<T, T>([](Expr a, Expr) { return rounding_shift_left(a, -2); },
                      [&](T a, T) { return ref(a, 2); }, v);
}

TEST_P(FixedPoint, RoundingShiftsRoundHalfUp) {
    check_rounding_shifts<uint8_t>();
    check_rounding_shifts<int8_t>();
    check_rounding_shifts<int16_t>();
    check_rounding_shifts<uint32_t>();
    check_rounding_shifts<int64_t>();
}

TEST_P(FixedPoint, WideningShifts) {
    check_pairs<int8_t, int16_t>([](Expr a, Expr) { return widening_shift_left(a, 7); },
                                 [](int8_t a, int8_t) { return (int16_t)(a * 128); }, test_values<int8_t>());
    check_pairs<uint16_t, uint32_t>([](Expr a, Expr) { return widening_shift_right(a, 3); },
                                    [](uint16_t a, uint16_t) { return (uint32_t)(a >> 3); },
                                    test_values<uint16_t>());
    check_pairs<uint8_t, uint16_t>([](Expr a, Expr) { return widening_shift_left(a, -2); },
                                   [](uint8_t a, uint8_t) { return (uint16_t)(a >> 2); }, test_values<uint8_t>());
}

template<typename T>
void check_mul_shift(int q) {
    auto v = test_values<T>();
    check_pairs<T, T>([q](Expr a, Expr b) { return mul_shift_right(a, b, q); },
                      [q](T a, T b) { return saturate<T>(floor_div((i128)a * b, (i128)1 << q)); }, v);
    check_pairs<T, T>([q](Expr a, Expr b) { return rounding_mul_shift_right(a, b, q); },
                      [q](T a, T b) {
                          i128 d = (i128)1 << q;
                          return saturate<T>(floor_div((i128)a * b * 2 + d, 2 * d));
                      },
                      v);
}

TEST_P(FixedPoint, MulShiftRightSaturates) {
    check_mul_shift<int16_t>(15);
    check_mul_shift<int16_t>(16);
    check_mul_shift<int16_t>(3);
    check_mul_shift<uint8_t>(8);
    check_mul_shift<uint8_t>(2);
    check_mul_shift<int8_t>(7);
    check_mul_shift<uint16_t>(16);
    check_mul_shift<int32_t>(31);
    check_mul_shift<uint32_t>(20);
}

TEST_P(FixedPoint, SaturatingCasts) {
    check_pairs<int16_t, uint8_t>([](Expr a, Expr) { return u8_sat(a); },
                                  [](int16_t a, int16_t) { return saturate<uint8_t>(a); }, test_values<int16_t>());
    check_pairs<uint16_t, int8_t>([](Expr a, Expr) { return i8_sat(a); },
                                  [](uint16_t a, uint16_t) { return saturate<int8_t>(a); }, test_values<uint16_t>());
    check_pairs<uint32_t, int32_t>([](Expr a, Expr) { return saturating_cast<int32_t>(a); },
                                   [](uint32_t a, uint32_t) { return saturate<int32_t>(a); },
                                   test_values<uint32_t>());
    check_pairs<int64_t, uint32_t>([](Expr a, Expr) { return u32_sat(a); },
                                   [](int64_t a, int64_t) { return saturate<uint32_t>(a); }, test_values<int64_t>());
    check_pairs<int8_t, uint64_t>([](Expr a, Expr) { return u64_sat(a); },
                                  [](int8_t a, int8_t) { return saturate<uint64_t>(a); }, test_values<int8_t>());
    std::vector<float> f = {-1e10f, -40000.5f, -32768.9f, -32768.0f, -1.5f, -0.5f, 0.0f,
                            0.75f,  1.5f,      32766.9f,  32767.0f,  32767.9f, 1e9f, 3e38f};
    check_pairs<float, int16_t>([](Expr a, Expr) { return i16_sat(a); },
                                [](float a, float) { return saturate<int16_t>((i128)std::trunc(std::clamp(a, -1e6f, 1e6f))); },
                                f, 1);
    check_pairs<float, int32_t>([](Expr a, Expr) { return i32_sat(a); },
                                [](float a, float) {
                                    if (a >= 2147483520.0f) return std::numeric_limits<int32_t>::max() - 127;
                                    return saturate<int32_t>((i128)std::trunc(std::max(a, -3e9f)));
                                },
                                f, 1);
    check_pairs<float, uint8_t>([](Expr a, Expr) { return u8_sat(a); },
                                [](float a, float) { return saturate<uint8_t>((i128)std::trunc(std::clamp(a, -1e6f, 1e6f))); },
                                f, 1);
}

TEST_P(FixedPoint, ConciseCasts) {
    check_pairs<int16_t, uint8_t>([](Expr a, Expr) { return u8(a); },
                                  [](int16_t a, int16_t) { return (uint8_t)a; }, test_values<int16_t>());
    check_pairs<uint8_t, float>([](Expr a, Expr b) { return f32(a) / f32(b + 1) + f32(i8(a)); },
                                [](uint8_t a, uint8_t b) { return (float)a / (float)(uint8_t)(b + 1) + (float)(int8_t)a; },
                                test_values<uint8_t>());
    check_pairs<int32_t, int64_t>([](Expr a, Expr) { return i64(a) * 3; },
                                  [](int32_t a, int32_t) { return (int64_t)a * 3; }, test_values<int32_t>());
}

template<typename T>
void check_round_to_zero() {
    auto v = test_values<T>();
    auto div = [](T a, T b) -> T { return b == 0 ? 0 : wrap<T>((i128)a / (i128)b); };
    auto mod = [](T a, T b) -> T { return b == 0 ? 0 : wrap<T>((i128)a % (i128)b); };
    check_pairs<T, T>([](Expr a, Expr b) { return div_round_to_zero(a, b); }, div, v);
    check_pairs<T, T>([](Expr a, Expr b) { return mod_round_to_zero(a, b); }, mod, v);
}

TEST_P(FixedPoint, DivisionRoundingTowardZero) {
    check_round_to_zero<int8_t>();
    check_round_to_zero<uint8_t>();
    check_round_to_zero<int16_t>();
    check_round_to_zero<int32_t>();
}

template<typename T>
void check_bit_counts() {
    using U = typename std::make_unsigned<T>::type;
    const int bits = 8 * sizeof(T);
    auto v = test_values<T>();
    check_pairs<T, T>([](Expr a, Expr) { return count_leading_zeros(a); },
                      [bits](T a, T) { return (T)(a == 0 ? bits : __builtin_clzll((U)a) - (64 - bits)); }, v);
    check_pairs<T, T>([](Expr a, Expr) { return count_trailing_zeros(a); },
                      [bits](T a, T) { return (T)(a == 0 ? bits : __builtin_ctzll((U)a)); }, v);
    check_pairs<T, T>([](Expr a, Expr) { return popcount(a); },
                      [](T a, T) { return (T)__builtin_popcountll((U)a); }, v);
}

TEST_P(FixedPoint, BitCounts) {
    check_bit_counts<uint8_t>();
    check_bit_counts<int8_t>();
    check_bit_counts<uint16_t>();
    check_bit_counts<int32_t>();
    check_bit_counts<uint64_t>();
    check_bit_counts<int64_t>();
}

TEST_P(FixedPoint, ExtractAndConcatBits) {
    auto v = test_values<uint8_t>();
    // Bits 4.. of a 16-bit concatenation of two bytes: the low nibble of hi
    // over the high nibble of lo.
    check_pairs<uint8_t, uint16_t>([](Expr a, Expr b) { return concat_bits({a, b}); },
                                   [](uint8_t a, uint8_t b) { return (uint16_t)(a | b << 8); }, v);
    check_pairs<uint8_t, uint8_t>([](Expr a, Expr b) { return extract_bits<uint8_t>(concat_bits({a, b}), 4); },
                                  [](uint8_t a, uint8_t b) { return (uint8_t)((a | b << 8) >> 4); }, v);
    check_pairs<int8_t, int32_t>([](Expr a, Expr b) { return concat_bits({a, b, b, a}); },
                                 [](int8_t a, int8_t b) {
                                     uint32_t ua = (uint8_t)a, ub = (uint8_t)b;
                                     return (int32_t)(ua | ub << 8 | ub << 16 | ua << 24);
                                 },
                                 test_values<int8_t>());
    // Bits past the top are zeros; a wider result zero-extends.
    check_pairs<int16_t, uint32_t>([](Expr a, Expr) { return extract_bits<uint32_t>(a, 12); },
                                   [](int16_t a, int16_t) { return (uint32_t)((uint16_t)a >> 12); },
                                   test_values<int16_t>());
    check_pairs<uint32_t, int8_t>([](Expr a, Expr) { return extract_bits<int8_t>(a, 28); },
                                  [](uint32_t a, uint32_t) { return (int8_t)(a >> 28); }, test_values<uint32_t>());
}

TEST_P(FixedPoint, MuxPicksTheValueAtTheIndex) {
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = mux(x - 2, {y, y * 2, y * 3});
    Buffer<int> out = f.realize({7, 4});
    expect_buffer_eq(out, [](const std::vector<int> &p) {
        int id = p[0] - 2, yy = p[1];
        return id == 0 ? yy : id == 1 ? yy * 2 : yy * 3;  // out of range: the last
    });
}

// Float functions compared within a tolerance.
void check_float(const std::function<Expr(Expr)> &op, const std::function<double(double)> &ref,
                 const std::vector<float> &xs, double abs_tol, double rel_tol) {
    const int n = (int)xs.size();
    Buffer<float> in(n);
    for (int i = 0; i < n; i++) in(i) = xs[i];
    Var x("x");
    Func f("f");
    f(x) = op(in(x));
    f.vectorize(x, 8);
    Buffer<float> out = f.realize({n});
    int failures = 0;
    for (int i = 0; i < n && failures < 5; i++) {
        double want = ref(xs[i]);
        if (std::fabs(out(i) - want) > abs_tol + rel_tol * std::fabs(want)) {
            failures++;
            ADD_FAILURE() << "at " << xs[i] << ": expected " << want << ", got " << out(i);
        }
    }
}

std::vector<float> float_range(float lo, float hi, int n) {
    std::vector<float> v;
    for (int i = 0; i < n; i++) v.push_back(lo + (hi - lo) * i / (n - 1));
    return v;
}

TEST_P(FixedPoint, FastMathIsClose) {
    auto angles = float_range(-20.0f, 20.0f, 1001);
    check_float([](Expr v) { return fast_sin(v); }, [](double v) { return std::sin(v); }, angles, 2e-6, 0);
    check_float([](Expr v) { return fast_cos(v); }, [](double v) { return std::cos(v); }, angles, 2e-6, 0);
    check_float([](Expr v) { return fast_exp(v); }, [](double v) { return std::exp(v); },
                float_range(-80.0f, 80.0f, 1001), 0, 2e-6);
    check_float([](Expr v) { return fast_log(v); }, [](double v) { return std::log(v); },
                float_range(1e-3f, 1e4f, 1001), 2e-6, 1e-6);
    check_float([](Expr v) { return fast_pow(v, 1.5f); }, [](double v) { return std::pow(v, 1.5); },
                float_range(0.0f, 100.0f, 1001), 1e-6, 4e-6);
    // fast_tanh: within 5e-7 of tanh everywhere (0.3 ulp of 1 near +-1, a
    // relative 1e-6 near 0, where it is x itself below 4e-4), +-1 and NaN
    // beyond the clamp.
    check_float([](Expr v) { return fast_tanh(v); }, [](double v) { return std::tanh(v); },
                float_range(-10.0f, 10.0f, 4001), 5e-7, 0);
    check_float([](Expr v) { return fast_tanh(v); }, [](double v) { return std::tanh(v); },
                float_range(-1e-3f, 1e-3f, 1001), 0, 1e-6);
    check_float([](Expr v) { return fast_tanh(v); }, [](double v) { return std::tanh(v); },
                {-1e30f, -9.0f, -7.9f, 7.9f, 9.0f, 1e30f, std::numeric_limits<float>::infinity(),
                 -std::numeric_limits<float>::infinity()},
                5e-7, 0);
    check_float([](Expr v) { return select(is_nan(fast_tanh(v)), 1.0f, 0.0f); }, [](double) { return 1.0; },
                std::vector<float>(8, std::numeric_limits<float>::quiet_NaN()), 0, 0);
    check_float([](Expr v) { return fast_inverse(v); }, [](double v) { return 1.0 / v; },
                float_range(0.5f, 100.0f, 101), 0, 1e-6);
    check_float([](Expr v) { return fast_inverse_sqrt(v); }, [](double v) { return 1.0 / std::sqrt(v); },
                float_range(0.5f, 100.0f, 101), 0, 1e-6);
}

TEST_P(FixedPoint, ExtraMathFunctions) {
    auto xs = float_range(-4.0f, 4.0f, 801);
    check_float([](Expr v) { return erf(v); }, [](double v) { return std::erf(v); }, xs, 5e-7, 0);
    check_float([](Expr v) { return hypot(v, 3.0f); }, [](double v) { return std::hypot(v, 3.0); }, xs, 0, 1e-6);
    check_float([](Expr v) { return asinh(v); }, [](double v) { return std::asinh(v); }, xs, 1e-6, 1e-6);
    check_float([](Expr v) { return acosh(v); }, [](double v) { return std::acosh(v); },
                float_range(1.0f, 50.0f, 101), 1e-6, 1e-6);
    check_float([](Expr v) { return atanh(v); }, [](double v) { return std::atanh(v); },
                float_range(-0.99f, 0.99f, 101), 1e-6, 1e-6);
    // Exact products: fused or not, the same sum.
    check_float([](Expr v) { return fma(v, v, Expr(0.25f)); }, [](double v) { return v * v + 0.25; },
                float_range(-8.0f, 8.0f, 65), 0, 0);
}

TEST_P(FixedPoint, FmaRoundsOnce) {
    // SPIR-V's GLSL.std.450 Fma may round twice (the spec allows an unfused
    // multiply-add), so single rounding is a promise only the CPU back ends make.
    if (GetParam() == loom::internal::Backend::Vulkan) GTEST_SKIP() << "GLSL Fma need not be fused";
    const float a = 1.0f + std::ldexp(1.0f, -12);
    check_float([](Expr v) { return fma(v, v, Expr(-1.0f)); },
                [](double v) { return (double)std::fmaf((float)v, (float)v, -1.0f); }, {a, a, a, a, a, a, a, a}, 0, 0);
}

TEST_P(FixedPoint, HintsKeepTheirValue) {
    Buffer<int> in(10);
    for (int i = 0; i < 10; i++) in(i) = i * i;
    Var x("x");
    Func f("f");
    f(x) = in(unsafe_promise_clamped(x % 10, 0, 9)) + likely_if_innermost(x);
    Buffer<int> out = f.realize({20});
    expect_buffer_eq(out, [](const std::vector<int> &p) { return (p[0] % 10) * (p[0] % 10) + p[0]; });
}

LOOM_INSTANTIATE_BACKENDS(FixedPoint);

// ---------------------------------------------------------------- misuse

using loom_test::compile_error_message;

TEST(FixedPointErrors, MisuseNamesTheOperator) {
    using loom::internal::Broadcast;
    Var x("x");
    Expr u8x = cast<uint8_t>(x), fx = cast<float>(x);
    auto has = [](const std::string &message, const char *part) {
        EXPECT_NE(message.find(part), std::string::npos) << message;
    };
    has(compile_error_message([&] { widening_add(Broadcast::make(u8x, 8), Broadcast::make(u8x, 4)); }),
        "widening_add");
    has(compile_error_message([&] { widen_right_add(u8x, u8x); }), "widen_right_add(): the left operand");
    has(compile_error_message([&] { widening_mul(cast<uint64_t>(x), cast<uint64_t>(x)); }), "cannot widen the 64-bit");
    has(compile_error_message([&] { extract_bits<uint8_t>(fx, 0); }), "extract_bits(): needs integer operands");
    has(compile_error_message([&] { mux(x, std::vector<Expr>{}); }), "mux(): needs at least one value");
    has(compile_error_message([&] { mux(x, {u8x, x}); }), "mux(): all values must have one type");
    has(compile_error_message([&] { concat_bits({u8x, u8x, u8x}); }), "concat_bits(): needs a power-of-two");
    has(compile_error_message([&] { mul_shift_right(u8x, u8x, x); }), "mul_shift_right(): the shift");
    has(compile_error_message([&] { count_leading_zeros(fx); }), "count_leading_zeros(): needs integer");
    has(compile_error_message([&] { saturating_add(u8x, Expr()); }), "saturating_add(): an operand is an undefined");
    has(compile_error_message([&] { fast_exp(cast<double>(x)); }), "fast_exp() needs a Float(32)");
    has(compile_error_message([&] { fast_tanh(x); }), "fast_tanh() needs a Float(32)");
    has(compile_error_message([&] { fma(fx, fx, x); }), "fma() needs floating-point");
    has(compile_error_message([&] { div_round_to_zero(fx, fx); }), "div_round_to_zero(): needs integer");
}

TEST(FixedPointTypes, ResultTypesFollowHalide) {
    Var x("x");
    Expr u8x = cast<uint8_t>(x), i16x = cast<int16_t>(x);
    EXPECT_EQ(widening_add(u8x, u8x).type(), UInt(16));
    EXPECT_EQ(widening_sub(u8x, u8x).type(), Int(16));
    EXPECT_EQ(widening_mul(u8x, cast<int8_t>(x)).type(), Int(16));
    EXPECT_EQ(widening_shift_left(i16x, 3).type(), Int(32));
    EXPECT_EQ(rounding_halving_add(u8x, u8x).type(), UInt(8));
    EXPECT_EQ(mul_shift_right(i16x, i16x, 15).type(), Int(16));
    EXPECT_EQ(concat_bits({i16x, i16x}).type(), Int(32));
    EXPECT_EQ(count_leading_zeros(i16x).type(), Int(16));
    EXPECT_EQ(u16_sat(x).type(), UInt(16));
    EXPECT_EQ(f16(x).type(), Float(16));
}

}  // namespace
