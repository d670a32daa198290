// LOOM_JIT_OPT_LEVEL: the LLVM optimisation level of JIT code (the schedule
// fuzzer lowers it to compile faster). Unset means 3; 0-3 are honoured; any
// other value is a CompileError that names the variable.

#include "HandWrittenIR.h"
#include "ScopedEnv.h"

#include "codegen/llvm/JITModule.h"
#include "loom/Error.h"
#include "loom/Target.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

using loom::Target;
using loom::internal::JITModule;
using loom::internal::jit_opt_level_from_environment;
using loom_test::ModuleAndContext;

// Sets LOOM_JIT_OPT_LEVEL (or unsets it) for one scope, then restores it.
struct OptLevelEnv : loom_test::ScopedEnv {
    explicit OptLevelEnv(const char *value) : ScopedEnv("LOOM_JIT_OPT_LEVEL", value) {}
};

// int32_t through_stack(int32_t x) { int32_t slot = x; return slot; }, with
// the slot an alloca: unoptimised code stores and reloads it, optimised
// code just returns x.
ModuleAndContext make_through_stack_module() {
    ModuleAndContext mc;
    llvm::IRBuilder<> b(*mc.context);
    auto *i32 = b.getInt32Ty();
    auto *fn = llvm::Function::Create(llvm::FunctionType::get(i32, {i32}, false), llvm::Function::ExternalLinkage,
                                      "through_stack", *mc.module);
    b.SetInsertPoint(llvm::BasicBlock::Create(*mc.context, "entry", fn));
    llvm::Value *slot = b.CreateAlloca(i32);
    b.CreateStore(fn->getArg(0), slot);
    b.CreateRet(b.CreateLoad(i32, slot));
    return mc;
}

std::shared_ptr<JITModule> compile(ModuleAndContext mc) {
    return JITModule::compile(std::move(mc.module), std::move(mc.context),
                              loom::get_host_target().with_feature(Target::JIT));
}

TEST(JITOptLevel, UnsetOrEmptyMeansThree) {
    {
        OptLevelEnv env(nullptr);
        EXPECT_EQ(jit_opt_level_from_environment(), 3);
    }
    OptLevelEnv env("");
    EXPECT_EQ(jit_opt_level_from_environment(), 3);
}

TEST(JITOptLevel, EachLevelIsReadAndCompilesCorrectCode) {
    for (const char *level : {"0", "1", "2", "3"}) {
        OptLevelEnv env(level);
        EXPECT_EQ(jit_opt_level_from_environment(), level[0] - '0');
        auto jit = compile(make_through_stack_module());
        auto *fn = reinterpret_cast<int32_t (*)(int32_t)>(jit->lookup("through_stack"));
        EXPECT_EQ(fn(42), 42) << "LOOM_JIT_OPT_LEVEL=" << level;
        EXPECT_EQ(fn(-7), -7) << "LOOM_JIT_OPT_LEVEL=" << level;
    }
}

// The level reaches LLVM: level 0 keeps the stack slot's store and load,
// level 3 removes them, so the two functions' first bytes differ.
TEST(JITOptLevel, LevelZeroAndThreeMakeDifferentMachineCode) {
    auto first_bytes = [](const char *level) {
        OptLevelEnv env(level);
        auto jit = compile(make_through_stack_module());
        std::array<unsigned char, 4> bytes{};
        std::memcpy(bytes.data(), jit->lookup("through_stack"), bytes.size());
        return bytes;
    };
    EXPECT_NE(first_bytes("0"), first_bytes("3"));
    EXPECT_EQ(first_bytes("3"), first_bytes(nullptr));
}

TEST(JITOptLevel, BadValueIsACompileErrorNamingTheVariable) {
    for (const char *bad : {"4", "-1", "O2", "3x", " 3", "fast"}) {
        OptLevelEnv env(bad);
        try {
            compile(make_through_stack_module());
            ADD_FAILURE() << "LOOM_JIT_OPT_LEVEL='" << bad << "' was accepted";
        } catch (const loom::CompileError &e) {
            const std::string message = e.what();
            EXPECT_NE(message.find("LOOM_JIT_OPT_LEVEL"), std::string::npos) << message;
            EXPECT_NE(message.find("0, 1, 2 or 3"), std::string::npos) << message;
        }
    }
}

}  // namespace
