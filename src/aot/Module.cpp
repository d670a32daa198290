// loom::Module (loom/Module.h): a pipeline lowered once (CompileTo.h's
// ModuleContents), written to files on request.

#include "loom/Module.h"

#include "aot/AotArguments.h"
#include "aot/CompileTo.h"
#include "ir/IRPrinter.h"
#include "loom/Error.h"

namespace loom {

using namespace internal;

Module::Module(std::shared_ptr<const ModuleContents> contents) : contents_(std::move(contents)) {}

const ModuleContents &Module::checked(const char *what) const {
    if (!contents_) {
        throw CompileError(std::string("Module::") + what +
                           ": this Module is undefined (default-constructed); make one with compile_to_module().");
    }
    return *contents_;
}

const std::string &Module::name() const { return checked("name").name; }

const Target &Module::target() const { return checked("target").target; }

const std::vector<ModuleFunction> &Module::functions() const {
    const ModuleContents &contents = checked("functions");
    std::call_once(contents.functions_made, [&contents] {
        const LoweredFunc &f = contents.func;
        ModuleFunction fn;
        fn.name = f.name;
        for (const LoweredArgument &a : f.args) fn.args.push_back(public_argument(a));
        fn.stmt = lowered_func_text(f);
        contents.functions.push_back(std::move(fn));
    });
    return contents.functions;
}

ModuleFunction Module::get_function_by_name(const std::string &fn_name) const {
    for (const ModuleFunction &f : functions()) {
        if (f.name == fn_name) return f;
    }
    throw CompileError("Module::get_function_by_name: Module '" + name() + "' has no function '" + fn_name +
                       "'; it holds '" + name() + "'.");
}

void Module::compile(const std::map<OutputFileType, std::string> &output_files) const {
    compile_module_to_files(checked("compile"), output_files, "Module::compile");
}

}  // namespace loom
