// large_buffers in the LLVM back end: the index arithmetic of loads and
// stores is 64-bit with the feature and 32-bit (sign-extended for the
// address) without it, and only without it does the pipeline carry the
// 2^31-byte checks (lower/LargeBuffers.h).

#include <gtest/gtest.h>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>

#include <memory>
#include <regex>
#include <string>

#include "codegen/PipelineIR.h"
#include "codegen/llvm/CodeGen_LLVM.h"
#include "lower/Lower.h"
#include "loom/Loom.h"

namespace {

using namespace loom;

using loom_test::llvm_ir;
using loom_test::has;

TEST(LargeBuffersIndex, RowOffsetsAre64BitOnlyWithTheFeature) {
    const Target plain("x86-64-linux-avx2-fma");
    ImageParam in(UInt(8), 2, "in");
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = in(x, y) + 1;

    // On a 32-bit target (y - in.min.1) * in.stride.1 is 32-bit; on a 64-bit
    // one without the feature it is summed in 64 bits too (Index64Test.cpp),
    // but the pipeline checks for 2^31 bytes.
    const std::string narrow32 = llvm_ir(f, Target("x86-32-linux-sse41"));
    EXPECT_TRUE(has(narrow32, R"(mul nsw i32 %\d+, %in\.stride\.1)")) << narrow32;
    EXPECT_FALSE(has(narrow32, R"(mul nsw i64)")) << narrow32;
    const std::string narrow = llvm_ir(f, plain);
    EXPECT_TRUE(has(narrow, R"(2\^31 or more)")) << narrow;

    const std::string wide = llvm_ir(f, plain.with_feature(Target::LargeBuffers));
    // The product is 64-bit; no 32-bit product of a stride is left.
    EXPECT_TRUE(has(wide, R"(mul nsw i64 %\d+, %\d+)")) << wide;
    EXPECT_FALSE(has(wide, R"(mul nsw i32 %\d+, %in\.stride\.1)")) << wide;
    EXPECT_FALSE(has(wide, R"(2\^31 or more)")) << wide;
    // The addresses: a GEP of i8 by an i64 index computed in 64 bits.
    EXPECT_TRUE(has(wide, R"(getelementptr i8, ptr %in, i64 %\d+)")) << wide;
}

TEST(LargeBuffersIndex, HoistedAllocationStridesAre64Bit) {
    // f's storage stride in dimension 2 is extent.0 * extent.1, a let: with
    // the feature, the index uses its 64-bit value.
    const Target plain("x86-64-linux-avx2-fma");
    Var x("x"), y("y"), z("z");
    Func f("f"), g("g");
    f(x, y, z) = cast<uint8_t>(x + y + z);
    g(x, y, z) = f(x, y, z) + f(x + 1, y, z);
    f.compute_root();
    const std::string wide = llvm_ir(g, plain.with_feature(Target::LargeBuffers));
    EXPECT_FALSE(has(wide, R"(mul nsw i32 %\d+, %f\.stride\.\d)")) << wide;
    EXPECT_TRUE(has(wide, R"(mul nsw i64)")) << wide;
}

TEST(LargeBuffersIndex, ParallelBodiesGetThe64BitLetValues) {
    // f's stride in dimension 2 (extent.0 * extent.1) is a let outside the
    // parallel loop over z: its 64-bit value travels in the closure (an i64
    // field), rather than the body sign-extending a 32-bit product.
    const Target plain("x86-64-linux-avx2-fma");
    Var x("x"), y("y"), z("z");
    Func f("f"), g("g");
    f(x, y, z) = cast<uint8_t>(x + y + z);
    g(x, y, z) = f(x, y, z) + f(x + 1, y, z);
    f.compute_root().parallel(z);
    const std::string wide = llvm_ir(g, plain.with_feature(Target::LargeBuffers));
    const size_t body = wide.find("define internal i32 @g.par_for.f.s0.z(");
    ASSERT_NE(body, std::string::npos) << wide;
    const std::string par_for = wide.substr(body);
    EXPECT_TRUE(has(par_for, R"(%"f\.stride\.2\\01wide" = load i64)")) << par_for;
    EXPECT_TRUE(has(par_for, R"(mul nsw i64 %\d+, %"f\.stride\.2\\01wide")")) << par_for;
}

}  // namespace
