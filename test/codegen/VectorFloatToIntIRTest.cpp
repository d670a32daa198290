// On x86 a vectorized float -> int cast is vector instructions (a clamp, one
// fptosi, two selects), not LLVM's saturating intrinsic, whose vector form
// LLVM 19 scalarizes with branches per lane; scalar casts and other targets
// keep the intrinsic. Values: test/e2e/VectorFloatToIntTest.cpp.
#include <gtest/gtest.h>

#include <string>

#include "codegen/PipelineIR.h"
#include "loom/Loom.h"

namespace {

using namespace loom;
using loom_test::has;

std::string cast_ir(const Target &target, int lanes) {
    ImageParam in(Float(32), 1, "in");
    Var x("x");
    Func f("f");
    f(x) = cast<int>(in(x) * 7.0f);
    if (lanes > 1) f.vectorize(x, lanes);
    return loom_test::llvm_ir(f, target);
}

TEST(VectorFloatToIntIR, X86VectorCastIsVectorInstructions) {
    const std::string ir = cast_ir(Target("x86-64-linux-avx2-fma"), 8);
    EXPECT_FALSE(has(ir, R"(llvm\.fptosi\.sat\.v8i32)")) << ir;
    EXPECT_TRUE(has(ir, R"(fptosi <8 x float> %\w+ to <8 x i32>)")) << ir;
    EXPECT_TRUE(has(ir, R"(fcmp uno <8 x float>)")) << ir;
}

TEST(VectorFloatToIntIR, ScalarCastKeepsTheIntrinsic) {
    const std::string ir = cast_ir(Target("x86-64-linux-avx2-fma"), 1);
    EXPECT_TRUE(has(ir, R"(llvm\.fptosi\.sat\.i32\.f32)")) << ir;
}

TEST(VectorFloatToIntIR, ArmVectorCastKeepsTheIntrinsic) {
    const std::string ir = cast_ir(Target("arm-64-linux"), 4);
    EXPECT_TRUE(has(ir, R"(llvm\.fptosi\.sat\.v4i32\.v4f32)")) << ir;
}

}  // namespace
