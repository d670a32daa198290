// The LLVM IR the back end makes for a Func, as text, for codegen tests that
// look for instructions, attributes or declarations in it.
#ifndef LOOM_TEST_CODEGEN_PIPELINE_IR_H
#define LOOM_TEST_CODEGEN_PIPELINE_IR_H

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <memory>
#include <regex>
#include <string>

#include "codegen/llvm/CodeGen_LLVM.h"
#include "codegen/llvm/LLVMTarget.h"
#include "codegen/llvm/Optimize.h"
#include "lower/Lower.h"
#include "loom/Loom.h"

namespace loom_test {

/** f lowered and compiled for target; optimized by Loom's pass pipeline if asked. */
inline std::string llvm_ir(loom::Func &f, const loom::Target &target, bool optimize = false) {
    loom::internal::LoweredFunc lf = loom::internal::lower({f.function()}, f.name(), target);
    llvm::LLVMContext context;
    std::unique_ptr<llvm::Module> module = loom::internal::codegen_llvm(lf, target, context);
    if (optimize) {
        auto machine = loom::internal::make_target_machine(target);
        loom::internal::optimize_module(*module, *machine);
    }
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os, nullptr);
    os.flush();
    return text;
}

/** Whether some part of text matches the regular expression pattern. */
inline bool has(const std::string &text, const std::string &pattern) {
    return std::regex_search(text, std::regex(pattern));
}

}  // namespace loom_test

#endif
