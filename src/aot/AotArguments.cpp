#include "aot/AotArguments.h"

#include <map>
#include <set>

#include "ir/ConcreteBuffers.h"
#include "loom/Error.h"
#include "lower/Lower.h"

namespace loom {
namespace internal {

namespace {

const std::set<std::string> &c_keywords() {
    static const std::set<std::string> words = {
        "alignas", "alignof", "and", "asm", "auto", "bool", "break", "case", "catch", "char", "class", "const",
        "constexpr", "continue", "default", "delete", "do", "double", "else", "enum", "explicit", "export", "extern",
        "false", "float", "for", "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new",
        "noexcept", "not", "nullptr", "operator", "or", "private", "protected", "public", "register", "restrict",
        "return", "short", "signed", "sizeof", "static", "struct", "switch", "template", "this", "throw", "true",
        "try", "typedef", "typename", "union", "unsigned", "using", "virtual", "void", "volatile", "while", "xor",
        "_Bool", "_Complex", "_Atomic", "_Generic", "_Noreturn", "_Static_assert", "_Thread_local"};
    return words;
}

bool is_identifier_char(char c, bool first) {
    if (c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return true;
    return !first && c >= '0' && c <= '9';
}

/** What the user made the input with: a Param, an ImageParam, or a concrete
 * Buffer the algorithm reads directly. */
std::string lowered_kind_word(const LoweredArgument &a) {
    if (a.kind == LoweredArgument::InputScalar) return "Param";
    return is_concrete_buffer_parameter(a.param) ? "Buffer" : "input buffer (ImageParam)";
}

LoweredArgument from_user_argument(const Argument &a) {
    LoweredArgument l;
    l.name = a.name;
    l.kind = a.kind == Argument::InputScalar ? LoweredArgument::InputScalar : LoweredArgument::InputBuffer;
    l.type = a.type;
    l.dimensions = a.is_buffer() ? a.dimensions : 0;
    l.param = a.param;
    return l;
}

/** Checks each user argument on its own and that no two share a name. */
void check_user_arguments(const std::vector<Argument> &args, const std::string &fn_name, const std::string &what) {
    std::map<std::string, std::string> c_names;  // C name -> the name it came from
    for (size_t i = 0; i < args.size(); i++) {
        const Argument &a = args[i];
        const std::string where = what + " of '" + fn_name + "'";
        if (a.name.empty() || !a.param.defined()) {
            throw CompileError("Argument " + std::to_string(i) + " of " + where +
                               " is undefined: pass defined Params, ImageParams or Buffers.");
        }
        if (a.kind == Argument::OutputBuffer) {
            throw CompileError("Argument '" + a.name + "' of " + where +
                               " is an output buffer: list only inputs; the outputs are added at the end.");
        }
        if (a.kind == Argument::InputScalar && !a.type.is_scalar()) {
            throw CompileError("Param '" + a.name + "' of " + where + " has vector type " + a.type.to_string() +
                               "; arguments must be scalars.");
        }
        const std::string c_name = c_safe_name(a.name);
        auto [it, inserted] = c_names.emplace(c_name, a.name);
        if (!inserted) {
            throw CompileError(it->second == a.name
                                   ? "Two arguments of " + where + " are named '" + a.name +
                                         "'. Give each argument a distinct name, and list each once."
                                   : "Arguments '" + it->second + "' and '" + a.name + "' of " + where +
                                         " both become the C name '" + c_name + "'. Rename one of them.");
        }
    }
}

}  // namespace

bool is_c_identifier(const std::string &name) {
    if (name.empty()) return false;
    for (size_t i = 0; i < name.size(); i++) {
        if (!is_identifier_char(name[i], i == 0)) return false;
    }
    return !c_keywords().count(name);
}

std::string c_safe_name(const std::string &name) {
    std::string out;
    for (char c : name) out += is_identifier_char(c, false) ? c : '_';
    if (out.empty() || !is_identifier_char(out[0], true)) out = "_" + out;
    if (c_keywords().count(out)) out += "_";
    return out;
}

void check_function_name(const std::string &fn_name, const std::string &what) {
    if (!is_c_identifier(fn_name)) {
        throw CompileError(what + ": the function name '" + fn_name +
                           "' is not a C identifier (letters, digits and '_', not starting with a digit, not a "
                           "keyword). Pass a fn_name such as 'my_pipeline'.");
    }
    if (fn_name.rfind("loom_", 0) == 0) {
        throw CompileError(what + ": the function name '" + fn_name +
                           "' starts with 'loom_', which is reserved for the Loom runtime. Choose another name.");
    }
}

Argument public_argument(const LoweredArgument &a) {
    Argument arg;
    arg.name = a.name;
    arg.kind = a.kind == LoweredArgument::InputScalar  ? Argument::InputScalar
               : a.kind == LoweredArgument::InputBuffer ? Argument::InputBuffer
                                                        : Argument::OutputBuffer;
    arg.type = a.type;
    arg.dimensions = a.is_buffer() ? a.dimensions : 0;
    arg.param = a.param;
    return arg;
}

LoweredFunc lower_for_aot(const std::vector<FunctionPtr> &outputs, const std::vector<Argument> &args,
                          const std::string &fn_name, const Target &target, const std::string &what,
                          Stmt *loop_nest, std::vector<LoweredArgument> *embedded) {
    check_function_name(fn_name, what);
    if (outputs.empty()) throw CompileError(what + ": the pipeline has no outputs.");
    for (const FunctionPtr &f : outputs) {
        if (!f.defined() || !f.get()->defined()) {
            throw CompileError(what + " of '" + fn_name + "': Func " + (f.defined() ? f.get()->name : "") +
                               " has no definition. Define it before compiling.");
        }
    }
    check_user_arguments(args, fn_name, what);

    LowerOptions options;
    options.loop_nest = loop_nest;
    LoweredFunc lowered = lower(outputs, fn_name, target, options);

    std::map<std::string, const LoweredArgument *> used;  // inputs the pipeline reads, by name
    std::vector<LoweredArgument> output_args;
    for (const LoweredArgument &a : lowered.args) {
        if (a.kind == LoweredArgument::OutputBuffer) {
            output_args.push_back(a);
        } else {
            used[a.name] = &a;
        }
    }

    std::vector<LoweredArgument> ordered;
    std::set<std::string> listed;
    for (const Argument &a : args) {
        listed.insert(a.name);
        auto it = used.find(a.name);
        if (it == used.end()) {
            ordered.push_back(from_user_argument(a));  // listed but unused: the function ignores it
            continue;
        }
        const LoweredArgument &l = *it->second;
        if (!l.param.same_as(a.param)) {
            throw CompileError("Argument '" + a.name + "' of " + what + " of '" + fn_name +
                               "' is not the " + lowered_kind_word(l) +
                               " of that name that the pipeline uses: two different objects share the name '" +
                               a.name + "'. Give them distinct names.");
        }
        ordered.push_back(l);
    }
    for (const auto &[name, l] : used) {
        if (listed.count(name)) continue;
        if (embedded && l->kind == LoweredArgument::InputBuffer && is_concrete_buffer_parameter(l->param)) {
            embedded->push_back(*l);
            continue;
        }
        // Concrete Buffers reach here only when the caller cannot embed them;
        // both callers (Callable, compile_to_*) embed, so this is a Param or
        // an ImageParam, whose value each call must pass.
        throw CompileError(what + " of '" + fn_name + "': the pipeline uses " + lowered_kind_word(*l) + " '" + name +
                           "' (" + l->type.to_string() +
                           (l->is_buffer() ? ", " + std::to_string(l->dimensions) + "D" : std::string()) +
                           "), but it is not in the argument list. Add it to args" +
                           (embedded && l->is_buffer() ? " (a Buffer the algorithm reads directly need not be listed: it is copied "
                                       "into the compiled code)."
                                     : "."));
    }
    std::map<std::string, std::string> c_names;
    for (const LoweredArgument &a : ordered) c_names[c_safe_name(a.name)] = a.name;
    for (const LoweredArgument &o : output_args) {
        const std::string c_name = c_safe_name(o.name);
        auto it = c_names.find(c_name);
        if (it != c_names.end()) {
            throw CompileError(what + " of '" + fn_name + "': argument '" + it->second + "' and output '" + o.name +
                               "' share the C name '" + c_name + "'. Rename the argument or the Func.");
        }
        c_names[c_name] = o.name;
        ordered.push_back(o);
    }
    lowered.args = std::move(ordered);
    return lowered;
}

}  // namespace internal
}  // namespace loom
