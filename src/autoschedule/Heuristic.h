#ifndef LOOM_AUTOSCHEDULE_HEURISTIC_H
#define LOOM_AUTOSCHEDULE_HEURISTIC_H

/** \file
 * Loom's built-in autoscheduler, "LoomHeuristic" (docs/AUTOSCHEDULER.md):
 * from the call graph and the estimates it inlines cheap pointwise Funcs,
 * computes the others at root, tiles, vectorizes and parallelizes each
 * realized stage, and writes the same schedule as C++ source.
 */

#include <string>

#include "loom/AutoSchedule.h"

namespace loom {
namespace internal {

/** "LoomHeuristic". */
const std::string &heuristic_autoscheduler_name();

/** An AutoSchedulerFn. params.extra may hold parallelism,
 * last_level_cache_size and balance. \throws CompileError as
 * Pipeline::apply_autoscheduler documents. */
void run_heuristic_autoscheduler(const Pipeline &pipeline, const Target &target, const AutoschedulerParams &params,
                                 AutoSchedulerResults *results);

}  // namespace internal
}  // namespace loom

#endif
