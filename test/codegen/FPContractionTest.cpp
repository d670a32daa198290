// Floating-point contraction (CodeGen_LLVM_Arith.cpp): float32 and float64
// a*b + c may become one FMA on a target with FMA; never for Float(16),
// whose every operation rounds to half; never with strict_float.

#include <gtest/gtest.h>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <memory>
#include <regex>
#include <string>

#include "codegen/llvm/EmitObject.h"
#include "codegen/llvm/LLVMTarget.h"
#include "codegen/llvm/Optimize.h"
#include "codegen_ir/CodeGenTestUtil.h"

namespace loom_test_ir {
namespace {

using loom::Float;

// out[i..i+7] = a[i..i+7] * b[i..i+7] + c[i..i+7] (or - c) over vectors of 8
// elements of type t.
LoweredFunc multiply_add(Type t, bool subtract) {
    Expr ramp = Ramp::make(Mul::make(var("xo"), i32(8)), i32(1), 8);
    Expr product = Mul::make(Load::make(t.with_lanes(8), "a", ramp), Load::make(t.with_lanes(8), "b", ramp));
    Expr c = Load::make(t.with_lanes(8), "c", ramp);
    Expr value = subtract ? Sub::make(product, c) : Add::make(product, c);
    Stmt body = For::make("xo", i32(0), Div::make(var("out.extent.0"), i32(8)), ForType::Vectorized, DeviceAPI::None,
                          Store::make("out", value, ramp));
    for (const char *b : {"a", "b", "c", "out"}) body = with_buffer_lets(b, 1, body);
    return make_func("madd",
                     {buffer_arg("a", LoweredArgument::InputBuffer, t, 1),
                      buffer_arg("b", LoweredArgument::InputBuffer, t, 1),
                      buffer_arg("c", LoweredArgument::InputBuffer, t, 1),
                      buffer_arg("out", LoweredArgument::OutputBuffer, t, 1)},
                     body);
}

struct Compiled {
    std::string ir;   // the optimised module
    std::string asm_; // its assembly
};

Compiled compile(const LoweredFunc &f, const loom::Target &target) {
    llvm::LLVMContext context;
    std::unique_ptr<llvm::Module> module = codegen_llvm(f, target, context);
    auto tm = make_target_machine(target);
    optimize_module(*module, *tm);
    Compiled out;
    llvm::raw_string_ostream stream(out.ir);
    module->print(stream, nullptr);
    stream.flush();
    out.asm_ = emit_assembly(*module, target);
    return out;
}

bool has(const std::string &text, const char *pattern) { return std::regex_search(text, std::regex(pattern)); }

// An FMA in the optimised module: a fused intrinsic, or a multiply whose
// result feeds an add that both carry `contract` (the back end fuses them).
bool fusable_ir(const std::string &ir) {
    return has(ir, R"(@llvm\.(fma|fmuladd)\.)") ||
           (has(ir, R"(fmul contract)") && has(ir, R"(f(add|sub) contract)"));
}

TEST(FPContraction, Float32MultiplyAddBecomesFmaOnFmaTarget) {
    const loom::Target fma("x86-64-linux-avx2-fma");
    for (bool subtract : {false, true}) {
        SCOPED_TRACE(subtract ? "a*b - c" : "a*b + c");
        const Compiled c = compile(multiply_add(Float(32), subtract), fma);
        EXPECT_TRUE(fusable_ir(c.ir)) << c.ir;
        EXPECT_TRUE(has(c.asm_, R"(\bvfm(add|sub)\d+ps\s+[^\n]*%ymm)")) << c.asm_;
        EXPECT_FALSE(has(c.asm_, R"(\bvmulps\b)")) << c.asm_;
    }
}

TEST(FPContraction, Float64MultiplyAddBecomesFma) {
    const Compiled c = compile(multiply_add(Float(64), false), loom::Target("x86-64-linux-avx2-fma"));
    EXPECT_TRUE(fusable_ir(c.ir)) << c.ir;
    EXPECT_TRUE(has(c.asm_, R"(\bvfmadd\d+pd\b)")) << c.asm_;
}

TEST(FPContraction, StrictFloatKeepsMultiplyAndAddSeparate) {
    const loom::Target strict("x86-64-linux-avx2-fma-strict_float");
    for (Type t : {Float(32), Float(64)}) {
        SCOPED_TRACE(t.bits());
        const Compiled c = compile(multiply_add(t, false), strict);
        EXPECT_FALSE(fusable_ir(c.ir)) << c.ir;
        EXPECT_FALSE(has(c.ir, R"(\bcontract\b)")) << c.ir;
        EXPECT_FALSE(has(c.asm_, R"(\bvfm(add|sub))")) << c.asm_;
        EXPECT_TRUE(has(c.asm_, R"(\bvmulp[sd]\b)")) << c.asm_;
    }
}

TEST(FPContraction, Float16IsNeverContracted) {
    // Each half operation is computed in float and rounded to half; an FMA
    // would skip the rounding of the product.
    const Compiled c = compile(multiply_add(Float(16), false), loom::Target("x86-64-linux-avx2-fma-f16c"));
    EXPECT_FALSE(fusable_ir(c.ir)) << c.ir;
    EXPECT_FALSE(has(c.ir, R"(\bcontract\b)")) << c.ir;
    EXPECT_FALSE(has(c.asm_, R"(\bvfm(add|sub))")) << c.asm_;
}

TEST(FPContraction, NoFmaInstructionsWithoutTheFmaFeature) {
    // Contraction is allowed, but AVX2 without FMA has no instruction for it.
    const Compiled c = compile(multiply_add(Float(32), false), loom::Target("x86-64-linux-avx"));
    EXPECT_FALSE(has(c.asm_, R"(\bvfm(add|sub))")) << c.asm_;
    EXPECT_TRUE(has(c.asm_, R"(\bvmulps\b)")) << c.asm_;
}

}  // namespace
}  // namespace loom_test_ir
