#ifndef LOOM_OUTPUT_FILE_TYPE_H
#define LOOM_OUTPUT_FILE_TYPE_H

/** \file
 * The kinds of file ahead-of-time compilation writes (Func::compile_to,
 * Pipeline::compile_to, and the generator driver's `-e` list).
 */

#include <map>
#include <string>

namespace loom {

enum class OutputFileType {
    assembly,        // .s      target assembly
    c_header,        // .h      C declarations of the function and its metadata
    llvm_assembly,   // .ll     LLVM IR as text
    object,          // .o      one object file (the pipeline only, no runtime)
    static_library,  // .a      pipeline + the runtime it needs, self-contained
    stmt,            // .stmt   the lowered program as text
};

/** The generator driver's name for each kind ("assembly", "h", "llvm_assembly",
 * "o", "static_library", "stmt") and the file extension it writes (".s", ".h",
 * ".ll", ".o", ".a", ".stmt"). */
struct OutputFileInfo {
    std::string name;
    std::string extension;
};
const std::map<OutputFileType, OutputFileInfo> &output_file_info();

}  // namespace loom

#endif
