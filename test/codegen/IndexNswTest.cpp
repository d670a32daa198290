// The index arithmetic Loom generates (an element index: coordinates minus
// mins, times strides, summed; loop ends) is marked nsw, with the terms that
// vary in the innermost loop added last, so that LLVM can widen induction
// variables to 64 bits. Arithmetic on values keeps wrapping (no nsw), as
// docs/LANGUAGE.md promises.

#include <gtest/gtest.h>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <memory>
#include <regex>
#include <sstream>
#include <string>

#include "codegen/PipelineIR.h"
#include "codegen/llvm/CodeGen_LLVM.h"
#include "codegen/llvm/LLVMTarget.h"
#include "codegen/llvm/Optimize.h"
#include "lower/Lower.h"
#include "loom/Loom.h"

namespace {

using namespace loom;

const Target kAvx2("x86-64-linux-avx2-fma");

std::string llvm_ir(Func &f, bool optimize) { return loom_test::llvm_ir(f, kAvx2, optimize); }

using loom_test::has;

int count(const std::string &text, const std::string &part) {
    int n = 0;
    for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) n++;
    return n;
}

TEST(IndexNsw, IndexArithmeticIsNswValuesWrap) {
    Var x("x"), y("y");
    ImageParam in(Int(32), 2, "in");
    Func f("f");
    f(x, y) = in(x + 3, y) * 1234567 + 7654321;
    const std::string ir = llvm_ir(f, false);
    // The element index of in: (y - in.min.1) * in.stride.1 + 3 - in.min.0,
    // then + x (the innermost loop's variable) last; in 64 bits on this
    // 64-bit target, each variable sign-extended (test/codegen/Index64Test.cpp).
    EXPECT_TRUE(has(ir, R"(%(\d+) = sext i32 %in\.stride\.1 to i64\n\s+%\d+ = mul nsw i64 %\d+, %\1\n)")) << ir;
    EXPECT_TRUE(has(ir, R"(%(\d+) = sext i32 %in\.min\.0 to i64\n\s+%\d+ = sub nsw i64 %\d+, %\1\n)")) << ir;
    EXPECT_TRUE(has(ir, R"(%(\d+) = sext i32 %f\.s0\.x to i64\n\s+%\d+ = add nsw i64 %\d+, %\1\n)")) << ir;
    EXPECT_TRUE(has(ir, R"(%f\.s0\.x\.end = add nsw i32)")) << ir;
    // The values wrap.
    EXPECT_TRUE(has(ir, R"(= mul i32 %\w+, 1234567\n)")) << ir;
    EXPECT_TRUE(has(ir, R"(= add i32 %\d+, 7654321\n)")) << ir;
    EXPECT_FALSE(has(ir, R"(nsw i32 %\w+, (1234567|7654321))")) << ir;
}

TEST(IndexNsw, HistogramInputIsAddressedByA64BitInductionVariable) {
    // partial(in(r.x, r.y)) += 1: per element, one byte load from the input
    // and one bin increment. With nsw, LLVM walks the input with a 64-bit
    // induction variable: at most the bin's index (the loaded value minus
    // the bin base) is sign-extended per element, not the input's.
    ImageParam in(UInt(8), 2, "in");
    Func partial("partial");
    Var b("b");
    RDom r(0, 512, 0, 64, "r");
    partial(b) = 0;
    partial(clamp(cast<int>(in(r.x, r.y)), 0, 255)) += 1;
    const std::string ir = llvm_ir(partial, true);
    // The basic block of the scan loop (it holds the byte loads).
    std::istringstream lines(ir);
    std::string line, block, scan;
    while (std::getline(lines, line)) {
        if (line.empty()) {
            if (block.find("load i8") != std::string::npos) scan = block;
            block.clear();
        } else {
            block += line + "\n";
        }
    }
    ASSERT_FALSE(scan.empty()) << ir;
    const int loads = count(scan, "load i8");
    EXPECT_GE(loads, 1) << scan;
    EXPECT_LE(count(scan, "sext i32"), loads) << scan;
}

}  // namespace

// A split loop's coordinate (f.s0.x = f.s0.x.loop_min + xo * 16 + xi) is
// index arithmetic too: nsw, so the vectorized blur_y-like store below is
// addressed without a sign extension per vector. A value computed from the
// same coordinate still wraps.
TEST(IndexNsw, SplitCoordinatesAreNswAndNeedNoSignExtensionPerStore) {
    Var x("x"), y("y"), xo("xo"), xi("xi"), xv("xv");
    ImageParam in(UInt(16), 2, "in");
    Func f("f");
    f(x, y) = in(x, y) + cast<uint16_t>(x * 40000);
    f.split(x, xo, xi, 64).split(xi, xi, xv, 16).vectorize(xv);
    const std::string raw = llvm_ir(f, false);
    // The definition of x from its loops.
    EXPECT_TRUE(has(raw, R"(%f\.s0\.x = add nsw i32)")) << raw;
    // x * 40000 is a value: it wraps.
    EXPECT_FALSE(has(raw, R"(mul nsw i32 %[\w.]+, 40000)")) << raw;

    const std::string ir = llvm_ir(f, true);
    // The innermost serial loop (over xi, four vectors per iteration of xo
    // once unrolled) has no sign extension left in the block of its stores.
    std::istringstream lines(ir);
    std::string line, block, stores;
    while (std::getline(lines, line)) {
        if (line.empty()) {
            if (count(block, "store <16 x i16>") > count(stores, "store <16 x i16>")) stores = block;
            block.clear();
        } else {
            block += line + "\n";
        }
    }
    ASSERT_GE(count(stores, "store <16 x i16>"), 1) << ir;
    EXPECT_LT(count(stores, "sext i32"), count(stores, "store <16 x i16>")) << stores;
}
