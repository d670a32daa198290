// Generator::compile_to: the ahead-of-time path (needs the AOT back end).

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

}  // namespace loom
