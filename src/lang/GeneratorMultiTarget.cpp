// The generator driver's target=a,b,c: one library, a variant per target
// (the generator run with each target), and the dispatcher of
// aot/MultiTarget.cpp.

#include "lang/GeneratorMultiTarget.h"

#include <sstream>
#include <vector>

#include "aot/MultiTarget.h"
#include "loom/Error.h"
#include "loom/Pipeline.h"

namespace loom {
namespace internal {

bool is_multitarget(const std::string &target) { return target.find(',') != std::string::npos; }

void generate_multitarget(const GeneratorCommand &command, const std::map<OutputFileType, std::string> &files,
                          const std::string &function_name,
                          const std::function<std::unique_ptr<GeneratorBase>()> &make_generator) {
    const std::string what = "target=" + command.target;
    std::vector<Target> targets;
    std::stringstream list(command.target);
    for (std::string t; std::getline(list, t, ',');) targets.emplace_back(t);
    auto library = files.find(OutputFileType::static_library);
    for (const auto &[kind, path] : files) {
        if (kind == OutputFileType::static_library || kind == OutputFileType::c_header) continue;
        throw CompileError(what + ": with several targets the driver writes a static library and its header only "
                                  "(-e static_library,h), not '" + output_file_info().at(kind).name +
                           "'. Run it once per target for other files.");
    }
    if (library == files.end()) {
        throw CompileError(what + ": with several targets, ask for the static library (-e static_library,h).");
    }
    std::string prefix = library->second;
    prefix.resize(prefix.size() - output_file_info().at(OutputFileType::static_library).extension.size());
    // Kept alive until the files are written: the lowered variants refer to
    // their generators' Funcs and Params.
    std::vector<std::unique_ptr<GeneratorBase>> generators;
    compile_multitarget(
        function_name, prefix, targets, {}, /*static_library=*/true,
        [&](const std::string &fn, const Target &t) {
            generators.push_back(make_generator());
            GeneratorBase &g = *generators.back();
            g.set_generator_param("target", t.to_string());
            for (const auto &[name, value] : command.params) g.set_generator_param(name, value);
            Pipeline p = g.build_pipeline();
            std::vector<FunctionPtr> outputs;
            for (const Func &f : p.outputs()) outputs.push_back(f.function());
            return lower_to_module(outputs, g.input_arguments(), fn, t, what);
        },
        what);
}

}  // namespace internal
}  // namespace loom
