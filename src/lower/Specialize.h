#ifndef LOOM_LOWER_SPECIALIZE_H
#define LOOM_LOWER_SPECIALIZE_H

/** \file
 * Specializations (Stage::specialize): a specialized stage's loop nest is
 * built once per specialization, each with its own schedule, and chained
 * as if (c0) nest0 else if (c1) nest1 else own_nest, in the order they were
 * made. A condition that is constant true ends the chain there (later
 * specializations and the stage's own nest are unreachable); a constant
 * false one is dropped. specialize_fail replaces the last else by an
 * assertion that fails with its message. Bounds inference sees every
 * branch; the boxes of a branch on inputs are selected by its condition
 * (ir/BoxesTouched.cpp), so each region is the one of the branch taken.
 *
 * After storage flattening, inside a branch taken when `v == c` holds (v a
 * Param or a buffer field such as "in.stride.0", c a constant) v is c, so
 * the specialization on in.dim(0).stride() == 1 indexes densely. The final
 * simplification learns the same facts, but unrolling, partitioning and
 * vectorization run before it and should see the constant.
 */

#include <set>
#include <string>

#include "ir/IR.h"
#include "lower/Stages.h"

namespace loom {
namespace internal {

/** \throws CompileError naming the Func for a specialized Func that is
 * inlined, and for specializations of a stage fused by compute_with (as a
 * child or as the parent). */
void check_specializations(const PipelineStages &pipeline);

/** The stage's loop nest with its specializations (build_stage_loop_nest
 * for each schedule; same arguments). */
Stmt build_specialized_loop_nest(const Stage &stage, bool fixed_storage = false,
                                 std::set<std::string> *coordinates = nullptr);

/** In the then-branch of every `if` whose condition is a conjunction of
 * `v == c` terms (v a Variable, c a constant) or bare boolean Variables, v
 * is replaced by c (true). */
Stmt substitute_specialization_facts(const Stmt &s);

/** The loop lists of a stage: its own dims and every specialization's. */
std::vector<const std::vector<Dim> *> all_stage_dims(const Stage &stage);

}  // namespace internal
}  // namespace loom

#endif
