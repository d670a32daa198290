#ifndef LOOM_LOWER_INJECT_TRACING_H
#define LOOM_LOWER_INJECT_TRACING_H

/** \file
 * Tracing (Func::trace_loads/trace_stores/trace_realizations/add_trace_tag,
 * the trace_all Target feature), after bounds inference and before storage
 * flattening, while Funcs are still Provides, Calls and Realizes:
 *
 *     f(x, y) = v          ->  f(x, y) = trace("f", store, 0, "", parent, v, x, y)
 *     ... g(x) ...         ->  ... trace("g", load, 0, "", parent, g(x), x) ...
 *     realize f(...) { S } ->  realize f(...) { let f.trace_id.N = trace(begin realization, parent,
 *                                                   min, extent, ...) in { S; trace(end realization,
 *                                                   f.trace_id.N, ...) } }
 *     produce f { S }      ->  the same with Produce / End produce (consume: Consume / End consume)
 *
 * where `parent` is the id (the trace call's result) of the innermost
 * realization, produce or consume of the same Func around it, else the
 * pipeline's: the whole statement is bracketed by Begin/End pipeline, after
 * which come one Tag event per add_trace_tag. Loads and stores return their
 * value; the other events the handler's id. An output Func's realization (it
 * has no Realize) is its output buffer's region, reported around the whole
 * pipeline. Input buffers are not traced.
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
