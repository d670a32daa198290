#ifndef LOOM_IR_INTERPRETER_INTERP_OPS_H
#define LOOM_IR_INTERPRETER_INTERP_OPS_H

/** \file
 * The arithmetic of the interpreter, one struct per operator with an entry
 * per kind, shared by the binary nodes and VectorReduce. Float(32) is
 * computed in float so that results bit-match compiled code, and Float(16)
 * in float too, with the result rounded to binary16; signed ints are
 * computed on uint64 so that overflow wraps instead of being undefined.
 */

#include <cmath>

#include "ir/IRUtil.h"
#include "ir/interpreter/InterpCore.h"

namespace loom {
namespace internal {
namespace interp {

struct AddOp {
    static int64_t i(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
    static uint64_t u(uint64_t a, uint64_t b) { return a + b; }
    static float f32(float a, float b) { return a + b; }
    static double f64(double a, double b) { return a + b; }
};

struct SubOp {
    static int64_t i(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }
    static uint64_t u(uint64_t a, uint64_t b) { return a - b; }
    static float f32(float a, float b) { return a - b; }
    static double f64(double a, double b) { return a - b; }
};

struct MulOp {
    static int64_t i(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }
    static uint64_t u(uint64_t a, uint64_t b) { return a * b; }
    static float f32(float a, float b) { return a * b; }
    static double f64(double a, double b) { return a * b; }
};

// Integer division and modulus share constant folding's definition (IRUtil);
// a positive divisor, the common case (index arithmetic), takes an inline
// path that computes the same (rounding down, a remainder in [0, b)).
struct DivOp {
    static int64_t i(int64_t a, int64_t b) {
        if (b > 0) {
            const int64_t q = a / b;
            return a % b < 0 ? q - 1 : q;
        }
        return div_euclid(a, b);
    }
    static uint64_t u(uint64_t a, uint64_t b) { return b == 0 ? 0 : a / b; }
    static float f32(float a, float b) { return a / b; }
    static double f64(double a, double b) { return a / b; }
};

/** Float modulus is a - b * floor(a / b), each step rounded to the type. */
struct ModOp {
    static int64_t i(int64_t a, int64_t b) {
        if (b > 0) {
            const int64_t r = a % b;
            return r < 0 ? r + b : r;
        }
        return mod_euclid(a, b);
    }
    static uint64_t u(uint64_t a, uint64_t b) { return b == 0 ? 0 : a % b; }
    static float f32(float a, float b) {
        float q = std::floor(a / b);
        float m = b * q;
        return a - m;
    }
    static double f64(double a, double b) {
        double q = std::floor(a / b);
        double m = b * q;
        return a - m;
    }
};

/** min/max return a when the comparison fails (so a NaN in b yields a). */
struct MinOp {
    static int64_t i(int64_t a, int64_t b) { return b < a ? b : a; }
    static uint64_t u(uint64_t a, uint64_t b) { return b < a ? b : a; }
    static float f32(float a, float b) { return b < a ? b : a; }
    static double f64(double a, double b) { return b < a ? b : a; }
};

struct MaxOp {
    static int64_t i(int64_t a, int64_t b) { return b > a ? b : a; }
    static uint64_t u(uint64_t a, uint64_t b) { return b > a ? b : a; }
    static float f32(float a, float b) { return b > a ? b : a; }
    static double f64(double a, double b) { return b > a ? b : a; }
};

/** Logical and/or on booleans (0/1 in u). */
struct AndOp {
    static int64_t i(int64_t a, int64_t b) { return a & b; }
    static uint64_t u(uint64_t a, uint64_t b) { return a & b; }
    static float f32(float a, float b) { return (a != 0) && (b != 0); }
    static double f64(double a, double b) { return (a != 0) && (b != 0); }
};

struct OrOp {
    static int64_t i(int64_t a, int64_t b) { return a | b; }
    static uint64_t u(uint64_t a, uint64_t b) { return a | b; }
    static float f32(float a, float b) { return (a != 0) || (b != 0); }
    static double f64(double a, double b) { return (a != 0) || (b != 0); }
};

/** One lane of a binary arithmetic op on kind K, wrapped/rounded to bits. */
template<class Op, Kind K>
inline Scalar apply_op(int bits, Scalar a, Scalar b) {
    Scalar r;
    if constexpr (K == Kind::Int) {
        r.i = wrap_signed(bits, Op::i(a.i, b.i));
    } else if constexpr (K == Kind::UInt || K == Kind::Handle) {
        r.u = wrap_unsigned(bits, Op::u(a.u, b.u));
    } else if constexpr (K == Kind::F32) {
        r.f = (double)Op::f32((float)a.f, (float)b.f);
    } else if constexpr (K == Kind::F16) {
        r.f = round_to_half((double)Op::f32((float)a.f, (float)b.f));
    } else {
        r.f = Op::f64(a.f, b.f);
    }
    return r;
}

}  // namespace interp
}  // namespace internal
}  // namespace loom

#endif
