#include "aot/CompileTo.h"

#include <fstream>
#include <memory>
#include <sstream>

#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include "aot/AotArguments.h"
#include "aot/CHeader.h"
#include "aot/EmbeddedBuffers.h"
#include "aot/Metadata.h"
#include "aot/RuntimeModule.h"
#include "aot/StaticLibrary.h"
#include "aot/StmtHtml.h"
#include "codegen/c/CodeGen_C.h"
#include "codegen/llvm/CodeGen_LLVM.h"
#include "codegen/llvm/EmitObject.h"
#include "codegen/llvm/LLVMTarget.h"
#include "codegen/llvm/Optimize.h"
#include "codegen/spirv/CodeGen_SPIRV.h"
#include "ir/IRPrinter.h"
#include "loom/Error.h"

namespace loom {
namespace internal {

namespace {

/** The pipelines' optimised module: each one's code and NAME_metadata, plus
 * the runtime (once) if asked. */
std::unique_ptr<llvm::Module> pipeline_module(const std::vector<ModuleFunctionSource> &sources,
                                              const std::vector<Buffer<>> &buffers, const std::string &module_name,
                                              const Target &t, llvm::LLVMContext &context, bool with_runtime) {
    std::unique_ptr<llvm::Module> m;
    for (const ModuleFunctionSource &source : sources) {
        const LoweredFunc *f = &source.func;
        std::unique_ptr<llvm::Module> one = codegen_llvm(*f, t, context);
        for (const Parameter &b : source.embedded_buffers) define_embedded_buffer_accessor(*one, f->name, b);
        add_metadata_function(*one, *f, t);
        if (!m) {
            m = std::move(one);
            continue;
        }
        if (llvm::Linker::linkModules(*m, std::move(one))) {
            throw InternalError("Linking the code of '" + f->name + "' into one module with the functions before it "
                                "failed (two functions define the same symbol?)");
        }
    }
    std::unique_ptr<llvm::TargetMachine> tm = make_target_machine(t);
    if (!m) {  // buffers only
        m = std::make_unique<llvm::Module>(module_name, context);
        m->setTargetTriple(tm->getTargetTriple().str());
        m->setDataLayout(tm->createDataLayout());
    }
    add_embedded_buffers(*m, buffers);
    if (with_runtime) link_aot_runtime(*m, t);
    verify_module(*m);
    optimize_module(*m, *tm);
    return m;
}

/** The SPIR-V of each GPU kernel, disassembled, as assembler comments after
 * the host code (the host code embeds the same words). */
std::string spirv_assembly_comment(const LoweredFunc &f, const Target &target) {
    std::string text;
    for (const GPUKernel &k : f.kernels) {
        text += "\n# ---- SPIR-V of GPU kernel " + k.name + "\n";
        std::istringstream lines(disassemble_spirv(compile_kernel_to_spirv(k, target)));
        for (std::string line; std::getline(lines, line);) text += "# " + line + "\n";
    }
    return text;
}

std::string llvm_bitcode(const llvm::Module &m) {
    std::string bytes;
    llvm::raw_string_ostream out(bytes);
    llvm::WriteBitcodeToFile(m, out);
    out.flush();
    return bytes;
}

/** The C back end's source (CodeGen_C.h) of every function. Buffers
 * embedded in an object have no C form yet: refused by name. */
std::string c_source(const ModuleContents &module, const std::vector<const LoweredFunc *> &funcs,
                     const std::string &what) {
    for (const Buffer<> &b : module.buffers) {
        throw CompileError(what + ": the C back end (c_source) cannot embed the Buffer '" + b.name() +
                           "' appended to Module '" + module.name +
                           "'; pass it to the function as an ImageParam, or write an object instead.");
    }
    for (const ModuleFunctionSource &s : module.sources) {
        for (const Parameter &b : s.embedded_buffers) {
            throw CompileError(what + ": the C back end (c_source) cannot embed the Buffer '" + b.name() +
                               "' that '" + s.func.name +
                               "' reads; list it in the arguments (as an ImageParam bound to it), or write an "
                               "object instead.");
        }
    }
    return codegen_c(funcs, module.target, what);
}

std::string llvm_assembly(const llvm::Module &m) {
    std::string text;
    llvm::raw_string_ostream out(text);
    m.print(out, nullptr);
    out.flush();
    return text;
}

void write_file(const std::string &path, const std::string &contents, OutputFileType kind) {
    const std::string kind_name = output_file_info().at(kind).name;
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    if (!file) throw CompileError("Cannot open '" + path + "' to write the " + kind_name + " output.");
    file.write(contents.data(), (std::streamsize)contents.size());
    file.close();
    if (!file) throw CompileError("Cannot write the " + kind_name + " output to '" + path + "'.");
}

void check_request(const std::map<OutputFileType, std::string> &output_files, const std::string &what) {
    if (output_files.empty()) throw CompileError(what + ": no output files were requested.");
    for (const auto &[kind, path] : output_files) {
        if (!output_file_info().count(kind)) {
            throw CompileError(what + ": unknown OutputFileType " + std::to_string((int)kind) + " (for file '" + path +
                               "').");
        }
        if (path.empty()) {
            throw CompileError(what + ": the file name for the " + output_file_info().at(kind).name +
                               " output is empty.");
        }
    }
}

}  // namespace

std::string default_function_name(const std::vector<FunctionPtr> &outputs, const std::string &what) {
    if (outputs.empty() || !outputs[0].defined()) throw CompileError(what + ": the pipeline has no outputs.");
    const std::string &name = outputs[0].get()->name;
    if (!is_c_identifier(name) || name.rfind("loom_", 0) == 0) {
        throw CompileError(what + ": Func '" + name +
                           "' cannot name the C function (it must be a C identifier, not starting with 'loom_'). "
                           "Pass a fn_name.");
    }
    return name;
}

std::shared_ptr<ModuleContents> lower_to_module(const std::vector<FunctionPtr> &outputs,
                                                const std::vector<Argument> &args, const std::string &fn_name,
                                                const Target &requested_target, const std::string &what) {
    auto module = std::make_shared<ModuleContents>();
    module->target =
        requested_target.arch == Target::ArchUnknown ? get_target_from_environment() : requested_target;
    module->name = fn_name.empty() ? default_function_name(outputs, what) : fn_name;
    ModuleFunctionSource source;
    std::vector<LoweredArgument> embedded;
    source.func = lower_for_aot(outputs, args, module->name, module->target, what, &source.loop_nest, &embedded);
    // A Buffer read directly and not listed in args is a constant of the
    // object (as in Halide): the function reads its embedded copy.
    for (const LoweredArgument &b : embedded) {
        Expr address = Call::make(Handle(), embedded_buffer_accessor(module->name, b.name), {}, CallType::PureExtern);
        source.func.body = LetStmt::make(b.name + ".buffer", address, source.func.body);
        source.embedded_buffers.push_back(b.param);
    }
    module->sources.push_back(std::move(source));
    return module;
}

void compile_module_to_files(const ModuleContents &module, const std::map<OutputFileType, std::string> &output_files,
                             const std::string &what) {
    check_request(output_files, what);
    const Target &target = module.target;
    if (module.sources.empty() && module.buffers.empty()) {
        throw CompileError(what + ": Module '" + module.name +
                           "' holds no functions; append() a Module made by compile_to_module first.");
    }
    for (const Buffer<> &b : module.buffers) check_embeddable_buffer(b, what);
    for (const ModuleFunctionSource &s : module.sources) {
        for (const Parameter &b : s.embedded_buffers) check_pipeline_embedded_buffer(b, s.func.name, what);
    }
    std::vector<const LoweredFunc *> funcs;
    for (const ModuleFunctionSource &s : module.sources) funcs.push_back(&s.func);
    auto wants = [&](OutputFileType k) { return output_files.count(k) != 0; };
    if (wants(OutputFileType::stmt_html) && funcs.size() != 1) {
        throw CompileError(what + ": Module '" + module.name + "' holds " + std::to_string(funcs.size()) +
                           " functions, and stmt_html shows one; write it from each function's own Module "
                           "(compile_to_module) instead.");
    }

    // no_runtime (Halide's): the static library holds the pipeline alone, to be
    // linked with one runtime written separately (generator driver -r).
    const bool with_runtime = !target.has_feature(Target::NoRuntime);
    if (wants(OutputFileType::static_library) && with_runtime) require_aot_runtime(target);

    std::map<OutputFileType, std::string> contents;
    if (wants(OutputFileType::stmt)) {
        std::string text;
        for (const LoweredFunc *f : funcs) text += (text.empty() ? "" : "\n") + lowered_func_text(*f);
        contents[OutputFileType::stmt] = text;
    }
    if (wants(OutputFileType::c_header)) {
        contents[OutputFileType::c_header] =
            c_header_text(funcs, module.name, target, embedded_buffer_declarations(module.buffers));
    }

    if (wants(OutputFileType::c_source)) contents[OutputFileType::c_source] = c_source(module, funcs, what);

    llvm::LLVMContext context;
    // Value names only cost compile time (LLVM's CodeGen Prepare looks them
    // up again and again: docs/FUZZING.md) unless a text form is written.
    context.setDiscardValueNames(!wants(OutputFileType::llvm_assembly) && !wants(OutputFileType::bitcode) &&
                                 !wants(OutputFileType::assembly) && !wants(OutputFileType::stmt_html));
    if (wants(OutputFileType::object) || wants(OutputFileType::assembly) || wants(OutputFileType::llvm_assembly) ||
        wants(OutputFileType::bitcode) || wants(OutputFileType::stmt_html)) {
        std::unique_ptr<llvm::Module> m =
            pipeline_module(module.sources, module.buffers, module.name, target, context, /*with_runtime=*/false);
        if (wants(OutputFileType::llvm_assembly)) contents[OutputFileType::llvm_assembly] = llvm_assembly(*m);
        if (wants(OutputFileType::bitcode)) contents[OutputFileType::bitcode] = llvm_bitcode(*m);
        // Emission may rewrite the IR, so each emission gets its own copy.
        if (wants(OutputFileType::assembly) || wants(OutputFileType::stmt_html)) {
            std::unique_ptr<llvm::Module> copy = llvm::CloneModule(*m);
            const std::string host_assembly = emit_assembly(*copy, target);
            std::string gpu_assembly;
            for (const LoweredFunc *f : funcs) gpu_assembly += spirv_assembly_comment(*f, target);
            contents[OutputFileType::assembly] = host_assembly + gpu_assembly;
            if (wants(OutputFileType::stmt_html)) {
                contents[OutputFileType::stmt_html] = stmt_html(*funcs[0], module.sources[0].loop_nest, host_assembly);
            }
        }
        if (wants(OutputFileType::object)) contents[OutputFileType::object] = emit_object(*m, target);
    }
    std::string library_object;
    if (wants(OutputFileType::static_library)) {
        std::unique_ptr<llvm::Module> m =
            pipeline_module(module.sources, module.buffers, module.name, target, context, with_runtime);
        library_object = emit_object(*m, target);
    }

    for (const auto &[kind, path] : output_files) {
        if (kind == OutputFileType::static_library) {
            write_static_library(path, module.name + ".o", library_object);
        } else {
            write_file(path, contents.at(kind), kind);
        }
    }
}

void compile_to_files(const std::vector<FunctionPtr> &outputs, const std::map<OutputFileType, std::string> &output_files,
                      const std::vector<Argument> &args, const std::string &fn_name, const Target &target,
                      const std::string &what) {
    check_request(output_files, what);
    compile_module_to_files(*lower_to_module(outputs, args, fn_name, target, what), output_files, what);
}

}  // namespace internal
}  // namespace loom
