#ifndef LOOM_RUNTIME_ERROR_CAPTURE_H
#define LOOM_RUNTIME_ERROR_CAPTURE_H

/** \file
 * Lets the JIT front end turn errors reported by a running pipeline into a
 * loom::RuntimeError: while a ScopedErrorCapture lives, loom_error() calls on
 * this thread append to it instead of reaching the installed handler.
 */

#include <string>

namespace loom {
namespace internal {

class ScopedErrorCapture;
void append_to_error_capture(ScopedErrorCapture *capture, const char *message);

class ScopedErrorCapture {
public:
    ScopedErrorCapture();
    ~ScopedErrorCapture();
    ScopedErrorCapture(const ScopedErrorCapture &) = delete;
    ScopedErrorCapture &operator=(const ScopedErrorCapture &) = delete;

    /** Everything reported so far, messages separated by newlines. */
    const std::string &message() const { return message_; }

private:
    friend void append_to_error_capture(ScopedErrorCapture *capture, const char *message);
    std::string message_;
    ScopedErrorCapture *previous_;
};

/** The innermost capture on this thread, or nullptr. */
ScopedErrorCapture *current_error_capture();
/** Appends a message to the innermost capture (used by loom_error). */
void append_to_error_capture(ScopedErrorCapture *capture, const char *message);

}  // namespace internal
}  // namespace loom

#endif
