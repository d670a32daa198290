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
    bitcode,         // .bc     LLVM bitcode (the pipeline only, no runtime)
    c_header,        // .h      C declarations of the function and its metadata
    c_source,        // .loom_generated.cpp  the pipeline as C++ source (the C back end)
    llvm_assembly,   // .ll     LLVM IR as text
    object,          // .o      one object file (the pipeline only, no runtime)
    static_library,  // .a      pipeline + the runtime it needs, self-contained
    stmt,            // .stmt   the lowered program as text
    stmt_html,       // .stmt.html  the lowered program as one HTML page: its loop
                     //             nest, collapsible, linked to the assembly
};

/** What compile_to_lowered_stmt writes: the lowered program as text, or as
 * the self-contained HTML page of OutputFileType::stmt_html. */
enum StmtOutputFormat { Text, HTML };

/** The generator driver's name for each kind ("assembly", "bitcode", "h",
 * "c_source", "llvm_assembly", "o", "static_library", "stmt", "stmt_html")
 * and the file extension it writes (".s", ".bc", ".h", ".loom_generated.cpp",
 * ".ll", ".o", ".a", ".stmt", ".stmt.html"). */
struct OutputFileInfo {
    std::string name;
    std::string extension;
};
const std::map<OutputFileType, OutputFileInfo> &output_file_info();

}  // namespace loom

#endif
