#ifndef LOOM_LOWER_SCHEDULE_CHECKS_H
#define LOOM_LOWER_SCHEDULE_CHECKS_H

/** \file
 * The schedule checks that need the whole pipeline: the first pass of
 * lower() and of loop_nest_text() (lower/Lower.h), so every way to compile
 * or print a pipeline makes them. Each throws CompileError naming the Funcs,
 * the stage and the Var:
 * - compute_at / store_at / compute_with name a Func of the pipeline that is
 *   not inlined, an existing stage of it, and a loop that stage has (after
 *   its splits, fuses and renames);
 * - a Func is computed at a loop that encloses every use of it (through
 *   inlined Funcs too), and outputs are not computed at other Funcs' loops;
 * - the store level is the compute level or a loop enclosing it;
 * - stages fused by compute_with belong to Funcs computed at the same level,
 *   and the stage has as many loops as are fused.
 * For compute_at / store_at, a LoopLevel with stage -1 (no stage index)
 * names its loop in every stage of its Func that has it, as in Halide: the
 * Func is computed in each such loop that encloses a use, and every use must
 * lie in one. For compute_with, stage -1 means the last stage.
 */

#include <vector>

#include "ir/Function.h"

namespace loom {
namespace internal {

void check_schedules(const std::vector<FunctionPtr> &outputs);

}  // namespace internal
}  // namespace loom

#endif
