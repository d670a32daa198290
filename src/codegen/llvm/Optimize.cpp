#include "codegen/llvm/Optimize.h"

#include "loom/Error.h"

#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/OptimizationLevel.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <string>

namespace loom::internal {

namespace {

// Loom's function pipeline (levels 2 and 3), in LLVM's textual syntax.
//
// Lowering hands LLVM loops that are already vectorised, unrolled and
// parallelised as the schedule asked, with index arithmetic marked nsw, but
// without any clean-up: each Let is a value, each stack allocation an
// alloca, every loop invariant computed in the loop. LLVM's O3 pipeline
// (about 90 function passes, the loop and SLP vectorisers, the inliner and
// the inter-procedural passes) spent 15-35 ms a pipeline on the bench
// workloads, most of it on passes that found nothing to do; this one spends
// 4-15 ms and produces the same inner loops for them (see
// docs/PERFORMANCE.md, "JIT compile time"). In order:
//   sroa              allocas (Stack/Register Funcs, the accumulator block
//                     of a matrix multiply) into registers
//   early-cse         the index expressions repeated by each access
//   instcombine, simplifycfg
//   loop-rotate, licm loops in do-while form; invariant index math and
//                     buffer-field loads hoisted; invariant stores sunk
//   indvars           index arithmetic widened to 64 bits with the loop
//                     counter, so addresses need no sign extension per access
//   loop-unroll       small innermost loops with a constant trip count (a
//                     scalar histogram update loop: 2x faster unrolled), never
//                     with run-time trip counts (no remainder loops). With
//                     O3's size thresholds, as Halide, but fully only up to
//                     16 iterations: the blur's 16-vector row loops are
//                     unrolled fully, not 4x (blur 1.11-1.14x -> 1.02-1.05x
//                     Halide's time), while the histogram's 32-iteration sum
//                     of partial histograms is not (fully unrolled it made
//                     that compile 15% longer for no measurable gain)
//   loop-load-elim    a value stored in one iteration and loaded in the
//                     next (a scan: rows(x) = rows(x - 1) + in(x)) stays in
//                     a register; needs the TBAA tags of CodeGen_LLVM_Memory
//   gvn               redundant loads across the unrolled copies
//   instcombine, simplifycfg
// Later, in code generation, loop strength reduction picks the addressing.
constexpr const char *kLoomPipeline =
    "function("
    "sroa,early-cse<memssa>,instcombine<no-verify-fixpoint>,simplifycfg,"
    "loop-mssa(loop-rotate,licm),loop(indvars),loop-load-elim,loop-unroll<O3;no-runtime;full-unroll-max=16>,"
    "gvn,instcombine<no-verify-fixpoint>,simplifycfg)";

// Level 1: clean-up only.
constexpr const char *kCleanupPipeline =
    "function(sroa,early-cse<memssa>,instcombine<no-verify-fixpoint>,simplifycfg)";

}  // namespace

void verify_module(const llvm::Module &m) {
    std::string problems;
    llvm::raw_string_ostream stream(problems);
    if (llvm::verifyModule(m, &stream)) {
        stream.flush();
        throw InternalError("Loom generated an invalid LLVM module '" + m.getName().str() + "': " + problems);
    }
}

void optimize_module(llvm::Module &m, llvm::TargetMachine &tm, int level) {
    if (level < 0 || level > 3) {
        throw InternalError("optimize_module: level must be 0-3, not " + std::to_string(level));
    }

    // LLVM requires this declaration order so that the managers, which
    // refer to each other through proxies, are destroyed in a safe order.
    llvm::LoopAnalysisManager loop_am;
    llvm::FunctionAnalysisManager function_am;
    llvm::CGSCCAnalysisManager cgscc_am;
    llvm::ModuleAnalysisManager module_am;

    llvm::PassBuilder pass_builder(&tm);
    pass_builder.registerModuleAnalyses(module_am);
    pass_builder.registerCGSCCAnalyses(cgscc_am);
    pass_builder.registerFunctionAnalyses(function_am);
    pass_builder.registerLoopAnalyses(loop_am);
    pass_builder.crossRegisterProxies(loop_am, function_am, cgscc_am, module_am);

    llvm::ModulePassManager passes;
    if (level == 0) {
        passes = pass_builder.buildO0DefaultPipeline(llvm::OptimizationLevel::O0);
    } else {
        const char *pipeline = level == 1 ? kCleanupPipeline : kLoomPipeline;
        if (llvm::Error error = pass_builder.parsePassPipeline(passes, pipeline)) {
            throw InternalError("optimize_module: LLVM rejects the pass pipeline \"" + std::string(pipeline) +
                                "\": " + llvm::toString(std::move(error)));
        }
    }
    passes.run(m, module_am);
}

}  // namespace loom::internal
