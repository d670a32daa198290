// Assembly and object files for the host and for cross targets.

#include "HandWrittenIR.h"

#include "codegen/llvm/EmitObject.h"
#include "codegen/llvm/LLVMTarget.h"
#include "codegen/llvm/Optimize.h"
#include "loom/Error.h"
#include "loom/Target.h"

#include <gtest/gtest.h>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using loom::Target;
using namespace loom::internal;

std::vector<uint8_t> read_file(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string temp_path(const std::string &name) {
    return testing::TempDir() + "loom_codegen_" + std::to_string(getpid()) + "_" + name;
}

uint16_t read_u16_le(const std::vector<uint8_t> &bytes, size_t offset) {
    return uint16_t(bytes[offset] | (bytes[offset + 1] << 8));
}

// Emits the sum loop for t into an object file and returns its bytes.
std::vector<uint8_t> object_bytes_for(const Target &t, const std::string &name) {
    auto mc = loom_test::make_sum_module();
    auto tm = make_target_machine(t);
    mc.module->setTargetTriple(tm->getTargetTriple().str());
    mc.module->setDataLayout(tm->createDataLayout());
    optimize_module(*mc.module, *tm);
    const std::string path = temp_path(name);
    emit_object_file(*mc.module, t, path);
    std::vector<uint8_t> bytes = read_file(path);
    std::remove(path.c_str());
    return bytes;
}

constexpr uint16_t elf_machine_x86_64 = 62;
constexpr uint16_t elf_machine_aarch64 = 183;

void expect_elf64(const std::vector<uint8_t> &bytes, uint16_t machine) {
    ASSERT_GE(bytes.size(), 64u);
    EXPECT_EQ(bytes[0], 0x7f);
    EXPECT_EQ(bytes[1], 'E');
    EXPECT_EQ(bytes[2], 'L');
    EXPECT_EQ(bytes[3], 'F');
    EXPECT_EQ(bytes[4], 2);                       // ELFCLASS64
    EXPECT_EQ(bytes[5], 1);                       // little-endian
    EXPECT_EQ(read_u16_le(bytes, 16), 1);         // ET_REL: a relocatable object
    EXPECT_EQ(read_u16_le(bytes, 18), machine);   // e_machine
}

TEST(EmitObject, Arm64LinuxObjectIsAArch64Elf) {
    expect_elf64(object_bytes_for(Target("arm-64-linux"), "arm64.o"), elf_machine_aarch64);
}

TEST(EmitObject, X86_64LinuxObjectIsX86Elf) {
    expect_elf64(object_bytes_for(Target("x86-64-linux-avx2-fma"), "x86_64.o"), elf_machine_x86_64);
}

TEST(EmitObject, WindowsObjectIsCoff) {
    std::vector<uint8_t> bytes = object_bytes_for(Target("x86-64-windows"), "win.obj");
    ASSERT_GE(bytes.size(), 20u);
    EXPECT_EQ(read_u16_le(bytes, 0), 0x8664);  // IMAGE_FILE_MACHINE_AMD64
}

TEST(EmitObject, AssemblyNamesTheFunction) {
    auto x86 = loom_test::make_add_module();
    std::string x86_asm = emit_assembly(*x86.module, Target("x86-64-linux"));
    EXPECT_NE(x86_asm.find("add_i32:"), std::string::npos) << x86_asm;
    EXPECT_NE(x86_asm.find("ret"), std::string::npos) << x86_asm;
    EXPECT_EQ(x86.module->getTargetTriple(), "x86_64-unknown-linux-gnu");

    auto arm = loom_test::make_add_module();
    std::string arm_asm = emit_assembly(*arm.module, Target("arm-64-linux"));
    EXPECT_NE(arm_asm.find("add_i32:"), std::string::npos) << arm_asm;
    EXPECT_NE(arm_asm.find("add\tw0, w"), std::string::npos) << arm_asm;
}

TEST(EmitObject, Avx512AssemblyUsesZmmRegisters) {
    // dst[0..15] = a[0..15] + b[0..15] as one <16 x i32> operation (Loom's
    // pipeline does not vectorise scalar loops; its IR is vectorised already).
    llvm::LLVMContext context;
    llvm::Module module("vec", context);
    Target t("x86-64-linux-avx512_skylake");
    auto tm = make_target_machine(t);
    module.setTargetTriple(tm->getTargetTriple().str());
    module.setDataLayout(tm->createDataLayout());
    llvm::IRBuilder<> b(context);
    llvm::Type *ptr = b.getPtrTy();
    auto *fn = llvm::Function::Create(llvm::FunctionType::get(b.getVoidTy(), {ptr, ptr, ptr}, false),
                                      llvm::Function::ExternalLinkage, "add_v16i32", module);
    // LLVM prefers 256-bit vectors on AVX-512 machines unless told otherwise.
    fn->addFnAttr("prefer-vector-width", "512");
    b.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", fn));
    llvm::Type *v16 = llvm::FixedVectorType::get(b.getInt32Ty(), 16);
    llvm::Value *sum = b.CreateAdd(b.CreateLoad(v16, fn->getArg(0)), b.CreateLoad(v16, fn->getArg(1)));
    b.CreateStore(sum, fn->getArg(2));
    b.CreateRetVoid();
    optimize_module(module, *tm);
    std::string text = emit_assembly(module, t);
    EXPECT_NE(text.find("zmm"), std::string::npos) << text;
}

TEST(EmitObject, UnwritablePathThrows) {
    auto mc = loom_test::make_add_module();
    EXPECT_THROW(emit_object_file(*mc.module, Target("x86-64-linux"), "/nonexistent-dir/x.o"), loom::CompileError);
}

TEST(EmitObject, UnsupportedTargetThrows) {
    auto mc = loom_test::make_add_module();
    EXPECT_THROW(emit_assembly(*mc.module, Target("riscv-64-linux")), loom::CompileError);
}

}  // namespace
