#ifndef LOOM_LOWER_INJECT_PROFILING_H
#define LOOM_LOWER_INJECT_PROFILING_H

/** \file
 * The `profile` target feature: calls of the runtime's profiler
 * (include/loom/runtime/loom_runtime.h, runtime/Profiler.c) around the
 * computation, after storage flattening and the allocation passes:
 *
 *     S  ->  allocate loom.profiler.instance[LOOM_PROFILER_INSTANCE_BYTES(n)] on the stack {
 *                loom_profiler_pipeline_start(instance, "<pipeline>", "overhead\nf\ng\n...", n)
 *                S'
 *                loom_profiler_pipeline_end(instance) }
 *
 * where S' switches the current Func at each `produce f` (to f, and back to
 * the Func around it when it ends), and reports each allocation of a Func's
 * storage (its bytes when it starts, and when its scope ends). Slot 0 is
 * the time outside every Func. Time is measured with a clock at each switch
 * (Halide samples with a thread): a Func produced inside a parallel loop's
 * body is counted in the Func that owns the loop, because worker threads do
 * not switch the current Func. The statement is the computation only: the
 * buffer checks and the bounds query that add_buffer_arguments puts around
 * it are not profiled, so a bounds query is not a run.
 */

#include <string>

#include "ir/IR.h"
#include "lower/Stages.h"

namespace loom {
namespace internal {

Stmt inject_profiling(const Stmt &s, const PipelineStages &pipeline, const std::string &pipeline_name);

}  // namespace internal
}  // namespace loom

#endif
