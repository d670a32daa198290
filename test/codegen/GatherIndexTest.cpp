// A gather's element offsets on a 64-bit target (CodeGen_LLVM_Memory.cpp):
// without a mask, an Int(32) index vector of up to 8 lanes is computed in 32
// bits and each lane loaded at host + its sign-extended index, as Halide
// does on x86 (bilateral_grid's slice: 16 such loads of 8 lanes per 8 pixels
// ran 5% faster than vgatherdps on Zen 5, docs/PERFORMANCE.md); loads whose
// indices differ by broadcast terms share the index vector and its extracts.
// 16 lanes gather with 32-bit indices (vgatherdps, not vgatherqps with twice
// the index arithmetic); with large_buffers the index stays 64-bit. The values are
// checked against a C++ loop, with an index whose sum passes 2^31 on the way
// when added in the order the IR writes it.

#include <gtest/gtest.h>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <cstdint>
#include <iterator>
#include <memory>
#include <regex>
#include <string>

#include "codegen/PipelineIR.h"
#include "codegen/llvm/EmitObject.h"
#include "loom/Loom.h"

namespace {

using namespace loom;

using loom_test::has;
using loom_test::llvm_ir;

/** f's assembly for target, optimized by Loom's pass pipeline. */
std::string assembly(Func &f, const Target &target) {
    internal::LoweredFunc lf = internal::lower({f.function()}, f.name(), target);
    llvm::LLVMContext context;
    std::unique_ptr<llvm::Module> module = internal::codegen_llvm(lf, target, context);
    auto machine = internal::make_target_machine(target);
    internal::optimize_module(*module, *machine);
    return internal::emit_assembly(*module, target);
}

/** out(x, y) = lut(index(x, y), y): a table lookup per row (the index
 * clamped to the table, for bounds inference), `lanes` lanes. */
Func row_lookup(ImageParam &lut, ImageParam &index, int lanes = 8) {
    Var x("x"), y("y");
    Func f("row_lookup");
    f(x, y) = lut(clamp(index(x, y), lut.dim(0).min(), lut.dim(0).max()), y);
    f.vectorize(x, lanes);
    return f;
}

TEST(GatherIndex, FloatGatherLoadsEachLaneAtA32BitIndex) {
    const Target avx512("x86-64-linux-avx2-fma-avx512-avx512_skylake");
    ImageParam lut(Float(32), 2, "lut"), index(Int(32), 2, "index");
    Func f = row_lookup(lut, index);
    const std::string ir = llvm_ir(f, avx512);
    // Each lane: its 32-bit index extracted, sign-extended, one scalar load.
    EXPECT_TRUE(has(ir, R"(%(\d+) = extractelement <8 x i32> %\d+, i(32|64) 3\n)"
                        R"((\s+%\d+ = add i32 %\1, %\S+\n)?)"
                        R"(\s+%(\d+) = sext i32 %\d+ to i64\n)"
                        R"(\s+%(\d+) = getelementptr float, ptr %lut, i64 %\4\n)"
                        R"(\s+%\S+ = load float, ptr %\5)"))
        << ir;
    EXPECT_FALSE(has(ir, R"(masked\.gather)")) << ir;
    // No index arithmetic on vectors of 64-bit integers.
    EXPECT_FALSE(has(ir, R"(= (add|sub|mul)( nsw)? <8 x i64>)")) << ir;
    const std::string code = assembly(f, avx512);
    EXPECT_FALSE(has(code, R"(vgather)")) << code;
}

TEST(GatherIndex, LoadsWhoseIndicesDifferByABroadcastShareTheExtracts) {
    // lut(i, y) and lut(i + 1, y): per vector of 8 results, 8 extracts of
    // one index vector and 16 loads (each copy of the loop body alike).
    const Target avx512("x86-64-linux-avx2-fma-avx512-avx512_skylake");
    ImageParam lut(Float(32), 2, "lut"), index(Int(32), 2, "index");
    Var x("x"), y("y");
    Func f("pair_lookup");
    Expr i = clamp(index(x, y), lut.dim(0).min(), lut.dim(0).max() - 1);
    f(x, y) = lut(i, y) + lut(i + 1, y);
    f.vectorize(x, 8);
    const std::string ir = llvm_ir(f, avx512, /*optimize=*/true);
    auto count = [&](const std::string &pattern) {
        std::regex re(pattern);
        return std::distance(std::sregex_iterator(ir.begin(), ir.end(), re), std::sregex_iterator());
    };
    const auto extracts = count(R"(= extractelement <8 x i32>)");
    EXPECT_GT(extracts, 0) << ir;
    EXPECT_EQ(count(R"(= load float, ptr)"), 2 * extracts) << ir;
}

TEST(GatherIndex, SixteenFloatLanesKeepTheGatherWith32BitIndices) {
    const Target avx512("x86-64-linux-avx2-fma-avx512-avx512_skylake");
    ImageParam lut(Float(32), 2, "lut"), index(Int(32), 2, "index");
    Func f = row_lookup(lut, index, 16);
    const std::string ir = llvm_ir(f, avx512);
    EXPECT_TRUE(has(ir, R"(%(\d+) = sext <16 x i32> %\d+ to <16 x i64>\n)"
                        R"(\s+%(\d+) = getelementptr float, ptr %lut, <16 x i64> %\1\n)"
                        R"(\s+%\d+ = call <16 x float> @llvm\.masked\.gather\.v16f32\.v16p0\(<16 x ptr> %\2,)"))
        << ir;
    const std::string code = assembly(f, avx512);
    EXPECT_TRUE(has(code, R"(vgatherdps\s+\S+,\s*%zmm\d+)")) << code;
    EXPECT_FALSE(has(code, R"(vgatherqps)")) << code;
}

TEST(GatherIndex, LargeBuffersKeep64BitIndices) {
    const Target wide("x86-64-linux-avx2-fma-avx512-avx512_skylake-large_buffers");
    ImageParam lut(Float(32), 2, "lut"), index(Int(32), 2, "index");
    Func f = row_lookup(lut, index);
    const std::string ir = llvm_ir(f, wide);
    // (y - lut.min.1) * lut.stride.1 can pass 2^31 elements: the clamped
    // index sign-extended, the row offset and the min added in 64 bits.
    EXPECT_TRUE(has(ir, R"(%(\d+) = sext <8 x i32> %\d+ to <8 x i64>\n)"
                        R"(\s+%(\d+) = add nsw <8 x i64> %\1, %\.splat\d+\n)"
                        R"(\s+%(\d+) = sub nsw <8 x i64> %\2, %\.splat\d*\n)"
                        R"(\s+%\d+ = getelementptr float, ptr %lut, <8 x i64> %\3\n)"))
        << ir;
}

TEST(GatherIndex, ValuesMatchCppLoopWithMinNear2To31) {
    // The table's x coordinates start at 2^31 - 300, so index + (y - min.1) *
    // stride.1 passes 2^31 before min.0 is subtracted: exact in wrapping
    // 32-bit arithmetic, whatever the order of the sum. Width 21 leaves a
    // tail of 5 lanes; the rows of the result start at -2.
    constexpr int kMin0 = 2147483647 - 300, kTableWidth = 256, kRows = 6, kWidth = 21;
    Buffer<float> table(kTableWidth, kRows);
    table.set_min({kMin0, -2});
    for (int y = -2; y < kRows - 2; y++) {
        for (int x = 0; x < kTableWidth; x++) table(kMin0 + x, y) = float(y * 1000 + x) + 0.5f;
    }
    Buffer<int32_t> indices(kWidth, kRows);
    indices.set_min({0, -2});
    for (int y = -2; y < kRows - 2; y++) {
        for (int x = 0; x < kWidth; x++) indices(x, y) = kMin0 + (x * 37 + y * 11 + 256) % kTableWidth;
    }
    ImageParam lut(Float(32), 2, "lut"), index(Int(32), 2, "index");
    lut.set(table);
    index.set(indices);
    Func f = row_lookup(lut, index);
    Buffer<float> out(kWidth, kRows);
    out.set_min({0, -2});
    f.realize(out);
    for (int y = -2; y < kRows - 2; y++) {
        for (int x = 0; x < kWidth; x++) {
            const float expected = table(indices(x, y), y);
            ASSERT_EQ(out(x, y), expected) << "at (" << x << ", " << y << ")";
        }
    }
}

}  // namespace
