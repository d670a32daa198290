#ifndef LOOM_SCHEDULE_H
#define LOOM_SCHEDULE_H

/** \file
 * Enumerations used by scheduling calls (Halide's names).
 */

#include <cstdint>

namespace loom {

/** How split() (and tile, vectorize(x, n), unroll(x, n), parallel(x, n))
 * handles an extent its factor does not divide.
 *
 * - RoundUp: the loop runs a whole number of blocks, computing a little past
 *   the end. Fastest; not allowed for RVars (it would add iterations to the
 *   reduction); on an output, the output must be a multiple of the factor.
 * - GuardWithIf: the inner loop skips the points past the end. Always legal.
 * - ShiftInwards: the last block is moved back so it ends at the end,
 *   computing a few points twice. Only for pure definitions (recomputing an
 *   update would apply it twice); the extent must be at least the factor.
 * - PredicateLoads / PredicateStores: like GuardWithIf but only the loads
 *   (or only the stores) are guarded; not allowed for RVars.
 * - Auto: Halide's defaults, chosen when the directive is given:
 *   ShiftInwards in a pure definition; in an update definition GuardWithIf
 *   for RVars and RoundUp for pure Vars.
 *
 * Using a strategy where it is not allowed throws CompileError naming the
 * Func, the stage and the Var.
 */
enum class TailStrategy : uint8_t { Auto, RoundUp, GuardWithIf, ShiftInwards, PredicateLoads, PredicateStores };

/** compute_with: how the loops of two fused stages line up when their
 * ranges differ. AlignStart shifts the later stage's loop so that both
 * start together, AlignEnd so that both end together; NoAlign (and Auto,
 * its default) runs the fused loop over the union of the two ranges, each
 * stage guarded by its own. A shift changes which iterations of the two
 * stages share a fused iteration, never which points each computes. */
enum class LoopAlignStrategy : uint8_t { AlignStart, AlignEnd, NoAlign, Auto };

/** prefetch(): what to do with the part of a prefetched region that lies
 * outside the region the pipeline reads of the prefetched Func or buffer
 * (its realization, or the input buffer's bounds).
 *
 * - Clamp: the prefetched region is intersected with those bounds.
 * - GuardWithIf: the prefetch is skipped when any of its region lies
 *   outside them (all or nothing). The default.
 * - NonFaulting: the region is prefetched as computed; fine where a
 *   prefetch of an unmapped address does not fault (x86, ARM).
 */
enum class PrefetchBoundStrategy : uint8_t { Clamp, GuardWithIf, NonFaulting };

/** Loop partitioning of one loop (Func::partition): whether the loop may be
 * split into a prologue, a steady state without boundary tests, and an
 * epilogue (where a boundary condition or a `likely` makes one).
 *
 * - Auto: Loom decides (the default).
 * - Never: the loop is never partitioned.
 * - Always: the loop must be partitioned, also inside the prologue and
 *   epilogue of partitioned loops around it; if Loom finds nothing to
 *   partition it on, compiling throws CompileError naming the loop.
 */
enum class Partition : uint8_t { Auto, Never, Always };

}  // namespace loom

#endif
