// The machine code the LLVM back end makes for lowered IR: dense vectors
// must become whole-register vector moves, and a parallel loop's body must
// be its own function called through loom_do_par_for.

#include <gtest/gtest.h>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
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

// out[8 xo .. 8 xo + 7] = in[8 xo .. 8 xo + 7] * 2.5 over xo, optionally with
// an outer parallel loop over rows of 64 floats.
LoweredFunc dense_float_scale(bool parallel_rows, int lanes = 8) {
    Expr base = Mul::make(var("xo"), i32(lanes));
    if (parallel_rows) base = Add::make(base, Mul::make(var("row"), i32(64)));
    Expr ramp = Ramp::make(base, i32(1), lanes);
    Expr value = Mul::make(Load::make(Float(32, lanes), "in", ramp), Broadcast::make(f32(2.5f), lanes));
    Stmt body = For::make("xo", i32(0), parallel_rows ? i32(64 / lanes) : Div::make(var("out.extent.0"), i32(lanes)),
                          ForType::Vectorized, DeviceAPI::None, Store::make("out", value, ramp));
    if (parallel_rows) {
        body = For::make("row", i32(0), Div::make(var("out.extent.0"), i32(64)), ForType::Parallel, DeviceAPI::None,
                         body);
    }
    return make_func(parallel_rows ? "dense_rows" : "dense",
                     {buffer_arg("in", LoweredArgument::InputBuffer, Float(32), 1),
                      buffer_arg("out", LoweredArgument::OutputBuffer, Float(32), 1)},
                     with_buffer_lets("in", 1, with_buffer_lets("out", 1, body)));
}

std::string assembly_of(const LoweredFunc &f, const loom::Target &target, bool optimize) {
    llvm::LLVMContext context;
    std::unique_ptr<llvm::Module> module = codegen_llvm(f, target, context);
    if (optimize) {
        auto tm = make_target_machine(target);
        optimize_module(*module, *tm);
    }
    return emit_assembly(*module, target);
}

// A ymm instruction reading memory: "op (mem), %ymmA" or "op (mem), %ymmA, %ymmB".
constexpr const char *kYmmLoad = R"(\bv\w+\s+-?\w*\(%\w+(,\s*%\w+(,\s*\d+)?)?\),\s*%ymm\d+)";
// vmovups/vmovaps of a ymm register to memory.
constexpr const char *kYmmStore = R"(\bvmova?u?p[sd]\s+%ymm\d+,\s*-?\w*\(%)";

bool has(const std::string &text, const char *pattern) { return std::regex_search(text, std::regex(pattern)); }

TEST(VectorCodeQuality, DenseFloat32x8UsesYmmMovesOnAvx2) {
    const loom::Target avx2("x86-64-linux-avx2-fma");
    for (bool optimize : {false, true}) {
        SCOPED_TRACE(optimize ? "optimised" : "unoptimised");
        const std::string text = assembly_of(dense_float_scale(false), avx2, optimize);
        // A whole 8 x float32 load (a vmovups, or a memory operand of the
        // multiply) and store through ymm registers...
        EXPECT_TRUE(has(text, kYmmLoad)) << text;
        EXPECT_TRUE(has(text, kYmmStore)) << text;
        EXPECT_TRUE(has(text, R"(vmulps\s+[^\n]*%ymm)")) << text;
        // ...not lane by lane, nor in 16-byte halves.
        EXPECT_FALSE(has(text, R"(vmovss|vinsertps|vextractps|vinsertf128|vextractf128)")) << text;
    }
}

TEST(VectorCodeQuality, DenseFloat32x16UsesZmmOnAvx512) {
    // LLVM prefers 256-bit vectors on Skylake-X-class CPUs and would split
    // each 16-lane operation in two; Loom asks for 512 on AVX-512 targets.
    for (const char *target : {"x86-64-linux-avx512_skylake", "x86-64-linux-avx512-avx512_skylake-avx512_cannonlake"}) {
        SCOPED_TRACE(target);
        const std::string text = assembly_of(dense_float_scale(false, 16), loom::Target(target), true);
        EXPECT_TRUE(has(text, R"(vmulps\s+[^\n]*%zmm)")) << text;
        EXPECT_TRUE(has(text, R"(\bvmovups\s+%zmm\d+,\s*-?\w*\(%)")) << text;
        EXPECT_FALSE(has(text, R"(vmulps\s+[^\n]*%ymm)")) << text;
    }
}

TEST(VectorCodeQuality, DenseFloat32x8UsesXmmPairsWithoutAvx) {
    // Without AVX the widest float registers are 128 bits: two xmm moves.
    const std::string text = assembly_of(dense_float_scale(false), loom::Target("x86-64-linux-sse41"), true);
    EXPECT_TRUE(has(text, R"(movups\s+[^\n]*%xmm)")) << text;
    EXPECT_FALSE(has(text, "ymm")) << text;
}

TEST(VectorCodeQuality, ParallelBodyIsOutlinedAndStillVectorised) {
    const loom::Target avx2("x86-64-linux-avx2-fma");
    const std::string text = assembly_of(dense_float_scale(true), avx2, true);
    EXPECT_TRUE(has(text, R"(call[q]?\s+loom_do_par_for)")) << text;
    EXPECT_TRUE(has(text, R"(dense_rows\.par_for\.row)")) << text;
    EXPECT_TRUE(has(text, kYmmLoad)) << text;
    EXPECT_TRUE(has(text, kYmmStore)) << text;
    EXPECT_FALSE(has(text, R"(vinsertf128|vextractf128)")) << text;
}

}  // namespace
}  // namespace loom_test_ir
