// Mapping loom::Target onto LLVM triples, CPUs, features and target machines.

#include "codegen/llvm/LLVMTarget.h"
#include "loom/Error.h"

#include <gtest/gtest.h>

#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>

#include <string>

namespace {

using loom::Target;
using namespace loom::internal;

bool contains(const std::string &haystack, const std::string &needle) {
    return haystack.find(needle) != std::string::npos;
}

TEST(LLVMTarget, Triples) {
    EXPECT_EQ(llvm_triple(Target("x86-64-linux")), "x86_64-unknown-linux-gnu");
    EXPECT_EQ(llvm_triple(Target("x86-32-linux")), "i386-unknown-linux-gnu");
    EXPECT_EQ(llvm_triple(Target("arm-64-linux")), "aarch64-unknown-linux-gnu");
    EXPECT_EQ(llvm_triple(Target("arm-64-android")), "aarch64-unknown-linux-android");
    EXPECT_EQ(llvm_triple(Target("x86-64-windows")), "x86_64-pc-windows-msvc");
    EXPECT_EQ(llvm_triple(Target("arm-64-osx")), "arm64-apple-macosx");
    EXPECT_THROW(llvm_triple(Target()), loom::CompileError);
}

TEST(LLVMTarget, X86FeatureLevelsImplyLowerOnes) {
    std::string skylake = llvm_feature_string(Target("x86-64-linux-avx512_skylake"));
    for (const char *f : {"+sse4.1", "+avx", "+avx2", "+fma", "+f16c", "+avx512f", "+avx512cd", "+avx512bw",
                          "+avx512dq", "+avx512vl"}) {
        EXPECT_TRUE(contains(skylake, f)) << f << " missing from " << skylake;
    }
    EXPECT_FALSE(contains(skylake, "+avx512vbmi"));

    std::string avx2 = llvm_feature_string(Target("x86-64-linux-avx2-fma"));
    EXPECT_TRUE(contains(avx2, "+avx2"));
    EXPECT_TRUE(contains(avx2, "+fma"));
    EXPECT_FALSE(contains(avx2, "avx512"));
    EXPECT_EQ(llvm_feature_string(Target("x86-64-linux")), "");
}

TEST(LLVMTarget, GenericCpuNames) {
    EXPECT_EQ(llvm_cpu_name(Target("x86-64-linux")), "x86-64");
    EXPECT_EQ(llvm_cpu_name(Target("x86-64-linux-avx")), "x86-64-v2");
    EXPECT_EQ(llvm_cpu_name(Target("x86-64-linux-avx2-fma-f16c")), "x86-64-v3");
    EXPECT_EQ(llvm_cpu_name(Target("x86-64-linux-avx512_skylake")), "x86-64-v4");
    EXPECT_EQ(llvm_cpu_name(Target("arm-64-linux")), "generic");
}

TEST(LLVMTarget, ArmFeatures) {
    EXPECT_EQ(llvm_feature_string(Target("arm-64-linux")), "+neon");
    std::string f = llvm_feature_string(Target("arm-64-linux-arm_fp16-arm_dot_prod"));
    EXPECT_TRUE(contains(f, "+fullfp16"));
    EXPECT_TRUE(contains(f, "+dotprod"));
    EXPECT_EQ(llvm_feature_string(Target("arm-64-linux-no_neon")), "-neon");
}

TEST(LLVMTarget, HostUsesHostCpu) {
    Target host = loom::get_host_target();
    EXPECT_TRUE(is_host_isa(host));
    EXPECT_TRUE(is_host_isa(host.with_feature(Target::Debug).with_feature(Target::JIT)));
    EXPECT_EQ(llvm_cpu_name(host), llvm::sys::getHostCPUName().str());
    EXPECT_EQ(llvm_cpu_name(Target("host-debug")), llvm::sys::getHostCPUName().str());
    if (host.arch == Target::X86) {
        Target plain(host.os, host.arch, host.bits);
        if (host.has_feature(Target::SSE41)) EXPECT_FALSE(is_host_isa(plain));
        if (host.has_feature(Target::AVX2)) {
            EXPECT_TRUE(contains(llvm_feature_string(host), "+avx2"));
        }
    }
}

TEST(LLVMTarget, MakesTargetMachines) {
    for (const char *s : {"x86-64-linux", "x86-64-linux-avx512_sapphirerapids", "arm-64-linux-sve2",
                          "x86-64-windows-avx2", "arm-64-osx", "host"}) {
        SCOPED_TRACE(s);
        Target t(s);
        auto tm = make_target_machine(t);
        ASSERT_NE(tm, nullptr);
        EXPECT_EQ(tm->getTargetTriple().str(), llvm_triple(t));
        EXPECT_EQ(tm->getTargetCPU().str(), llvm_cpu_name(t));
        EXPECT_EQ(tm->getRelocationModel(), llvm::Reloc::PIC_);
        EXPECT_EQ(tm->getOptLevel(), llvm::CodeGenOptLevel::Aggressive);
    }
    EXPECT_EQ(make_target_machine(Target("x86-64-linux-strict_float"))->Options.AllowFPOpFusion,
              llvm::FPOpFusion::Strict);
}

TEST(LLVMTarget, UnsupportedArchitecturesThrow) {
    EXPECT_THROW(make_target_machine(Target("riscv-64-linux")), loom::CompileError);
    EXPECT_THROW(make_target_machine(Target("wasm-32-noos")), loom::CompileError);
    // 32-bit x86 and ARM have a back end (ThirtyTwoBitTargetTest.cpp).
    EXPECT_NO_THROW(make_target_machine(Target("arm-32-linux")));
}

}  // namespace
