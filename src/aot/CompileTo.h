#ifndef LOOM_AOT_COMPILE_TO_H
#define LOOM_AOT_COMPILE_TO_H

/** \file
 * The ahead-of-time driver behind Func::compile_to* and Pipeline::compile_to*
 * (and the generator driver): lowers once with the user's argument order,
 * then produces each requested file.
 *
 *   stmt            the lowered program as text
 *   c_header        CHeader.h
 *   object          the pipeline's code and metadata; no runtime (link it with
 *                   libLoom, or with a static library from Loom)
 *   assembly        the object's code as target assembly
 *   llvm_assembly   the object's code as LLVM IR text (after optimisation)
 *   bitcode         the same module as LLVM bitcode
 *   c_source        the pipeline as C++ source (codegen/c/CodeGen_C.h): the
 *                   object's symbols, built by any C++17 compiler
 *   static_library  the object's code plus the runtime (RuntimeModule.h), one
 *                   member in a GNU archive (StaticLibrary.h)
 *
 * Every file is made in memory first; nothing is written unless all of them
 * could be made.
 */

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ir/Function.h"
#include "ir/LoweredFunc.h"
#include "loom/Argument.h"
#include "loom/Module.h"
#include "loom/OutputFileType.h"
#include "loom/Target.h"

namespace loom {
namespace internal {

/** The function name compile_to_* uses when given "": the first output's
 * name. \throws CompileError if that is not a C identifier. */
std::string default_function_name(const std::vector<FunctionPtr> &outputs, const std::string &what);

/** One function of a Module: the lowered pipeline, and the loop nest
 * stmt_html shows. */
struct ModuleFunctionSource {
    LoweredFunc func;
    Stmt loop_nest;
    /** The concrete Buffers func reads that are not its arguments: each is
     * written into the object (EmbeddedBuffers.h) and func.body binds
     * NAME.buffer to it. */
    std::vector<Parameter> embedded_buffers;
};

/** What a loom::Module holds: lowered pipelines for one target (one from
 * compile_to_module, any number after Module::append). */
struct ModuleContents {
    std::string name;
    Target target;
    std::vector<ModuleFunctionSource> sources;
    /** Module::append(Buffer): written into the object (EmbeddedBuffers.h). */
    std::vector<Buffer<>> buffers;
    /** Module::functions(), made on first use and again after an append. */
    mutable std::mutex functions_mutex;
    mutable bool functions_made = false;
    mutable std::vector<ModuleFunction> functions;
};

/** Lowers outputs once for fn_name ("" = default_function_name) and target
 * (Target() = get_target_from_environment()). \throws CompileError as
 * compile_to_files. */
std::shared_ptr<ModuleContents> lower_to_module(const std::vector<FunctionPtr> &outputs,
                                                const std::vector<Argument> &args, const std::string &fn_name,
                                                const Target &target, const std::string &what);

/** Writes output_files (kind -> path) from a lowered module: every function
 * in one object / static library / header. \throws CompileError as
 * compile_to_files, for a Module without functions, and for stmt_html of
 * more than one function. */
void compile_module_to_files(const ModuleContents &module, const std::map<OutputFileType, std::string> &output_files,
                             const std::string &what);

/** Writes output_files (kind -> path). `what` names the public call in
 * messages. Target() (unknown arch) means get_target_from_environment().
 * \throws CompileError for an unknown OutputFileType, an empty request, bad
 * arguments (AotArguments.h), a target Loom cannot compile for, a static
 * library for a target without a runtime, or a file that cannot be written. */
void compile_to_files(const std::vector<FunctionPtr> &outputs, const std::map<OutputFileType, std::string> &output_files,
                      const std::vector<Argument> &args, const std::string &fn_name, const Target &target,
                      const std::string &what);

}  // namespace internal
}  // namespace loom

#endif
