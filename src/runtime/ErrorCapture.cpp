// ErrorCapture.h, and the JIT glue the C runtime core calls (declared in
// RuntimePlatform.h): libLoom's copy of loom_error and of the thread pool
// route messages into the innermost capture of the reporting thread, or of
// the thread that started the parallel loop.

#include "runtime/ErrorCapture.h"

#include <mutex>

#include "runtime/RuntimePlatform.h"

namespace loom {
namespace internal {

namespace {
thread_local ScopedErrorCapture *innermost_capture = nullptr;
// Serialises messages forwarded from pool workers into a caller's capture.
std::mutex forwarding_mutex;
}  // namespace

ScopedErrorCapture::ScopedErrorCapture() : previous_(innermost_capture) { innermost_capture = this; }

ScopedErrorCapture::~ScopedErrorCapture() { innermost_capture = previous_; }

ScopedErrorCapture *current_error_capture() { return innermost_capture; }

void append_to_error_capture(ScopedErrorCapture *capture, const char *message) {
    if (!capture->message_.empty()) capture->message_ += "\n";
    capture->message_ += message;
}

}  // namespace internal
}  // namespace loom

using loom::internal::ScopedErrorCapture;

extern "C" int loom_jit_capture_error(const char *message) {
    ScopedErrorCapture *capture = loom::internal::current_error_capture();
    if (!capture) return 0;
    loom::internal::append_to_error_capture(capture, message);
    return 1;
}

extern "C" void *loom_jit_current_capture(void) { return loom::internal::current_error_capture(); }

// Runs one iteration on a pool thread under its own capture, then forwards
// what it reported to the capture of the loop's caller.
extern "C" int loom_jit_run_captured(void *capture, int (*body)(void *, int, uint8_t *), void *user_context,
                                     int index, uint8_t *closure) {
    ScopedErrorCapture local;
    const int result = body(user_context, index, closure);
    if (!local.message().empty()) {
        std::lock_guard<std::mutex> lock(loom::internal::forwarding_mutex);
        loom::internal::append_to_error_capture(static_cast<ScopedErrorCapture *>(capture), local.message().c_str());
    }
    return result;
}
