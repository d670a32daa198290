#ifndef LOOM_LOWER_UNROLL_LOOPS_H
#define LOOM_LOWER_UNROLL_LOOPS_H

/** \file
 * Replaces each unrolled loop (ForType::Unrolled) by copies of its body, one
 * per iteration, with the loop variable replaced by its value. The extent
 * must be a constant once the LetStmts around the loop are substituted and
 * simplified.
 *
 * A loop marked with an unroll cascade (see StageLoopNest.h), e.g. {8, 4, 1},
 * may have any extent: it runs blocks of 8 unrolled iterations while at
 * least 8 remain, then blocks of 4, then single iterations (the tail
 * handling of PyPTO's unroll_list). A cascade that does not end in 1 gets a
 * final 1, so no iteration is lost.
 */

#include "ir/IR.h"

namespace loom {
namespace internal {

/** \throws CompileError naming the loop when an unrolled loop without a
 * cascade has an extent that is not a constant, or a huge one. */
Stmt unroll_loops(const Stmt &s);

}  // namespace internal
}  // namespace loom

#endif
