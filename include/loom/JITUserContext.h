#ifndef LOOM_JIT_USER_CONTEXT_H
#define LOOM_JIT_USER_CONTEXT_H

/** \file
 * JITHandlers and JITUserContext: replace, for one JIT run or for every run
 * of a Func/Pipeline, how generated code prints, allocates heap memory,
 * reports errors, runs parallel loops and reports trace events (Halide's
 * JITHandlers and JITUserContext).
 *
 *     struct Counting : loom::JITUserContext {
 *         size_t bytes = 0;
 *     };
 *     void *count_malloc(loom::JITUserContext *ctx, size_t n) {
 *         static_cast<Counting *>(ctx)->bytes += n;
 *         return aligned_alloc(64, (n + 63) / 64 * 64);
 *     }
 *     Counting ctx;
 *     ctx.handlers.custom_malloc = count_malloc;
 *     ctx.handlers.custom_free = [](loom::JITUserContext *, void *p) { free(p); };
 *     f.realize(&ctx, {1024, 1024});
 *
 * Which handler runs: the context's own (when set), else the one set with
 * Func::jit_handlers() / Pipeline::jit_handlers() on what is realized, else
 * Loom's default (the process-wide loom_set_*_handler ones of
 * loom_runtime.h). Generated code passes the context as its `user_context`
 * to every runtime call, parallel loop bodies included, so a handler can
 * reach the caller's own data by deriving from JITUserContext.
 *
 * Errors: without a custom_error handler, a failing run throws
 * loom::RuntimeError with the message; with one, the handler gets the
 * message, realize() returns normally, and a Callable returns the negative
 * loom_error_code_t (as in Halide).
 *
 * custom_malloc must return memory aligned to 64 bytes (generated code's
 * vector loads assume it) or NULL (an out-of-memory error); custom_malloc
 * and custom_free are set together or not at all (a CompileError at realize
 * otherwise). custom_do_par_for receives each parallel loop of compiled code,
 * on every back end (the reference interpreter calls it with the same
 * arguments; its iterations take turns whatever threads run them).
 */

#include <cstddef>
#include <cstdint>

#include "loom/runtime/loom_runtime.h"

namespace loom {

struct JITUserContext;

/** One parallel loop's body: runs iteration `index` (as loom_do_par_for's). */
using JITParallelBody = int (*)(JITUserContext *context, int index, uint8_t *closure);

struct JITHandlers {
    /** Text of print(), print_when() and of the default trace handler. */
    void (*custom_print)(JITUserContext *context, const char *message) = nullptr;
    /** Heap memory of intermediate buffers (64-byte aligned, or NULL). */
    void *(*custom_malloc)(JITUserContext *context, size_t bytes) = nullptr;
    void (*custom_free)(JITUserContext *context, void *ptr) = nullptr;
    /** Runs body(context, i, closure) for every i in [min, min + extent),
     * in any order and on any threads; returns 0 or the first error code
     * a body returned. */
    int (*custom_do_par_for)(JITUserContext *context, JITParallelBody body, int min, int extent,
                             uint8_t *closure) = nullptr;
    /** An error message of a failing run (a failed bounds check, an
     * out-of-memory allocation, a failing extern stage, ...). */
    void (*custom_error)(JITUserContext *context, const char *message) = nullptr;
    /** Trace events (Func::trace_stores and friends); returns an event id. */
    int32_t (*custom_trace)(JITUserContext *context, const loom_trace_event_t *event) = nullptr;
};

struct JITUserContext {
    JITHandlers handlers;

    /** \name Loom's own fields: set while a run uses this context.
     * Leave them alone. */
    ///@{
    /** The Func's or Pipeline's handlers, for those this context leaves unset. */
    const JITHandlers *loom_pipeline_handlers = nullptr;
    ///@}
};

}  // namespace loom

#endif
