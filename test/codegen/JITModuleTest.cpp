// JITModule: compiling hand-written LLVM IR into this process and calling it.

#include "HandWrittenIR.h"

#include "codegen/llvm/JITModule.h"
#include "loom/Error.h"
#include "loom/Target.h"
#include "loom/runtime/loom_runtime.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

namespace {

using loom::Target;
using loom::internal::JITModule;
using loom_test::ModuleAndContext;

Target jit_target() {
    return loom::get_host_target().with_feature(Target::JIT);
}

std::shared_ptr<JITModule> compile(ModuleAndContext mc, const JITModule::SymbolMap &externs = {}) {
    return JITModule::compile(std::move(mc.module), std::move(mc.context), jit_target(), externs);
}

TEST(JITModule, AddsTwoInts) {
    auto jit = compile(loom_test::make_add_module());
    auto *add = reinterpret_cast<int32_t (*)(int32_t, int32_t)>(jit->lookup("add_i32"));
    ASSERT_NE(add, nullptr);
    EXPECT_EQ(add(2, 3), 5);
    EXPECT_EQ(add(-7, 7), 0);
    EXPECT_EQ(add(INT32_MAX, 1), INT32_MIN);  // wraps
    EXPECT_EQ(jit->target(), jit_target());
}

TEST(JITModule, SumsAnArrayInALoop) {
    auto jit = compile(loom_test::make_sum_module());
    auto *sum = reinterpret_cast<int32_t (*)(const int32_t *, int32_t)>(jit->lookup("sum_i32"));
    // Lengths around the vector width exercise the vectorised loop's tail.
    for (int n : {0, 1, 3, 7, 8, 15, 16, 17, 1000, 1023}) {
        std::vector<int32_t> data(n);
        std::iota(data.begin(), data.end(), -5);
        int32_t expected = std::accumulate(data.begin(), data.end(), int32_t(0));
        EXPECT_EQ(sum(data.data(), n), expected) << "n = " << n;
    }
}

TEST(JITModule, CallsRuntimeAndLibm) {
    auto jit = compile(loom_test::make_malloc_sinf_module());
    auto *fn = reinterpret_cast<float (*)(float)>(jit->lookup("sin_via_heap"));
    for (float x : {0.0f, 0.5f, 1.0f, -2.25f, 3.0f}) {
        EXPECT_FLOAT_EQ(fn(x), std::sin(x)) << "x = " << x;
    }
}

// The error handler installed through the runtime sees messages from JIT code.
std::string last_error_message;
void remember_error(void *, const char *message) {
    last_error_message = message;
}

TEST(JITModule, RuntimeErrorReachesHandler) {
    ModuleAndContext mc;
    llvm::IRBuilder<> b(*mc.context);
    auto *ptr = b.getPtrTy();
    llvm::FunctionCallee error_fn = mc.module->getOrInsertFunction("loom_error", b.getVoidTy(), ptr, ptr);
    auto *fn = llvm::Function::Create(llvm::FunctionType::get(b.getVoidTy(), false),
                                      llvm::Function::ExternalLinkage, "fail", *mc.module);
    b.SetInsertPoint(llvm::BasicBlock::Create(*mc.context, "entry", fn));
    b.CreateCall(error_fn, {llvm::ConstantPointerNull::get(ptr), b.CreateGlobalStringPtr("boom from JIT")});
    b.CreateRetVoid();

    auto jit = compile(std::move(mc));
    loom_error_handler_t old = loom_set_error_handler(remember_error);
    reinterpret_cast<void (*)()>(jit->lookup("fail"))();
    loom_set_error_handler(old);
    EXPECT_NE(last_error_message.find("boom from JIT"), std::string::npos) << last_error_message;
}

int32_t triple_it(int32_t x) {
    return 3 * x;
}

TEST(JITModule, CallsExternSymbols) {
    ModuleAndContext mc;
    llvm::IRBuilder<> b(*mc.context);
    auto *i32 = b.getInt32Ty();
    llvm::FunctionCallee callee = mc.module->getOrInsertFunction("user_triple", i32, i32);
    auto *fn = llvm::Function::Create(llvm::FunctionType::get(i32, {i32}, false), llvm::Function::ExternalLinkage,
                                      "call_user", *mc.module);
    b.SetInsertPoint(llvm::BasicBlock::Create(*mc.context, "entry", fn));
    b.CreateRet(b.CreateAdd(b.CreateCall(callee, {fn->getArg(0)}), b.getInt32(1)));

    auto jit = compile(std::move(mc), {{"user_triple", reinterpret_cast<void *>(&triple_it)}});
    auto *call_user = reinterpret_cast<int32_t (*)(int32_t)>(jit->lookup("call_user"));
    EXPECT_EQ(call_user(5), 16);
}

TEST(JITModule, UnknownSymbolLookupThrows) {
    auto jit = compile(loom_test::make_add_module());
    EXPECT_THROW(jit->lookup("no_such_function"), loom::InternalError);
    // Process symbols are for the JIT code to call, not for lookup().
    EXPECT_THROW(jit->lookup("memcpy"), loom::InternalError);
    try {
        jit->lookup("add_i33");
    } catch (const loom::InternalError &e) {
        EXPECT_NE(std::string(e.what()).find("add_i33"), std::string::npos) << e.what();
    }
}

TEST(JITModule, UndefinedCalleeThrowsAtCompile) {
    ModuleAndContext mc;
    llvm::IRBuilder<> b(*mc.context);
    llvm::FunctionCallee missing = mc.module->getOrInsertFunction("loom_test_no_such_symbol_anywhere",
                                                                  b.getVoidTy());
    auto *fn = llvm::Function::Create(llvm::FunctionType::get(b.getVoidTy(), false),
                                      llvm::Function::ExternalLinkage, "calls_missing", *mc.module);
    b.SetInsertPoint(llvm::BasicBlock::Create(*mc.context, "entry", fn));
    b.CreateCall(missing);
    b.CreateRetVoid();
    try {
        compile(std::move(mc));
        FAIL() << "expected InternalError";
    } catch (const loom::InternalError &e) {
        EXPECT_NE(std::string(e.what()).find("loom_test_no_such_symbol_anywhere"), std::string::npos) << e.what();
    }
}

TEST(JITModule, InvalidModuleThrows) {
    ModuleAndContext mc;
    llvm::IRBuilder<> b(*mc.context);
    auto *fn = llvm::Function::Create(llvm::FunctionType::get(b.getInt32Ty(), false),
                                      llvm::Function::ExternalLinkage, "no_terminator", *mc.module);
    b.SetInsertPoint(llvm::BasicBlock::Create(*mc.context, "entry", fn));
    b.CreateAdd(b.getInt32(1), b.getInt32(2));  // and no return
    EXPECT_THROW(compile(std::move(mc)), loom::InternalError);
}

TEST(JITModule, ForeignTargetIsRejected) {
    Target host = loom::get_host_target();
    Target foreign(host.arch == Target::X86 ? "arm-64-linux" : "x86-64-linux");
    auto mc = loom_test::make_add_module();
    EXPECT_THROW(JITModule::compile(std::move(mc.module), std::move(mc.context), foreign), loom::CompileError);
}

TEST(JITModule, MissingCpuFeatureIsRejected) {
    Target host = loom::get_host_target();
    // Skipped only where no x86 feature is missing: the test needs a feature
    // the CPU lacks, and avx512_zen4 is the newest one Loom knows.
    if (host.arch != Target::X86 || host.has_feature(Target::AVX512_Zen4)) {
        GTEST_SKIP() << "needs an x86 host without avx512_zen4";
    }
    auto mc = loom_test::make_add_module();
    try {
        JITModule::compile(std::move(mc.module), std::move(mc.context), host.with_feature(Target::AVX512_Zen4));
        FAIL() << "expected CompileError";
    } catch (const loom::CompileError &e) {
        EXPECT_NE(std::string(e.what()).find("avx512_zen4"), std::string::npos) << e.what();
    }
}

TEST(JITModule, LowerFeatureLevelsRun) {
    // Code for a subset of the host's features runs on the host.
    Target baseline(Target::Linux, loom::get_host_target().arch, loom::get_host_target().bits);
    // The baseline target is built for Linux; on another OS it would not be the host's.
    if (loom::get_host_target().os != Target::Linux) GTEST_SKIP() << "Linux host only";
    auto mc = loom_test::make_sum_module();
    auto jit = JITModule::compile(std::move(mc.module), std::move(mc.context), baseline);
    auto *sum = reinterpret_cast<int32_t (*)(const int32_t *, int32_t)>(jit->lookup("sum_i32"));
    std::vector<int32_t> data(100, 2);
    EXPECT_EQ(sum(data.data(), 100), 200);
}

TEST(JITModule, ModulesOutliveEachOther) {
    auto first = compile(loom_test::make_add_module("first"));
    auto second = compile(loom_test::make_add_module("second"));
    auto *second_fn = reinterpret_cast<int32_t (*)(int32_t, int32_t)>(second->lookup("second"));
    first.reset();
    EXPECT_EQ(second_fn(40, 2), 42);
}

TEST(JITModule, CompilesFromManyThreads) {
    constexpr int thread_count = 4;
    std::vector<int32_t> results(thread_count, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < thread_count; t++) {
        threads.emplace_back([t, &results] {
            auto jit = compile(t % 2 ? loom_test::make_add_module() : loom_test::make_malloc_sinf_module());
            if (t % 2) {
                results[t] = reinterpret_cast<int32_t (*)(int32_t, int32_t)>(jit->lookup("add_i32"))(t, 100);
            } else {
                results[t] = int32_t(reinterpret_cast<float (*)(float)>(jit->lookup("sin_via_heap"))(0.0f)) + t;
            }
        });
    }
    for (auto &thread : threads) thread.join();
    for (int t = 0; t < thread_count; t++) {
        EXPECT_EQ(results[t], t % 2 ? t + 100 : t) << "thread " << t;
    }
}

}  // namespace
