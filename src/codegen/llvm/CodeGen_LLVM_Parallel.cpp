// Code generation of parallel loops and forks: the loop body (or the two
// branches of a Fork) is outlined into its own function, called once per
// iteration by the runtime's thread pool (each branch by loom_do_fork).
//
//   outer:   closure = {free variables of the body}          (a stack struct)
//            r = loom_do_par_for(NULL, body, min, extent, &closure)
//            if (r != 0) return r (after freeing live allocations)
//   body:    int NAME.par_for.LOOP(void *user_context, int index, uint8_t *closure)
//            unpacks the closure, binds LOOP = index, runs one iteration and
//            returns 0, or the code of a failing AssertStmt or allocation.
//
// The body is generated as a function of its own: its early returns return
// from it (not from the pipeline), its stack allocations and message buffer
// are its own (so each thread has its own), and its heap allocations are
// made and freed per iteration.

#include <functional>
#include <set>

#include <llvm/IR/MDBuilder.h>

#include "codegen/llvm/CodeGen_LLVM_Internal.h"
#include "loom/Error.h"
#include "runtime/RuntimeInternal.h"

namespace loom {
namespace internal {

namespace {

// Every name the body refers to: variables, and the host pointers that Loads,
// Stores and Frees name. Names the body binds itself are included too; the
// caller keeps those that the enclosing scope defines.
class ReferencedNames : public IRGraphVisitor {
public:
    std::set<std::string> names;

protected:
    using IRGraphVisitor::visit;
    void visit(const Variable *op) override { names.insert(op->name); }
    void visit(const Load *op) override {
        names.insert(op->name);
        IRGraphVisitor::visit(op);
    }
    void visit(const Store *op) override {
        names.insert(op->name);
        IRGraphVisitor::visit(op);
    }
    void visit(const Free *op) override { names.insert(op->name); }
};

// The semaphores a statement waits on or releases, by name.
class SemaphoresUsed : public IRGraphVisitor {
public:
    std::set<std::string> names;

protected:
    using IRGraphVisitor::visit;
    void visit(const Call *op) override {
        if (op->is_intrinsic(intrinsic::semaphore_acquire) || op->is_intrinsic(intrinsic::semaphore_release)) {
            if (const Variable *v = op->args.at(0).as<Variable>()) names.insert(v->name);
        }
        IRGraphVisitor::visit(op);
    }
};

}  // namespace

llvm::Function *CodeGenLLVM::outline_task(const std::string &function_name, const std::string &index_name,
                                          const Stmt &body_stmt, llvm::Value **closure_out) {
    llvm::Type *i32 = builder_->getInt32Ty();
    llvm::Type *ptr = builder_->getPtrTy();

    // Free variables: constants are used as they are, the rest travel in the
    // closure. The index variable is bound by the body itself.
    ReferencedNames referenced;
    body_stmt.accept(&referenced);
    std::vector<std::pair<std::string, llvm::Value *>> captured, constants;
    for (const std::string &name : referenced.names) {
        if (name == index_name) continue;
        for (const std::string &symbol : {name, wide_name(name)}) {  // wide: large_buffers' 64-bit let values
            llvm::Value *const *v = symbols_.find(symbol);
            if (!v) continue;  // bound inside the body
            (llvm::isa<llvm::Constant>(*v) ? constants : captured).push_back({symbol, *v});
        }
    }
    std::vector<llvm::Type *> field_types;
    for (const auto &c : captured) field_types.push_back(c.second->getType());
    llvm::StructType *closure_type = llvm::StructType::get(context_, field_types);

    llvm::Value *closure = llvm::ConstantPointerNull::get(builder_->getPtrTy());
    if (!captured.empty()) {
        closure = entry_alloca(closure_type, nullptr, index_name + ".closure");
        for (size_t i = 0; i < captured.size(); i++) {
            builder_->CreateStore(captured[i].second, builder_->CreateStructGEP(closure_type, closure, i));
        }
    }
    *closure_out = closure;

    // The body function, generated with the code generator's per-function
    // state swapped out.
    llvm::FunctionType *body_type = llvm::FunctionType::get(i32, {ptr, i32, ptr}, false);
    llvm::Function *body = llvm::Function::Create(body_type, llvm::Function::InternalLinkage,
                                                  function_->getName() + function_name, module_.get());
    body->addFnAttr(llvm::Attribute::NoUnwind);
    body->addParamAttr(2, llvm::Attribute::NoCapture);
    body->addParamAttr(2, llvm::Attribute::ReadOnly);
    body->getArg(0)->setName("user_context");
    body->getArg(1)->setName(index_name);
    body->getArg(2)->setName("closure");

    const llvm::IRBuilderBase::InsertPoint saved_ip = builder_->saveIP();
    llvm::Function *saved_function = function_;
    llvm::BasicBlock *saved_entry = entry_block_;
    llvm::Value *saved_message_buffer = message_buffer_;
    llvm::Value *saved_user_context = user_context_;
    std::vector<LiveAllocation> saved_allocations;
    Scope<llvm::Value *> saved_symbols;
    std::swap(saved_allocations, live_allocations_);
    std::swap(saved_symbols, symbols_);
    std::vector<std::string> saved_varying;  // nothing varies in the body function yet
    std::swap(saved_varying, varying_);
    // Restored on the way out, also when code generation of the body throws,
    // so that the enclosing statements unwind their bindings from their own
    // scope (not the body's).
    struct Restore {
        std::function<void()> restore;
        ~Restore() { restore(); }
    } restore{[&] {
        function_ = saved_function;
        entry_block_ = saved_entry;
        message_buffer_ = saved_message_buffer;
        user_context_ = saved_user_context;
        std::swap(saved_allocations, live_allocations_);
        std::swap(saved_symbols, symbols_);
        std::swap(saved_varying, varying_);
        builder_->restoreIP(saved_ip);
    }};

    function_ = body;
    entry_block_ = llvm::BasicBlock::Create(context_, "entry", body);
    message_buffer_ = nullptr;
    user_context_ = body->getArg(0);
    builder_->SetInsertPoint(entry_block_);
    for (size_t i = 0; i < captured.size(); i++) {
        llvm::Value *field = builder_->CreateStructGEP(closure_type, body->getArg(2), i);
        symbols_.push(captured[i].first, builder_->CreateLoad(field_types[i], field, captured[i].first));
    }
    for (const auto &c : constants) symbols_.push(c.first, c.second);
    symbols_.push(index_name, body->getArg(1));
    codegen(body_stmt);
    if (!builder_->GetInsertBlock()->getTerminator()) builder_->CreateRet(builder_->getInt32(0));
    return body;
}

void CodeGenLLVM::return_if_failed(llvm::Value *result, const std::string &name) {
    llvm::BasicBlock *failed = llvm::BasicBlock::Create(context_, name + ".failed", function_);
    llvm::BasicBlock *done = llvm::BasicBlock::Create(context_, name + ".done", function_);
    builder_->CreateCondBr(builder_->CreateIsNotNull(result), failed, done,
                           llvm::MDBuilder(context_).createUnlikelyBranchWeights());
    builder_->SetInsertPoint(failed);
    emit_return_with_frees(result);
    builder_->SetInsertPoint(done);
}

// A parallel loop: its body is the task, called once per iteration by
// loom_do_par_for. A parallel loop nested in it (iir_blur: channels, then
// strips of rows, both parallel) is started by the task and shared by the
// pool's idle threads like any other (ThreadPool.c); a custom_do_par_for
// handler sees each loop, as Halide's does.
void CodeGenLLVM::codegen_parallel_for(const For *op) {
    // The runtime's loop index is a C int.
    if (!op->min.type().is_int() || op->min.type().bits() != 32) {
        codegen_serial_for(op);
        return;
    }
    llvm::Type *i32 = builder_->getInt32Ty();
    llvm::Type *ptr = builder_->getPtrTy();
    llvm::Function *par_for = declare_function("loom_do_par_for", i32, {ptr, ptr, i32, i32, ptr});
    llvm::Value *min = codegen(op->min);
    llvm::Value *extent = builder_->CreateSExtOrTrunc(codegen(op->extent), i32);
    llvm::Value *closure = nullptr;
    llvm::Function *body = outline_task(".par_for." + op->name, op->name, op->body, &closure);
    llvm::Value *result =
        builder_->CreateCall(par_for, {user_context(), body, min, extent, closure}, op->name + ".result");
    return_if_failed(result, op->name);
}

// A Fork (Func::async): both branches are outlined into one task function,
//   int NAME.fork.N(void *user_context, int index, uint8_t *closure)
// that runs the first branch for index 0 and the second for index 1, and
// loom_do_fork runs the two at once. The semaphores of the enclosing scope
// that either branch waits on or releases are given to loom_do_fork, which
// poisons them when a branch fails so that the other stops waiting.
void CodeGenLLVM::visit(const Fork *op) {
    llvm::Type *i32 = builder_->getInt32Ty();
    llvm::Type *ptr = builder_->getPtrTy();
    const std::string index_name = "fork." + std::to_string(fork_count_++);
    Stmt body = IfThenElse::make(EQ::make(Variable::make(Int(32), index_name), Expr(0)), op->first, op->rest);

    SemaphoresUsed used;
    body.accept(&used);
    std::vector<llvm::Value *> semaphores;
    for (const std::string &name : used.names) {
        if (llvm::Value *const *v = symbols_.find(name)) semaphores.push_back(*v);
    }
    llvm::Value *array = llvm::ConstantPointerNull::get(builder_->getPtrTy());
    if (!semaphores.empty()) {
        llvm::ArrayType *array_type = llvm::ArrayType::get(ptr, semaphores.size());
        array = entry_alloca(array_type, nullptr, index_name + ".semaphores");
        for (size_t i = 0; i < semaphores.size(); i++) {
            builder_->CreateStore(semaphores[i], builder_->CreateConstInBoundsGEP2_32(array_type, array, 0, i));
        }
    }
    llvm::Value *closure = nullptr;
    llvm::Function *task = outline_task("." + index_name, index_name, body, &closure);
    llvm::Function *do_fork = declare_function("loom_do_fork", i32, {ptr, ptr, ptr, ptr, i32});
    llvm::Value *result = builder_->CreateCall(
        do_fork, {user_context(), task, closure, array, builder_->getInt32((int)semaphores.size())},
        index_name + ".result");
    return_if_failed(result, index_name);
}

llvm::Value *CodeGenLLVM::codegen_semaphore_intrinsic(const Call *op) {
    llvm::Type *i32 = builder_->getInt32Ty();
    llvm::Type *ptr = builder_->getPtrTy();
    if (op->is_intrinsic(intrinsic::make_semaphore)) {
        // Storage in the entry block: a semaphore made in a loop is made
        // afresh each iteration, after the previous iteration's fork ended.
        llvm::AllocaInst *storage =
            entry_alloca(llvm::ArrayType::get(builder_->getInt8Ty(), LOOM_SEMAPHORE_BYTES), nullptr, "semaphore");
        storage->setAlignment(llvm::Align(16));
        llvm::Function *init = declare_function("loom_semaphore_init", i32, {ptr, i32});
        builder_->CreateCall(init, {storage, builder_->CreateSExtOrTrunc(codegen(op->args.at(0)), i32)});
        return storage;
    }
    if (op->is_intrinsic(intrinsic::semaphore_acquire)) {
        llvm::Function *acquire = declare_function("loom_semaphore_acquire", i32, {ptr, i32});
        llvm::Value *result = builder_->CreateCall(
            acquire, {codegen(op->args.at(0)), builder_->CreateSExtOrTrunc(codegen(op->args.at(1)), i32)});
        return_if_failed(result, "acquire");
        return builder_->getInt32(0);
    }
    if (op->is_intrinsic(intrinsic::semaphore_release)) {
        llvm::Function *release = declare_function("loom_semaphore_release", i32, {ptr, i32});
        return builder_->CreateCall(
            release, {codegen(op->args.at(0)), builder_->CreateSExtOrTrunc(codegen(op->args.at(1)), i32)});
    }
    return nullptr;
}

}  // namespace internal
}  // namespace loom
