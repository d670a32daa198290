// run_lowered (lang/JITPipeline.h): one JIT run under a JITUserContext, for
// realize() and Callable alike.

#include <string>

#include "ir/Interpreter.h"
#include "lang/JITPipeline.h"
#include "loom/Error.h"
#include "loom/runtime/loom_runtime.h"
#include "runtime/ErrorCapture.h"
#include "runtime/JITContexts.h"

namespace loom {
namespace internal {

namespace {

template<typename Handler>
bool has_handler(const JITUserContext &context, const JITHandlers &defaults, Handler JITHandlers::*member) {
    return context.handlers.*member != nullptr || defaults.*member != nullptr;
}

/** Points context at the pipeline's handlers for the run, and back after
 * (a context may be reused, also by a nested run); the runtime knows it as
 * a JITUserContext meanwhile. */
class PipelineHandlersScope {
public:
    PipelineHandlersScope(JITUserContext &context, const JITHandlers &defaults)
        : context_(context), previous_(context.loom_pipeline_handlers), in_use_(context) {
        context.loom_pipeline_handlers = &defaults;
    }
    ~PipelineHandlersScope() { context_.loom_pipeline_handlers = previous_; }
    PipelineHandlersScope(const PipelineHandlersScope &) = delete;
    PipelineHandlersScope &operator=(const PipelineHandlersScope &) = delete;

private:
    JITUserContext &context_;
    const JITHandlers *previous_;
    JITContextInUse in_use_;
};

}  // namespace

int run_lowered(const LoweredFunc &lowered, const JITPipeline &jit, bool use_interpreter, void **args,
                const std::vector<loom_buffer_t *> &outputs, JITUserContext *context, const JITHandlers &defaults) {
    JITUserContext fresh;
    if (!context) context = &fresh;
    // Memory from one allocator must go back to the same one.
    if (has_handler(*context, defaults, &JITHandlers::custom_malloc) !=
        has_handler(*context, defaults, &JITHandlers::custom_free)) {
        throw CompileError("Pipeline " + lowered.name +
                           ": JITHandlers custom_malloc and custom_free must be set together (one of them is "
                           "set, the other is not). Set both, or neither.");
    }
    if (!use_interpreter && !jit.argv_with_context) {
        throw InternalError("run_lowered: pipeline " + lowered.name + " has no compiled code");
    }
    const bool custom_error = has_handler(*context, defaults, &JITHandlers::custom_error);

    int result = 0;
    std::string message;
    {
        PipelineHandlersScope scope(*context, defaults);
        ScopedErrorCapture capture;
        result = use_interpreter ? interpret(lowered, args, context) : jit.argv_with_context(context, args);
        // Outputs that GPU kernels wrote come back to the host, so that the
        // caller gets host data (as Halide's JIT does).
        for (size_t i = 0; result == 0 && !lowered.kernels.empty() && i < outputs.size(); i++) {
            result = loom_copy_to_host(context, outputs[i]);
        }
        // The profile feature: the JIT reports each run's profile through the
        // run's print handler, then starts afresh (as Halide's JIT does). A
        // pipeline without it has recorded nothing, and nothing is printed.
        loom_profiler_report(context);
        loom_profiler_reset();
        message = capture.message();
    }
    if (result == 0 || custom_error) return result;
    if (message.empty()) message = "Pipeline " + lowered.name + " failed with error code " + std::to_string(result);
    throw RuntimeError(message);
}

}  // namespace internal
}  // namespace loom
