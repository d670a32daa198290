// Small LLVM modules built by hand with IRBuilder, for the codegen tests.
#ifndef LOOM_TEST_CODEGEN_HANDWRITTENIR_H
#define LOOM_TEST_CODEGEN_HANDWRITTENIR_H

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <memory>
#include <string>
#include <utility>

namespace loom_test {

struct ModuleAndContext {
    std::unique_ptr<llvm::LLVMContext> context = std::make_unique<llvm::LLVMContext>();
    std::unique_ptr<llvm::Module> module = std::make_unique<llvm::Module>("test", *context);
};

// int32_t <name>(int32_t a, int32_t b) { return a + b; }
inline ModuleAndContext make_add_module(const std::string &name = "add_i32") {
    ModuleAndContext mc;
    llvm::LLVMContext &ctx = *mc.context;
    llvm::IRBuilder<> b(ctx);
    auto *fn_type = llvm::FunctionType::get(b.getInt32Ty(), {b.getInt32Ty(), b.getInt32Ty()}, false);
    auto *fn = llvm::Function::Create(fn_type, llvm::Function::ExternalLinkage, name, *mc.module);
    b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", fn));
    b.CreateRet(b.CreateAdd(fn->getArg(0), fn->getArg(1)));
    return mc;
}

// int32_t sum_i32(const int32_t *p, int32_t n): the sum of p[0..n), as a loop.
inline ModuleAndContext make_sum_module() {
    ModuleAndContext mc;
    llvm::LLVMContext &ctx = *mc.context;
    llvm::IRBuilder<> b(ctx);
    auto *i32 = b.getInt32Ty();
    auto *fn_type = llvm::FunctionType::get(i32, {b.getPtrTy(), i32}, false);
    auto *fn = llvm::Function::Create(fn_type, llvm::Function::ExternalLinkage, "sum_i32", *mc.module);
    llvm::Value *data = fn->getArg(0);
    llvm::Value *n = fn->getArg(1);

    auto *entry = llvm::BasicBlock::Create(ctx, "entry", fn);
    auto *loop = llvm::BasicBlock::Create(ctx, "loop", fn);
    auto *done = llvm::BasicBlock::Create(ctx, "done", fn);

    b.SetInsertPoint(entry);
    b.CreateCondBr(b.CreateICmpSGT(n, b.getInt32(0)), loop, done);

    b.SetInsertPoint(loop);
    llvm::PHINode *i = b.CreatePHI(i32, 2, "i");
    llvm::PHINode *acc = b.CreatePHI(i32, 2, "acc");
    llvm::Value *element = b.CreateLoad(i32, b.CreateInBoundsGEP(i32, data, b.CreateSExt(i, b.getInt64Ty())));
    llvm::Value *next_acc = b.CreateAdd(acc, element);
    llvm::Value *next_i = b.CreateAdd(i, b.getInt32(1), "", /*HasNUW=*/false, /*HasNSW=*/true);
    i->addIncoming(b.getInt32(0), entry);
    i->addIncoming(next_i, loop);
    acc->addIncoming(b.getInt32(0), entry);
    acc->addIncoming(next_acc, loop);
    b.CreateCondBr(b.CreateICmpSLT(next_i, n), loop, done);

    b.SetInsertPoint(done);
    llvm::PHINode *result = b.CreatePHI(i32, 2, "result");
    result->addIncoming(b.getInt32(0), entry);
    result->addIncoming(next_acc, loop);
    b.CreateRet(result);
    return mc;
}

// float sin_via_heap(float x): stores sinf(x) in a loom_malloc'ed block,
// reads it back, frees the block (user_context is null).
inline ModuleAndContext make_malloc_sinf_module() {
    ModuleAndContext mc;
    llvm::LLVMContext &ctx = *mc.context;
    llvm::Module &m = *mc.module;
    llvm::IRBuilder<> b(ctx);
    auto *ptr = b.getPtrTy();
    auto *f32 = b.getFloatTy();

    llvm::FunctionCallee malloc_fn = m.getOrInsertFunction("loom_malloc", ptr, ptr, b.getInt64Ty());
    llvm::FunctionCallee free_fn = m.getOrInsertFunction("loom_free", b.getVoidTy(), ptr, ptr);
    llvm::FunctionCallee sinf_fn = m.getOrInsertFunction("sinf", f32, f32);

    auto *fn_type = llvm::FunctionType::get(f32, {f32}, false);
    auto *fn = llvm::Function::Create(fn_type, llvm::Function::ExternalLinkage, "sin_via_heap", m);
    b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", fn));
    llvm::Value *null = llvm::ConstantPointerNull::get(ptr);
    llvm::Value *block = b.CreateCall(malloc_fn, {null, b.getInt64(64)});
    b.CreateStore(b.CreateCall(sinf_fn, {fn->getArg(0)}), block);
    llvm::Value *value = b.CreateLoad(f32, block);
    b.CreateCall(free_fn, {null, block});
    b.CreateRet(value);
    return mc;
}

}  // namespace loom_test

#endif
