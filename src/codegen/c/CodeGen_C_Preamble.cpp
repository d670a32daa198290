// The helpers at the top of every source the C back end writes: a vector
// type and the scalar semantics of Loom's IR (CodeGen_C.h) in portable
// C++17. They live in an anonymous namespace, so that several generated
// sources link into one program.

#include "codegen/c/CodeGen_C.h"

namespace loom {
namespace internal {

const char *c_backend_preamble() {
    return R"PREAMBLE(#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmath>
#include <limits>
#include <type_traits>

/* Runtime entry points generated code calls beyond loom_runtime.h. */
extern "C" {
void loom_msg_format(char *buffer, uint64_t capacity, const char *format, const uint64_t *values);
int32_t loom_buffer_set_bounds(struct loom_buffer_t *buffer, int32_t d, int32_t min, int32_t extent);
typedef int (*loom_parallel_body_t)(void *user_context, int index, uint8_t *closure);
int loom_do_par_for(void *user_context, loom_parallel_body_t body, int min, int extent, uint8_t *closure);
}

namespace {

/* A vector value: lanes in order. */
template<typename T, int N>
struct loom_vec {
    T v[N];
};

/* A Float(16) value: its IEEE binary16 bits (uint16_t in memory).
 * Arithmetic converts the operands to float, computes there and rounds the
 * result to the nearest half, ties to even, once per operation, as Loom's
 * LLVM back end and interpreter do; comparisons, min, max and select compare
 * the values exactly. (BFloat(16) never reaches this file: lowering computes
 * it in float on its uint16_t bits, lower/EmulateBFloat16.h.) */
struct loom_f16 {
    uint16_t bits;
};

[[maybe_unused]] inline loom_f16 loom_f16_from_bits(uint16_t bits) { return loom_f16{bits}; }

/* The half nearest to x, rounded once, ties to even: overflow past the
 * largest half (65504, plus half an ulp) gives infinity, magnitudes up to
 * 2^-25 give zero, between them a subnormal or normal half; a NaN becomes a
 * quiet NaN keeping the top 10 bits of its payload. */
[[maybe_unused]] inline loom_f16 loom_f16_from_double(double x) {
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    const uint16_t sign = (uint16_t)((b >> 48) & 0x8000u);
    const uint64_t magnitude = b & 0x7fffffffffffffffULL;
    if (magnitude >= 0x7ff0000000000000ULL) {
        if (magnitude == 0x7ff0000000000000ULL) return loom_f16{(uint16_t)(sign | 0x7c00u)};
        return loom_f16{(uint16_t)(sign | 0x7e00u | ((magnitude >> 42) & 0x03ffu))};
    }
    const int exponent = (int)(magnitude >> 52) - 1023;
    if (exponent >= 16) return loom_f16{(uint16_t)(sign | 0x7c00u)};
    if (exponent < -25) return loom_f16{sign};  /* below 2^-25: rounds to zero (2^-25 itself is a tie, to 0) */
    /* x = significand * 2^(exponent - 52); keep 11 bits for a normal half,
     * fewer for a subnormal one (whose unit is 2^-24). */
    const uint64_t significand = (magnitude & 0x000fffffffffffffULL) | 0x0010000000000000ULL;
    const int drop = exponent >= -14 ? 42 : 42 + (-14 - exponent);
    uint64_t kept = significand >> drop;
    const uint64_t rest = significand & ((1ULL << drop) - 1), tie = 1ULL << (drop - 1);
    if (rest > tie || (rest == tie && (kept & 1u))) kept++;
    /* A normal half: the exponent field plus the significand with its
     * leading one, which a carry from rounding moves into the exponent
     * (up to infinity, 0x7c00). A subnormal: the significand alone (1024,
     * from rounding up, is the smallest normal). */
    uint64_t h = exponent >= -14 ? ((uint64_t)(exponent + 14) << 10) + kept : kept;
    if (h > 0x7c00u) h = 0x7c00u;
    return loom_f16{(uint16_t)(sign | h)};
}

[[maybe_unused]] inline loom_f16 loom_f16_from_float(float x) { return loom_f16_from_double((double)x); }

/* Exact. A signaling NaN comes back quiet, as x86's conversion makes it. */
[[maybe_unused]] inline float loom_f16_to_float(loom_f16 h) {
    const uint32_t sign = (uint32_t)(h.bits & 0x8000u) << 16;
    const uint32_t exponent = (h.bits >> 10) & 0x1fu, mantissa = h.bits & 0x03ffu;
    uint32_t bits;
    if (exponent == 0x1fu) {
        bits = sign | 0x7f800000u | (mantissa << 13) | (mantissa ? 0x00400000u : 0u);
    } else if (exponent != 0) {
        bits = sign | ((exponent + 112u) << 23) | (mantissa << 13);
    } else {
        const float magnitude = (float)mantissa * 0x1p-24f;  /* a subnormal half, or zero */
        return sign ? -magnitude : magnitude;
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

[[maybe_unused]] inline bool operator==(loom_f16 a, loom_f16 b) { return loom_f16_to_float(a) == loom_f16_to_float(b); }
[[maybe_unused]] inline bool operator!=(loom_f16 a, loom_f16 b) { return loom_f16_to_float(a) != loom_f16_to_float(b); }
[[maybe_unused]] inline bool operator<(loom_f16 a, loom_f16 b) { return loom_f16_to_float(a) < loom_f16_to_float(b); }
[[maybe_unused]] inline bool operator<=(loom_f16 a, loom_f16 b) { return loom_f16_to_float(a) <= loom_f16_to_float(b); }
[[maybe_unused]] inline bool operator>(loom_f16 a, loom_f16 b) { return loom_f16_to_float(a) > loom_f16_to_float(b); }
[[maybe_unused]] inline bool operator>=(loom_f16 a, loom_f16 b) { return loom_f16_to_float(a) >= loom_f16_to_float(b); }

template<typename T>
constexpr bool loom_is_f16 = std::is_same<T, loom_f16>::value;

/* The unsigned type in which an integer T's + - * wrap (at least unsigned
 * int, so that narrow types are not promoted to a signed int). */
template<typename T> struct loom_wrap_type;
template<> struct loom_wrap_type<int8_t> { using type = unsigned; };
template<> struct loom_wrap_type<uint8_t> { using type = unsigned; };
template<> struct loom_wrap_type<int16_t> { using type = unsigned; };
template<> struct loom_wrap_type<uint16_t> { using type = unsigned; };
template<> struct loom_wrap_type<int32_t> { using type = uint32_t; };
template<> struct loom_wrap_type<uint32_t> { using type = uint32_t; };
template<> struct loom_wrap_type<int64_t> { using type = uint64_t; };
template<> struct loom_wrap_type<uint64_t> { using type = uint64_t; };

template<typename T>
constexpr bool loom_is_int = std::is_integral<T>::value && !std::is_same<T, bool>::value;

template<typename T>
inline T loom_add(T a, T b) {
    if constexpr (loom_is_f16<T>) {
        return loom_f16_from_float(loom_f16_to_float(a) + loom_f16_to_float(b));
    } else if constexpr (loom_is_int<T>) {
        using W = typename loom_wrap_type<T>::type;
        return (T)(W)((W)a + (W)b);
    } else {
        return a + b;
    }
}

template<typename T>
inline T loom_sub(T a, T b) {
    if constexpr (loom_is_f16<T>) {
        return loom_f16_from_float(loom_f16_to_float(a) - loom_f16_to_float(b));
    } else if constexpr (loom_is_int<T>) {
        using W = typename loom_wrap_type<T>::type;
        return (T)(W)((W)a - (W)b);
    } else {
        return a - b;
    }
}

template<typename T>
inline T loom_mul(T a, T b) {
    if constexpr (loom_is_f16<T>) {
        return loom_f16_from_float(loom_f16_to_float(a) * loom_f16_to_float(b));
    } else if constexpr (loom_is_int<T>) {
        using W = typename loom_wrap_type<T>::type;
        return (T)(W)((W)a * (W)b);
    } else {
        return a * b;
    }
}

/* Euclidean: rounds down for b > 0, up for b < 0; x / 0 is 0. */
template<typename T>
inline T loom_div(T a, T b) {
    if constexpr (loom_is_f16<T>) {
        return loom_f16_from_float(loom_f16_to_float(a) / loom_f16_to_float(b));
    } else if constexpr (std::is_floating_point<T>::value) {
        return a / b;
    } else if constexpr (std::is_unsigned<T>::value) {
        return b == 0 ? T(0) : (T)(a / b);
    } else {
        if (b == 0) return T(0);
        if (b == T(-1)) return loom_sub(T(0), a);
        T q = (T)(a / b);
        const T r = (T)(a % b);
        if (r < 0) q = b > 0 ? (T)(q - 1) : (T)(q + 1);
        return q;
    }
}

/* Never negative; x % 0 is 0. Floats: a - b * floor(a / b) (for a half,
 * all in float, rounded once). */
template<typename T>
inline T loom_mod(T a, T b) {
    if constexpr (loom_is_f16<T>) {
        return loom_f16_from_float(loom_mod(loom_f16_to_float(a), loom_f16_to_float(b)));
    } else if constexpr (std::is_floating_point<T>::value) {
        const T product = b * std::floor(a / b);
        return a - product;
    } else if constexpr (std::is_unsigned<T>::value) {
        return b == 0 ? T(0) : (T)(a % b);
    } else {
        if (b == 0 || b == T(-1)) return T(0);
        const T r = (T)(a % b);
        if (r >= 0) return r;
        using W = typename loom_wrap_type<T>::type;
        const W magnitude = b < 0 ? (W)((W)0 - (W)b) : (W)b;
        return (T)(W)((W)r + magnitude);
    }
}

/* When the comparison fails (NaN, +0 against -0) the result is a. */
template<typename T>
inline T loom_min(T a, T b) { return b < a ? b : a; }
template<typename T>
inline T loom_max(T a, T b) { return b > a ? b : a; }

/* C's conversions, except that float -> int saturates and NaN becomes 0.
 * A half converts exactly to float and from there; a conversion to half
 * rounds once, from the value as a double (exact for every type but 64-bit
 * integers beyond 2^53, which are infinity as halves either way). */
template<typename To, typename From>
inline To loom_cast(From x) {
    if constexpr (std::is_same<To, From>::value) {
        return x;
    } else if constexpr (loom_is_f16<From>) {
        return loom_cast<To, float>(loom_f16_to_float(x));
    } else if constexpr (loom_is_f16<To>) {
        return loom_f16_from_double((double)x);
    } else if constexpr (std::is_same<To, bool>::value) {
        return x != From(0);
    } else if constexpr (std::is_floating_point<From>::value && loom_is_int<To>) {
        if (x != x) return To(0);
        constexpr int bits = (int)sizeof(To) * 8;
        if constexpr (std::is_signed<To>::value) {
            constexpr From limit = (From)((uint64_t)1 << (bits - 1));
            if (x >= limit) return std::numeric_limits<To>::max();
            if (x <= -limit) return std::numeric_limits<To>::min();
        } else {
            constexpr From limit = (From)((uint64_t)1 << (bits - 1)) * From(2);
            if (x >= limit) return std::numeric_limits<To>::max();
            if (x <= From(-1)) return To(0);
        }
        return (To)x;
    } else {
        return (To)x;
    }
}

template<typename To, typename From>
inline To loom_reinterpret(From x) {
    static_assert(sizeof(To) == sizeof(From), "reinterpret between types of different sizes");
    To result;
    memcpy(&result, &x, sizeof result);
    return result;
}

/* Shifts: a negative (signed) amount shifts the other way; an amount of the
 * width or more leaves 0, or only sign bits for a signed right shift. */
template<typename T>
inline T loom_shl_by(T a, uint64_t n) {
    if (n >= sizeof(T) * 8) return T(0);
    using W = typename loom_wrap_type<T>::type;
    return (T)(W)((W)a << n);
}

template<typename T>
inline T loom_shr_by(T a, uint64_t n) {
    constexpr uint64_t bits = sizeof(T) * 8;
    if constexpr (std::is_signed<T>::value) {
        return (T)(a >> (n >= bits ? bits - 1 : n));
    } else {
        return n >= bits ? T(0) : (T)(a >> n);
    }
}

template<typename S>
inline bool loom_shift_is_negative(S b) {
    if constexpr (std::is_signed<S>::value) {
        return b < 0;
    } else {
        (void)b;
        return false;
    }
}

template<typename S>
inline uint64_t loom_shift_magnitude(S b) {
    if (loom_shift_is_negative(b)) return (uint64_t)0 - (uint64_t)(int64_t)b;
    return (uint64_t)b;
}

template<typename T, typename S>
inline T loom_shift_left(T a, S b) {
    const uint64_t n = loom_shift_magnitude(b);
    return loom_shift_is_negative(b) ? loom_shr_by(a, n) : loom_shl_by(a, n);
}

template<typename T, typename S>
inline T loom_shift_right(T a, S b) {
    const uint64_t n = loom_shift_magnitude(b);
    return loom_shift_is_negative(b) ? loom_shl_by(a, n) : loom_shr_by(a, n);
}

/* Of an integer: its magnitude as the unsigned type of its width. */
template<typename R, typename T>
inline R loom_abs(T a) {
    if constexpr (loom_is_f16<T>) {
        return loom_f16{(uint16_t)(a.bits & 0x7fffu)};
    } else if constexpr (std::is_floating_point<T>::value) {
        return (R)std::fabs(a);
    } else if constexpr (std::is_signed<T>::value) {
        return a < 0 ? (R)((R)0 - (R)a) : (R)a;
    } else {
        return (R)a;
    }
}

/* A message value for loom_msg_format: the bits of a double. */
[[maybe_unused]] inline uint64_t loom_double_bits(double x) { return loom_reinterpret<uint64_t>(x); }

[[maybe_unused]] inline float loom_float_from_bits(uint32_t bits) { return loom_reinterpret<float>(bits); }
[[maybe_unused]] inline double loom_double_from_bits(uint64_t bits) { return loom_reinterpret<double>(bits); }

/* A heap allocation of the pipeline, freed when its scope ends, also on an
 * early return. */
struct loom_heap_allocation {
    void *p = nullptr;
    loom_heap_allocation() = default;
    loom_heap_allocation(const loom_heap_allocation &) = delete;
    loom_heap_allocation &operator=(const loom_heap_allocation &) = delete;
    void release() {
        if (p) loom_free(nullptr, p);
        p = nullptr;
    }
    ~loom_heap_allocation() { release(); }
};

/* Runs a parallel loop's body (a lambda taking the loop variable). */
template<typename Body>
inline int loom_par_for(int min, int extent, Body &body) {
    loom_parallel_body_t task = [](void *, int index, uint8_t *closure) -> int {
        return (*(Body *)closure)(index);
    };
    return loom_do_par_for(nullptr, task, min, extent, (uint8_t *)&body);
}

}  // namespace

)PREAMBLE";
}

}  // namespace internal
}  // namespace loom
