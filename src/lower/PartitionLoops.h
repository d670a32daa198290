#ifndef LOOM_LOWER_PARTITION_LOOPS_H
#define LOOM_LOWER_PARTITION_LOOPS_H

/** \file
 * Loop partitioning: a serial or parallel loop whose body tests its loop
 * variable against loop-invariant bounds (a clamp at an edge, a select on
 * "is this the first iteration", a GuardWithIf tail) is split into
 *
 *   prologue   the first iterations, where some test may go either way,
 *   steady     the middle, where every such test is known and has been
 *              replaced by its value (no clamp, no branch),
 *   epilogue   the last iterations.
 *
 * The tests recognised, with v the loop variable (possibly through lets)
 * plus a loop-invariant offset k, and t loop-invariant:
 *   max(v + k, t)  steady where v + k >= t, becomes v + k;
 *   min(v + k, t)  steady where v + k <= t, becomes v + k;
 *   v + k < t, <=, >, >=   steady where true (the inside of a boundary);
 *   v + k == t, !=         when t is within a few iterations of the first or
 *                          last iteration (PyPTO's is_loop_begin() /
 *                          is_loop_end()): those iterations are peeled.
 * The boundaries of the three parts are computed at run time and clamped to
 * the loop, so any part may be empty. A part that runs at most once is
 * emitted as an if around a let of the loop variable (a peeled iteration).
 *
 * A parallel loop stays one loop, as in Halide: each iteration (a task)
 * picks its part, `if (v < steady_min || steady_end <= v) boundary else
 * steady`, so its few boundary tasks run beside the steady ones rather than
 * after them. Its boundary iterations are tasks as long as steady ones, so
 * the loops inside them are partitioned too (unless this loop is itself in
 * the boundary iterations of an enclosing parallel loop).
 *
 * Afterwards, adjacent loops in a block that have the same range, the same
 * kind, and provably at most one iteration are fused into one loop (always
 * legal: each body still runs once, in order).
 *
 * Vectorized, unrolled and GPU loops are left alone. Loops nested in a
 * partitioned serial loop are partitioned in its steady state only, as in
 * Halide: inside its prologue and epilogue (a few iterations each) they stay whole
 * unless their policy is Always, so the code grows by three per partitioned
 * loop, not by three per level of the nest.
 *
 * Func::partition sets a loop's policy (by loop name, "f.s0.x"): Never
 * leaves the loop whole; Always partitions it whatever the size of its
 * body, and a loop it finds no test in is a CompileError (as in Halide).
 */

#include <map>
#include <string>

#include "ir/IR.h"
#include "loom/Schedule.h"

namespace loom {
namespace internal {

/** policies: loop name -> the user's Partition policy (loops not listed:
 * Auto). \throws CompileError for a loop whose policy is Always that has no
 * test to partition on. */
Stmt partition_loops(const Stmt &s, const std::map<std::string, Partition> &policies = {});

struct PipelineStages;
/** The policies Func::partition set, by loop name, for partition_loops. */
std::map<std::string, Partition> loop_partition_policies(const PipelineStages &pipeline);

}  // namespace internal
}  // namespace loom

#endif
