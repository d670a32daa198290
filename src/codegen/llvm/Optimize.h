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

/** Loom's pipeline runs LLVM's loop unroller only on functions of at most
 * this many instructions (counted after the clean-up passes before it): a
 * larger function is one the schedule has already unrolled, and unrolling
 * its inner loops again multiplies its size and its compile time (see
 * Optimize.cpp). */
constexpr unsigned kLoopUnrollInstructionBudget = 16384;

/** Checks that m is well-formed LLVM IR, so that a code-generator bug is
 * reported rather than crashing LLVM.
 * \throws InternalError naming the module and the first problems found. */
void verify_module(const llvm::Module &m);

/** Optimises m for tm with the new pass manager:
 *   level 0   LLVM's O0 pipeline (nothing but what code generation needs);
 *   level 1   clean-up only: promote allocas to registers, CSE, combine
 *             instructions, simplify the control flow;
 *   level 2-3 Loom's pipeline (the default), see Optimize.cpp.
 * Loom's pipeline is not LLVM's O3: the IR Loom generates is already
 * vectorised and unrolled as the schedule says, so LLVM's loop and SLP
 * vectorisers and most of its inter-procedural passes only cost compile
 * time; what remains is what the generated loops need.
 * The module's triple and data layout should already match tm.
 * \throws InternalError for a level outside 0-3. */
void optimize_module(llvm::Module &m, llvm::TargetMachine &tm, int level = 3);

}  // namespace loom::internal

#endif
