#ifndef LOOM_LOWER_STAGE_LOOP_NEST_H
#define LOOM_LOWER_STAGE_LOOP_NEST_H

/** \file
 * The loop nest of one stage: its For loops, in the order of Stage::dims,
 * around its Provide, after the stage's splits, fuses and renames.
 *
 * A pure var x of the stage spans [f.s<k>.x.min, f.s<k>.x.max] (symbols that
 * bounds inference defines outside the produce node); a reduction variable
 * spans its RDom. Every variable v, original or made by a split, gets the
 * symbols v.loop_min, v.loop_max and v.loop_extent, bound by LetStmts inside
 * the produce node (stage_loop_bounds lists them), and each loop is
 * For(v, v.loop_min, v.loop_extent).
 *
 * split x -> xo, xi by f: xo spans [0, ceil(extent / f)), xi spans [0, f),
 * and x = x.loop_min + xo * f + xi is bound by a LetStmt just around the
 * Provide (all split definitions sit there). The tail strategies:
 *   RoundUp        no guard: the stage computes up to ceil(e / f) * f points
 *                  (stage_computed_region reports the larger region);
 *   GuardWithIf    the Provide runs only if x <= x.loop_max;
 *   ShiftInwards   the last block is shifted back to end at x.loop_max, so
 *                  some points are computed twice (pure stages only):
 *                  x = min(x.loop_min + xo * f, x.loop_max - f + 1) + xi,
 *                  with no guard. With fewer than f points the block
 *                  starts before x.loop_min: the stage computes f points,
 *                  bounds inference grows the storage and input regions to
 *                  match, and an output buffer's region check rejects it
 *                  (as Halide does). In folded storage (fixed_storage), where
 *                  extra points would overwrite live ones, it is GuardWithIf;
 *   Auto           ShiftInwards in a pure definition, GuardWithIf in an
 *                  update (recomputing a point of an update would apply it
 *                  twice), also what ShiftInwards means in an update;
 *   PredicateLoads, PredicateStores   GuardWithIf; in a vectorized loop
 *                  vectorize_loops turns the guard into predicated loads and
 *                  stores.
 * RoundUp on a reduction variable is a CompileError (it would run iterations
 * outside the RDom). In an update, RoundUp on a var made by an earlier split
 * or fuse means GuardWithIf: its extra iterations would be points of the
 * next block, updated twice.
 *
 * fuse (outer, inner -> fused): fused spans [0, e_outer * e_inner), inner =
 * fused % e_inner + inner.loop_min, outer = fused / e_inner + outer.loop_min
 * (dividing by max(e_inner, 1), so interval arithmetic sees a positive
 * divisor and bounds inference finds outer's range).
 * rename x -> y: y spans x's range and x = y.
 *
 * An unrolled loop with an unroll cascade (Dim::unroll_cascade) is marked by
 * a LetStmt "<loop>.unroll_cascade" directly around it, whose value lists the
 * factors (an IntImm, or a Shuffle of IntImms); unroll_loops reads it.
 */

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ir/Bounds.h"
#include "ir/IR.h"
#include "lower/Stages.h"

namespace loom {
namespace internal {

/** fixed_storage: the Func's storage cannot grow to hold points outside the
 * stage's region (it is folded), so ShiftInwards guards instead.
 * coordinates, if given, receives the names of the variables the nest
 * defines from its loops by LetStmts (x = x.loop_min + xo * 8 + xi, and the
 * variables of a fuse): the coordinates the loops step through.
 * \throws CompileError for a schedule whose splits or loop order do not fit
 * the stage (a var split twice, a loop order that names a var that is not a
 * loop, a non-positive factor, RoundUp on a reduction variable). */
Stmt build_stage_loop_nest(const Stage &stage, bool fixed_storage = false,
                           std::set<std::string> *coordinates = nullptr);

/** The definitions of v.loop_min, v.loop_max and v.loop_extent of every
 * variable of the stage (original and made by splits), in an order where
 * each refers only to earlier ones, the pure var symbols f.s<k>.x.min and
 * f.s<k>.x.max, and the RDom bounds. */
std::vector<std::pair<std::string, Expr>> stage_loop_bounds(const Stage &stage, bool fixed_storage = false);

/** The region of each pure var (in the Func's argument order) the stage
 * actually computes, in terms of f.s<k>.x.min / .max and the RDom bounds:
 * [x.min, x.max] unless a RoundUp split makes it larger, or a ShiftInwards
 * split of fewer points than its factor starts it earlier. */
Box stage_computed_region(const Stage &stage, bool fixed_storage = false);

/** The name of the LetStmt that marks an unrolled loop's cascade. */
inline std::string unroll_cascade_marker(const std::string &loop) { return loop + ".unroll_cascade"; }

}  // namespace internal
}  // namespace loom

#endif
