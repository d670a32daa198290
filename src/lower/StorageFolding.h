#ifndef LOOM_LOWER_STORAGE_FOLDING_H
#define LOOM_LOWER_STORAGE_FOLDING_H

/** \file
 * Storage folding: a dimension of a Func's storage becomes a circular
 * buffer of a few slots, addressed modulo their number (by storage
 * flattening). Two kinds of dimensions fold:
 *  - those fold_storage() names, with the user's factor (bounds inference
 *    checks at run time that one iteration's needs fit);
 *  - those that slid (lower/SlidingWindow.h) with a constant window: the
 *    window rounded up to a power of two.
 * The storage of a folded dimension starts at 0 and has that many slots:
 * the pass rewrites f.<x>.min_realized and f.<x>.extent_realized.
 */

#include <map>
#include <string>

#include "ir/IR.h"
#include "lower/SlidingWindow.h"
#include "lower/Stages.h"

namespace loom {
namespace internal {

/** (Func, dimension) -> number of slots. */
using StorageFolds = std::map<std::pair<std::string, int>, Expr>;

Stmt storage_folding(const Stmt &s, const PipelineStages &pipeline, const SlidWindows &windows,
                     StorageFolds *folds);

}  // namespace internal
}  // namespace loom

#endif
