#ifndef LOOM_LOWER_COMPUTE_WITH_H
#define LOOM_LOWER_COMPUTE_WITH_H

/** \file
 * compute_with: stages whose outer loops are fused into one loop nest.
 *
 * `g.compute_with(f, y)` makes the loops of g's stage, from the outermost
 * down to the one at the position of f's loop y, the same loops as f's: in
 * each iteration of the innermost fused loop f's stage runs first, then g's.
 * A parent stage may have several children; they run in realization order.
 *
 * What Loom accepts (anything else is a CompileError naming the stages):
 * - the fused loops are serial or parallel loops over pure variables (or
 *   variables split from them), of the same kind in every stage;
 * - stages of different Funcs do not read each other's Func, so fusing
 *   them cannot change what they read; the Funcs are computed at the same
 *   loop level, and no other Func stands between them in the producer-
 *   consumer order (the realization order keeps a group's Funcs adjacent);
 * - an update of g fused with another Func's stage needs g's earlier stages
 *   in the same group;
 * - stages of the same Func (an update fused with an earlier stage) form a
 *   consecutive run of stages; every update in it writes f at its pure
 *   variables and reads f only at the point it writes, and the stages have
 *   the same splits, so each point is produced and updated in the same
 *   iteration of the fused loops.
 *
 * Lowering: the fused loops iterate the union of the stages' ranges; a stage
 * whose range Loom cannot prove equal to the union runs under a guard. The
 * fusion is done after bounds inference (fuse_compute_with), which therefore
 * sees every stage as if unfused; the lets, checks and storage of a child
 * Func move out to enclose the parent's production.
 */

#include <string>
#include <vector>

#include "ir/IR.h"
#include "lower/Stages.h"

namespace loom {
namespace internal {

/** The compute_with groups of the pipeline, checked as the file comment
 * says, with p.order rearranged so that each group's Funcs are adjacent
 * (parent's Func first). Sets p.fused_groups.
 * \throws CompileError for a fusion Loom cannot do. */
void find_fused_groups(PipelineStages &p);

/** Whether f has an update fused with an earlier stage of f (its splits
 * then guard their tails instead of shifting them inwards: a recomputed
 * point would overwrite one that was already updated). */
bool has_own_stage_fusion(const PipelineStages &p, const std::string &func);

/** Fuses the loop nests of each group; run after bounds inference.
 * \throws CompileError when stages of one Func cannot be shown to iterate
 * the same ranges, or a Func is computed between two fused loops. */
Stmt fuse_compute_with(const Stmt &s, const PipelineStages &p);

/** The same on the nest before bounds inference, for print_loop_nest():
 * stage ranges are not known there, so nothing is proven or refused. */
Stmt fuse_compute_with_for_display(const Stmt &s, const PipelineStages &p);

}  // namespace internal
}  // namespace loom

#endif
