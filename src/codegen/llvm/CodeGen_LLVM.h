#ifndef LOOM_CODEGEN_LLVM_CODEGEN_LLVM_H
#define LOOM_CODEGEN_LLVM_CODEGEN_LLVM_H

/** \file
 * The LLVM back end: translates a LoweredFunc into LLVM IR, and JIT-compiles
 * it. No LLVM header is needed to call compile_jit().
 *
 * For a LoweredFunc named NAME the module defines:
 *   int NAME(<args>)     one parameter per LoweredArgument: loom_buffer_t*
 *                        for buffers, the scalar's C type for scalars
 *   int NAME_argv(void **args)   the calling convention of LoweredFunc.h
 */

#include <memory>
#include <vector>

#include "ir/LoweredFunc.h"
#include "loom/Target.h"

namespace llvm {
class LLVMContext;
class Module;
}  // namespace llvm

namespace loom {
namespace internal {

class JITModule;

/** Builds (unoptimised) LLVM IR for f. */
std::unique_ptr<llvm::Module> codegen_llvm(const LoweredFunc &f, const Target &target, llvm::LLVMContext &context);

/** The Vulkan modules a JIT-compiled pipeline initialized: released with
 * it (before its code and state slots go), not kept to the end of the
 * process. */
struct JITKernelStates {
    std::vector<void **> states;
    ~JITKernelStates();
};

/** A JIT-compiled pipeline; `argv` stays valid while `module` lives. */
struct JITPipeline {
    int (*argv)(void **args) = nullptr;
    std::shared_ptr<JITModule> module;
    std::shared_ptr<JITKernelStates> kernels;  // destroyed before module
};

/** Code generation, optimisation and JIT compilation of f. */
JITPipeline compile_jit(const LoweredFunc &f, const Target &target);

}  // namespace internal
}  // namespace loom

#endif
