#ifndef LOOM_IR_OPERATOR_H
#define LOOM_IR_OPERATOR_H

/** \file
 * Arithmetic on Exprs with Halide's implicit type rules, and the math and
 * selection functions of the language.
 *
 * Type rules for `a op b` when the types differ:
 * - a C++ int literal takes the other operand's type (`u8 + 1` is UInt(8));
 *   it is an error (CompileError) if the value does not fit that type;
 * - a C++ float/double literal converts an integer operand's expression to
 *   Float(32) (double: Float(64)) and a float operand's literal to its type;
 * - int op float: the integer side is cast to the float type;
 * - float op float: the narrower is widened;
 * - signed op signed / unsigned op unsigned: the narrower is widened;
 * - signed op unsigned: both become signed, of the wider width;
 * - scalar op vector: the scalar is broadcast.
 * Integer `/` and `%` are Euclidean (the remainder is in [0, |b|), so `/` rounds
 * toward negative infinity for positive divisors; result of `%` in
 * [0, |b|)); division or modulus by zero yields zero. Narrow types wrap.
 */

#include <initializer_list>
#include <string>
#include <vector>

#include "loom/Expr.h"

namespace loom {

#define LOOM_DECLARE_BINARY_OPERATOR(OP)   \
    Expr operator OP(Expr a, Expr b);      \
    Expr operator OP(Expr a, int b);       \
    Expr operator OP(int a, Expr b);       \
    Expr operator OP(Expr a, float b);     \
    Expr operator OP(float a, Expr b);     \
    Expr operator OP(Expr a, double b);    \
    Expr operator OP(double a, Expr b);

LOOM_DECLARE_BINARY_OPERATOR(+)
LOOM_DECLARE_BINARY_OPERATOR(-)
LOOM_DECLARE_BINARY_OPERATOR(*)
LOOM_DECLARE_BINARY_OPERATOR(/)
LOOM_DECLARE_BINARY_OPERATOR(%)
LOOM_DECLARE_BINARY_OPERATOR(==)
LOOM_DECLARE_BINARY_OPERATOR(!=)
LOOM_DECLARE_BINARY_OPERATOR(<)
LOOM_DECLARE_BINARY_OPERATOR(<=)
LOOM_DECLARE_BINARY_OPERATOR(>)
LOOM_DECLARE_BINARY_OPERATOR(>=)
#undef LOOM_DECLARE_BINARY_OPERATOR

Expr operator-(Expr a);
Expr operator!(Expr a);
Expr operator&&(Expr a, Expr b);
Expr operator&&(Expr a, bool b);
Expr operator&&(bool a, Expr b);
Expr operator||(Expr a, Expr b);
Expr operator||(Expr a, bool b);
Expr operator||(bool a, Expr b);
/** Bitwise operators on integers (and on bools for & | ^). */
Expr operator&(Expr a, Expr b);
Expr operator|(Expr a, Expr b);
Expr operator^(Expr a, Expr b);
Expr operator~(Expr a);
/** Shifts; a negative or too-large shift amount is the user's responsibility
 * as in C, except that the result is never undefined behaviour in Loom. */
Expr operator<<(Expr a, Expr b);
Expr operator>>(Expr a, Expr b);
Expr operator<<(Expr a, int b);
Expr operator>>(Expr a, int b);

Expr &operator+=(Expr &a, Expr b);
Expr &operator-=(Expr &a, Expr b);
Expr &operator*=(Expr &a, Expr b);
Expr &operator/=(Expr &a, Expr b);
Expr &operator%=(Expr &a, Expr b);

/** Minimum/maximum with the same type rules as the arithmetic operators. */
Expr min(Expr a, Expr b);
Expr min(Expr a, int b);
Expr min(int a, Expr b);
Expr min(Expr a, float b);
Expr min(float a, Expr b);
Expr max(Expr a, Expr b);
Expr max(Expr a, int b);
Expr max(int a, Expr b);
Expr max(Expr a, float b);
Expr max(float a, Expr b);
template<typename A, typename B, typename C, typename... Rest>
Expr min(A a, B b, C c, Rest... rest) {
    return min(min(Expr(a), b), c, rest...);
}
template<typename A, typename B, typename C, typename... Rest>
Expr max(A a, B b, C c, Rest... rest) {
    return max(max(Expr(a), b), c, rest...);
}

/** clamp(a, lo, hi) == max(min(a, hi), lo); lo and hi take a's type. */
Expr clamp(Expr a, Expr lo, Expr hi);

/** condition ? t : f, evaluated lane-wise. Both values are computed. */
Expr select(Expr condition, Expr true_value, Expr false_value);
/** select(c0, v0, c1, v1, ..., otherwise): the first value whose condition holds. */
template<typename... Rest>
Expr select(Expr c0, Expr v0, Expr c1, Expr v1, Rest... rest) {
    return select(c0, v0, select(c1, v1, rest...));
}

/** Absolute value; for signed integers the result is the unsigned type of the
 * same width (so abs(INT_MIN) is representable). */
Expr abs(Expr a);
/** |a - b| without overflow, unsigned for integer arguments. */
Expr absd(Expr a, Expr b);

/** Converts with C semantics: float->int truncates toward zero, ints wrap. */
Expr cast(Type t, Expr a);
template<typename T>
Expr cast(Expr a) {
    return cast(type_of<T>(), std::move(a));
}
/** Reinterprets the bits of a as type t (the same number of bits). */
Expr reinterpret(Type t, Expr a);
template<typename T>
Expr reinterpret(Expr a) {
    return reinterpret(type_of<T>(), std::move(a));
}

/** Float math. Integer arguments are cast to Float(32); Float(64) arguments
 * stay Float(64). */
Expr sqrt(Expr x);
Expr exp(Expr x);
Expr log(Expr x);
Expr pow(Expr x, Expr y);
Expr sin(Expr x);
Expr cos(Expr x);
Expr tan(Expr x);
Expr asin(Expr x);
Expr acos(Expr x);
Expr atan(Expr x);
Expr atan2(Expr y, Expr x);
Expr sinh(Expr x);
Expr cosh(Expr x);
Expr tanh(Expr x);
Expr floor(Expr x);
Expr ceil(Expr x);
/** Rounds half to even, like Halide. */
Expr round(Expr x);
Expr trunc(Expr x);
Expr fract(Expr x);
Expr is_nan(Expr x);
Expr is_inf(Expr x);
Expr is_finite(Expr x);
/** a + (b - a) * w for floats. */
Expr lerp(Expr a, Expr b, Expr w);

/** Pieces of a print() message: Exprs or strings. */
struct PrintArg {
    PrintArg(Expr e) : expr(std::move(e)) {}
    PrintArg(int x);
    PrintArg(float x);
    PrintArg(double x);
    PrintArg(const char *s);
    PrintArg(const std::string &s);
    Expr expr;
};

/** Evaluates to the first argument and prints all arguments, space
 * separated, each time it is evaluated. */
Expr print(const std::vector<PrintArg> &args);
template<typename... Args>
Expr print(Expr first, Args... rest) {
    return print(std::vector<PrintArg>{PrintArg(std::move(first)), PrintArg(rest)...});
}
/** Like print, but prints only when condition holds. */
Expr print_when(Expr condition, const std::vector<PrintArg> &args);
template<typename... Args>
Expr print_when(Expr condition, Expr first, Args... rest) {
    return print_when(std::move(condition), std::vector<PrintArg>{PrintArg(std::move(first)), PrintArg(rest)...});
}

/** An Expr that is value where condition holds. Where it does not, the
 * pipeline fails: it reports "require() failed: <condition> <pieces...>"
 * (the pieces as print() writes them) and stops, a RuntimeError in the JIT
 * and loom_error_code_user_assertion (-8) from an AOT pipeline. As in
 * Halide, the check runs each time the Expr is evaluated (avoid it in inner
 * loops outside of debugging), a condition known to be true at compile time
 * costs nothing, and bounds inference treats require() as its value. GPU
 * kernels cannot fail a pipeline: a Func that uses require() must run on
 * the CPU (CompileError for a GPU schedule).
 *
 *     f(x) = require(x < size, in(x), "x is past the end:", x);
 *
 * \throws CompileError for an undefined or non-boolean (or vector)
 * condition, a missing or undefined value, or a string as the value. */
Expr require(Expr condition, const std::vector<PrintArg> &value_and_message);
template<typename... Args>
Expr require(Expr condition, Expr value, Args... message) {
    return require(std::move(condition), std::vector<PrintArg>{PrintArg(std::move(value)), PrintArg(message)...});
}

/** Deterministic pseudo-random values, as in Halide: random_float() is a
 * Float(32) uniform in [0, 1), random_uint() a UInt(32) and random_int() an
 * Int(32) whose 32 bits are uniform. The value is a hash of the pure
 * variables (and, in an update, the RVars) of the definition it is used in,
 * of that definition (its Func's name and stage), of the call (each call of
 * random_*() is its own stream: `Expr r = random_float(); f(x) = r + r;`
 * doubles one value, `random_float() + random_float()` adds two), and of the
 * optional Int(32) seed. Every run, and every back end, gives the same
 * values; the values are shared by the elements of a Tuple that use the same
 * call. They are no cryptographic randomness.
 *
 * \throws CompileError for a seed that is not Int(32), or (when the
 * definition is made) a random_*() used outside of a Func definition. */
Expr random_float(Expr seed = Expr());
Expr random_uint(Expr seed = Expr());
Expr random_int(Expr seed = Expr());

/** A hint that a condition is usually true (for loop partitioning). */
Expr likely(Expr e);
/** An undefined value of type t: as the whole value of a pure definition,
 * f(x) = undef<float>(), it means that the pure definition stores nothing
 * and the update definitions give the values (e.g. a loop state whose first
 * iteration is set by an update). Reading a point no update wrote gives an
 * unspecified value. Loom accepts undef only there (CompileError
 * elsewhere). */
Expr undef(Type t);
template<typename T>
Expr undef() {
    return undef(type_of<T>());
}
/** Like likely(), but only a hint where the loop is the innermost one; Loom
 * partitions loops the same way for both. */
Expr likely_if_innermost(Expr e);
/** Promises that value lies in [min, max] (converted to value's type):
 * bounds inference uses the promise instead of the value's own bounds. If
 * the promise is broken the behaviour is undefined, as in Halide. */
Expr unsafe_promise_clamped(const Expr &value, const Expr &min, const Expr &max);

// ---------------------------------------------------------------- saturating, widening, fixed point
//
// Integer operations with Halide's exact overflow and rounding rules; the
// operands are matched with the rules of the arithmetic operators above.
// Each raises CompileError naming the op for undefined, handle, bool or
// (where integers are needed) float operands, lane mismatches, and widening
// of 64-bit types. Example: blur(x) = rounding_halving_add(in(x), in(x + 1)).

/** Converts e to t, clamping it to t's range first (floats too: a float
 * beyond the range of an integer t becomes t's minimum or maximum). */
Expr saturating_cast(Type t, Expr e);
template<typename T>
Expr saturating_cast(Expr e) {
    return saturating_cast(type_of<T>(), std::move(e));
}
/** a + b and a - b clamped to the range of their type (no wrapping). */
Expr saturating_add(Expr a, Expr b);
Expr saturating_sub(Expr a, Expr b);
/** a + b, a - b, a * b computed in the type of twice the bits, which is
 * the result type (widening_sub's is always signed; widening_mul's is
 * signed if either operand is, and its operands may differ in signedness
 * and bits). */
Expr widening_add(Expr a, Expr b);
Expr widening_sub(Expr a, Expr b);
Expr widening_mul(Expr a, Expr b);
/** a widened, then shifted by b (a negative b shifts the other way). */
Expr widening_shift_left(Expr a, Expr b);
Expr widening_shift_left(Expr a, int b);
Expr widening_shift_right(Expr a, Expr b);
Expr widening_shift_right(Expr a, int b);
/** a op widen(b), where a has twice the bits of b; the result has a's type. */
Expr widen_right_add(Expr a, Expr b);
Expr widen_right_sub(Expr a, Expr b);
Expr widen_right_mul(Expr a, Expr b);
/** (a + b) >> 1 and (a - b) >> 1 as if computed without overflow (rounding
 * down); rounding_halving_add is (a + b + 1) >> 1. Result: a's type. */
Expr halving_add(Expr a, Expr b);
Expr halving_sub(Expr a, Expr b);
Expr rounding_halving_add(Expr a, Expr b);
/** a >> b rounding to nearest, halves up (and a << b, which rounds when b
 * is negative); never overflows. Result: a's type. */
Expr rounding_shift_right(Expr a, Expr b);
Expr rounding_shift_right(Expr a, int b);
Expr rounding_shift_left(Expr a, Expr b);
Expr rounding_shift_left(Expr a, int b);
/** saturating_cast(a's type, widening_mul(a, b) >> q); the rounding form
 * uses rounding_shift_right. q must be unsigned (an int is converted). */
Expr mul_shift_right(Expr a, Expr b, Expr q);
Expr mul_shift_right(Expr a, Expr b, int q);
Expr rounding_mul_shift_right(Expr a, Expr b, Expr q);
Expr rounding_mul_shift_right(Expr a, Expr b, int q);

/** Concise casts: u8(e) is cast<uint8_t>(e), i16_sat(e) is
 * saturating_cast<int16_t>(e), and so on. */
Expr u8(Expr e);
Expr u16(Expr e);
Expr u32(Expr e);
Expr u64(Expr e);
Expr i8(Expr e);
Expr i16(Expr e);
Expr i32(Expr e);
Expr i64(Expr e);
Expr f16(Expr e);
Expr f32(Expr e);
Expr f64(Expr e);
Expr u8_sat(Expr e);
Expr u16_sat(Expr e);
Expr u32_sat(Expr e);
Expr u64_sat(Expr e);
Expr i8_sat(Expr e);
Expr i16_sat(Expr e);
Expr i32_sat(Expr e);
Expr i64_sat(Expr e);

/** Integer division and remainder rounding toward zero, as in C (the `/`
 * and `%` operators are Euclidean). Division by zero yields zero. */
Expr div_round_to_zero(Expr x, Expr y);
Expr mod_round_to_zero(Expr x, Expr y);

// ---------------------------------------------------------------- bits

/** Bit counts of an integer, in its own type; both counts of 0 are its bits. */
Expr count_leading_zeros(Expr x);
Expr count_trailing_zeros(Expr x);
Expr popcount(Expr x);
/** t.bits() bits of the integer e starting at bit lsb (0 is the least
 * significant), as a value of type t; bits past e's top are zeros. */
Expr extract_bits(Type t, const Expr &e, const Expr &lsb);
template<typename T>
Expr extract_bits(const Expr &e, const Expr &lsb) {
    return extract_bits(type_of<T>(), e, lsb);
}
/** The bits of a power-of-two count of integers of one type, the first the
 * least significant: concat_bits({lo, hi}) of two uint8 is a uint16. */
Expr concat_bits(const std::vector<Expr> &e);

/** values[id] for values of one type; any id out of range gives the last. */
Expr mux(const Expr &id, const std::initializer_list<Expr> &values);
Expr mux(const Expr &id, const std::vector<Expr> &values);

// ---------------------------------------------------------------- more math

/** Float(32) approximations that vectorize (polynomials, no libm calls):
 * fast_sin/fast_cos (absolute error about 1e-6 for moderate arguments),
 * fast_exp and fast_log (relative error about 1e-6; fast_log needs x > 0),
 * fast_pow(x, y) = fast_exp(fast_log(x) * y) with fast_pow(0, y) = 0. */
Expr fast_sin(const Expr &x);
Expr fast_cos(const Expr &x);
Expr fast_exp(const Expr &x);
Expr fast_log(const Expr &x);
Expr fast_pow(Expr x, Expr y);
/** tanh of a Float(32) as a rational function that vectorizes (the one
 * ONNX Runtime's MLAS and Eigen use): absolute error under 5e-7, odd, NaN
 * kept, +-1 beyond |x| = 7.9. Halide declares fast_tanh(x,
 * ApproximationPrecision = {}); Loom has no ApproximationPrecision, like its
 * other fast_* functions, so only the one-argument form. */
Expr fast_tanh(const Expr &x);
/** 1 / x and 1 / sqrt(x) of a float; Loom computes them exactly. */
Expr fast_inverse(Expr x);
Expr fast_inverse_sqrt(Expr x);
/** The error function of a Float(32), absolute error under 2e-7. */
Expr erf(const Expr &x);
/** sqrt(x * x + y * y). */
Expr hypot(const Expr &x, const Expr &y);
/** a * b + c of floats of one type, rounded once. */
Expr fma(const Expr &a, const Expr &b, const Expr &c);
Expr acosh(Expr x);
Expr asinh(Expr x);
Expr atanh(Expr x);

}  // namespace loom

#endif
