// The host side of Loom's C runtime ABI (include/loom/runtime/loom_runtime.h):
// error and print reporting through replaceable process-global handlers, and
// the 64-byte-aligned heap used for intermediate buffers.
//
// Generated code (JIT or AOT) calls these functions by their C names, so they
// keep C linkage and default visibility even if the library is later built
// with -fvisibility=hidden. Nothing here aborts the process: errors are
// reported and returned to the caller as error codes by generated code.

#include "loom/runtime/loom_runtime.h"
#include "runtime/ErrorCapture.h"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define LOOM_RUNTIME_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

constexpr size_t kLoomAllocationAlignment = 64;

void default_error_handler(void * /*user_context*/, const char *message) {
    // One fprintf call so that concurrent errors do not interleave mid-line.
    size_t length = std::strlen(message);
    bool ends_with_newline = length > 0 && message[length - 1] == '\n';
    std::fprintf(stderr, "Error: %s%s", message, ends_with_newline ? "" : "\n");
    std::fflush(stderr);
}

void default_print_handler(void * /*user_context*/, const char *message) {
    std::fputs(message, stdout);
    std::fflush(stdout);
}

// Handlers are read on every call from possibly many pipeline threads and may
// be replaced at any time, so they live in atomics. They are never null: null
// passed to a setter installs the default.
std::atomic<loom_error_handler_t> error_handler{&default_error_handler};
std::atomic<loom_print_handler_t> print_handler{&default_print_handler};

const char *non_null(const char *message) { return message ? message : "(null)"; }

}  // namespace

// Returns the handler that was installed before (the default one if no other
// was), so that a caller can restore it or chain to it.
LOOM_RUNTIME_EXPORT loom_error_handler_t loom_set_error_handler(loom_error_handler_t handler) {
    return error_handler.exchange(handler ? handler : &default_error_handler);
}

// While the JIT front end holds a ScopedErrorCapture on this thread, the
// message goes there (to become a loom::RuntimeError) instead of the handler.
LOOM_RUNTIME_EXPORT void loom_error(void *user_context, const char *message) {
    if (loom::internal::ScopedErrorCapture *capture = loom::internal::current_error_capture()) {
        loom::internal::append_to_error_capture(capture, non_null(message));
        return;
    }
    error_handler.load()(user_context, non_null(message));
}

LOOM_RUNTIME_EXPORT loom_print_handler_t loom_set_print_handler(loom_print_handler_t handler) {
    return print_handler.exchange(handler ? handler : &default_print_handler);
}

LOOM_RUNTIME_EXPORT void loom_print(void *user_context, const char *message) {
    print_handler.load()(user_context, non_null(message));
}

LOOM_RUNTIME_EXPORT void *loom_malloc(void * /*user_context*/, size_t bytes) {
    // aligned_alloc wants a size that is a multiple of the alignment; a zero
    // request still returns a unique, freeable pointer.
    if (bytes > SIZE_MAX - (kLoomAllocationAlignment - 1)) {
        return nullptr;
    }
    size_t rounded = (bytes + kLoomAllocationAlignment - 1) & ~(kLoomAllocationAlignment - 1);
    if (rounded == 0) {
        rounded = kLoomAllocationAlignment;
    }
    return std::aligned_alloc(kLoomAllocationAlignment, rounded);
}

LOOM_RUNTIME_EXPORT void loom_free(void * /*user_context*/, void *ptr) {
    std::free(ptr);
}
