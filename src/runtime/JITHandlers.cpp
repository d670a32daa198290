// The JIT glue behind loom/JITUserContext.h: libLoom's copy of the C
// runtime (RuntimePlatform.h, LOOM_RUNTIME_JIT_GLUE) asks here, on each
// loom_error/loom_print/loom_malloc/loom_free/loom_trace/loom_do_par_for,
// whether its user_context is a JITUserContext with a handler for the call:
// the context's own, else the one its Func or Pipeline set.

#include <algorithm>
#include <atomic>
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
 * reuse its caller's). The runtime asks on every allocation, free and
 * parallel loop of every task, on every thread at once, so lookups take no
 * lock: a run takes a slot of a fixed table, and only runs beyond the table
 * (more than kSlots at once) go to a list under a mutex. */
struct LiveContexts {
    static constexpr int kSlots = 64;
    std::atomic<const void *> slots[kSlots] = {};
    std::atomic<int> slots_used{0};     // slots [0, slots_used) have been taken at some time
    std::atomic<int> overflowed{0};     // contexts in `overflow`
    std::mutex mutex;                   // guards overflow
    std::vector<const void *> overflow;

    bool contains(const void *context) {
        const int used = slots_used.load(std::memory_order_acquire);
        for (int i = 0; i < used; i++) {
            if (slots[i].load(std::memory_order_acquire) == context) return true;
        }
        if (overflowed.load(std::memory_order_acquire) == 0) return false;
        std::lock_guard<std::mutex> lock(mutex);
        return std::find(overflow.begin(), overflow.end(), context) != overflow.end();
    }

    /** The slot taken, or -1 when the context went to the overflow list. */
    int add(const void *context) {
        for (int i = 0; i < kSlots; i++) {
            const void *expected = nullptr;
            if (!slots[i].compare_exchange_strong(expected, context, std::memory_order_acq_rel)) continue;
            int used = slots_used.load(std::memory_order_acquire);
            while (used < i + 1 &&
                   !slots_used.compare_exchange_weak(used, i + 1, std::memory_order_acq_rel)) {
            }
            return i;
        }
        std::lock_guard<std::mutex> lock(mutex);
        overflow.push_back(context);
        overflowed.fetch_add(1, std::memory_order_acq_rel);
        return -1;
    }

    void remove(const void *context, int slot) {
        if (slot >= 0) {
            slots[slot].store(nullptr, std::memory_order_release);
            return;
        }
        std::lock_guard<std::mutex> lock(mutex);
        overflow.erase(std::find(overflow.begin(), overflow.end(), context));
        overflowed.fetch_sub(1, std::memory_order_acq_rel);
    }
};

LiveContexts &live_contexts() {
    static LiveContexts *live = new LiveContexts;  // never destroyed: runs may end during exit
    return *live;
}

// user_context is a JITUserContext only while a JIT run uses it (JIT code
// passes its run's context, or NULL). Any other pointer is a C program's
// own argument to the runtime, of any size: it is compared, never read.
JITUserContext *as_context(void *user_context) {
    if (!user_context || !live_contexts().contains(user_context)) return nullptr;
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

loom::internal::JITContextInUse::JITContextInUse(JITUserContext &context)
    : context_(&context), slot_(live_contexts().add(&context)) {}

loom::internal::JITContextInUse::~JITContextInUse() { live_contexts().remove(context_, slot_); }

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
