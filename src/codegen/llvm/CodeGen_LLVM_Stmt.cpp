// Code generation of statements: lets, assertions, loops, conditionals,
// blocks. Provide and Realize must have been removed by storage flattening.

#include <llvm/IR/MDBuilder.h>

#include "codegen/llvm/CodeGen_LLVM_Internal.h"
#include "ir/IRUtil.h"
#include "ir/IRVisitor.h"
#include "loom/Error.h"
#include "loom/runtime/loom_runtime.h"

namespace loom {
namespace internal {

namespace {

// Whether e has an integer min or max anywhere in it.
class FindMinMax : public IRVisitor {
public:
    bool found = false;

private:
    using IRVisitor::visit;
    void visit(const Min *) override { found = true; }
    void visit(const Max *) override { found = true; }
};

bool has_min_or_max(const Expr &e) {
    FindMinMax f;
    e.accept(&f);
    return f.found;
}

// A `freeze` of v: the same value (freeze only changes poison), but an
// unknown to LLVM's scalar evolution. The bounds and clamped coordinates of
// partitioned and ShiftInwards loops are lets of nested min/max over other
// such lets; seen through, they compose into SCEV min/max trees that loop
// strength reduction expands again and again, and LLVM 19's expander scans
// the block for poison at each reuse: half of the 8-level local Laplacian's
// JIT compile (docs/PERFORMANCE.md). Loops inside keep their own induction
// variables; only the let's value is opaque.
llvm::Value *opaque_to_scalar_evolution(llvm::IRBuilder<> &builder, llvm::Value *v) {
    return builder.CreateFreeze(v);
}

bool is_likely_call(const Expr &e) {
    const Call *c = e.as<Call>();
    return c && c->is_intrinsic(intrinsic::likely);
}

}  // namespace

void CodeGenLLVM::visit(const LetStmt *op) {
    // A loop coordinate (x = x.loop_min + xo * 8 + xi) is index arithmetic:
    // nsw, so that LLVM can widen it with the loop counter and the loads and
    // stores it addresses need no sign extension each.
    const bool coordinate = op->value.type() == Int(32) && coordinate_lets_.count(op->name);
    llvm::Value *v = coordinate ? codegen_index32(op->value) : codegen(op->value);
    // Coordinates stay visible: their nsw arithmetic is what lets LLVM widen
    // and strength-reduce the addresses of the loop they vary in.
    if (!coordinate && op->value.type().is_int() && op->value.type().is_scalar() && llvm::isa<llvm::Instruction>(v) &&
        has_min_or_max(op->value)) {
        v = opaque_to_scalar_evolution(*builder_, v);
    }
    if (!v->hasName() && llvm::isa<llvm::Instruction>(v)) v->setName(op->name);
    const bool wide = bind_wide_let(op->name, op->value);  // large_buffers
    ScopedBinding<llvm::Value *> bind(symbols_, op->name, v);
    const bool varying = note_if_varying(op->name, op->value);
    codegen(op->body);
    if (varying) varying_.pop_back();
    if (wide) symbols_.pop(wide_name(op->name));
}

// The failure path formats the message, frees live heap allocations and
// returns the message's error code; it is marked unlikely so that LLVM lays
// out and optimises for the passing path.
void CodeGenLLVM::visit(const AssertStmt *op) {
    llvm::Value *condition = codegen(op->condition);
    llvm::BasicBlock *failed = llvm::BasicBlock::Create(context_, "assert_failed", function_);
    llvm::BasicBlock *passed = llvm::BasicBlock::Create(context_, "assert_passed", function_);
    builder_->CreateCondBr(condition, passed, failed, llvm::MDBuilder(context_).createLikelyBranchWeights());
    builder_->SetInsertPoint(failed);
    llvm::Value *code = nullptr;
    if (op->message.defined()) {
        code = codegen(op->message);
    } else {
        call_loom_error(build_message({string_piece("Assertion failed")}, "", ""));
        code = builder_->getInt32(loom_error_code_generic);
    }
    emit_return_with_frees(code);
    builder_->SetInsertPoint(passed);
}

void CodeGenLLVM::visit(const ProducerConsumer *op) {
    codegen(op->body);
}

void CodeGenLLVM::visit(const For *op) {
    if (op->for_type == ForType::Parallel) {
        codegen_parallel_for(op);
        return;
    }
    // Vectorized and Unrolled loops that reach code generation (and GPU
    // loops, when compiling for the host) are correct as serial loops.
    codegen_serial_for(op);
}

// for (i = min; i < min + extent; i++): tested once before entry, then at the
// bottom of the body, so that LLVM sees a rotated loop with a known trip count.
void CodeGenLLVM::codegen_serial_for(const For *op) {
    llvm::Value *min = codegen(op->min);
    llvm::Value *extent = codegen(op->extent);
    llvm::Type *ty = min->getType();
    extent = builder_->CreateSExtOrTrunc(extent, ty);
    // The loop covers coordinates, so min + extent does not overflow (see
    // codegen_index); the increment below is nsw for the same reason.
    llvm::Value *end = builder_->CreateAdd(min, extent, op->name + ".end", /*HasNUW=*/false, /*HasNSW=*/true);

    llvm::BasicBlock *preheader = builder_->GetInsertBlock();
    llvm::BasicBlock *body = llvm::BasicBlock::Create(context_, op->name + ".loop", function_);
    llvm::BasicBlock *after = llvm::BasicBlock::Create(context_, op->name + ".done", function_);
    builder_->CreateCondBr(builder_->CreateICmpSGT(extent, llvm::Constant::getNullValue(ty)), body, after);

    builder_->SetInsertPoint(body);
    llvm::PHINode *i = builder_->CreatePHI(ty, 2, op->name);
    i->addIncoming(min, preheader);
    {
        ScopedBinding<llvm::Value *> bind(symbols_, op->name, i);
        std::vector<std::string> outer_varying = {op->name};
        std::swap(outer_varying, varying_);
        codegen(op->body);
        std::swap(outer_varying, varying_);
    }
    llvm::Value *next = builder_->CreateAdd(i, llvm::ConstantInt::get(ty, 1), op->name + ".next", false, true);
    i->addIncoming(next, builder_->GetInsertBlock());
    builder_->CreateCondBr(builder_->CreateICmpSLT(next, end), body, after);
    builder_->SetInsertPoint(after);
}

void CodeGenLLVM::visit(const While *op) {
    llvm::BasicBlock *header = llvm::BasicBlock::Create(context_, "while", function_);
    llvm::BasicBlock *body = llvm::BasicBlock::Create(context_, "while_body", function_);
    llvm::BasicBlock *after = llvm::BasicBlock::Create(context_, "while_done", function_);
    builder_->CreateBr(header);
    builder_->SetInsertPoint(header);
    builder_->CreateCondBr(codegen(op->condition), body, after);
    builder_->SetInsertPoint(body);
    codegen(op->body);
    builder_->CreateBr(header);
    builder_->SetInsertPoint(after);
}

void CodeGenLLVM::visit(const Provide *op) {
    throw InternalError("codegen_llvm: Provide to '" + op->name + "' should have been removed by storage flattening");
}

void CodeGenLLVM::visit(const Realize *op) {
    throw InternalError("codegen_llvm: Realize of '" + op->name + "' should have been removed by storage flattening");
}

void CodeGenLLVM::visit(const Block *op) {
    if (Expr cleanup = failure_cleanup(op->first); cleanup.defined()) {
        live_allocations_.push_back({intrinsic::cleanup_on_failure, nullptr, cleanup});
        codegen(op->rest);
        live_allocations_.pop_back();
        return;
    }
    codegen(op->first);
    codegen(op->rest);
}

void CodeGenLLVM::visit(const IfThenElse *op) {
    llvm::Value *condition = codegen(op->condition);
    llvm::BasicBlock *then_block = llvm::BasicBlock::Create(context_, "then", function_);
    llvm::BasicBlock *after = llvm::BasicBlock::Create(context_, "endif", function_);
    llvm::BasicBlock *else_block =
        op->else_case.defined() ? llvm::BasicBlock::Create(context_, "else", function_) : after;
    llvm::MDNode *weights = is_likely_call(op->condition) ? llvm::MDBuilder(context_).createLikelyBranchWeights()
                                                          : nullptr;
    builder_->CreateCondBr(condition, then_block, else_block, weights);

    builder_->SetInsertPoint(then_block);
    codegen(op->then_case);
    builder_->CreateBr(after);
    if (op->else_case.defined()) {
        builder_->SetInsertPoint(else_block);
        codegen(op->else_case);
        builder_->CreateBr(after);
    }
    builder_->SetInsertPoint(after);
}

void CodeGenLLVM::visit(const Evaluate *op) {
    codegen(op->value);
}

}  // namespace internal
}  // namespace loom
