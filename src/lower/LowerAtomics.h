#ifndef LOOM_LOWER_LOWER_ATOMICS_H
#define LOOM_LOWER_LOWER_ATOMICS_H

/** \file
 * Stage::atomic(): the stores of an atomic update that runs in a parallel
 * or vectorized loop of its own become atomic read-modify-writes. Each
 * such Provide's value is wrapped in intrinsic::atomic_update:
 *
 *     parallel for (hist.s1.r$x, 0, n)
 *       hist(im(r$x)) = hist(im(r$x)) + 1
 *   ->  hist(im(r$x)) = atomic_update(hist(im(r$x)) + 1)
 *
 * Storage flattening turns it into a Store whose value reads the buffer
 * only at the stored index (Stage::atomic() checked that), which the LLVM
 * back end emits as one atomicrmw per lane (add, sub, min, max, and, or,
 * xor, xchg, fadd) or, for other values, a compare-and-swap loop; the
 * vectorizer keeps such stores lane by lane. Updates that stay serial are
 * left alone.
 *
 * Tuple updates (as in Halide): one whose values read the Func takes the
 * lock of its element around the reads and the writes (Halide's mutex
 * array; here striped runtime mutexes keyed by a hash of the Func's name
 * and the coordinates, runtime/ThreadPool.c):
 *
 *     let f.atomic_lock_key.0 = hash(f, coordinates)
 *     loom_atomic_mutex_lock(NULL, f.atomic_lock_key.0)
 *     f(...) = {f(...)[0] + 1, f(...)[1] + r}
 *     loom_atomic_mutex_unlock(NULL, f.atomic_lock_key.0)
 *
 * and a vectorized loop around it is a CompileError (a vector would take
 * several locks at once; Halide refuses it too). One that only assigns
 * values stays plain stores, as in Halide.
 *
 * GPU loops: an atomic stage with a GPU schedule is a CompileError (the
 * SPIR-V back end has no atomics yet); stages that the GPU conformance mode
 * (lower/MapLoopsToGPU.h) moved onto the GPU keep their RVar loops serial
 * in one thread and need no atomics.
 *
 * Runs after inject_tracing and before storage flattening.
 */

#include "ir/IR.h"
#include "lower/Stages.h"

namespace loom {
namespace internal {

/** The runtime's element locks (Extern calls; user_context, UInt(64) key). */
constexpr const char *atomic_mutex_lock_function = "loom_atomic_mutex_lock";
constexpr const char *atomic_mutex_unlock_function = "loom_atomic_mutex_unlock";

Stmt lower_atomics(const Stmt &s, const PipelineStages &pipeline);

}  // namespace internal
}  // namespace loom

#endif
