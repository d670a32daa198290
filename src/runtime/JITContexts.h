#ifndef LOOM_RUNTIME_JIT_CONTEXTS_H
#define LOOM_RUNTIME_JIT_CONTEXTS_H

/** \file
 * Which user_context pointers are JITUserContexts (runtime/JITHandlers.cpp).
 * libLoom's copy of the C runtime serves JIT code and C programs alike; a
 * program may pass any pointer of its own as user_context, so the JIT glue
 * never reads through one it does not know. A JIT run makes its context
 * known for as long as it runs. The runtime's calls (every allocation of
 * every task) look contexts up without a lock.
 */

#include "loom/JITUserContext.h"

namespace loom {
namespace internal {

class JITContextInUse {
public:
    explicit JITContextInUse(JITUserContext &context);
    ~JITContextInUse();
    JITContextInUse(const JITContextInUse &) = delete;
    JITContextInUse &operator=(const JITContextInUse &) = delete;

private:
    const JITUserContext *context_;
    int slot_;  // its slot in the table of live contexts, or -1 if it overflowed
};

}  // namespace internal
}  // namespace loom

#endif
