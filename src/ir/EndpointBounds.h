#ifndef LOOM_IR_ENDPOINT_BOUNDS_H
#define LOOM_IR_ENDPOINT_BOUNDS_H

/** \file
 * Bounding one endpoint of a region over a loop, for bounds inference
 * (BoxesTouched.cpp): the largest value a max endpoint takes as the loop's
 * variable runs over its range, or the smallest of a min endpoint, exactly
 * where interval arithmetic alone would not be (an endpoint that reads the
 * variable in opposite directions, a min that switches operands inside the
 * range).
 */

#include <string>

#include "ir/IR.h"
#include "ir/Interval.h"

namespace loom {
namespace internal {

/** Largest endpoint, in tree nodes, that a let's value is substituted into
 * in full. Substituting keeps min and max correlated (exact regions), but a
 * value read k times grows the endpoint k-fold, and nested lets (a fused
 * loop's variables divided by a varying extent, under guards) compound it;
 * past this size the endpoint keeps the let as an Expr Let instead, whose
 * bounds are those of its value: linear in size, exact where it is read
 * once. */
inline constexpr int kMaxSubstitutedEndpointNodes = 256;

/** The largest value over var in range of an endpoint (is_max), or its
 * smallest. Interval arithmetic is exact where the endpoint is monotonic in
 * var leaf by leaf (monotonic_form); otherwise, where a min or max in it
 * switches operands at a point s of the range (find_linear_branch), the
 * range is split there and each side bounded with that node replaced by its
 * operand: a producer rounded up (RoundUp) per tile of a GuardWithIf split
 * computes ((min(32 t + 31, h - 1) - 32 t + 5) / 5) * 5 rows from 32 t,
 * which interval arithmetic bounds with t at once 0 and its last value;
 * split where the tile is cut, each side is exact (the full tiles monotonic,
 * the last one a single point). `depth` limits the splits. The result is
 * never looser than the plain bound. */
Expr bound_over_loop(const Expr &e, const std::string &var, const Interval &range, bool is_max, int depth);

/** e with its sums moved into the leaves of its selects, mins and maxes
 * (sums_moved_into_leaves) where that makes it monotonic in var, and not
 * much bigger; undefined otherwise. */
Expr monotonic_leaves(const Expr &e, const std::string &var, bool is_max);

}  // namespace internal
}  // namespace loom

#endif
