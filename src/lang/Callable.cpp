// The JIT entry points that take a JITUserContext: Callable (lowered and
// compiled once, with the arguments in the caller's order) and the
// realize(JITUserContext *, ...) / jit_handlers() members of Func and
// Pipeline.

#include "loom/Callable.h"

#include <string>
#include <vector>

#include "aot/AotArguments.h"
#include "lang/Backend.h"
#include "lang/DebugToFile.h"
#include "lang/ExternFunc.h"
#include "lang/JITPipeline.h"
#include "loom/Error.h"
#include "loom/Func.h"
#include "loom/runtime/Buffer.h"
#include "lower/Stages.h"

namespace loom {

namespace internal {

/** What a Callable shares among its copies: immutable once made. */
struct CallableContents {
    std::string name;
    std::vector<Argument> arguments;
    /** arguments, outputs, then the embedded Buffers' (as lowered.args). */
    LoweredFunc lowered;
    /** A dense copy of each Buffer the pipeline reads that is not among
     * the arguments, made when the Callable is: the last arguments of each
     * call (Halide embeds such a Buffer as a constant of the pipeline). */
    std::vector<Runtime::Buffer<void>> embedded;
    JITPipeline jit;         // unless interpreted
    bool interpret = false;  // the reference interpreter (lang/Backend.h)
    JITHandlers handlers;    // the Func's/Pipeline's, as they were when made
};

namespace {

/** The copy a Callable keeps of a Buffer its pipeline reads directly (not
 * an argument). \throws CompileError naming the Buffer unless it has host
 * memory that is current. */
Runtime::Buffer<void> constant_copy(const Parameter &buffer, const std::string &pipeline) {
    const loom_buffer_t *raw = buffer.buffer();
    const std::string who = "compile_to_callable of " + pipeline + ": Buffer '" + buffer.name() + "'";
    const std::string why = " (the pipeline reads it directly and it is not in the argument list, so the Callable "
                            "keeps a copy of it as a constant, as in Halide)";
    if (!raw || !raw->host) {
        throw CompileError(who + " has no host memory" + why + ". Give it memory, or pass it as an argument (add "
                           "it to args).");
    }
    if (raw->flags & loom_buffer_flag_device_dirty) {
        throw CompileError(who + " is newer on its device than on the host" + why + ". Call copy_to_host() first.");
    }
    return Runtime::Buffer<void>(*raw).copy();
}

}  // namespace

Callable make_callable(const std::vector<FunctionPtr> &outputs, const std::vector<Argument> &args,
                       const Target &requested, const JITHandlers &handlers) {
    const Target target = requested.arch == Target::ArchUnknown ? get_jit_target_from_environment() : requested;
    if (outputs.empty() || !outputs[0].defined()) throw CompileError("compile_to_callable: the pipeline has no outputs.");
    auto contents = std::make_shared<CallableContents>();
    contents->name = outputs[0].get()->name;
    // "jit_" keeps the symbol away from C functions a Func may be named after.
    std::vector<LoweredArgument> embedded;
    contents->lowered = lower_for_aot(outputs, args, "jit_" + c_safe_name(contents->name), target,
                                      "compile_to_callable", nullptr, &embedded);
    for (const LoweredArgument &b : embedded) {
        contents->embedded.push_back(constant_copy(b.param, contents->name));
        contents->lowered.args.push_back(b);
    }
    contents->interpret = jit_backend() == Backend::Interpreter;
    check_extern_stages_runnable(pipeline_functions(outputs), contents->interpret);  // define_extern
    check_debug_to_file_runnable(pipeline_functions(outputs), contents->interpret);
    if (contents->interpret && !contents->lowered.kernels.empty()) {
        throw CompileError("The reference interpreter does not run GPU kernels, and " + contents->name +
                           " has GPU loops. Compile the Callable with the LLVM back end, or without GPU schedules.");
    }
    if (!contents->interpret) contents->jit = compile_jit(contents->lowered, target);
    count_jit_compile();
    for (size_t k = 0; k + embedded.size() < contents->lowered.args.size(); k++) {
        contents->arguments.push_back(public_argument(contents->lowered.args[k]));
    }
    contents->handlers = handlers;
    return Callable(contents);
}

namespace {

std::string describe(const Argument &a) {
    if (!a.is_buffer()) return "a scalar of type " + a.type.to_string();
    return "a buffer of " + a.type.to_string() + " with " + std::to_string(a.dimensions) + " dimensions";
}

std::string describe(const Callable::CallArgument &c) {
    switch (c.kind) {
    case Callable::CallArgument::Context: return "a JITUserContext";
    case Callable::CallArgument::Buffer:
        if (!c.buffer) return "a null buffer";
        return "a buffer of " + c.type.to_string() + " with " + std::to_string(c.dimensions) + " dimensions";
    case Callable::CallArgument::Scalar: break;
    }
    return "a scalar of type " + c.type.to_string();
}

/** Why c cannot be passed as a, or "" if it can. */
std::string mismatch(const Argument &a, const Callable::CallArgument &c) {
    if (c.kind == Callable::CallArgument::Context) return "only the first argument may be a JITUserContext";
    if (a.is_buffer()) {
        if (c.kind != Callable::CallArgument::Buffer || !c.buffer || c.type != a.type ||
            c.dimensions != a.dimensions) {
            return "expected " + describe(a) + ", got " + describe(c);
        }
        return "";
    }
    if (c.kind != Callable::CallArgument::Scalar || c.type != a.type) {
        return "expected " + describe(a) + ", got " + describe(c) +
               " (scalars must have exactly the Param's type, e.g. 1.0f for a float32)";
    }
    return "";
}

std::string argument_names(const std::vector<Argument> &arguments) {
    std::string s;
    for (const Argument &a : arguments) s += (s.empty() ? "" : ", ") + a.name;
    return s;
}

}  // namespace
}  // namespace internal

using namespace internal;

namespace {

const CallableContents &checked(const std::shared_ptr<CallableContents> &c) {
    if (!c) throw CompileError("This Callable is undefined: make one with compile_to_callable().");
    return *c;
}

/** A wrong call: to the custom_error handler (returning the error code)
 * when there is one, else a RuntimeError. */
int report_bad_call(const CallableContents &c, JITUserContext *context, const std::string &message) {
    JITUserContext fresh;
    if (!context) context = &fresh;
    auto handler = context->handlers.custom_error ? context->handlers.custom_error : c.handlers.custom_error;
    if (!handler) throw RuntimeError(message);
    handler(context, message.c_str());
    return loom_error_code_bad_argument;
}

}  // namespace

const std::string &Callable::name() const { return checked(contents_).name; }

const std::vector<Argument> &Callable::arguments() const { return checked(contents_).arguments; }

int Callable::call(const CallArgument *list, size_t count) const {
    const CallableContents &c = checked(contents_);
    JITUserContext *context = nullptr;
    size_t first = 0;
    if (count > 0 && list[0].kind == CallArgument::Context) {
        context = list[0].context;
        first = 1;
    }
    const size_t given = count - first;
    if (given != c.arguments.size()) {
        return report_bad_call(c, context,
                               "Callable " + c.name + " takes " + std::to_string(c.arguments.size()) +
                                   " arguments (" + argument_names(c.arguments) +
                                   ") after an optional JITUserContext, but was called with " +
                                   std::to_string(given) + ".");
    }
    std::vector<void *> argv(given);
    for (const Runtime::Buffer<void> &b : c.embedded) argv.push_back(b.raw_buffer());
    std::vector<loom_buffer_t *> outputs;
    for (size_t k = 0; k < given; k++) {
        const Argument &a = c.arguments[k];
        const CallArgument &arg = list[first + k];
        const std::string why = mismatch(a, arg);
        if (!why.empty()) {
            return report_bad_call(c, context,
                                   "Argument " + std::to_string(k + 1) + " of Callable " + c.name + " ('" + a.name +
                                       "'): " + why + ".");
        }
        argv[k] = a.is_buffer() ? static_cast<void *>(arg.buffer) : const_cast<void *>(arg.scalar);
        if (a.kind == Argument::OutputBuffer) outputs.push_back(arg.buffer);
    }
    return run_lowered(c.lowered, c.jit, c.interpret, argv.data(), outputs, context, c.handlers);
}

void Callable::check_signature(const std::vector<CallArgument> &signature) const {
    const CallableContents &c = checked(contents_);
    size_t first = !signature.empty() && signature[0].kind == CallArgument::Context ? 1 : 0;
    if (signature.size() - first != c.arguments.size()) {
        throw CompileError("make_std_function of Callable " + c.name + ": it takes " +
                           std::to_string(c.arguments.size()) + " arguments (" + argument_names(c.arguments) +
                           ") after an optional JITUserContext, but the signature has " +
                           std::to_string(signature.size() - first) + ".");
    }
    for (size_t k = 0; k < c.arguments.size(); k++) {
        const Argument &a = c.arguments[k];
        const CallArgument &s = signature[first + k];
        std::string why;
        if (s.kind == CallArgument::Context) {
            why = "only the first parameter may be a JITUserContext pointer";
        } else if (a.is_buffer() != (s.kind == CallArgument::Buffer)) {
            why = "expected " + describe(a) + ", but the parameter is " + (a.is_buffer() ? "a scalar" : "a buffer");
        } else if (!a.is_buffer() && s.type != a.type) {
            why = "expected " + describe(a) + ", but the parameter is of type " + s.type.to_string();
        } else if (a.is_buffer() && s.type.bits() != 0 && s.type != a.type) {
            why = "expected " + describe(a) + ", but the parameter is a buffer of " + s.type.to_string();
        }
        if (!why.empty()) {
            throw CompileError("make_std_function of Callable " + c.name + ", parameter " + std::to_string(k + 1) +
                               " ('" + a.name + "'): " + why + ".");
        }
    }
}

// ---- Func and Pipeline ---------------------------------------------------------

namespace {
JITSlot slot_of(const Func &f) {
    if (!f.function().defined()) throw CompileError("Can't realize an undefined Func.");
    return JITSlot{{f.function()}, &f.function().get()->jit_cache};
}
}  // namespace

Realization Func::realize(JITUserContext *context, const std::vector<int> &sizes, const Target &target) {
    return jit_realize(slot_of(*this), sizes, target, context);
}

void Func::realize(JITUserContext *context, Realization &outputs, const Target &target) {
    jit_realize_into(slot_of(*this), outputs, target, context);
}

JITHandlers &Func::jit_handlers() { return jit_handlers_of(slot_of(*this).cache); }

Callable Func::compile_to_callable(const std::vector<Argument> &args, const Target &target) {
    return make_callable({function()}, args, target, jit_handlers());
}

}  // namespace loom
