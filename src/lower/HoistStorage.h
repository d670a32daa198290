#ifndef LOOM_LOWER_HOIST_STORAGE_H
#define LOOM_LOWER_HOIST_STORAGE_H

/** \file
 * hoist_storage (Halide 16's): the allocation of a Func moves out to an
 * outer loop (or the top of the pipeline), sized for the largest storage
 * any iteration of the loops in between makes, and is reused by those
 * iterations. Where the storage is for bounds and addressing does not
 * change: its min, extents and strides are still defined at the store level
 * each iteration. Runs after storage flattening, on Allocate nodes.
 *
 * \throws CompileError naming the Func when the hoist level does not
 * enclose its storage, a parallel, vectorized or GPU loop lies in between
 * (its iterations would share the allocation), or the size can't be bounded
 * at the hoist level (bound_storage() gives it a constant size).
 */

#include "ir/IR.h"
#include "lower/Stages.h"

namespace loom {
namespace internal {

Stmt hoist_storage(const Stmt &s, const PipelineStages &pipeline);

/** Whether loop `name` is loop `level.var` of a stage of `level.func` (the
 * given stage, or any when the level names none). */
bool names_loop(const LoopLevel &level, const std::string &name);

}  // namespace internal
}  // namespace loom

#endif
