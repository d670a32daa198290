// Names of LLVM values: the JIT's context discards the names of
// instructions, arguments and blocks (code generation of a large function
// spends time on them), functions keep theirs, and LLVM assembly written for
// people (compile_to_llvm_assembly) keeps every name.

#include "PipelineIR.h"

#include "codegen/llvm/JITModule.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace {

using namespace loom;

/** How many instructions, arguments and blocks of the module's defined
 * functions have a name. */
int named_local_values(const llvm::Module &m) {
    int named = 0;
    for (const llvm::Function &fn : m) {
        if (fn.isDeclaration()) continue;
        for (const llvm::Argument &a : fn.args()) named += a.hasName();
        for (const llvm::BasicBlock &bb : fn) {
            named += bb.hasName();
            for (const llvm::Instruction &i : bb) named += i.hasName();
        }
    }
    return named;
}

/** A pipeline with a loop, a let and a named input: plenty of names. */
struct ScaledPipeline {
    ImageParam in{Int(32), 1, "in"};
    Var x{"x"};
    Func scaled{"scaled"};
    ScaledPipeline() { scaled(x) = in(x) * 3 + in(x + 1); }
};

TEST(LLVMValueNames, TheJITContextDiscardsLocalNamesAndKeepsFunctionNames) {
    ScaledPipeline p;
    const Target target = get_host_target();
    internal::LoweredFunc lowered = internal::lower({p.scaled.function()}, "scaled", target);

    llvm::LLVMContext named_context;
    std::unique_ptr<llvm::Module> named = internal::codegen_llvm(lowered, target, named_context);
    ASSERT_GT(named_local_values(*named), 0) << "the plain context should keep names, or this test checks nothing";

    std::unique_ptr<llvm::LLVMContext> context = internal::make_unnamed_llvm_context();
    std::unique_ptr<llvm::Module> unnamed = internal::codegen_llvm(lowered, target, *context);
    EXPECT_EQ(named_local_values(*unnamed), 0);
    EXPECT_NE(unnamed->getFunction("scaled"), nullptr);
    EXPECT_NE(unnamed->getFunction("scaled_argv"), nullptr);
}

TEST(LLVMValueNames, TheJITStillRunsThePipeline) {
    ScaledPipeline p;
    Buffer<int32_t> input(9);
    for (int i = 0; i < 9; i++) input(i) = 5 * i - 7;
    p.in.set(input);
    Buffer<int32_t> out = p.scaled.realize({8});
    for (int i = 0; i < 8; i++) EXPECT_EQ(out(i), input(i) * 3 + input(i + 1)) << "at " << i;
}

TEST(LLVMValueNames, LlvmAssemblyKeepsTheNames) {
    ScaledPipeline p;
    const std::filesystem::path path =
        std::filesystem::temp_directory_path() / ("loom_value_names_" + std::to_string(getpid()) + ".ll");
    p.scaled.compile_to_llvm_assembly(path.string(), {p.in}, "scaled", get_host_target());
    std::stringstream text;
    text << std::ifstream(path).rdbuf();
    std::filesystem::remove(path);
    const std::string ll = text.str();
    ASSERT_NE(ll.find("define"), std::string::npos) << ll;
    // The input's fields and the output's loop keep the names Loom gave them.
    EXPECT_TRUE(loom_test::has(ll, "%in\\.min\\.0")) << ll;
    EXPECT_TRUE(loom_test::has(ll, "scaled\\.s0\\.x")) << ll;
}

}  // namespace
