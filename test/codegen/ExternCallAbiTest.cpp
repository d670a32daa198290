// C functions called from generated code (extern stages, define_extern)
// receive narrow integer and bool arguments extended to 32 bits, as from C:
// the caller extends them on x86, x86-64 and 32-bit ARM, and a C callee
// compiled by clang relies on it.

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

TEST(ExternCallAbi, NarrowScalarArgumentsAreExtendedLikeC) {
    ImageParam in(Int(32), 1, "in");
    Param<uint8_t> small("small");
    Param<int16_t> medium("medium");
    Param<bool> flag("flag");
    Param<int> wide("wide");
    Func f("f");
    f.define_extern("ext_abi_narrow", {in, small, medium, flag, wide}, Int(32), 1);
    for (const char *name : {"x86-64-linux", "x86-32-linux", "arm-32-linux", "arm-64-linux"}) {
        SCOPED_TRACE(name);
        const std::string ir = llvm_ir(f, Target(name));
        EXPECT_TRUE(std::regex_search(
            ir, std::regex(R"(declare i32 @ext_abi_narrow\(ptr, i8 zeroext, i16 signext, i1 zeroext, i32, ptr\))")))
            << ir;
    }
}

}  // namespace
