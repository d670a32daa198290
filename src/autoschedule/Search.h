#ifndef LOOM_AUTOSCHEDULE_SEARCH_H
#define LOOM_AUTOSCHEDULE_SEARCH_H

/** \file
 * LoomHeuristic's greedy search (after Mullapudi et al. 2016's grouping):
 * every Func starts realized at the root, each tiled by the cost model's
 * best tile; then each step makes the one move that lowers the pipeline's
 * cost most, while one does: inline a Func (its readers' groups tiled
 * again), or compute a group per tile of the one group that reads it (that
 * group tiled again), or make a group's members slide along the rows of
 * its tile (store_at the tile loop, compute_at its rows). Inlining and
 * tiling compete for each Func, so a
 * stencil is inlined only when that beats computing it per tile. A Func
 * with updates is never inlined, and is computed per tile only when its
 * updates are pointwise (is_pointwise_update).
 */

#include "autoschedule/CostModel.h"

namespace loom {
namespace internal {

/** The choices for every Func of graph, by model. Deterministic. */
Choices search_schedule(const CallGraph &graph, const CostModel &model);

}  // namespace internal
}  // namespace loom

#endif
