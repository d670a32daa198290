// Integer lets with a min or max in them (the bounds of partitioned loops,
// the clamped coordinate of a ShiftInwards tail) reach LLVM as a `freeze` of
// their value (coordinates excepted), so that scalar evolution sees them as unknowns instead of
// composing nested min/max trees that loop strength reduction expands over
// and over (CodeGen_LLVM_Stmt.cpp). The values computed must not change.

#include <gtest/gtest.h>

#include <string>

#include "codegen/PipelineIR.h"
#include "loom/Loom.h"

namespace {

using namespace loom;
using loom_test::has;

const Target kAvx2("x86-64-linux-avx2-fma");

// f(x, y) = in(x, y) * 3 + x - y over a region whose width is not a multiple
// of the vector or of the split: partitioned loops and ShiftInwards tails.
struct TiledPipeline {
    ImageParam in{Int(32), 2, "in"};
    Var x{"x"}, y{"y"}, xo{"xo"}, xi{"xi"}, yo{"yo"}, yi{"yi"};
    Func f{"f"};
    TiledPipeline() {
        f(x, y) = in(x, y) * 3 + x - y;
        f.split(y, yo, yi, 4).split(x, xo, xi, 16).reorder(xi, yi, xo, yo).vectorize(xi, 8);
    }
};

TEST(FrozenLoopBounds, MinMaxLetsAreFrozen) {
    TiledPipeline p;
    const std::string ir = loom_test::llvm_ir(p.f, kAvx2);
    // The end of the steady part of the partitioned tile loop, a let of a
    // max of a min.
    EXPECT_TRUE(has(ir, R"(%f\.s0\.xo\.steady_end\w* = freeze i32 )")) << ir;
    // A coordinate (the ShiftInwards clamp of a tile's column) stays
    // visible to LLVM, as index arithmetic.
    EXPECT_FALSE(has(ir, R"(%f\.s0\.x\w* = freeze )")) << ir;
    EXPECT_TRUE(has(ir, R"(%f\.s0\.x\w* = add nsw i32 )")) << ir;
}

TEST(FrozenLoopBounds, ValuesMatchCpp) {
    TiledPipeline p;
    const int width = 53, height = 19;
    Buffer<int> input(width, height);
    for (int j = 0; j < height; j++) {
        for (int i = 0; i < width; i++) input(i, j) = (i * 7 + j * 13) % 31 - 15;
    }
    p.in.set(input);
    Buffer<int> out = p.f.realize({width, height});
    for (int j = 0; j < height; j++) {
        for (int i = 0; i < width; i++) {
            ASSERT_EQ(out(i, j), input(i, j) * 3 + i - j) << "at " << i << ", " << j;
        }
    }
}

}  // namespace
