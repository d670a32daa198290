#ifndef LOOM_CODEGEN_LLVM_JITMODULE_H
#define LOOM_CODEGEN_LLVM_JITMODULE_H

/** \file
 * JIT compilation of an LLVM module into this process.
 *
 *     auto jit = JITModule::compile(std::move(module), std::move(context),
 *                                   get_jit_target_from_environment());
 *     auto *fn = reinterpret_cast<int (*)(int)>(jit->lookup("my_pipeline"));
 *
 * The machine code lives as long as the JITModule: keep the shared_ptr
 * alive while any pointer from lookup() may be called. No LLVM header is
 * needed to use this one.
 */

#include "loom/Target.h"

#include <map>
#include <memory>
#include <string>

namespace llvm {
class LLVMContext;
class Module;
}  // namespace llvm

namespace loom::internal {

/** The LLVM optimisation level (0-3) of JIT code, for the IR passes and the
 * code generator alike: LOOM_JIT_OPT_LEVEL if set, else 3. Read at each
 * compile, so a test (the schedule fuzzer) can lower it to compile faster.
 * \throws CompileError if LOOM_JIT_OPT_LEVEL is set to anything else. */
int jit_opt_level_from_environment();

/** A context for LLVM IR that is compiled and never printed (the JIT's): it
 * discards the names of instructions, arguments and blocks
 * (LLVMContext::setDiscardValueNames, as clang does in release builds);
 * functions and globals keep theirs, so lookup() still finds them. LLVM's
 * code generation creates, renames and deletes many named values on a large
 * function (CodeGen Prepare's sign-extension promotion): on fuzz seed 981160
 * `llc -O3` took 2.6 s instead of 3.5 s without the names. IR meant to be
 * read (compile_to_llvm_assembly) keeps them. */
std::unique_ptr<llvm::LLVMContext> make_unnamed_llvm_context();

class JITModule {
public:
    /** Extra symbols the JIT code may call, by unmangled name (user extern
     * functions). */
    using SymbolMap = std::map<std::string, void *>;

    /** Sets the module's triple and data layout for `target`, verifies and
     * optimises it (at jit_opt_level_from_environment(), O3 unless
     * LOOM_JIT_OPT_LEVEL says otherwise), and compiles every function with
     * external linkage.
     * Calls from the module resolve, in order, to: the Loom runtime
     * (loom_malloc, loom_free, loom_error, loom_print, ...), `extern_symbols`,
     * then any symbol of this process (libm's sinf, libc's memcpy, ...).
     * Thread-safe: each call builds an independent JIT.
     * \throws CompileError if `target` cannot run in this process (another
     * arch/bits/OS, or an instruction set the CPU lacks), or if
     * LOOM_JIT_OPT_LEVEL is set to anything but 0-3.
     * \throws InternalError if the module does not verify or fails to
     * compile or link (e.g. calls an unknown function). */
    static std::shared_ptr<JITModule> compile(std::unique_ptr<llvm::Module> module,
                                              std::unique_ptr<llvm::LLVMContext> context,
                                              const Target &target,
                                              const SymbolMap &extern_symbols = {});

    /** Address of a function or global the module defines with external
     * linkage, by its IR name. Runtime and process symbols are not found here.
     * \throws InternalError if the module has no such symbol. */
    void *lookup(const std::string &name) const;

    const Target &target() const;

    ~JITModule();
    JITModule(const JITModule &) = delete;
    JITModule &operator=(const JITModule &) = delete;

private:
    struct Impl;
    explicit JITModule(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace loom::internal

#endif
