#ifndef LOOM_LOWER_INJECT_PREFETCH_H
#define LOOM_LOWER_INJECT_PREFETCH_H

/** \file
 * Func::prefetch / Stage::prefetch(f, at, from, offset, strategy): at the top
 * of each iteration of loop `at`, a loop nest of intrinsic::prefetch calls
 * over the region of f (a Func or an input buffer) that the body of `at`
 * reads when loop `from` is `offset` iterations further:
 *
 *     for (g.s0.y, ...)
 *       for (g.s0.x, ...)                      g.prefetch(f, x, x, 2)
 *         for (f.prefetch.x, ...)    <- the box of f read by the body with
 *           prefetch(f(...))            g.s0.x replaced by g.s0.x + 2, one
 *         g(x, y) = 2 * f(x, y)         call per cache line of dimension 0
 *
 * The region is clamped to, or guarded by, what the pipeline computes of f
 * (its Realize) or the input buffer's bounds, as strategy says
 * (PrefetchBoundStrategy). Storage flattening makes each call's coordinates
 * a Load, whose address the LLVM back end prefetches; the interpreter does
 * nothing with it. Prefetches in GPU loops are dropped (a kernel has no
 * prefetch). Runs after bounds inference and before storage flattening.
 *
 * \throws CompileError when `at` or `from` is not a loop of the stage in the
 * lowered nest (e.g. split away after prefetch()), `at` is vectorized, or
 * the body of `at` does not read f.
 */

#include "ir/IR.h"
#include "lower/Stages.h"

namespace loom {
namespace internal {

Stmt inject_prefetch(const Stmt &s, const PipelineStages &pipeline);

}  // namespace internal
}  // namespace loom

#endif
