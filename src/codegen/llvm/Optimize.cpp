#include "codegen/llvm/Optimize.h"

#include "loom/Error.h"

#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/OptimizationLevel.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <string>

namespace loom::internal {

namespace {

llvm::OptimizationLevel optimization_level(int level) {
    switch (level) {
    case 0: return llvm::OptimizationLevel::O0;
    case 1: return llvm::OptimizationLevel::O1;
    case 2: return llvm::OptimizationLevel::O2;
    case 3: return llvm::OptimizationLevel::O3;
    default: break;
    }
    throw InternalError("optimize_module: level must be 0-3, not " + std::to_string(level));
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
    const llvm::OptimizationLevel opt_level = optimization_level(level);

    llvm::PipelineTuningOptions tuning;
    tuning.LoopVectorization = true;
    tuning.SLPVectorization = true;
    tuning.LoopUnrolling = true;
    tuning.LoopInterleaving = true;

    // LLVM requires this declaration order so that the managers, which
    // refer to each other through proxies, are destroyed in a safe order.
    llvm::LoopAnalysisManager loop_am;
    llvm::FunctionAnalysisManager function_am;
    llvm::CGSCCAnalysisManager cgscc_am;
    llvm::ModuleAnalysisManager module_am;

    llvm::PassBuilder pass_builder(&tm, tuning);
    pass_builder.registerModuleAnalyses(module_am);
    pass_builder.registerCGSCCAnalyses(cgscc_am);
    pass_builder.registerFunctionAnalyses(function_am);
    pass_builder.registerLoopAnalyses(loop_am);
    pass_builder.crossRegisterProxies(loop_am, function_am, cgscc_am, module_am);

    llvm::ModulePassManager passes = level == 0 ? pass_builder.buildO0DefaultPipeline(opt_level)
                                                : pass_builder.buildPerModuleDefaultPipeline(opt_level);
    passes.run(m, module_am);
}

}  // namespace loom::internal
