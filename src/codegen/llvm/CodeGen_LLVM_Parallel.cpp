// Code generation of parallel loops: the loop body is outlined into its own
// function, called once per iteration by the runtime's thread pool.
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

#include <set>

#include <llvm/IR/MDBuilder.h>

#include "codegen/llvm/CodeGen_LLVM_Internal.h"
#include "loom/Error.h"

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

}  // namespace

void CodeGenLLVM::codegen_parallel_for(const For *op) {
    // The runtime's loop index is a C int.
    if (!op->min.type().is_int() || op->min.type().bits() != 32) {
        codegen_serial_for(op);
        return;
    }
    llvm::Type *i32 = builder_->getInt32Ty();
    llvm::Type *ptr = builder_->getPtrTy();
    llvm::Value *min = codegen(op->min);
    llvm::Value *extent = builder_->CreateSExtOrTrunc(codegen(op->extent), i32);

    // Free variables: constants are used as they are, the rest travel in the
    // closure. The loop variable is bound by the body itself.
    ReferencedNames referenced;
    op->body.accept(&referenced);
    std::vector<std::pair<std::string, llvm::Value *>> captured, constants;
    for (const std::string &name : referenced.names) {
        if (name == op->name) continue;
        llvm::Value *const *v = symbols_.find(name);
        if (!v) continue;  // bound inside the body
        (llvm::isa<llvm::Constant>(*v) ? constants : captured).push_back({name, *v});
    }
    std::vector<llvm::Type *> field_types;
    for (const auto &c : captured) field_types.push_back(c.second->getType());
    llvm::StructType *closure_type = llvm::StructType::get(context_, field_types);

    llvm::Value *closure = llvm::ConstantPointerNull::get(builder_->getPtrTy());
    if (!captured.empty()) {
        closure = entry_alloca(closure_type, nullptr, op->name + ".closure");
        for (size_t i = 0; i < captured.size(); i++) {
            builder_->CreateStore(captured[i].second, builder_->CreateStructGEP(closure_type, closure, i));
        }
    }

    // The body function, generated with the code generator's per-function
    // state swapped out.
    llvm::FunctionType *body_type = llvm::FunctionType::get(i32, {ptr, i32, ptr}, false);
    llvm::Function *body = llvm::Function::Create(body_type, llvm::Function::InternalLinkage,
                                                  function_->getName() + ".par_for." + op->name, module_.get());
    body->addFnAttr(llvm::Attribute::NoUnwind);
    body->addParamAttr(2, llvm::Attribute::NoCapture);
    body->addParamAttr(2, llvm::Attribute::ReadOnly);
    body->getArg(0)->setName("user_context");
    body->getArg(1)->setName(op->name);
    body->getArg(2)->setName("closure");
    {
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
        symbols_.push(op->name, body->getArg(1));
        codegen(op->body);
        if (!builder_->GetInsertBlock()->getTerminator()) builder_->CreateRet(builder_->getInt32(0));

        function_ = saved_function;
        entry_block_ = saved_entry;
        message_buffer_ = saved_message_buffer;
        user_context_ = saved_user_context;
        std::swap(saved_allocations, live_allocations_);
        std::swap(saved_symbols, symbols_);
        std::swap(saved_varying, varying_);
        builder_->restoreIP(saved_ip);
    }

    llvm::Function *par_for = declare_function("loom_do_par_for", i32, {ptr, ptr, i32, i32, ptr});
    llvm::Value *result = builder_->CreateCall(
        par_for, {user_context(), body, min, extent, closure},
        op->name + ".result");
    llvm::BasicBlock *failed = llvm::BasicBlock::Create(context_, op->name + ".failed", function_);
    llvm::BasicBlock *done = llvm::BasicBlock::Create(context_, op->name + ".done", function_);
    builder_->CreateCondBr(builder_->CreateIsNotNull(result), failed, done,
                           llvm::MDBuilder(context_).createUnlikelyBranchWeights());
    builder_->SetInsertPoint(failed);
    emit_return_with_frees(result);
    builder_->SetInsertPoint(done);
}

}  // namespace internal
}  // namespace loom
