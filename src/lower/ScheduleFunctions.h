#ifndef LOOM_LOWER_SCHEDULE_FUNCTIONS_H
#define LOOM_LOWER_SCHEDULE_FUNCTIONS_H

/** \file
 * Builds the loop nest of the pipeline from the schedules: each realized Func
 * gets a Realize node (outputs write their buffers directly) around a
 * produce/consume pair, and each stage a nest of For loops around a Provide.
 *
 * Loop bounds refer to symbols that bounds inference defines later:
 * "f.s1.x.min" / "f.s1.x.max" for each pure var of each stage, and
 * "f.x.min_realized" / "f.x.extent_realized" for the storage of f.
 */

#include <set>

#include "ir/IR.h"
#include "lower/Stages.h"

namespace loom {
namespace internal {

/** The loop Var::outermost() names: a loop of one iteration around all the
 * loops of each stage of a Func that some compute_at, store_at or
 * hoist_storage level names with it ("g.s0.__outermost"), as in Halide. */
constexpr const char *kOutermostLoop = "__outermost";

/** The loop nest of the pipeline. coordinates, if given, receives the names
 * of the loop coordinates the stage nests define (build_stage_loop_nest). */
Stmt schedule_functions(const PipelineStages &pipeline, std::set<std::string> *coordinates = nullptr);

}  // namespace internal
}  // namespace loom

#endif
