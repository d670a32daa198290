// The JIT glue behind loom/JITUserContext.h: libLoom's copy of the C
// runtime (RuntimePlatform.h, LOOM_RUNTIME_JIT_GLUE) asks here, on each
// loom_error/loom_print/loom_malloc/loom_free/loom_trace/loom_do_par_for,
// whether its user_context is a JITUserContext with a handler for the call:
// the context's own, else the one its Func or Pipeline set.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "loom/JITUserContext.h"
#include "runtime/JITContexts.h"
#include "runtime/RuntimePlatform.h"

namespace {

using loom::JITHandlers;
using loom::JITUserContext;

/** The contexts of the runs in progress, once per run (a nested run may
 * reuse its caller's). */
struct LiveContexts {
    std::mutex mutex;
    std::vector<const void *> contexts;
};

LiveContexts &live_contexts() {
    static LiveContexts *live = new LiveContexts;  // never destroyed: runs may end during exit
    return *live;
}

// user_context is a JITUserContext only while a JIT run uses it (JIT code
// passes its run's context, or NULL). Any other pointer is a C program's
// own argument to the runtime, of any size: it is compared, never read.
JITUserContext *as_context(void *user_context) {
    if (!user_context) return nullptr;
    LiveContexts &live = live_contexts();
    std::lock_guard<std::mutex> lock(live.mutex);
    if (std::find(live.contexts.begin(), live.contexts.end(), user_context) == live.contexts.end()) return nullptr;
    return static_cast<JITUserContext *>(user_context);
}

template<typename Handler>
Handler handler_of(JITUserContext *context, Handler JITHandlers::*member) {
    if (!context) return nullptr;
    if (context->handlers.*member) return context->handlers.*member;
    if (context->loom_pipeline_handlers) return context->loom_pipeline_handlers->*member;
    return nullptr;
}

}  // namespace

loom::internal::JITContextInUse::JITContextInUse(JITUserContext &context) : context_(&context) {
    LiveContexts &live = live_contexts();
    std::lock_guard<std::mutex> lock(live.mutex);
    live.contexts.push_back(context_);
}

loom::internal::JITContextInUse::~JITContextInUse() {
    LiveContexts &live = live_contexts();
    std::lock_guard<std::mutex> lock(live.mutex);
    live.contexts.erase(std::find(live.contexts.begin(), live.contexts.end(), context_));
}

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
