#include "runtime/ErrorCapture.h"

namespace loom {
namespace internal {

namespace {
thread_local ScopedErrorCapture *innermost_capture = nullptr;
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
