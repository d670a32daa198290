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
 * With user_context_argument (the JIT's), NAME takes a leading
 * `void *user_context` that generated code passes to every runtime call
 * (loom_malloc, loom_print, loom_error, loom_trace, loom_do_par_for, ...),
 * and the module also defines
 *   int NAME_argv_with_context(void *user_context, void **args)
 * (NAME_argv passes NULL). In the JIT it is the run's JITUserContext
 * (loom/JITUserContext.h). Without it (AOT) generated code passes NULL.
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
std::unique_ptr<llvm::Module> codegen_llvm(const LoweredFunc &f, const Target &target, llvm::LLVMContext &context,
                                           bool user_context_argument = false);

/** The Vulkan modules a JIT-compiled pipeline initialized: released with
 * it (before its code and state slots go), not kept to the end of the
 * process. */
struct JITKernelStates {
    std::vector<void **> states;
    ~JITKernelStates();
};

/** A JIT-compiled pipeline; `argv` stays valid while `module` lives.
 * argv_with_context passes its user_context (a JITUserContext *, or NULL)
 * to the runtime; argv passes NULL. */
struct JITPipeline {
    int (*argv)(void **args) = nullptr;
    int (*argv_with_context)(void *user_context, void **args) = nullptr;
    std::shared_ptr<JITModule> module;
    std::shared_ptr<JITKernelStates> kernels;  // destroyed before module
};

/** Code generation, optimisation and JIT compilation of f. */
JITPipeline compile_jit(const LoweredFunc &f, const Target &target);

}  // namespace internal
}  // namespace loom

#endif
