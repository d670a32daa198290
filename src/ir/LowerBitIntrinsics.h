#ifndef LOOM_IR_LOWER_BIT_INTRINSICS_H
#define LOOM_IR_LOWER_BIT_INTRINSICS_H

/** \file
 * Plain-IR forms of the integer intrinsics that the front end keeps as
 * calls because LLVM turns each into one instruction (saturating_add/sub,
 * count_leading_zeros, count_trailing_zeros, popcount). The interpreter and
 * the SPIR-V back end evaluate these forms; every other fixed-point operator
 * (widening, halving, rounding shifts, mul_shift_right, ...) is already
 * plain IR when the front end builds it (lang/FixedPointOperators.cpp).
 */

#include "ir/IR.h"

namespace loom {
namespace internal {

/** The call rewritten with min/max, shifts, masks and integer arithmetic
 * only; undefined if op is not one of the intrinsics above. */
Expr lower_bit_intrinsic(const Call *op);

/** Whether op is one of those intrinsics, or fma: lane-wise calls. */
bool is_bit_intrinsic(const Call *op);

}  // namespace internal
}  // namespace loom

#endif
