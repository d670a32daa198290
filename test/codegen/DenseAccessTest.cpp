// Buffer arguments are dense in dimension 0 (stride 1, checked on entry), so
// affine accesses of a vectorized pipeline are plain vector loads and stores:
// the lowered statement indexes with the constant 1, and the LLVM IR has no
// gather or scatter for them. Non-affine indices still gather.

#include <gtest/gtest.h>

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
#include "ir/IRPrinter.h"
#include "lower/Lower.h"
#include "loom/Loom.h"

namespace {

using namespace loom;

const Target kAvx2("x86-64-linux-avx2-fma");

struct Compiled {
    std::string stmt;      // the lowered statement
    std::string ir;        // LLVM IR as Loom emits it
    std::string ir_opt;    // after LLVM's optimisation
};

Compiled compile(Func &f) {
    internal::LoweredFunc lf = internal::lower({f.function()}, f.name(), kAvx2);
    Compiled c;
    c.stmt = internal::to_string(lf.body);
    llvm::LLVMContext context;
    std::unique_ptr<llvm::Module> module = internal::codegen_llvm(lf, kAvx2, context);
    llvm::raw_string_ostream ir(c.ir);
    module->print(ir, nullptr);
    ir.flush();
    auto tm = internal::make_target_machine(kAvx2);
    internal::optimize_module(*module, *tm);
    llvm::raw_string_ostream opt(c.ir_opt);
    module->print(opt, nullptr);
    opt.flush();
    return c;
}

bool has(const std::string &text, const std::string &pattern) { return std::regex_search(text, std::regex(pattern)); }

constexpr const char *kGatherScatter = R"(llvm\.masked\.(gather|scatter))";

TEST(DenseAccess, BlurHasOnlyDenseVectorAccesses) {
    Var x("x"), y("y"), xi("xi"), yi("yi");
    ImageParam input(UInt(16), 2, "input");
    Func blur_x("blur_x"), blur_y("blur_y");
    blur_x(x, y) = (input(x - 1, y) + input(x, y) + input(x + 1, y)) / 3;
    blur_y(x, y) = (blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) / 3;
    blur_y.tile(x, y, xi, yi, 64, 32).vectorize(xi, 16).parallel(y);
    blur_x.compute_at(blur_y, x).vectorize(x, 16);
    Compiled c = compile(blur_y);

    // Dimension 0 of every buffer argument is indexed with the constant 1.
    EXPECT_FALSE(has(c.stmt, R"(input\.stride\.0|blur_y\.stride\.0)")) << c.stmt;
    EXPECT_TRUE(has(c.stmt, R"(input\[ramp\([^\]]*, 1, 16\)\])")) << c.stmt;
    EXPECT_TRUE(has(c.stmt, R"(blur_y\[ramp\([^\]]*, 1, 16\)\] =)")) << c.stmt;
    EXPECT_TRUE(has(c.stmt, "buffer_get_stride\\(input\\.buffer, 0\\) == 1")) << c.stmt;

    for (const std::string *ir : {&c.ir, &c.ir_opt}) {
        EXPECT_FALSE(has(*ir, kGatherScatter)) << *ir;
        EXPECT_TRUE(has(*ir, R"(load <16 x i16>)")) << *ir;
        EXPECT_TRUE(has(*ir, R"(store <16 x i16>)")) << *ir;
    }
}

TEST(DenseAccess, RecurrenceAcrossColumnsIsDense) {
    // A column scan vectorized across x (the summed-area table's second
    // pass): loads and stores of whole rows.
    Var x("x"), y("y"), xo("xo"), xi("xi");
    ImageParam in(Int(32), 2, "sat_in");
    Func sat("sat");
    RDom ry(1, in.dim(1).extent() - 1, "ry");
    sat(x, y) = in(x, y);
    sat(x, ry) = sat(x, ry - 1) + in(x, ry);
    sat.update(0).split(x, xo, xi, 8).reorder(xi, ry.x, xo).vectorize(xi);
    Compiled c = compile(sat);
    EXPECT_FALSE(has(c.stmt, R"(for \(sat\.s1\.xi)")) << c.stmt;
    EXPECT_TRUE(has(c.stmt, R"(sat\[ramp\([^\]]*, 1, 8\)\] =)")) << c.stmt;
    for (const std::string *ir : {&c.ir, &c.ir_opt}) {
        EXPECT_FALSE(has(*ir, kGatherScatter)) << *ir;
        EXPECT_TRUE(has(*ir, R"(load <8 x i32>)")) << *ir;
        EXPECT_TRUE(has(*ir, R"(store <8 x i32>)")) << *ir;
    }
}

TEST(DenseAccess, GuardedTailIsAScalarLoopNotMaskedVectors) {
    // GuardWithIf: whole vectors are plain loads and stores; the partial
    // last vector is the scalar loop, not masked (lane by lane) vector code.
    Var x("x"), y("y");
    ImageParam in(UInt(16), 2, "tail_in");
    Func f("tail_out");
    f(x, y) = in(x, y) / 3 + in(x + 1, y);
    f.vectorize(x, 16, TailStrategy::GuardWithIf);
    Compiled c = compile(f);
    EXPECT_TRUE(has(c.stmt, R"(for \(tail_out\.s0\.x_vi, 0, 16\))")) << c.stmt;
    for (const std::string *ir : {&c.ir, &c.ir_opt}) {
        EXPECT_FALSE(has(*ir, R"(llvm\.masked\.)")) << *ir;
        EXPECT_TRUE(has(*ir, R"(load <16 x i16>)")) << *ir;
        EXPECT_TRUE(has(*ir, R"(store <16 x i16>)")) << *ir;
    }
}

TEST(DenseAccess, ReversedAccessIsADenseLoadAndAShuffle) {
    Var x("x");
    ImageParam in(Float(32), 1, "rev_in");
    Func f("mirror");
    f(x) = in(63 - x) * 2.0f;
    f.vectorize(x, 8);
    Compiled c = compile(f);
    EXPECT_TRUE(has(c.stmt, R"(rev_in\[ramp\([^\]]*, -1, 8\)\])")) << c.stmt;
    for (const std::string *ir : {&c.ir, &c.ir_opt}) {
        EXPECT_FALSE(has(*ir, kGatherScatter)) << *ir;
        EXPECT_TRUE(has(*ir, R"(load <8 x float>)")) << *ir;
    }
    EXPECT_TRUE(has(c.ir, R"(shufflevector <8 x float> %\S+, <8 x float> poison, <8 x i32> <i32 7, i32 6,)")) << c.ir;
}

TEST(DenseAccess, DataDependentIndexIsLoadedLaneByLane) {
    Var x("x");
    ImageParam lut(Float(32), 1, "lut");
    ImageParam idx(UInt(8), 1, "idx");
    Func f("lookup");
    f(x) = lut(cast<int>(idx(x)));
    f.vectorize(x, 8);
    Compiled c = compile(f);
    // The index vector is dense, the table lookup is not: one scalar load
    // per lane (CodeGen_LLVM_Memory.cpp), no vector load of the table.
    EXPECT_TRUE(has(c.ir, R"(load <8 x i8>)")) << c.ir;
    EXPECT_TRUE(has(c.ir, R"(load float, ptr)")) << c.ir;
    EXPECT_FALSE(has(c.ir, R"(load <8 x float>)")) << c.ir;
}

}  // namespace
