// Tests of loom::bfloat16_t (loom/runtime/bfloat16.h): every bit pattern
// round-trips through float, and float and double values round to the
// nearest bfloat16 (ties to even) as an independent reference finds it: the
// two neighbouring bfloat16 values and the exact distances to them.

#include "loom/runtime/bfloat16.h"
#include "loom/Float16.h"
#include "loom/runtime/Buffer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>

namespace {

using loom::bfloat16_t;

float float_of(uint32_t b) {
    float f;
    std::memcpy(&f, &b, 4);
    return f;
}

// The nearest bfloat16 to a finite or infinite x, by the definition:
// candidates are the bfloat16 values just below and just above x (found by
// stepping the top 16 bits of a float that brackets x), ties to the even one.
uint16_t reference_bits(double x) {
    if (std::isnan(x)) return 0x7fc0;
    const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
    const double a = std::fabs(x);
    // The largest bfloat16 magnitude <= a (0x7f80 = infinity caps it).
    uint16_t below = 0;
    while (below < 0x7f80 && static_cast<double>(bfloat16_t::float_from_bits(below + 1)) <= a) {
        // Gallop, then walk: bfloat16 magnitudes are ordered like their bits.
        uint16_t step = 1;
        while (below + 2 * step < 0x7f80 && static_cast<double>(bfloat16_t::float_from_bits(below + 2 * step)) <= a) {
            step *= 2;
        }
        below += step;
    }
    const double low = bfloat16_t::float_from_bits(below);
    if (low == a || below == 0x7f80) return sign | below;
    const uint16_t above = below + 1;
    // Beyond the largest finite value, the upper neighbour is 2^128 (what
    // rounding to an unbounded exponent would give), which becomes infinity.
    const double high = above == 0x7f80 ? std::ldexp(1.0, 128) : static_cast<double>(bfloat16_t::float_from_bits(above));
    const double down = a - low, up = high - a;
    if (down < up) return sign | below;
    if (up < down) return sign | above;
    return sign | ((below & 1) ? above : below);
}

TEST(BFloat16, EveryBitPatternRoundTripsThroughFloat) {
    for (uint32_t bits = 0; bits < 0x10000; bits++) {
        const bfloat16_t b = bfloat16_t::make_from_bits(static_cast<uint16_t>(bits));
        const float f = b.to_float();
        uint32_t f_bits;
        std::memcpy(&f_bits, &f, 4);
        EXPECT_EQ(f_bits, bits << 16) << bits;
        if (b.is_nan()) {
            EXPECT_TRUE(bfloat16_t(f).is_nan()) << bits;
            EXPECT_EQ(bfloat16_t(f).to_bits() & 0x0040, 0x0040) << "quiet NaN " << bits;
        } else {
            ASSERT_EQ(bfloat16_t(f).to_bits(), bits) << bits;
            ASSERT_EQ(bfloat16_t(static_cast<double>(f)).to_bits(), bits) << bits;
        }
    }
}

TEST(BFloat16, FloatsRoundToNearestEven) {
    std::mt19937 rng(1234);
    std::uniform_int_distribution<uint32_t> any_bits;
    for (int i = 0; i < 200000; i++) {
        const float f = float_of(any_bits(rng));
        if (std::isnan(f)) continue;
        ASSERT_EQ(bfloat16_t(f).to_bits(), reference_bits(f)) << f;
    }
    // Ties: exactly half way between two bfloat16 values.
    EXPECT_EQ(bfloat16_t(float_of(0x3f808000)).to_bits(), 0x3f80);  // tie, even below
    EXPECT_EQ(bfloat16_t(float_of(0x3f818000)).to_bits(), 0x3f82);  // tie, even above
    EXPECT_EQ(bfloat16_t(float_of(0x7f7fffff)).to_bits(), 0x7f80);  // rounds up to infinity
    EXPECT_EQ(bfloat16_t(1.1f).to_float(), 1.1015625f);
}

TEST(BFloat16, DoublesRoundOnce) {
    std::mt19937_64 rng(99);
    std::uniform_real_distribution<double> mantissa(1.0, 2.0);
    std::uniform_int_distribution<int> exponent(-140, 130);
    for (int i = 0; i < 200000; i++) {
        const double d = std::ldexp(mantissa(rng), exponent(rng)) * (i % 2 ? -1 : 1);
        ASSERT_EQ(bfloat16_t(d).to_bits(), reference_bits(d)) << d;
    }
    // Just above a tie of the float it would round to first: rounding to
    // float, then to bfloat16, would give the even value below.
    const double above_tie = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40);
    EXPECT_EQ(bfloat16_t(above_tie).to_bits(), 0x3f81);
    EXPECT_EQ(bfloat16_t(static_cast<float>(above_tie)).to_bits(), 0x3f80);
    EXPECT_EQ(bfloat16_t(1e300).to_bits(), 0x7f80);
    EXPECT_EQ(bfloat16_t(-1e-300).to_bits(), 0x8000);
}

TEST(BFloat16, ArithmeticAndComparisons) {
    const bfloat16_t a(1.5f), b(0.25f);
    EXPECT_EQ((a + b).to_float(), 1.75f);
    EXPECT_EQ((a * b).to_float(), 0.375f);
    EXPECT_EQ((a / bfloat16_t(3.0f)).to_float(), 0.5f);
    EXPECT_TRUE(b < a);
    EXPECT_TRUE(bfloat16_t::make_zero() == bfloat16_t::make_negative_zero());
    EXPECT_FALSE(bfloat16_t::make_nan() == bfloat16_t::make_nan());
    EXPECT_TRUE(bfloat16_t::make_infinity().is_infinity());
    EXPECT_TRUE(bfloat16_t::make_from_bits(0x0001).is_denormal());
    EXPECT_EQ((-a).to_float(), -1.5f);
}

TEST(BFloat16, BufferElementTypeAndLoomType) {
    loom::Runtime::Buffer<bfloat16_t> b(3);
    EXPECT_EQ(b.type().code, loom_type_bfloat);
    EXPECT_EQ(b.type().bits, 16);
    EXPECT_EQ(loom::Runtime::type_name(b.type()), "bfloat16");
    b(1) = bfloat16_t(2.5f);
    EXPECT_EQ(b(1).to_float(), 2.5f);
    EXPECT_EQ(loom::type_of<bfloat16_t>(), loom::BFloat(16));
    EXPECT_TRUE(loom::BFloat(16).is_float());
    EXPECT_TRUE(loom::BFloat(16).is_bfloat());
    EXPECT_FALSE(loom::Float(16).is_bfloat());
    EXPECT_NE(loom::BFloat(16), loom::Float(16));
    EXPECT_EQ(loom::Type(b.type()), loom::BFloat(16));
}

}  // namespace
