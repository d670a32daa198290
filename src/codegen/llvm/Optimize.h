#ifndef LOOM_CODEGEN_LLVM_OPTIMIZE_H
#define LOOM_CODEGEN_LLVM_OPTIMIZE_H

/** \file
 * The checks and the LLVM optimisation pipeline Loom runs on every module
 * it generates.
 */

namespace llvm {
class Module;
class TargetMachine;
}  // namespace llvm

namespace loom::internal {

/** Checks that m is well-formed LLVM IR, so that a code-generator bug is
 * reported rather than crashing LLVM.
 * \throws InternalError naming the module and the first problems found. */
void verify_module(const llvm::Module &m);

/** Runs LLVM's default per-module pipeline at `level` (0-3; 3 = O3) with the
 * new pass manager, loop and SLP vectorisation on, using tm's cost model.
 * The module's triple and data layout should already match tm.
 * \throws InternalError for a level outside 0-3. */
void optimize_module(llvm::Module &m, llvm::TargetMachine &tm, int level = 3);

}  // namespace loom::internal

#endif
