#include "aot/RuntimeModule.h"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/Module.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>

#include "aot/EmbeddedFiles.h"
#include "loom/Error.h"

namespace loom {
namespace internal {

namespace {

/** Weak and hidden, as the header explains; and compiled for the pipeline's
 * target rather than for the generic CPU clang assumed. */
void prepare_runtime(llvm::Module &runtime, const llvm::Module &pipeline) {
    runtime.setTargetTriple(pipeline.getTargetTriple());
    runtime.setDataLayout(pipeline.getDataLayout());
    // The pipeline module's settings (PIC, unwind tables) stay in charge.
    if (llvm::NamedMDNode *flags = runtime.getModuleFlagsMetadata()) runtime.eraseNamedMetadata(flags);
    if (llvm::NamedMDNode *ident = runtime.getNamedMetadata("llvm.ident")) runtime.eraseNamedMetadata(ident);
    for (llvm::Function &f : runtime) {
        f.removeFnAttr("target-cpu");
        f.removeFnAttr("target-features");
        f.removeFnAttr("tune-cpu");
    }
    for (llvm::GlobalValue &gv : runtime.global_values()) {
        if (gv.isDeclaration() || gv.hasLocalLinkage() || gv.getName().starts_with("llvm.")) continue;
        gv.setLinkage(llvm::isa<llvm::Function>(gv) ? llvm::GlobalValue::WeakODRLinkage
                                                    : llvm::GlobalValue::WeakAnyLinkage);
        gv.setVisibility(llvm::GlobalValue::HiddenVisibility);
    }
}

/** A library for a target without a GPU API carries no device runtime: its
 * functions become private, so the optimizer drops them with everything
 * only they use (and the library needs no dlopen). */
void keep_device_runtime_private(llvm::Module &runtime) {
    const char *prefixes[] = {"loom_vulkan_", "loom_vk_", "loom_device_", "loom_copy_to_device", "loom_copy_to_host"};
    for (llvm::Function &f : runtime) {
        if (f.isDeclaration()) continue;
        for (const char *p : prefixes) {
            if (f.getName().starts_with(p)) f.setLinkage(llvm::GlobalValue::InternalLinkage);
        }
    }
}

}  // namespace

void require_aot_runtime(const Target &t) {
    if (embedded_runtime_bitcode(t).empty()) {
        throw CompileError("No Loom runtime for target " + t.to_string() +
                           ": static libraries can be built for Linux on x86 and arm, 32- and 64-bit, only (and "
                           "only if clang was found when Loom was built). Use compile_to_object or "
                           "compile_to_file (every target) and link the object with libLoom, or with a Loom "
                           "static library of the same architecture, instead.");
    }
}

void link_aot_runtime(llvm::Module &m, const Target &t) {
    require_aot_runtime(t);
    const std::string_view bitcode = embedded_runtime_bitcode(t);
    std::unique_ptr<llvm::MemoryBuffer> buffer = llvm::MemoryBuffer::getMemBuffer(
        llvm::StringRef(bitcode.data(), bitcode.size()), "loom_runtime", /*RequiresNullTerminator=*/false);
    llvm::Expected<std::unique_ptr<llvm::Module>> runtime = llvm::parseBitcodeFile(*buffer, m.getContext());
    if (!runtime) {
        throw InternalError("Cannot read the embedded runtime bitcode for " + t.to_string() + ": " +
                            llvm::toString(runtime.takeError()));
    }
    prepare_runtime(**runtime, m);
    if (!t.has_feature(Target::Vulkan)) keep_device_runtime_private(**runtime);
    if (llvm::Linker::linkModules(m, std::move(*runtime))) {
        throw InternalError("Cannot link the Loom runtime into pipeline module " + m.getName().str());
    }
}

}  // namespace internal
}  // namespace loom
