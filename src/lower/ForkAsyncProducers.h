#ifndef LOOM_LOWER_FORK_ASYNC_PRODUCERS_H
#define LOOM_LOWER_FORK_ASYNC_PRODUCERS_H

/** \file
 * Func::async and Func::ring_buffer (Halide's semantics).
 *
 * An async Func f is produced by a thread of its own. Where f's storage is
 * allocated (its store level, or its hoist_storage level), the statement
 * that uses the storage is split in two and the halves run at once in a
 * Fork: the producer half keeps only the loops and f's productions, the
 * consumer half everything but f's productions. Semaphores order them: each
 * production releases one semaphore per consume node of f, and each consume
 * node first acquires its own, so no consumer reads a region before it is
 * produced. When the storage is reused by several productions (hoisted,
 * folded, or ring-buffered) a second semaphore, initialised to the number
 * of productions the storage holds (ring_buffer's extent; for folded
 * storage, as many as the fold holds for the window and its step, see
 * fold_copies; else 1), is acquired before each production and released
 * after each consumption, so the producer never overwrites what a consumer
 * still reads and runs at most that many productions ahead. Nested async Funcs (a chain of them) clone the
 * semaphores their half waits on, as Halide does.
 *
 * ring_buffer(n) gives the hoisted allocation n copies of the storage; the
 * productions (and their consumers) use copy i mod n, where i counts the
 * iterations of the loops between the hoist level and the store level (the
 * productions of one store-level iteration share a copy). It works without async too (then it only uses more memory).
 *
 * Runs after storage flattening and hoist_storage, on Allocate nodes.
 */

#include "ir/IR.h"
#include "lower/SlidingWindow.h"
#include "lower/Stages.h"
#include "lower/StorageFolding.h"

namespace loom {
namespace internal {

/** \throws CompileError naming the Func when async() is on an inlined Func,
 * an output or a memoized Func, or ring_buffer() has no hoist_storage()
 * outside the store level. Runs before lowering. */
void check_async_schedules(const PipelineStages &pipeline);

/** \throws CompileError naming the Func when an async Func is computed in or
 * computes GPU loops, or it reads a Func computed between its storage and
 * its computation that is not itself async and stored further out. */
Stmt fork_async_producers(const Stmt &s, const PipelineStages &pipeline, const StorageFolds &folds,
                          const SlidWindows &windows);

}  // namespace internal
}  // namespace loom

#endif
