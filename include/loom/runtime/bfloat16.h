// loom::bfloat16_t: a brain floating-point value (1 sign bit, 8 exponent bits,
// 7 mantissa bits: the top half of a float), the C++ element type of
// BFloat(16) buffers, as Halide's bfloat16_t.
//
// Header-only C++17 with no dependency on libLoom, so runtime/Buffer.h and
// applications linking AOT pipelines can use it.
//
//     loom::bfloat16_t b(1.1f);          // 1.1015625: rounds to nearest, ties to even
//     float f = float(b);                // exact
//     loom::bfloat16_t::make_from_bits(0x7f80).is_infinity();   // true
//
// Conversions round once to the nearest bfloat16, ties to even; a NaN stays a
// NaN (made quiet, keeping the top bits of its payload). From double the
// result is also correctly rounded (not rounded to float first). Conversion
// to float is exact. Arithmetic converts both operands to float, computes
// there and rounds the result back, which is what Loom does for every
// BFloat(16) operation in a pipeline.
#ifndef LOOM_RUNTIME_BFLOAT16_H
#define LOOM_RUNTIME_BFLOAT16_H

#include <cstdint>
#include <cstring>

namespace loom {

struct bfloat16_t {
    /** Positive zero. */
    bfloat16_t() = default;
    explicit bfloat16_t(float value) : bits_(bits_from_float(value)) {}
    explicit bfloat16_t(double value) : bits_(bits_from_double(value)) {}
    explicit bfloat16_t(int value) : bits_(bits_from_double(static_cast<double>(value))) {}

    static bfloat16_t make_from_bits(uint16_t bits) {
        bfloat16_t b;
        b.bits_ = bits;
        return b;
    }
    static bfloat16_t make_zero() { return make_from_bits(0x0000); }
    static bfloat16_t make_negative_zero() { return make_from_bits(0x8000); }
    static bfloat16_t make_infinity() { return make_from_bits(0x7f80); }
    static bfloat16_t make_negative_infinity() { return make_from_bits(0xff80); }
    static bfloat16_t make_nan() { return make_from_bits(0x7fc0); }

    uint16_t to_bits() const { return bits_; }
    explicit operator float() const { return float_from_bits(bits_); }
    explicit operator double() const { return static_cast<double>(float_from_bits(bits_)); }
    float to_float() const { return float_from_bits(bits_); }

    bool is_nan() const { return (bits_ & 0x7f80) == 0x7f80 && (bits_ & 0x007f) != 0; }
    bool is_infinity() const { return (bits_ & 0x7fff) == 0x7f80; }
    bool is_negative() const { return (bits_ & 0x8000) != 0; }
    bool is_zero() const { return (bits_ & 0x7fff) == 0; }
    /** Nonzero with a zero exponent field: |x| < 2^-126. */
    bool is_denormal() const { return (bits_ & 0x7f80) == 0 && (bits_ & 0x007f) != 0; }
    bool is_finite() const { return (bits_ & 0x7f80) != 0x7f80; }

    bfloat16_t operator-() const { return make_from_bits(static_cast<uint16_t>(bits_ ^ 0x8000)); }
    bfloat16_t operator+() const { return *this; }
    bfloat16_t operator+(bfloat16_t o) const { return bfloat16_t(to_float() + o.to_float()); }
    bfloat16_t operator-(bfloat16_t o) const { return bfloat16_t(to_float() - o.to_float()); }
    bfloat16_t operator*(bfloat16_t o) const { return bfloat16_t(to_float() * o.to_float()); }
    bfloat16_t operator/(bfloat16_t o) const { return bfloat16_t(to_float() / o.to_float()); }
    bfloat16_t &operator+=(bfloat16_t o) { return *this = *this + o; }
    bfloat16_t &operator-=(bfloat16_t o) { return *this = *this - o; }
    bfloat16_t &operator*=(bfloat16_t o) { return *this = *this * o; }
    bfloat16_t &operator/=(bfloat16_t o) { return *this = *this / o; }

    // IEEE comparisons: a NaN is unordered with everything, and -0 == +0.
    bool operator==(bfloat16_t o) const { return to_float() == o.to_float(); }
    bool operator!=(bfloat16_t o) const { return to_float() != o.to_float(); }
    bool operator<(bfloat16_t o) const { return to_float() < o.to_float(); }
    bool operator>(bfloat16_t o) const { return to_float() > o.to_float(); }
    bool operator<=(bfloat16_t o) const { return to_float() <= o.to_float(); }
    bool operator>=(bfloat16_t o) const { return to_float() >= o.to_float(); }

    /** The bfloat16 bits nearest to value (ties to even): the top 16 bits of
     * the float, rounded on the 16 bits dropped. */
    static uint16_t bits_from_float(float value) {
        uint32_t b;
        std::memcpy(&b, &value, sizeof(b));
        if ((b & 0x7fffffffu) > 0x7f800000u) {
            return static_cast<uint16_t>((b >> 16) | 0x0040);  // quiet NaN
        }
        // Adding 0x7fff, plus one when the kept part is odd, carries into the
        // kept bits exactly when the dropped part is above half, or half with
        // an odd kept part. A carry out of the mantissa moves to the next
        // binade, or from the largest finite value to infinity.
        const uint32_t bias = 0x7fffu + ((b >> 16) & 1u);
        return static_cast<uint16_t>((b + bias) >> 16);
    }

    /** The bfloat16 bits nearest to value (ties to even), rounded once: the
     * double is first rounded to a float with round-to-odd (truncate, then
     * set the last bit if anything was dropped), which has enough extra bits
     * that rounding that float to nearest gives the correctly rounded
     * bfloat16. Loom's casts from Float(64) to BFloat(16) do the same. */
    static uint16_t bits_from_double(double value) {
        float f = static_cast<float>(value);
        if (value != value || static_cast<double>(f) == value) {
            return bits_from_float(f);
        }
        uint32_t b;
        std::memcpy(&b, &f, sizeof(b));
        // f was rounded to nearest; step its magnitude back by one ulp if
        // that rounding went away from zero, which truncates.
        const double magnitude_f = static_cast<double>(f) < 0 ? -static_cast<double>(f) : static_cast<double>(f);
        const double magnitude_v = value < 0 ? -value : value;
        if (magnitude_f > magnitude_v) {
            b -= 1;
        }
        b |= 1u;
        std::memcpy(&f, &b, sizeof(f));
        return bits_from_float(f);
    }

    /** The float whose value the bfloat16 bits hold (exact). */
    static float float_from_bits(uint16_t bits) {
        const uint32_t b = static_cast<uint32_t>(bits) << 16;
        float f;
        std::memcpy(&f, &b, sizeof(f));
        return f;
    }

private:
    uint16_t bits_ = 0;
};

static_assert(sizeof(bfloat16_t) == 2, "bfloat16_t must be two bytes");

}  // namespace loom

#endif
