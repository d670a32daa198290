#include "loom/OutputFileType.h"

#include "loom/Argument.h"
#include "loom/ImageParam.h"

namespace loom {

const std::map<OutputFileType, OutputFileInfo> &output_file_info() {
    static const std::map<OutputFileType, OutputFileInfo> info = {
        {OutputFileType::assembly, {"assembly", ".s"}},
        {OutputFileType::bitcode, {"bitcode", ".bc"}},
        {OutputFileType::c_header, {"h", ".h"}},
        {OutputFileType::c_source, {"c_source", ".loom_generated.cpp"}},
        {OutputFileType::llvm_assembly, {"llvm_assembly", ".ll"}},
        {OutputFileType::object, {"o", ".o"}},
        {OutputFileType::static_library, {"static_library", ".a"}},
        {OutputFileType::stmt, {"stmt", ".stmt"}},
        {OutputFileType::stmt_html, {"stmt_html", ".stmt.html"}},
    };
    return info;
}

Argument::Argument(const ImageParam &p) : Argument(p.parameter()) {}

}  // namespace loom
