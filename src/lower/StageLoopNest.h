#ifndef LOOM_LOWER_STAGE_LOOP_NEST_H
#define LOOM_LOWER_STAGE_LOOP_NEST_H

/** \file
 * The loop nest of one stage: its For loops, in the order of Stage::dims,
 * around its Provide (guarded by the RDom predicate).
 *
 * A pure var x of the stage spans [f.s<k>.x.min, f.s<k>.x.max] (symbols that
 * bounds inference defines outside the produce node); a reduction variable
 * spans its RDom. Each loop `v` is For(v, v.loop_min, v.loop_extent), with
 * those two symbols bound by LetStmts inside the produce node.
 */

#include "ir/IR.h"
#include "lower/Stages.h"

namespace loom {
namespace internal {

Stmt build_stage_loop_nest(const Stage &stage);

}  // namespace internal
}  // namespace loom

#endif
