// loom::float16_t: an IEEE 754 binary16 value (1 sign bit, 5 exponent bits,
// 10 mantissa bits), the C++ element type of Float(16) buffers.
//
// Header-only C++17 with no dependency on libLoom, so runtime/Buffer.h and
// applications linking AOT pipelines can use it.
//
//     loom::float16_t h(1.1f);           // rounds to nearest, ties to even
//     float f = float(h);                // exact
//     loom::float16_t::make_from_bits(0x7c00).is_infinity();   // true
//
// Conversions from float and double round once, directly to binary16
// (round to nearest, ties to even); values beyond the largest finite half
// (65504, plus half an ulp) become infinity; values below the smallest
// subnormal (2^-24) round to zero or to it. A NaN stays a NaN: it is made
// quiet and keeps the top bits of its payload. Conversion to float or double
// is exact. Arithmetic converts both operands to float, computes there and
// rounds the result back, which is what Loom's back ends do for every
// Float(16) operation (and is the correctly rounded binary16 result for
// + - * / because float has more than twice the precision).
#ifndef LOOM_RUNTIME_FLOAT16_H
#define LOOM_RUNTIME_FLOAT16_H

#include <cstdint>
#include <cstring>

namespace loom {

struct float16_t {
    /** Positive zero. */
    float16_t() = default;
    explicit float16_t(float value) : bits_(bits_from_double(static_cast<double>(value))) {}
    explicit float16_t(double value) : bits_(bits_from_double(value)) {}
    explicit float16_t(int value) : bits_(bits_from_double(static_cast<double>(value))) {}

    static float16_t make_from_bits(uint16_t bits) {
        float16_t h;
        h.bits_ = bits;
        return h;
    }
    static float16_t make_zero() { return make_from_bits(0x0000); }
    static float16_t make_negative_zero() { return make_from_bits(0x8000); }
    static float16_t make_infinity() { return make_from_bits(0x7c00); }
    static float16_t make_negative_infinity() { return make_from_bits(0xfc00); }
    static float16_t make_nan() { return make_from_bits(0x7e00); }

    uint16_t to_bits() const { return bits_; }
    explicit operator float() const { return float_from_bits(bits_); }
    explicit operator double() const { return static_cast<double>(float_from_bits(bits_)); }
    float to_float() const { return float_from_bits(bits_); }

    bool is_nan() const { return (bits_ & 0x7c00) == 0x7c00 && (bits_ & 0x03ff) != 0; }
    bool is_infinity() const { return (bits_ & 0x7fff) == 0x7c00; }
    bool is_negative() const { return (bits_ & 0x8000) != 0; }
    bool is_zero() const { return (bits_ & 0x7fff) == 0; }
    /** Nonzero with a zero exponent field: |x| < 2^-14. */
    bool is_denormal() const { return (bits_ & 0x7c00) == 0 && (bits_ & 0x03ff) != 0; }
    bool is_finite() const { return (bits_ & 0x7c00) != 0x7c00; }

    float16_t operator-() const { return make_from_bits(static_cast<uint16_t>(bits_ ^ 0x8000)); }
    float16_t operator+() const { return *this; }
    float16_t operator+(float16_t o) const { return float16_t(to_float() + o.to_float()); }
    float16_t operator-(float16_t o) const { return float16_t(to_float() - o.to_float()); }
    float16_t operator*(float16_t o) const { return float16_t(to_float() * o.to_float()); }
    float16_t operator/(float16_t o) const { return float16_t(to_float() / o.to_float()); }
    float16_t &operator+=(float16_t o) { return *this = *this + o; }
    float16_t &operator-=(float16_t o) { return *this = *this - o; }
    float16_t &operator*=(float16_t o) { return *this = *this * o; }
    float16_t &operator/=(float16_t o) { return *this = *this / o; }

    // IEEE comparisons: a NaN is unordered with everything, and -0 == +0.
    bool operator==(float16_t o) const { return to_float() == o.to_float(); }
    bool operator!=(float16_t o) const { return to_float() != o.to_float(); }
    bool operator<(float16_t o) const { return to_float() < o.to_float(); }
    bool operator>(float16_t o) const { return to_float() > o.to_float(); }
    bool operator<=(float16_t o) const { return to_float() <= o.to_float(); }
    bool operator>=(float16_t o) const { return to_float() >= o.to_float(); }

    /** The binary16 bits nearest to value (ties to even). */
    static uint16_t bits_from_double(double value) {
        uint64_t b;
        std::memcpy(&b, &value, sizeof(b));
        const uint16_t sign = static_cast<uint16_t>((b >> 48) & 0x8000);
        const uint64_t magnitude = b & 0x7fffffffffffffffull;
        const uint64_t mantissa = magnitude & 0x000fffffffffffffull;
        if (magnitude >= 0x7ff0000000000000ull) {
            if (mantissa == 0) return sign | 0x7c00;
            return static_cast<uint16_t>(sign | 0x7e00 | ((mantissa >> 42) & 0x03ff));
        }
        const int exponent = static_cast<int>(magnitude >> 52) - 1023;
        if (exponent >= 16) return sign | 0x7c00;
        if (exponent >= -14) {
            // Normal: keep 10 of the 52 mantissa bits. A carry out of the
            // mantissa moves to the next binade, or to infinity.
            uint32_t h = (static_cast<uint32_t>(exponent + 15) << 10) | static_cast<uint32_t>(mantissa >> 42);
            h += round_up(mantissa, 42, h);
            return static_cast<uint16_t>(sign | h);
        }
        // Subnormal or zero: count units of 2^-24. (Double subnormals, and
        // anything below 2^-26, shift out entirely and round to zero.)
        const int shift = 28 - exponent;
        if (shift > 60) return sign;
        const uint64_t significand = mantissa | (uint64_t(1) << 52);
        uint32_t h = static_cast<uint32_t>(significand >> shift);
        h += round_up(significand, shift, h);
        return static_cast<uint16_t>(sign | h);
    }

    /** The float whose value the binary16 bits hold (exact). */
    static float float_from_bits(uint16_t h) {
        const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
        const uint32_t exponent = (h >> 10) & 0x1f;
        uint32_t mantissa = h & 0x03ff;
        uint32_t bits;
        if (exponent == 0x1f) {
            bits = sign | 0x7f800000u | (mantissa << 13);
        } else if (exponent != 0) {
            bits = sign | ((exponent + 127 - 15) << 23) | (mantissa << 13);
        } else if (mantissa == 0) {
            bits = sign;
        } else {
            // Subnormal: mantissa * 2^-24, normalised for float.
            int e = 127 - 15 + 1;
            while ((mantissa & 0x0400) == 0) {
                mantissa <<= 1;
                e--;
            }
            bits = sign | (static_cast<uint32_t>(e) << 23) | ((mantissa & 0x03ff) << 13);
        }
        float f;
        std::memcpy(&f, &bits, sizeof(f));
        return f;
    }

private:
    // Whether dropping the low `shift` bits of x (already truncated into
    // `kept`) must round up: above half, or exactly half with an odd `kept`.
    static uint32_t round_up(uint64_t x, int shift, uint32_t kept) {
        const uint64_t rest = x & ((uint64_t(1) << shift) - 1);
        const uint64_t half = uint64_t(1) << (shift - 1);
        return (rest > half || (rest == half && (kept & 1))) ? 1 : 0;
    }

    uint16_t bits_ = 0;
};

static_assert(sizeof(float16_t) == 2, "float16_t must be two bytes, like binary16");

}  // namespace loom

#endif
