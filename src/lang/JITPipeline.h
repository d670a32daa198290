#ifndef LOOM_LANG_JIT_PIPELINE_H
#define LOOM_LANG_JIT_PIPELINE_H

/** \file
 * The JIT flow behind Func::realize and Pipeline::realize: lower once,
 * compile once (per back end and target), cache the result in a slot owned by
 * the caller (a Pipeline, or FunctionContents::jit_cache), and on every run
 * bind the current Param values and ImageParam buffers to the compiled
 * arguments. The cache is stale once one of the pipeline's own Funcs changed
 * after it was compiled (its definition generation, see Backend.h), so a
 * definition or schedule change of one of them recompiles.
 */

#include <memory>
#include <string>
#include <vector>

#include "codegen/llvm/CodeGen_LLVM.h"
#include "ir/Function.h"
#include "ir/LoweredFunc.h"
#include "loom/Argument.h"
#include "loom/Callable.h"
#include "loom/JITUserContext.h"
#include "loom/Realization.h"
#include "loom/Target.h"

namespace loom {
namespace internal {

/** A Pipeline's shared state. */
struct PipelineContents {
    std::vector<FunctionPtr> outputs;
    std::shared_ptr<void> jit_cache;
};

/** The outputs of a pipeline and the slot its compiled code is cached in. */
struct JITSlot {
    std::vector<FunctionPtr> outputs;
    std::shared_ptr<void> *cache;
};

/** Allocates buffers of sizes for every output and Tuple element and runs
 * (with context's handlers, when given, see run_lowered).
 * \throws CompileError for undefined outputs, a wrong number of sizes, or
 * an unbound ImageParam; RuntimeError if the pipeline reports an error. */
Realization jit_realize(const JITSlot &p, const std::vector<int> &sizes, const Target &target,
                        JITUserContext *context = nullptr);

/** Runs into existing buffers, one per output and Tuple element, after
 * checking their count, rank and element type. Returns 0, or the error code
 * a custom_error handler of context was given (without one, errors throw). */
int jit_realize_into(const JITSlot &p, const Realization &outputs, const Target &target,
                     JITUserContext *context = nullptr);

/** Drops the compiled code of every back end (Pipeline::invalidate_cache);
 * the handlers stay. */
void jit_invalidate(const JITSlot &p);

/** The handlers of Func/Pipeline::jit_handlers() kept in a cache slot. */
JITHandlers &jit_handlers_of(std::shared_ptr<void> *cache);

/** Runs lowered code (compiled as jit, or with the reference interpreter)
 * with args in the calling convention of LoweredFunc.h, under context (a
 * fresh one when nullptr) whose unset handlers fall back to `defaults`;
 * then copies `outputs` that GPU kernels wrote back to the host. Returns 0,
 * or the error code when a custom_error handler got the message.
 * \throws CompileError if custom_malloc and custom_free are not set
 * together; RuntimeError with the pipeline's message if it fails and no
 * custom_error handler is set. (JITRun.cpp) */
int run_lowered(const LoweredFunc &lowered, const JITPipeline &jit, bool interpret, void **args,
                const std::vector<loom_buffer_t *> &outputs, JITUserContext *context, const JITHandlers &defaults);

/** Lowers outputs with args in order (then the outputs) and compiles them
 * for the JIT back end in use, with a copy of handlers. (Callable.cpp)
 * \throws CompileError as lower_for_aot (aot/AotArguments.h). */
Callable make_callable(const std::vector<FunctionPtr> &outputs, const std::vector<Argument> &args,
                       const Target &target, const JITHandlers &handlers);

/** Lowers and compiles now (if the cache is stale). */
void jit_compile(const JITSlot &p, const Target &target);

/** Buffers of sizes without host memory, one per output and Tuple element:
 * the region asked for by infer_input_bounds(sizes). \throws CompileError
 * for undefined outputs or a wrong number of sizes (the message begins with
 * `operation`). */
Realization jit_output_shapes(const JITSlot &p, const std::vector<int> &sizes, const std::string &operation);

/** Runs the pipeline in bounds-query mode for the regions of `outputs` (one
 * buffer per output and Tuple element, over their own mins and extents),
 * then binds every ImageParam without a buffer to a new zeroed buffer of
 * exactly the region the pipeline reads. Bound ImageParams keep their
 * buffers; `outputs` are neither computed into nor changed.
 * \throws CompileError for undefined outputs, output buffers of the wrong
 * count, rank or type, or a target with no_bounds_query; RuntimeError if
 * the query fails (e.g. a region that depends on computed values). */
void jit_infer_input_bounds(const JITSlot &p, const Realization &outputs, const Target &target);

/** Prints loop_nest_text to stdout. */
void print_pipeline_loop_nest(const std::vector<FunctionPtr> &outputs, const Target &target);

/** Writes the lowered body to filename, after a header line listing the
 * arguments. \throws CompileError if the file cannot be written. */
void write_lowered_stmt(const std::vector<FunctionPtr> &outputs, const std::string &filename, const Target &target);

}  // namespace internal
}  // namespace loom

#endif
