// Tests of loom::float16_t (loom/runtime/float16.h and loom/Float16.h):
// conversions checked exhaustively over all 65536 bit patterns, and float ->
// half rounding checked against an independent reference (a nearest-value
// search over a table of every finite half) on a few million floats.

#include "loom/Float16.h"
#include "loom/runtime/Buffer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace {

using loom::float16_t;

uint32_t bits_of(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
}

float float_of(uint32_t b) {
    float f;
    std::memcpy(&f, &b, 4);
    return f;
}

// ------------------------------------------------------------ the reference

// The value of a finite half, from the IEEE definition by ldexp rather than
// by bit manipulation.
double reference_value(uint16_t h) {
    const int exponent = (h >> 10) & 0x1f;
    const int mantissa = h & 0x3ff;
    double magnitude = exponent == 0 ? std::ldexp(mantissa, -24) : std::ldexp(1024 + mantissa, exponent - 25);
    return (h & 0x8000) ? -magnitude : magnitude;
}

// Every finite non-negative half in increasing order: bits 0x0000..0x7bff.
const std::vector<double> &positive_halves() {
    static const std::vector<double> table = [] {
        std::vector<double> t;
        for (uint32_t h = 0; h < 0x7c00; h++) t.push_back(reference_value((uint16_t)h));
        return t;
    }();
    return table;
}

// Round to nearest, ties to the even bit pattern; at or beyond 65520 (halfway
// from the largest half, 65504, to 2^16) the result is infinity. NaN is
// handled by the caller.
uint16_t reference_round(double x) {
    const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
    const double a = std::fabs(x);
    if (a >= 65520.0) return sign | 0x7c00;
    const std::vector<double> &t = positive_halves();
    // First half >= a; its predecessor is below.
    size_t hi = std::lower_bound(t.begin(), t.end(), a) - t.begin();
    if (hi == t.size()) return sign | 0x7bff;  // in (65504, 65520): rounds down
    if (t[hi] == a || hi == 0) return sign | (uint16_t)hi;
    size_t lo = hi - 1;
    const double below = a - t[lo], above = t[hi] - a;
    if (below < above) return sign | (uint16_t)lo;
    if (above < below) return sign | (uint16_t)hi;
    return sign | (uint16_t)((lo & 1) ? hi : lo);
}

void expect_converts_like_reference(float x) {
    const uint16_t got = float16_t(x).to_bits();
    if (std::isnan(x)) {
        ASSERT_TRUE(float16_t::make_from_bits(got).is_nan()) << "NaN 0x" << std::hex << bits_of(x);
        ASSERT_EQ(got & 0x8000, (bits_of(x) >> 16) & 0x8000) << "sign of NaN 0x" << std::hex << bits_of(x);
        return;
    }
    ASSERT_EQ(got, reference_round(x)) << "float 0x" << std::hex << bits_of(x) << " = " << x;
}

// ------------------------------------------------------------ exhaustive

TEST(Float16, ToFloatMatchesTheDefinitionForEveryPattern) {
    for (uint32_t h = 0; h < 0x10000; h++) {
        float16_t v = float16_t::make_from_bits((uint16_t)h);
        const float f = float(v);
        if ((h & 0x7c00) == 0x7c00) {
            EXPECT_EQ(v.is_nan(), (h & 0x3ff) != 0);
            EXPECT_EQ(v.is_infinity(), (h & 0x3ff) == 0);
            EXPECT_EQ(std::isnan(f), v.is_nan()) << h;
            EXPECT_EQ(std::isinf(f), v.is_infinity()) << h;
            EXPECT_EQ(std::signbit(f), (h & 0x8000) != 0) << h;
            continue;
        }
        ASSERT_EQ((double)f, reference_value((uint16_t)h)) << "bits 0x" << std::hex << h;
        ASSERT_EQ(double(v), reference_value((uint16_t)h));
        EXPECT_EQ(std::signbit(f), (h & 0x8000) != 0);
    }
}

TEST(Float16, EveryPatternRoundTripsThroughFloatAndDouble) {
    for (uint32_t h = 0; h < 0x10000; h++) {
        float16_t v = float16_t::make_from_bits((uint16_t)h);
        const bool signalling_nan = v.is_nan() && !(h & 0x200);
        // A signalling NaN comes back quiet, keeping sign and payload.
        const uint16_t expected = signalling_nan ? (uint16_t)(h | 0x200) : (uint16_t)h;
        ASSERT_EQ(float16_t(float(v)).to_bits(), expected) << "bits 0x" << std::hex << h;
        ASSERT_EQ(float16_t(double(v)).to_bits(), expected) << "bits 0x" << std::hex << h;
    }
}

