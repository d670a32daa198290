// The x86 instructions the fixed-point and bit operators become. Each case
// compiles a vectorized Func for an explicit target (never the host's) with
// compile_to_assembly and looks for the instruction in the assembly.

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include "loom/Loom.h"

namespace {

using namespace loom;

const char *kAvx2 = "x86-64-linux-avx-avx2-fma-f16c";
const char *kSse41 = "x86-64-linux-sse41";
const char *kAvx512 = "x86-64-linux-avx512_skylake";

// Assembly of out(x) = op(a(x), b(x)) on buffers of type t, vectorized by lanes.
std::string assembly(Type t, int lanes, const std::function<Expr(Expr, Expr)> &op, const char *target,
                     const std::string &name) {
    ImageParam a(t, 1, "a"), b(t, 1, "b");
    Var x("x");
    Func out(name);
    out(x) = op(a(x), b(x));
    out.vectorize(x, lanes);
    const std::string path = ::testing::TempDir() + "loom_fixed_point_" + name + ".s";
    out.compile_to_assembly(path, {a, b}, name, Target(target));
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    std::remove(path.c_str());
    return text.str();
}

bool contains(const std::string &s, const char *needle) { return s.find(needle) != std::string::npos; }

TEST(FixedPointInstructions, SaturatingAddOfU8IsPaddusb) {
    auto add = [](Expr a, Expr b) { return saturating_add(a, b); };
    EXPECT_TRUE(contains(assembly(UInt(8), 32, add, kAvx2, "sat_add_u8"), "vpaddusb"));
    EXPECT_TRUE(contains(assembly(UInt(8), 16, add, kSse41, "sat_add_u8_sse"), "paddusb"));
}

TEST(FixedPointInstructions, SaturatingSubOfI16IsPsubsw) {
    auto sub = [](Expr a, Expr b) { return saturating_sub(a, b); };
    EXPECT_TRUE(contains(assembly(Int(16), 16, sub, kAvx2, "sat_sub_i16"), "vpsubsw"));
}

TEST(FixedPointInstructions, SaturatingAddOfI8AndSubOfU16) {
    EXPECT_TRUE(contains(assembly(Int(8), 32, [](Expr a, Expr b) { return saturating_add(a, b); }, kAvx2, "sat_add_i8"),
                         "vpaddsb"));
    EXPECT_TRUE(contains(assembly(UInt(16), 16, [](Expr a, Expr b) { return saturating_sub(a, b); }, kAvx2,
                                  "sat_sub_u16"),
                         "vpsubusw"));
}

TEST(FixedPointInstructions, RoundingHalvingAddOfU8IsPavgb) {
    auto avg = [](Expr a, Expr b) { return rounding_halving_add(a, b); };
    EXPECT_TRUE(contains(assembly(UInt(8), 32, avg, kAvx2, "avg_u8"), "vpavgb"));
    EXPECT_TRUE(contains(assembly(UInt(8), 16, avg, kSse41, "avg_u8_sse"), "pavgb"));
    EXPECT_TRUE(contains(assembly(UInt(16), 16, avg, kAvx2, "avg_u16"), "vpavgw"));
}

TEST(FixedPointInstructions, MulShiftRightOfI16By16IsPmulhw) {
    auto mulhi = [](Expr a, Expr b) { return mul_shift_right(a, b, 16); };
    EXPECT_TRUE(contains(assembly(Int(16), 16, mulhi, kAvx2, "mulhi_i16"), "vpmulhw"));
    auto mulhi_u = [](Expr a, Expr b) { return mul_shift_right(a, b, 16); };
    EXPECT_TRUE(contains(assembly(UInt(16), 16, mulhi_u, kAvx2, "mulhi_u16"), "vpmulhuw"));
}

TEST(FixedPointInstructions, CountLeadingZerosIsLzcnt) {
    auto clz = [](Expr a, Expr) { return count_leading_zeros(a); };
    EXPECT_TRUE(contains(assembly(UInt(32), 16, clz, kAvx512, "clz_u32_avx512"), "vplzcntd"));
    EXPECT_TRUE(contains(assembly(UInt(32), 1, clz, kAvx2, "clz_u32"), "lzcnt"));
    auto ctz = [](Expr a, Expr) { return count_trailing_zeros(a); };
    EXPECT_TRUE(contains(assembly(UInt(32), 1, ctz, kAvx2, "ctz_u32"), "tzcnt"));
    auto pop = [](Expr a, Expr) { return popcount(a); };
    EXPECT_TRUE(contains(assembly(UInt(64), 1, pop, kAvx2, "pop_u64"), "popcnt"));
}

TEST(FixedPointInstructions, FmaIsVfmadd) {
    auto f = [](Expr a, Expr b) { return fma(a, b, a); };
    EXPECT_TRUE(contains(assembly(Float(32), 8, f, kAvx2, "fma_f32"), "vfmadd"));
}

}  // namespace
