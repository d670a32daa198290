// loom::Module (loom/Module.h): pipelines lowered once (CompileTo.h's
// ModuleContents), written to files on request; append() gathers several.

#include "loom/Module.h"

#include <algorithm>
#include <set>

#include "aot/AotArguments.h"
#include "aot/CompileTo.h"
#include "aot/EmbeddedBuffers.h"
#include "ir/IRPrinter.h"
#include "loom/Error.h"

namespace loom {

using namespace internal;

namespace {

/** The global symbols a generated function defines. */
std::vector<std::string> function_symbols(const std::string &name) {
    return {name, name + "_argv", name + "_argv_with_context", name + "_metadata"};
}

/** What in contents defines one of the global symbols `name` would (a
 * function's four, or a buffer's own name): "function 'f'", or "". */
std::string symbol_clash(const ModuleContents &contents, const std::string &name, bool is_buffer) {
    const std::vector<std::string> mine = is_buffer ? std::vector<std::string>{name} : function_symbols(name);
    auto defines_one = [&mine](const std::vector<std::string> &symbols) {
        for (const std::string &s : symbols) {
            if (std::find(mine.begin(), mine.end(), s) != mine.end()) return true;
        }
        return false;
    };
    for (const ModuleFunctionSource &s : contents.sources) {
        if (defines_one(function_symbols(s.func.name))) return "function '" + s.func.name + "'";
    }
    for (const Buffer<> &b : contents.buffers) {
        if (defines_one({b.name()})) return "buffer '" + b.name() + "'";
    }
    return "";
}

std::string function_names(const ModuleContents &contents) {
    std::string names;
    for (const ModuleFunctionSource &s : contents.sources) names += (names.empty() ? "'" : ", '") + s.func.name + "'";
    return names.empty() ? "no functions" : names;
}

}  // namespace

Module::Module(std::shared_ptr<ModuleContents> contents) : contents_(std::move(contents)) {}

Module::Module(const std::string &name, const Target &target) {
    check_function_name(name, "Module(name, target)");
    contents_ = std::make_shared<ModuleContents>();
    contents_->name = name;
    contents_->target = target.arch == Target::ArchUnknown ? get_target_from_environment() : target;
}

ModuleContents &Module::checked(const char *what) const {
    if (!contents_) {
        throw CompileError(std::string("Module::") + what +
                           ": this Module is undefined (default-constructed); make one with compile_to_module() or "
                           "Module(name, target).");
    }
    return *contents_;
}

const std::string &Module::name() const { return checked("name").name; }

const Target &Module::target() const { return checked("target").target; }

const std::vector<ModuleFunction> &Module::functions() const {
    const ModuleContents &contents = checked("functions");
    std::lock_guard<std::mutex> lock(contents.functions_mutex);
    if (contents.functions_made) return contents.functions;
    contents.functions.clear();
    for (const ModuleFunctionSource &s : contents.sources) {
        ModuleFunction fn;
        fn.name = s.func.name;
        for (const LoweredArgument &a : s.func.args) fn.args.push_back(public_argument(a));
        fn.stmt = lowered_func_text(s.func);
        contents.functions.push_back(std::move(fn));
    }
    contents.functions_made = true;
    return contents.functions;
}

ModuleFunction Module::get_function_by_name(const std::string &fn_name) const {
    for (const ModuleFunction &f : functions()) {
        if (f.name == fn_name) return f;
    }
    throw CompileError("Module::get_function_by_name: Module '" + name() + "' has no function '" + fn_name +
                       "'; it holds " + function_names(*contents_) + ".");
}

void Module::append(const Module &other) {
    ModuleContents &contents = checked("append");
    if (!other.contents_) {
        throw CompileError("Module::append: the Module appended to '" + contents.name +
                           "' is undefined (default-constructed); make it with compile_to_module().");
    }
    if (other.contents_ == contents_) {
        throw CompileError("Module::append: Module '" + contents.name +
                           "' is appended to itself; its functions would be defined twice.");
    }
    if (!(other.contents_->target == contents.target)) {
        throw CompileError("Module::append: Module '" + other.contents_->name + "' was lowered for " +
                           other.contents_->target.to_string() + ", but Module '" + contents.name + "' is for " +
                           contents.target.to_string() + "; lower both for one target.");
    }
    std::vector<ModuleFunctionSource> added;
    for (const ModuleFunctionSource &s : other.contents_->sources) {
        const std::string clash = symbol_clash(contents, s.func.name, /*is_buffer=*/false);
        if (clash.empty()) {
            added.push_back(s);
            continue;
        }
        throw CompileError("Module::append: Module '" + contents.name + "' already holds a " + clash +
                           ", whose symbols clash with the appended function '" + s.func.name +
                           "' (NAME, NAME_argv, NAME_metadata); give one of them another name.");
    }
    for (const Buffer<> &b : other.contents_->buffers) {
        const std::string clash = symbol_clash(contents, b.name(), /*is_buffer=*/true);
        if (!clash.empty()) {
            throw CompileError("Module::append: Module '" + contents.name + "' already holds a " + clash +
                               ", whose symbols clash with the appended buffer '" + b.name() + "'.");
        }
    }
    std::lock_guard<std::mutex> lock(contents.functions_mutex);
    for (ModuleFunctionSource &s : added) contents.sources.push_back(std::move(s));
    for (const Buffer<> &b : other.contents_->buffers) contents.buffers.push_back(b);
    contents.functions_made = false;
}

void Module::append(const Buffer<> &buffer) {
    ModuleContents &contents = checked("append");
    check_embeddable_buffer(buffer, "Module::append");
    const std::string clash = symbol_clash(contents, buffer.name(), /*is_buffer=*/true);
    if (!clash.empty()) {
        throw CompileError("Module::append: Module '" + contents.name + "' already holds a " + clash +
                           ", whose symbols clash with the appended buffer '" + buffer.name() +
                           "'; give the Buffer another name.");
    }
    contents.buffers.push_back(buffer);
}

const std::vector<Buffer<>> &Module::buffers() const { return checked("buffers").buffers; }

void Module::compile(const std::map<OutputFileType, std::string> &output_files) const {
    compile_module_to_files(checked("compile"), output_files, "Module::compile");
}

}  // namespace loom
