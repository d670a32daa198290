#include "codegen/llvm/Optimize.h"

#include "loom/Error.h"

#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/OptimizationLevel.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/Scalar/LoopUnrollPass.h>

#include <string>

namespace loom::internal {

namespace {

// Loom's function pipeline (levels 2 and 3): the passes below, in LLVM's
// textual syntax, with LLVM's loop unroller between them (UnrollWithinBudget).
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
//   loop-unroll       small innermost loops: fully when the trip count is
//                     a constant (a scalar histogram update loop: 2x faster
//                     unrolled), partly with a remainder loop when it is
//                     known only at run time (see below). With
//                     O3's size thresholds, as Halide, but fully only up to
//                     16 iterations: the blur's 16-vector row loops are
//                     unrolled fully, not 4x (blur 1.11-1.14x -> 1.02-1.05x
//                     Halide's time), while the histogram's 32-iteration sum
//                     of partial histograms is not (fully unrolled it made
//                     that compile 15% longer for no measurable gain).
//                     Only in functions of at most kLoopUnrollInstructionBudget
//                     instructions (see UnrollWithinBudget below)
//   loop-load-elim    a value stored in one iteration and loaded in the
//                     next (a scan: rows(x) = rows(x - 1) + in(x)) stays in
//                     a register; needs the TBAA tags of CodeGen_LLVM_Memory
//   gvn               redundant loads across the unrolled copies
//   instcombine, simplifycfg
// Later, in code generation, loop strength reduction picks the addressing.
constexpr const char *kLoomPipelineBeforeUnroll =
    "sroa,early-cse<memssa>,instcombine<no-verify-fixpoint>,simplifycfg,"
    "loop-mssa(loop-rotate,licm),loop(indvars),loop-load-elim";
constexpr const char *kLoomPipelineAfterUnroll = "gvn,instcombine<no-verify-fixpoint>,simplifycfg";

// LLVM's loop unroller (loop-unroll<O3;runtime;full-unroll-max=16>), run
// only on functions of at most kLoopUnrollInstructionBudget instructions.
//
// LLVM's thresholds are per loop: any innermost loop of up to 16 iterations
// whose unrolled body is small enough is unrolled, however many such loops
// the function has. A schedule that unrolls (unroll(), or a cascade such as
// {8, 4, 1}) copies everything inside the unrolled loop, its inner loops
// included, so a function that Loom has already unrolled holds those inner
// loops dozens or hundreds of times, and LLVM unrolled each copy again: fuzz
// seed 1026484 had 209 seven-iteration loops, all in copies made by two
// nested cascades, and unrolled they tripled the object code and made the
// compile four times longer (opt and llc 4.3 + 6.9 s, 0.7 + 1.8 s without,
// docs/FUZZING.md). Such a
// function is past the point where unrolling one more small loop pays, and
// what is unrolled in it is left to the schedule. The size is a proxy: LLVM
// does not say which copies Loom made. Below the budget (every function of
// the six apps and of bench_pipelines; the largest, local_laplacian's, has
// 9,236 instructions at that point) nothing changes.
//
// Run-time unrolling (a loop whose trip count is not a constant, unrolled
// with a remainder loop) is on, as in Halide 14's LLVM pipeline. It unrolls
// histogram_equalize's counting loop 8x (LLVM's choice), the one stage where
// that app trailed Halide 14 (1.02-1.03x; 0.96x with it, docs/PERFORMANCE.md,
// "bilateral_grid and histogram_equalize"). Its cost, measured on 250 fuzz
// pipelines at level 3: LLVM's compile time 7% longer in total, 1.67x on
// the worst pipeline (docs/PERFORMANCE.md, "Run-time unrolling").
class UnrollWithinBudget : public llvm::PassInfoMixin<UnrollWithinBudget> {
public:
    llvm::PreservedAnalyses run(llvm::Function &f, llvm::FunctionAnalysisManager &am) {
        if (f.getInstructionCount() > kLoopUnrollInstructionBudget) return llvm::PreservedAnalyses::all();
        return unroll_.run(f, am);
    }

private:
    llvm::LoopUnrollPass unroll_{
        llvm::LoopUnrollOptions(/*OptLevel=*/3).setRuntime(true).setFullUnrollMaxCount(16)};
};

// Level 1: clean-up only.
constexpr const char *kCleanupPipeline =
    "function(sroa,early-cse<memssa>,instcombine<no-verify-fixpoint>,simplifycfg)";

template<typename Manager>
void parse(llvm::PassBuilder &pass_builder, Manager &passes, const char *pipeline) {
    if (llvm::Error error = pass_builder.parsePassPipeline(passes, pipeline)) {
        throw InternalError("optimize_module: LLVM rejects the pass pipeline \"" + std::string(pipeline) +
                            "\": " + llvm::toString(std::move(error)));
    }
}

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
    } else if (level == 1) {
        parse(pass_builder, passes, kCleanupPipeline);
    } else {
        llvm::FunctionPassManager functions;
        parse(pass_builder, functions, kLoomPipelineBeforeUnroll);
        functions.addPass(UnrollWithinBudget());
        parse(pass_builder, functions, kLoomPipelineAfterUnroll);
        passes.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(functions)));
    }
    passes.run(m, module_am);
}

}  // namespace loom::internal
