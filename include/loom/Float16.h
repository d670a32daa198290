#ifndef LOOM_FLOAT16_H
#define LOOM_FLOAT16_H

/** \file
 * Float(16) as a C++ type: loom::float16_t (IEEE binary16, defined in
 * loom/runtime/float16.h so that the header-only runtime can use it too) and
 * type_of<float16_t>() == Float(16).
 *
 *     Buffer<float16_t> in(64), out(64);
 *     Func f;
 *     f(x) = cast<float16_t>(in(x) * 2);      // Float(16) arithmetic
 *     f.realize(out);
 *
 * Loom computes each Float(16) operation by converting its operands to
 * Float(32), computing, and rounding the result to Float(16) (ties to even),
 * on every back end. Mixed types follow Halide's rules: Float(16) with
 * Float(32) is Float(32); Float(16) with an integer, or with a C++ float
 * literal, stays Float(16).
 *
 * BFloat(16) likewise: loom::bfloat16_t (loom/runtime/bfloat16.h, Halide's
 * bfloat16_t) is its C++ type, type_of<bfloat16_t>() == BFloat(16), and its
 * operations compute in Float(32) and round the result to BFloat(16) (ties to
 * even). Casts from Float(64) round once, correctly. CPU back ends only: a
 * GPU kernel using BFloat(16) is a CompileError.
 */

#include <type_traits>

#include "loom/Type.h"
#include "loom/runtime/bfloat16.h"
#include "loom/runtime/float16.h"

namespace loom {
namespace internal {
template<> struct TypeOf<float16_t> { static Type get() { return Float(16); } };
template<> struct TypeOf<bfloat16_t> { static Type get() { return BFloat(16); } };

/** float16_t and bfloat16_t: 16-bit floats that are classes, not arithmetic
 * types, but scalars wherever Halide takes one (Param<T>, Input<T>, Callable
 * arguments). */
template<typename T>
inline constexpr bool is_half_float_v = std::is_same_v<T, float16_t> || std::is_same_v<T, bfloat16_t>;
}  // namespace internal
}  // namespace loom

#endif
