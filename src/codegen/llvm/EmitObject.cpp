#include "codegen/llvm/EmitObject.h"

#include "codegen/llvm/LLVMTarget.h"
#include "codegen/llvm/Optimize.h"
#include "loom/Error.h"

#include <llvm/ADT/SmallString.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <memory>

namespace loom::internal {

namespace {

// Sets m up for t and returns the machine that will lower it.
std::unique_ptr<llvm::TargetMachine> prepare(llvm::Module &m, const Target &t) {
    std::unique_ptr<llvm::TargetMachine> tm = make_target_machine(t);
    m.setTargetTriple(tm->getTargetTriple().str());
    m.setDataLayout(tm->createDataLayout());
    verify_module(m);
    return tm;
}

void emit(llvm::Module &m, llvm::TargetMachine &tm, const Target &t, llvm::raw_pwrite_stream &out,
          llvm::CodeGenFileType kind) {
    // LLVM 19's code generator still runs under the legacy pass manager.
    llvm::legacy::PassManager passes;
    if (tm.addPassesToEmitFile(passes, out, nullptr, kind)) {
        throw InternalError("LLVM cannot emit this kind of file for " + t.to_string());
    }
    passes.run(m);
}

}  // namespace

std::string emit_assembly(llvm::Module &m, const Target &t) {
    std::unique_ptr<llvm::TargetMachine> tm = prepare(m, t);
    // Comments in the listing: each basic block's name (`# %<loop>.loop`),
    // which stmt_html links loops to, and LLVM's notes on spills and loops.
    tm->Options.MCOptions.AsmVerbose = true;
    llvm::SmallString<0> text;
    llvm::raw_svector_ostream out(text);
    emit(m, *tm, t, out, llvm::CodeGenFileType::AssemblyFile);
    return std::string(text.str());
}

std::string emit_object(llvm::Module &m, const Target &t) {
    std::unique_ptr<llvm::TargetMachine> tm = prepare(m, t);
    llvm::SmallString<0> bytes;
    llvm::raw_svector_ostream out(bytes);
    emit(m, *tm, t, out, llvm::CodeGenFileType::ObjectFile);
    return std::string(bytes.str());
}

void emit_object_file(llvm::Module &m, const Target &t, const std::string &path) {
    std::unique_ptr<llvm::TargetMachine> tm = prepare(m, t);
    std::error_code error;
    llvm::raw_fd_ostream out(path, error, llvm::sys::fs::OF_None);
    if (error) throw CompileError("Cannot write object file '" + path + "': " + error.message());
    emit(m, *tm, t, out, llvm::CodeGenFileType::ObjectFile);
    out.close();
    if (out.has_error()) {
        const std::string message = out.error().message();
        out.clear_error();
        throw CompileError("Cannot write object file '" + path + "': " + message);
    }
}

}  // namespace loom::internal
