/* The host side of Loom's C runtime ABI (include/loom/runtime/loom_runtime.h):
 * error and print reporting through replaceable process-global handlers, and
 * the 64-byte-aligned heap used for intermediate buffers.
 *
 * Portable C (see RuntimePlatform.h): libLoom compiles it for the JIT, and
 * every AOT static library carries a weak, hidden copy. Nothing here aborts
 * the process: errors are reported and returned to the caller as error codes
 * by generated code.
 *
 * State is in plain (non-static) globals: when two AOT libraries link into
 * one program, their weak copies merge into one, and so must the state. */

#include "loom/runtime/loom_runtime.h"
#include "runtime/RuntimePlatform.h"

#define LOOM_ALLOCATION_ALIGNMENT ((size_t)64)

static void loom_default_error_handler(void *user_context, const char *message) {
    (void)user_context;
    /* One write so that concurrent errors do not interleave mid-line. */
    char line[1024];
    size_t length = strlen(message);
    int ends_with_newline = length > 0 && message[length - 1] == '\n';
    if (length + 9 <= sizeof line) {
        snprintf(line, sizeof line, "Error: %s%s", message, ends_with_newline ? "" : "\n");
        fputs(line, stderr);
    } else {
        fputs("Error: ", stderr);
        fputs(message, stderr);
        if (!ends_with_newline) fputs("\n", stderr);
    }
    fflush(stderr);
}

static void loom_default_print_handler(void *user_context, const char *message) {
    (void)user_context;
    fputs(message, stdout);
    fflush(stdout);
}

/* Read on every call from possibly many pipeline threads and replaceable at
 * any time, so accessed atomically. NULL means "the default handler". */
loom_error_handler_t loom_rt_error_handler = 0;
loom_print_handler_t loom_rt_print_handler = 0;

static const char *loom_non_null(const char *message) { return message ? message : "(null)"; }

/* Returns the handler that was installed before (the default one if no other
 * was), so that a caller can restore it or chain to it. */
LOOM_RUNTIME_EXPORT loom_error_handler_t loom_set_error_handler(loom_error_handler_t handler) {
    loom_error_handler_t previous = __atomic_exchange_n(&loom_rt_error_handler, handler, __ATOMIC_ACQ_REL);
    return previous ? previous : &loom_default_error_handler;
}

LOOM_RUNTIME_EXPORT void loom_error(void *user_context, const char *message) {
#ifdef LOOM_RUNTIME_JIT_GLUE
    /* A JIT run's custom_error handler (JITUserContext) comes first; else,
     * while the JIT front end holds a ScopedErrorCapture on this thread, the
     * message goes there (to become a loom::RuntimeError). */
    if (loom_jit_custom_error(user_context, loom_non_null(message))) return;
    if (loom_jit_capture_error(loom_non_null(message))) return;
#endif
    loom_error_handler_t handler = __atomic_load_n(&loom_rt_error_handler, __ATOMIC_ACQUIRE);
    (handler ? handler : &loom_default_error_handler)(user_context, loom_non_null(message));
}

LOOM_RUNTIME_EXPORT loom_print_handler_t loom_set_print_handler(loom_print_handler_t handler) {
    loom_print_handler_t previous = __atomic_exchange_n(&loom_rt_print_handler, handler, __ATOMIC_ACQ_REL);
    return previous ? previous : &loom_default_print_handler;
}

LOOM_RUNTIME_EXPORT void loom_print(void *user_context, const char *message) {
#ifdef LOOM_RUNTIME_JIT_GLUE
    if (loom_jit_custom_print(user_context, loom_non_null(message))) return;
#endif
    loom_print_handler_t handler = __atomic_load_n(&loom_rt_print_handler, __ATOMIC_ACQUIRE);
    (handler ? handler : &loom_default_print_handler)(user_context, loom_non_null(message));
}

LOOM_RUNTIME_EXPORT void *loom_malloc(void *user_context, size_t bytes) {
#ifdef LOOM_RUNTIME_JIT_GLUE
    void *custom = NULL;
    if (loom_jit_custom_malloc(user_context, bytes, &custom)) return custom;
#endif
    (void)user_context;
    /* aligned_alloc wants a size that is a multiple of the alignment; a zero
     * request still returns a unique, freeable pointer. */
    if (bytes > (size_t)-1 - (LOOM_ALLOCATION_ALIGNMENT - 1)) return NULL;
    size_t rounded = (bytes + LOOM_ALLOCATION_ALIGNMENT - 1) & ~(LOOM_ALLOCATION_ALIGNMENT - 1);
    if (rounded == 0) rounded = LOOM_ALLOCATION_ALIGNMENT;
    return aligned_alloc(LOOM_ALLOCATION_ALIGNMENT, rounded);
}

LOOM_RUNTIME_EXPORT void loom_free(void *user_context, void *ptr) {
#ifdef LOOM_RUNTIME_JIT_GLUE
    if (loom_jit_custom_free(user_context, ptr)) return;
#endif
    (void)user_context;
    free(ptr);
}
