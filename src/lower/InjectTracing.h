#ifndef LOOM_LOWER_INJECT_TRACING_H
#define LOOM_LOWER_INJECT_TRACING_H

/** \file
 * Tracing (Func::trace_loads/trace_stores/trace_realizations/add_trace_tag,
 * the trace_all Target feature), after bounds inference and before storage
 * flattening, while Funcs are still Provides, Calls and Realizes:
 *
 *     f(x, y) = v          ->  f(x, y) = trace("f", store, 0, "", v, x, y)
 *     ... g(x) ...         ->  ... trace("g", load, 0, "", g(x), x) ...
 *     realize f(...) { S } ->  realize f(...) { trace(begin realization, min, extent, ...); S;
 *                                               trace(end realization, ...) }
 *
 * and one Tag event per add_trace_tag at the top of the pipeline. Each trace
 * call (intrinsic::trace) reports a loom_trace_event_t through loom_trace and
 * returns its value. An output Func's realization (it has no Realize) is
 * its output buffer's region, reported around the whole pipeline. Input
 * buffers are not traced.
 */

#include "ir/IR.h"
#include "loom/Target.h"
#include "lower/Stages.h"

namespace loom {
namespace internal {

/** \throws CompileError naming the Func if a traced Func is inlined (it has
 * no stores, loads or storage of its own) or a trace would run in a GPU loop
 * (kernels cannot call the trace handler: compute the Func on the CPU). */
Stmt inject_tracing(const Stmt &s, const PipelineStages &pipeline, const Target &target);

}  // namespace internal
}  // namespace loom

#endif
