#ifndef LOOM_LOWER_STORAGE_FLATTENING_H
#define LOOM_LOWER_STORAGE_FLATTENING_H

/** \file
 * Storage flattening: multi-dimensional Realize/Provide/Call become
 * one-dimensional Allocate/Store/Load. Element (x0, x1, ...) of storage B is
 * at index sum((xi - B.min.i) * B.stride.i) from B's host pointer, where the
 * symbols B.min.i and B.stride.i are defined here for allocations and by the
 * buffer-argument pass for input and output buffers. Storage of a Tuple
 * element i of Func f is named "f.i" (see storage_name).
 */

#include <map>
#include <string>

#include "ir/IR.h"
#include "lower/Stages.h"

namespace loom {
namespace internal {

/** folds: (Func, dimension) -> slots, from storage_folding; coordinates
 * of a folded dimension are taken modulo the number of slots. */
Stmt storage_flattening(const Stmt &s, const PipelineStages &pipeline,
                        const std::map<std::pair<std::string, int>, Expr> &folds = {});

}  // namespace internal
}  // namespace loom

#endif
