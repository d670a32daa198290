// 32-bit targets (x86-32, arm-32) in the LLVM back end: the runtime structs
// are laid out with 4-byte pointers, size_t arguments of runtime calls are
// 32-bit, NAME_argv reads pointer slots and scalars with their own
// alignment, and the target machine is made for each 32-bit OS (or refused
// with a CompileError for the features a 32-bit target cannot have).
// test/aot/ThirtyTwoBitAotTest.cpp checks the objects and runs x86-32 code.

#include <gtest/gtest.h>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "codegen/PipelineIR.h"
#include "codegen/llvm/BufferLayout.h"
#include "codegen/llvm/CodeGen_LLVM.h"
#include "codegen/llvm/LLVMTarget.h"
#include "lower/Lower.h"
#include "loom/Loom.h"

namespace {

using namespace loom;

const char *const k32BitTargets[] = {"x86-32-linux", "x86-32-windows", "arm-32-linux", "arm-32-android",
                                     "arm-32-ios-armv7s"};

using loom_test::llvm_ir;
using loom_test::has;

std::string compile_error(const Target &t) {
    try {
        internal::make_target_machine(t);
    } catch (const CompileError &e) {
        return e.what();
    }
    return "(no error)";
}

// loom_buffer_t as a C compiler lays it out with 4-byte pointers: device and
// flags stay uint64_t (8-byte aligned on ARM and Windows, 4 on i386 Linux,
// where both land at the same offsets anyway).
TEST(ThirtyTwoBitTarget, RuntimeStructsHave32BitPointers) {
    for (const char *name : k32BitTargets) {
        SCOPED_TRACE(name);
        const internal::RuntimeStructLayout l = internal::llvm_runtime_struct_layout(Target(name));
        // device, device_interface, host, flags, type, dimensions, dim, padding
        EXPECT_EQ(l.buffer_offsets, (std::vector<uint64_t>{0, 8, 12, 16, 24, 28, 32, 36}));
        EXPECT_EQ(l.buffer_size, 40u);
        EXPECT_EQ(l.dimension_size, 16u);
        EXPECT_EQ(l.type_size, 4u);
    }
    const internal::RuntimeStructLayout host = internal::llvm_runtime_struct_layout(Target("x86-64-linux"));
    EXPECT_EQ(host.buffer_offsets, (std::vector<uint64_t>{0, 8, 16, 24, 32, 36, 40, 48}));
    EXPECT_EQ(host.buffer_size, 56u);
}

TEST(ThirtyTwoBitTarget, TargetMachinesAndTriples) {
    EXPECT_EQ(internal::llvm_triple(Target("arm-32-linux")), "armv7-unknown-linux-gnueabihf");
    EXPECT_EQ(internal::llvm_triple(Target("arm-32-android")), "armv7-unknown-linux-androideabi");
    EXPECT_EQ(internal::llvm_triple(Target("arm-32-ios-armv7s")), "armv7s-apple-ios");
    EXPECT_EQ(internal::llvm_triple(Target("x86-32-windows")), "i386-pc-windows-msvc");
    EXPECT_EQ(internal::llvm_cpu_name(Target("arm-32-ios-armv7s")), "swift");
    EXPECT_EQ(internal::llvm_cpu_name(Target("arm-32-linux")), "cortex-a9");
    EXPECT_EQ(internal::llvm_cpu_name(Target("x86-32-linux-sse41")), "pentium4");
    for (const char *name : k32BitTargets) {
        SCOPED_TRACE(name);
        std::unique_ptr<llvm::TargetMachine> tm = internal::make_target_machine(Target(name));
        ASSERT_TRUE(tm);
        EXPECT_EQ(tm->createDataLayout().getPointerSizeInBits(0), 32u);
        EXPECT_EQ(tm->getTargetTriple().str(), internal::llvm_triple(Target(name)));
    }
}

TEST(ThirtyTwoBitTarget, FeaturesA32BitTargetCannotHaveAreCompileErrors) {
    std::string m = compile_error(Target("arm-32-linux-sve"));
    EXPECT_NE(m.find("arm-32-linux-sve has sve/sve2, which only 64-bit ARM (AArch64) CPUs have"), std::string::npos) << m;
    m = compile_error(Target("x86-32-linux-large_buffers"));
    EXPECT_NE(m.find("x86-32-linux-large_buffers has large_buffers, but a 32-bit target cannot address"),
              std::string::npos)
        << m;
    m = compile_error(Target("x86-32-linux-vulkan"));
    EXPECT_NE(m.find("has vulkan, but Loom runs Vulkan pipelines from 64-bit hosts only"), std::string::npos) << m;
    m = compile_error(Target("arm-64-linux-armv7s"));
    EXPECT_NE(m.find("armv7s, a feature of 32-bit ARM CPUs"), std::string::npos) << m;
    m = compile_error(Target("riscv-32-linux"));
    EXPECT_NE(m.find("riscv-32-linux has no LLVM back end in Loom"), std::string::npos) << m;
    // Through the public API too, before anything is written.
    ImageParam in(UInt(8), 1, "in32_refused");
    Var x("x");
    Func f("f32_refused");
    f(x) = in(x) + 1;
    EXPECT_THROW(f.compile_to_file(::testing::TempDir() + "refused32", {in}, "refused32", Target("arm-32-linux-sve2")),
                 CompileError);
}

// loom_malloc(void *, size_t): the size is i32 on 32-bit targets (an i64 there
// would go in the wrong registers on ARM, r2:r3 instead of r1), i64 on 64-bit.
TEST(ThirtyTwoBitTarget, MallocTakesAPointerSizedSize) {
    ImageParam in(Float(32), 2, "in");
    Var x("x"), y("y");
    Func g("g"), f("f");
    g(x, y) = in(x, y) * 2.0f;
    f(x, y) = g(x, y) + g(x + 1, y);
    g.compute_root();
    for (const char *name : {"x86-32-linux", "arm-32-linux", "arm-32-ios-armv7s"}) {
        SCOPED_TRACE(name);
        const std::string ir = llvm_ir(f, Target(name));
        EXPECT_TRUE(has(ir, R"(declare noalias ptr @loom_malloc\(ptr, i32\))")) << ir;
        EXPECT_TRUE(has(ir, R"(call ptr @loom_malloc\(ptr (null|%user_context), i32 )")) << ir;
    }
    const std::string host = llvm_ir(f, Target("x86-64-linux"));
    EXPECT_TRUE(has(host, R"(declare noalias ptr @loom_malloc\(ptr, i64\))")) << host;
}

// NAME_argv(void **args) reads 4-byte pointer slots with 4-byte alignment,
// and each scalar with its type's ABI alignment (int64_t: 4 on i386).
TEST(ThirtyTwoBitTarget, ArgvWrapperReadsSlotsWithTheirOwnAlignment) {
    ImageParam in(UInt(8), 1, "in");
    Param<int64_t> big("big");
    Var x("x");
    Func f("f");
    f(x) = cast<int64_t>(in(x)) + big;
    const std::string ir32 = llvm_ir(f, Target("x86-32-linux"));
    EXPECT_TRUE(has(ir32, R"(%big\.arg = load ptr, ptr %\d+, align 4)")) << ir32;
    EXPECT_TRUE(has(ir32, R"(%in\.arg = load ptr, ptr %\d+, align 4)")) << ir32;
    EXPECT_TRUE(has(ir32, R"(%big = load i64, ptr %big\.arg, align 4)")) << ir32;
    EXPECT_FALSE(has(ir32, R"(load ptr, ptr %\d+, align 8)")) << ir32;
    const std::string arm = llvm_ir(f, Target("arm-32-linux"));
    EXPECT_TRUE(has(arm, R"(%big = load i64, ptr %big\.arg, align 8)")) << arm;
    const std::string ir64 = llvm_ir(f, Target("x86-64-linux"));
    EXPECT_TRUE(has(ir64, R"(%in\.arg = load ptr, ptr %\d+, align 8)")) << ir64;
}

}  // namespace
