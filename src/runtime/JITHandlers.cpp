// The JIT glue behind loom/JITUserContext.h: libLoom's copy of the C
// runtime (RuntimePlatform.h, LOOM_RUNTIME_JIT_GLUE) asks here, on each
// loom_error/loom_print/loom_malloc/loom_free/loom_trace/loom_do_par_for,
// whether its user_context is a JITUserContext with a handler for the call:
// the context's own, else the one its Func or Pipeline set.

#include <cstddef>
#include <cstdint>

#include "loom/JITUserContext.h"
#include "runtime/RuntimePlatform.h"

namespace {

using loom::JITHandlers;
using loom::JITUserContext;

// user_context is a JITUserContext only when Loom's JIT made the call with
// one (JIT code passes its run's context, or NULL); a program calling the C
// runtime with a pointer of its own is told apart by the tag.
JITUserContext *as_context(void *user_context) {
    auto *context = static_cast<JITUserContext *>(user_context);
    if (!context || context->loom_tag != JITUserContext::kTag) return nullptr;
    return context;
}

template<typename Handler>
Handler handler_of(JITUserContext *context, Handler JITHandlers::*member) {
    if (!context) return nullptr;
    if (context->handlers.*member) return context->handlers.*member;
    if (context->loom_pipeline_handlers) return context->loom_pipeline_handlers->*member;
    return nullptr;
}

}  // namespace

extern "C" int loom_jit_custom_error(void *user_context, const char *message) {
    JITUserContext *context = as_context(user_context);
    auto handler = handler_of(context, &JITHandlers::custom_error);
    if (!handler) return 0;
    handler(context, message);
    return 1;
}

extern "C" int loom_jit_custom_print(void *user_context, const char *message) {
    JITUserContext *context = as_context(user_context);
    auto handler = handler_of(context, &JITHandlers::custom_print);
    if (!handler) return 0;
    handler(context, message);
    return 1;
}

extern "C" int loom_jit_custom_malloc(void *user_context, size_t bytes, void **result) {
    JITUserContext *context = as_context(user_context);
    auto handler = handler_of(context, &JITHandlers::custom_malloc);
    if (!handler) return 0;
    *result = handler(context, bytes);
    return 1;
}

extern "C" int loom_jit_custom_free(void *user_context, void *ptr) {
    JITUserContext *context = as_context(user_context);
    auto handler = handler_of(context, &JITHandlers::custom_free);
    if (!handler) return 0;
    handler(context, ptr);
    return 1;
}

extern "C" int loom_jit_custom_trace(void *user_context, const struct loom_trace_event_t *event, int32_t *result) {
    JITUserContext *context = as_context(user_context);
    auto handler = handler_of(context, &JITHandlers::custom_trace);
    if (!handler) return 0;
    *result = handler(context, event);
    return 1;
}

extern "C" int loom_jit_custom_do_par_for(void *user_context, int (*body)(void *, int, uint8_t *), int min,
                                          int extent, uint8_t *closure, int *result) {
    JITUserContext *context = as_context(user_context);
    auto handler = handler_of(context, &JITHandlers::custom_do_par_for);
    if (!handler) return 0;
    // Generated bodies take the context as their void *user_context.
    *result = handler(context, reinterpret_cast<loom::JITParallelBody>(body), min, extent, closure);
    return 1;
}
