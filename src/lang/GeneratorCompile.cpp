// Generator::compile_to and build_module: the ahead-of-time path (needs the AOT back end).

#include "loom/Generator.h"

namespace loom {

void GeneratorBase::compile_to(const std::map<OutputFileType, std::string> &output_files,
                               const std::string &fn_name) {
    Pipeline p = build_pipeline();
    try {
        p.compile_to(output_files, input_arguments(), fn_name, get_target());
    } catch (const CompileError &e) {
        rethrow_with_name(e);
    }
}

Module GeneratorBase::build_module(const std::string &fn_name) {
    Pipeline p = build_pipeline();
    try {
        return p.compile_to_module(input_arguments(), fn_name.empty() ? name() : fn_name, get_target());
    } catch (const CompileError &e) {
        rethrow_with_name(e);
    }
}

}  // namespace loom
