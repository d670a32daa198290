// On 64-bit targets the element index of a load or store is summed in 64
// bits (codegen_index64, CodeGen_LLVM_Memory.cpp): the same nsw terms as on
// a 32-bit target, each term that is not a sum or a product with a stride
// computed in 32 bits and sign-extended once. Values inside an index (x * 3)
// still wrap in 32 bits; a 32-bit target keeps the 32-bit sum.

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/PipelineIR.h"
#include "loom/Loom.h"

namespace {

using namespace loom;

using loom_test::has;
using loom_test::llvm_ir;

int count(const std::string &text, const std::string &part) {
    int n = 0;
    for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) n++;
    return n;
}

/** The basic block of ir (unoptimized: one per loop body) that contains part. */
std::string block_with(const std::string &ir, const std::string &part) {
    size_t at = ir.find(part);
    if (at == std::string::npos) return "";
    size_t begin = ir.rfind("\n\n", at);
    size_t end = ir.find("\n\n", at);
    begin = begin == std::string::npos ? 0 : begin + 2;
    return ir.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

TEST(Index64, LoadAddressIs64BitSumWithOneSignExtensionPerVariable) {
    const Target x86_64("x86-64-linux-avx2-fma");
    ImageParam in(Int(32), 2, "in");
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = in(x, y) + 1;
    const std::string ir = llvm_ir(f, x86_64);
    const std::string body = block_with(ir, "getelementptr i32, ptr %in,");
    ASSERT_FALSE(body.empty()) << ir;
    // (y - in.min.1) * in.stride.1 - in.min.0 + x in 64 bits, each variable
    // sign-extended once, x added last.
    EXPECT_TRUE(has(body, R"(%(\d+) = sext i32 %in\.min\.1 to i64\n\s+%(\d+) = sub nsw i64 %\d+, %\1\n)"
                          R"(\s+%(\d+) = sext i32 %in\.stride\.1 to i64\n\s+%(\d+) = mul nsw i64 %\2, %\3\n)"
                          R"(\s+%(\d+) = sext i32 %in\.min\.0 to i64\n\s+%(\d+) = sub nsw i64 %\4, %\5\n)"
                          R"(\s+%(\d+) = sext i32 %f\.s0\.x to i64\n\s+%(\d+) = add nsw i64 %\6, %\7\n)"
                          R"(\s+%\d+ = getelementptr i32, ptr %in, i64 %\8\n)"))
        << body;
    EXPECT_EQ(count(body, "sext i32 %in.stride.1 to i64"), 1) << body;
    EXPECT_EQ(count(body, "sext i32 %in.min.0 to i64"), 1) << body;
    EXPECT_EQ(count(body, "sext i32 %in.min.1 to i64"), 1) << body;
    // No 32-bit index arithmetic is left in the loop body but its counter.
    EXPECT_FALSE(has(body, R"(= (add|sub|mul) nsw i32 %\d+)")) << body;
    EXPECT_FALSE(has(ir, R"(mul nsw i32 %\d+, %in\.stride\.1)")) << ir;
    // The 2^31-byte checks stay: the feature large_buffers keeps its meaning.
    EXPECT_TRUE(has(ir, R"(2\^31 or more)")) << ir;
}

TEST(Index64, ValueTermsInAnIndexStillWrapIn32Bits) {
    const Target x86_64("x86-64-linux-avx2-fma");
    ImageParam in(UInt(8), 1, "in");
    Var x("x");
    Func f("f");
    f(x) = in(x * 3);
    const std::string ir = llvm_ir(f, x86_64);
    // x * 3 is a coordinate computed by multiplication: a 32-bit wrapping
    // product, sign-extended as a whole.
    EXPECT_TRUE(has(ir, R"(%(\d+) = mul i32 %f\.s0\.x, 3\n\s+%\d+ = sext i32 %\1 to i64)")) << ir;
    EXPECT_FALSE(has(ir, R"(mul nsw i64 %\d+, 3)")) << ir;
}

TEST(Index64, SplitCoordinateHasA64BitValueForIndices) {
    const Target x86_64("x86-64-linux-avx2-fma");
    ImageParam in(Float(32), 1, "in");
    Var x("x"), xo("xo"), xi("xi");
    Func f("f");
    f(x) = in(x) * 2.0f;
    f.split(x, xo, xi, 8);
    const std::string ir = llvm_ir(f, x86_64);
    // x = x.loop_min + xo * 8 + xi: the 32-bit nsw value for uses as a value,
    // and a 64-bit one that the addresses use, so that no address
    // sign-extends the 32-bit coordinate.
    EXPECT_TRUE(has(ir, R"(%f\.s0\.x = add nsw i32)")) << ir;
    EXPECT_EQ(count(ir, "sext i32 %f.s0.x to i64"), 0) << ir;
    EXPECT_TRUE(has(ir, R"(sext i32 %f\.s0\.xi\d* to i64)")) << ir;
}

TEST(Index64, ThirtyTwoBitTargetKeeps32BitSums) {
    const Target x86_32("x86-32-linux-sse41");
    ImageParam in(Int(32), 2, "in");
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = in(x, y) + 1;
    const std::string ir = llvm_ir(f, x86_32);
    EXPECT_TRUE(has(ir, R"(mul nsw i32 %\d+, %in\.stride\.1)")) << ir;
    EXPECT_FALSE(has(ir, R"(mul nsw i64)")) << ir;
}

// f(x, y) = in(x - p, y) with p near -2^31 and x near -2^31: the index is
// (x - p - in.min.0) + (y - in.min.1) * in.stride.1, small, but the code
// generator adds the loop-invariant terms first (-p - in.min.0 + row
// offset), which is past 2^31 - 1 from the fourth row on. In 64 bits that
// partial sum is exact.
TEST(Index64, InvariantPartialSumPast32BitsGivesExactIndices) {
    const int width = 256, height = 8;
    const int32_t p_value = -2147483000;  // x runs from p_value: x - p is 0..width-1
    Buffer<int32_t> input(width, height);
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) input(x, y) = y * 100000 + x * 7 + 3;
    }
    ImageParam in(Int(32), 2, "in");
    Param<int32_t> p("p");
    Var x("x"), y("y");
    for (int vectorized = 0; vectorized < 2; vectorized++) {
        Func f("f");
        f(x, y) = in(x - p, y) * 2 + 1;
        if (vectorized) f.vectorize(x, 8);
        in.set(input);
        p.set(p_value);
        Buffer<int32_t> out(width, height);
        out.set_min({p_value, 0});
        f.realize(out);
        int mismatches = 0;
        for (int yy = 0; yy < height; yy++) {
            for (int i = 0; i < width; i++) {
                const int32_t expected = input(i, yy) * 2 + 1;
                if (out(p_value + i, yy) != expected && mismatches++ < 5) {
                    ADD_FAILURE() << "vectorized " << vectorized << " at (" << p_value + i << ", " << yy
                                  << "): " << out(p_value + i, yy) << ", expected " << expected;
                }
            }
        }
        EXPECT_EQ(mismatches, 0) << "vectorized " << vectorized;
    }
}

}  // namespace
