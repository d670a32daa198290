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

/** A hint that a condition is usually true (for loop partitioning). */
Expr likely(Expr e);

}  // namespace loom

#endif