TEST(Float16, EveryMidpointRoundsToEven) {
    // Halfway between each pair of adjacent finite halves, and a hair either side.
    for (uint32_t h = 0; h < 0x7bff; h++) {
        const double lo = reference_value((uint16_t)h), hi = reference_value((uint16_t)(h + 1));
        const double mid = (lo + hi) / 2;  // exact in double
        const uint16_t even = (h & 1) ? (uint16_t)(h + 1) : (uint16_t)h;
        ASSERT_EQ(float16_t(mid).to_bits(), even) << "midpoint above 0x" << std::hex << h;
        ASSERT_EQ(float16_t(-mid).to_bits(), even | 0x8000) << "midpoint above -0x" << std::hex << h;
        ASSERT_EQ(float16_t(std::nextafter(mid, 0.0)).to_bits(), h);
        ASSERT_EQ(float16_t(std::nextafter(mid, 1e9)).to_bits(), h + 1);
        // The same midpoints as floats, where float holds them exactly.
        if ((double)(float)mid == mid) ASSERT_EQ(float16_t((float)mid).to_bits(), even);
    }
}

// ------------------------------------------------------------ random floats

TEST(Float16, RandomFloatsRoundLikeTheReference) {
    std::mt19937_64 rng(20240611);
    // Any bit pattern: mostly far outside half's range, plus NaNs.
    for (int i = 0; i < 1000000; i++) {
        expect_converts_like_reference(float_of((uint32_t)rng()));
        if (::testing::Test::HasFatalFailure()) return;
    }
    // Floats in and around half's range: exponents 2^-30 .. 2^17.
    std::uniform_int_distribution<int> exponent(127 - 30, 127 + 17);
    for (int i = 0; i < 3000000; i++) {
        uint32_t b = ((uint32_t)rng() & 0x807fffffu) | ((uint32_t)exponent(rng) << 23);
        // Now and then keep only the bits a half could hold and one more: ties.
        if (i % 8 == 0) b &= ~0x00000fffu;
        expect_converts_like_reference(float_of(b));
        if (::testing::Test::HasFatalFailure()) return;
    }
}

#if defined(__FLT16_MAX__)
// A third opinion, where the compiler has a binary16 type.
TEST(Float16, RandomFloatsRoundLikeTheCompiler) {
    std::mt19937_64 rng(7);
    std::uniform_int_distribution<int> exponent(127 - 30, 127 + 17);
    for (int i = 0; i < 1000000; i++) {
        const float x = float_of(((uint32_t)rng() & 0x807fffffu) | ((uint32_t)exponent(rng) << 23));
        _Float16 c = (_Float16)x;
        uint16_t expected;
        std::memcpy(&expected, &c, 2);
        ASSERT_EQ(float16_t(x).to_bits(), expected) << x;
    }
}
#endif

// ------------------------------------------------------------ named cases

