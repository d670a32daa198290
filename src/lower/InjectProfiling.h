#ifndef LOOM_LOWER_INJECT_PROFILING_H
#define LOOM_LOWER_INJECT_PROFILING_H

/** \file
 * The `profile` target feature: calls of the runtime's sampling profiler
 * (runtime/Profiler.c) around the computation, after storage flattening
 * and the allocation passes:
 *
 *     S  ->  allocate loom.profiler.instance[LOOM_PROFILER_INSTANCE_BYTES(n)] on the stack {
 *                loom_profiler_pipeline_start(instance, "<pipeline>", "overhead\nf\ng\n...", n)
 *                cleanup_on_failure(loom_profiler_pipeline_abort(instance))
 *                S'
 *                loom_profiler_pipeline_end(instance) }
 *
 * where S' sets the current Func at each `produce f` (to f, and back to the
 * Func around it when it ends; a store in the runtime, which a sampling
 * thread reads), and reports each allocation of a Func's storage (its bytes
 * when it starts, and when its scope ends). Slot 0 is the time outside
 * every Func. Each iteration of a parallel loop, and each branch of a fork,
 * is a task: loom_profiler_task_start/_end around it count the thread as
 * working (the thread that waits for them, loom_profiler_add_active_threads,
 * does not), and a task with no parallel loop or fork inside claims the
 * sampling token, so that only one thread's productions
 * (loom_profiler_set_task_func) move the current Func at a time, as in
 * Halide. A run that fails, wherever it fails (an assertion, an
 * allocation, a task of a parallel loop), returns through
 * loom_profiler_pipeline_abort (intrinsic::cleanup_on_failure), which takes
 * it off the sampler's list unreported and frees its record: every task
 * has ended by then.
 * GPU kernels are not entered. The statement is the computation only: the
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
