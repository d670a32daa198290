// Func::compile_to* and Pipeline::compile_to*: thin wrappers over
// compile_to_files (CompileTo.h), which holds the whole story.

#include "aot/CompileTo.h"
#include "lang/JITPipeline.h"
#include "loom/Error.h"
#include "loom/Func.h"
#include "loom/Pipeline.h"

namespace loom {

using namespace internal;

namespace {

std::map<OutputFileType, std::string> one(OutputFileType kind, const std::string &filename) { return {{kind, filename}}; }

OutputFileType stmt_file_type(StmtOutputFormat fmt) {
    if (fmt == Text) return OutputFileType::stmt;
    if (fmt == HTML) return OutputFileType::stmt_html;
    throw CompileError("compile_to_lowered_stmt: unknown StmtOutputFormat " + std::to_string((int)fmt) +
                       "; use Text or HTML.");
}

/** prefix + the kind's extension, and prefix + ".h". As in Halide, objects
 * and static libraries for Windows are ".obj" and ".lib". */
std::map<OutputFileType, std::string> with_header(OutputFileType kind, const std::string &prefix,
                                                  const Target &requested) {
    const Target target = requested.arch == Target::ArchUnknown ? get_target_from_environment() : requested;
    std::string extension = output_file_info().at(kind).extension;
    if (target.os == Target::Windows && kind == OutputFileType::object) extension = ".obj";
    if (target.os == Target::Windows && kind == OutputFileType::static_library) extension = ".lib";
    return {{kind, prefix + extension},
            {OutputFileType::c_header, prefix + output_file_info().at(OutputFileType::c_header).extension}};
}

const std::vector<FunctionPtr> &outputs_of(const std::shared_ptr<PipelineContents> &p, const char *what) {
    if (!p) throw CompileError(std::string(what) + ": this Pipeline is undefined (default-constructed).");
    return p->outputs;
}

}  // namespace

// ------------------------------------------------------------------ Func

void Func::compile_to(const std::map<OutputFileType, std::string> &output_files, const std::vector<Argument> &args,
                      const std::string &fn_name, const Target &target) {
    compile_to_files({func_}, output_files, args, fn_name, target, "compile_to");
}

void Func::compile_to_static_library(const std::string &filename_prefix, const std::vector<Argument> &args,
                                     const std::string &fn_name, const Target &target) {
    compile_to_files({func_}, with_header(OutputFileType::static_library, filename_prefix, target), args, fn_name,
                     target, "compile_to_static_library");
}

void Func::compile_to_file(const std::string &filename_prefix, const std::vector<Argument> &args,
                           const std::string &fn_name, const Target &target) {
    compile_to_files({func_}, with_header(OutputFileType::object, filename_prefix, target), args, fn_name,
                     target, "compile_to_file");
}

void Func::compile_to_object(const std::string &filename, const std::vector<Argument> &args,
                             const std::string &fn_name, const Target &target) {
    compile_to_files({func_}, one(OutputFileType::object, filename), args, fn_name, target, "compile_to_object");
}

void Func::compile_to_header(const std::string &filename, const std::vector<Argument> &args,
                             const std::string &fn_name, const Target &target) {
    compile_to_files({func_}, one(OutputFileType::c_header, filename), args, fn_name, target, "compile_to_header");
}

void Func::compile_to_assembly(const std::string &filename, const std::vector<Argument> &args,
                               const std::string &fn_name, const Target &target) {
    compile_to_files({func_}, one(OutputFileType::assembly, filename), args, fn_name, target, "compile_to_assembly");
}

void Func::compile_to_llvm_assembly(const std::string &filename, const std::vector<Argument> &args,
                                    const std::string &fn_name, const Target &target) {
    compile_to_files({func_}, one(OutputFileType::llvm_assembly, filename), args, fn_name, target,
                     "compile_to_llvm_assembly");
}

void Func::compile_to_bitcode(const std::string &filename, const std::vector<Argument> &args,
                              const std::string &fn_name, const Target &target) {
    compile_to_files({func_}, one(OutputFileType::bitcode, filename), args, fn_name, target, "compile_to_bitcode");
}

void Func::compile_to_c(const std::string &filename, const std::vector<Argument> &args, const std::string &fn_name,
                        const Target &target) {
    compile_to_files({func_}, one(OutputFileType::c_source, filename), args, fn_name, target, "compile_to_c");
}

void Func::compile_to_lowered_stmt(const std::string &filename, const std::vector<Argument> &args,
                                   const Target &target) {
    compile_to_files({func_}, one(OutputFileType::stmt, filename), args, "", target, "compile_to_lowered_stmt");
}

void Func::compile_to_lowered_stmt(const std::string &filename, const std::vector<Argument> &args,
                                   StmtOutputFormat fmt, const Target &target) {
    compile_to_files({func_}, one(stmt_file_type(fmt), filename), args, "", target, "compile_to_lowered_stmt");
}

Module Func::compile_to_module(const std::vector<Argument> &args, const std::string &fn_name, const Target &target) {
    return Module(lower_to_module({func_}, args, fn_name, target, "compile_to_module"));
}

// ------------------------------------------------------------------ Pipeline

void Pipeline::compile_to(const std::map<OutputFileType, std::string> &output_files, const std::vector<Argument> &args,
                          const std::string &fn_name, const Target &target) {
    compile_to_files(outputs_of(contents_, "compile_to"), output_files, args, fn_name, target, "compile_to");
}

void Pipeline::compile_to_static_library(const std::string &filename_prefix, const std::vector<Argument> &args,
                                         const std::string &fn_name, const Target &target) {
    compile_to_files(outputs_of(contents_, "compile_to_static_library"),
                     with_header(OutputFileType::static_library, filename_prefix, target), args, fn_name, target,
                     "compile_to_static_library");
}

void Pipeline::compile_to_file(const std::string &filename_prefix, const std::vector<Argument> &args,
                               const std::string &fn_name, const Target &target) {
    compile_to_files(outputs_of(contents_, "compile_to_file"),
                     with_header(OutputFileType::object, filename_prefix, target),
                     args, fn_name, target, "compile_to_file");
}

void Pipeline::compile_to_object(const std::string &filename, const std::vector<Argument> &args,
                                 const std::string &fn_name, const Target &target) {
    compile_to_files(outputs_of(contents_, "compile_to_object"), one(OutputFileType::object, filename), args, fn_name,
                     target, "compile_to_object");
}

void Pipeline::compile_to_header(const std::string &filename, const std::vector<Argument> &args,
                                 const std::string &fn_name, const Target &target) {
    compile_to_files(outputs_of(contents_, "compile_to_header"), one(OutputFileType::c_header, filename), args,
                     fn_name, target, "compile_to_header");
}

void Pipeline::compile_to_assembly(const std::string &filename, const std::vector<Argument> &args,
                                   const std::string &fn_name, const Target &target) {
    compile_to_files(outputs_of(contents_, "compile_to_assembly"), one(OutputFileType::assembly, filename), args,
                     fn_name, target, "compile_to_assembly");
}

void Pipeline::compile_to_llvm_assembly(const std::string &filename, const std::vector<Argument> &args,
                                        const std::string &fn_name, const Target &target) {
    compile_to_files(outputs_of(contents_, "compile_to_llvm_assembly"), one(OutputFileType::llvm_assembly, filename),
                     args, fn_name, target, "compile_to_llvm_assembly");
}

void Pipeline::compile_to_bitcode(const std::string &filename, const std::vector<Argument> &args,
                                  const std::string &fn_name, const Target &target) {
    compile_to_files(outputs_of(contents_, "compile_to_bitcode"), one(OutputFileType::bitcode, filename), args,
                     fn_name, target, "compile_to_bitcode");
}

void Pipeline::compile_to_c(const std::string &filename, const std::vector<Argument> &args,
                            const std::string &fn_name, const Target &target) {
    compile_to_files(outputs_of(contents_, "compile_to_c"), one(OutputFileType::c_source, filename), args, fn_name,
                     target, "compile_to_c");
}

void Pipeline::compile_to_lowered_stmt(const std::string &filename, const std::vector<Argument> &args,
                                       const Target &target) {
    compile_to_files(outputs_of(contents_, "compile_to_lowered_stmt"), one(OutputFileType::stmt, filename), args, "",
                     target, "compile_to_lowered_stmt");
}

void Pipeline::compile_to_lowered_stmt(const std::string &filename, const std::vector<Argument> &args,
                                       StmtOutputFormat fmt, const Target &target) {
    compile_to_files(outputs_of(contents_, "compile_to_lowered_stmt"), one(stmt_file_type(fmt), filename), args, "",
                     target, "compile_to_lowered_stmt");
}

Module Pipeline::compile_to_module(const std::vector<Argument> &args, const std::string &fn_name,
                                   const Target &target) {
    return Module(lower_to_module(outputs_of(contents_, "compile_to_module"), args, fn_name, target,
                                  "compile_to_module"));
}

}  // namespace loom