TEST(Float16, RoundingCases) {
    // 1 + 2^-11 lies halfway between 1 and 1 + 2^-10: ties go to even (1).
    EXPECT_EQ(float16_t(1.0f + std::ldexp(1.0f, -11)).to_bits(), 0x3c00);
    // 1 + 3 * 2^-11 is halfway between 1 + 2^-10 (odd) and 1 + 2^-9: up.
    EXPECT_EQ(float16_t(1.0f + 3 * std::ldexp(1.0f, -11)).to_bits(), 0x3c02);
    // Just above the tie rounds up.
    EXPECT_EQ(float16_t(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)).to_bits(), 0x3c01);
    // Overflow: 65504 is the largest; from 65520 on, infinity.
    EXPECT_EQ(float16_t(65504.0f).to_bits(), 0x7bff);
    EXPECT_EQ(float16_t(65519.99f).to_bits(), 0x7bff);
    EXPECT_EQ(float16_t(65520.0f).to_bits(), 0x7c00);
    EXPECT_EQ(float16_t(-1e10f).to_bits(), 0xfc00);
    EXPECT_TRUE(float16_t(std::numeric_limits<float>::infinity()).is_infinity());
    // Subnormals: 2^-24 is the smallest; 2^-25 ties to zero; a hair more is 2^-24.
    EXPECT_EQ(float16_t(std::ldexp(1.0f, -24)).to_bits(), 0x0001);
    EXPECT_EQ(float16_t(std::ldexp(1.0f, -25)).to_bits(), 0x0000);
    EXPECT_EQ(float16_t(std::ldexp(1.5f, -25)).to_bits(), 0x0001);
    EXPECT_EQ(float16_t(-std::ldexp(1.0f, -26)).to_bits(), 0x8000);
    EXPECT_EQ(float16_t(std::ldexp(1023.0f, -24)).to_bits(), 0x03ff);
    EXPECT_EQ(float16_t(std::ldexp(1.0f, -14)).to_bits(), 0x0400);
    EXPECT_TRUE(float16_t(std::ldexp(3.0f, -24)).is_denormal());
    EXPECT_EQ(float16_t(std::numeric_limits<double>::denorm_min()).to_bits(), 0x0000);
    // NaN stays NaN, and keeps its sign.
    EXPECT_TRUE(float16_t(std::nanf("")).is_nan());
    EXPECT_TRUE(float16_t(-std::numeric_limits<double>::quiet_NaN()).is_negative());
    EXPECT_TRUE(float16_t::make_nan().is_nan());
    // Signed zeros.
    EXPECT_EQ(float16_t(-0.0f).to_bits(), 0x8000);
    EXPECT_TRUE(float16_t(-0.0f) == float16_t(0.0f));
    EXPECT_EQ(float16_t(), float16_t::make_zero());
}

TEST(Float16, ArithmeticAndComparisons) {
    float16_t one(1.0f), tiny(std::ldexp(1.0f, -11));
    EXPECT_EQ((one + tiny).to_bits(), 0x3c00);  // rounds to even, back to 1
    EXPECT_EQ((one + tiny + tiny).to_bits(), 0x3c00);
    EXPECT_EQ((one + float16_t(std::ldexp(1.0f, -10))).to_bits(), 0x3c01);
    EXPECT_TRUE((float16_t(60000) * float16_t(2)).is_infinity());
    EXPECT_EQ(float(float16_t(3) / float16_t(4)), 0.75f);
    EXPECT_EQ((-float16_t(2.5f)).to_bits(), 0xc100);
    float16_t acc(1);
    acc *= float16_t(3);
    acc -= float16_t(1);
    acc /= float16_t(4);
    EXPECT_EQ(float(acc), 0.5f);
    EXPECT_TRUE(float16_t(1) < float16_t(2));
    EXPECT_FALSE(float16_t::make_nan() == float16_t::make_nan());
    EXPECT_TRUE(float16_t::make_nan() != float16_t(0));
    EXPECT_FALSE(float16_t::make_nan() < float16_t(0));
}

// ------------------------------------------------------------ types and buffers

TEST(Float16, TypeOfIsFloat16) {
    EXPECT_EQ(loom::type_of<float16_t>(), loom::Float(16));
    constexpr loom_type_t t = loom::Runtime::loom_type_of<float16_t>();
    static_assert(t.code == loom_type_float && t.bits == 16 && t.lanes == 1, "Float(16) descriptor");
    EXPECT_EQ(loom::Runtime::type_name(loom::Runtime::loom_type_of<const float16_t>()), "float16");
}

TEST(Float16, RuntimeBufferHoldsHalves) {
    loom::Runtime::Buffer<float16_t> b(4, 3);
    EXPECT_EQ(b.type().bits, 16);
    EXPECT_EQ(b.dim(1).stride(), 4);
    b.for_each_element([&](int x, int y) { b(x, y) = float16_t(x + 0.5f * y); });
    EXPECT_EQ(float(b(3, 2)), 4.0f);
    EXPECT_EQ(float(b(1, 1)), 1.5f);
    // Element storage is exactly the binary16 bits, two bytes apart.
    const uint8_t *bytes = reinterpret_cast<const uint8_t *>(b.data());
    uint16_t second;
    std::memcpy(&second, bytes + 2, 2);
    EXPECT_EQ(second, float16_t(1.0f).to_bits());
    b.fill(float16_t(-2.0f));
    EXPECT_EQ(b(2, 2).to_bits(), 0xc000);
}

}  // namespace
