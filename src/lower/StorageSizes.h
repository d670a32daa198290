#ifndef LOOM_LOWER_STORAGE_SIZES_H
#define LOOM_LOWER_STORAGE_SIZES_H

/** \file
 * The user's say on the size of a Func's storage, applied to the sizes
 * bounds inference and storage folding chose (f.<x>.extent_realized):
 *  - bound_storage(x, n): the storage has exactly n elements in x, whatever
 *    the region; a realization that needs more fails at run time
 *    (loom_error_code_buffer_too_small, checked where the storage is made);
 *  - align_storage(x, a): the extent in x is rounded up to a multiple of a,
 *    so the strides of the dimensions stored outside x are multiples of a.
 * The region computed does not change, nor the min of the storage.
 */

#include "ir/IR.h"
#include "lower/Stages.h"

namespace loom {
namespace internal {

Stmt apply_storage_sizes(const Stmt &s, const PipelineStages &pipeline);

}  // namespace internal
}  // namespace loom

#endif
