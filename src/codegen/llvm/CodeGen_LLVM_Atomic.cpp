// Code generation of atomic stores (Stage::atomic, lower/LowerAtomics.h), of
// prefetches (Func::prefetch, lower/InjectPrefetch.h) and of the memoization
// cache's calls (Func::memoize, lower/Memoize.h): the memory-side schedule
// directives.
//
// An atomic store f[i] = atomic_update(v), where v reads f only at i, runs
// lane by lane. When v is f[i] op y with y not reading f, it is one
// atomicrmw (add, sub, min, max, and, or, xor on integers; fadd, fsub on
// Float(32/64)); when v does not read f, an atomicrmw xchg. Anything else
// is a compare-and-swap loop: load f[i], compute v from it, cmpxchg, and
// retry with the value found when another thread got there first.

#include <llvm/IR/Intrinsics.h>

#include "codegen/llvm/CodeGen_LLVM_Internal.h"
#include <optional>

#include "ir/IREquality.h"
#include "ir/IRUtil.h"
#include "ir/IRMutator.h"
#include "loom/Error.h"
#include "lower/Memoize.h"

namespace loom {
namespace internal {

namespace {

/** Whether a Load index and the Store index name the same element in each
 * lane (one of them may be the broadcast of the other's scalar). */
bool same_site(const Expr &load_index, const Expr &store_index) {
    if (equal(load_index, store_index)) return true;
    const Broadcast *bl = load_index.as<Broadcast>();
    const Broadcast *bs = store_index.as<Broadcast>();
    if (bs && equal(load_index, bs->value)) return true;
    if (bl && equal(bl->value, store_index)) return true;
    return bl && bs && equal(bl->value, bs->value);
}

class ReadsBuffer : public IRGraphVisitor {
public:
    explicit ReadsBuffer(const std::string &name) : name_(name) {}
    bool found = false;

protected:
    using IRGraphVisitor::visit;
    void visit(const Load *op) override {
        if (op->name == name_) found = true;
        IRGraphVisitor::visit(op);
    }

private:
    const std::string &name_;
};

bool is_always_true(const Expr &e) {
    if (const Broadcast *b = e.as<Broadcast>()) return is_always_true(b->value);
    const UIntImm *u = e.as<UIntImm>();
    return u && u->type.is_bool() && u->value == 1;
}

bool reads_buffer(const Expr &e, const std::string &name) {
    ReadsBuffer r(name);
    r.include(e);
    return r.found;
}

/** Replaces the Loads of `name` at the stored index by `old` (a scalar
 * Variable, broadcast for vector Loads). A Load of it elsewhere would make
 * the update non-atomic: Stage::atomic() refuses such updates. */
class ReplaceSelfLoads : public IRMutator {
public:
    ReplaceSelfLoads(const std::string &name, const Expr &index, const Expr &old)
        : name_(name), index_(index), old_(old) {}

protected:
    using IRMutator::visit;
    Expr visit(const Load *op) override {
        if (op->name != name_) return IRMutator::visit(op);
        if (!same_site(op->index, index_)) {
            throw InternalError("codegen_llvm: the atomic update of " + name_ + " reads it at another element");
        }
        if (op->type.is_scalar()) return old_;
        return Broadcast::make(old_, op->type.lanes());
    }

private:
    const std::string &name_;
    const Expr &index_;
    Expr old_;
};

}  // namespace

void CodeGenLLVM::codegen_atomic_store(const Store *op, const Call *update) {
    const Type t = op->value.type();
    const int lanes = t.lanes();
    const Type elem_type = t.element_of();
    const Expr &value = update->args.at(0);
    llvm::Type *elem = llvm_memory_type_of(elem_type);
    llvm::Value *host = host_pointer(op->name);
    const llvm::Align align(elem_type.bytes());

    auto is_self_load = [&](const Expr &e) {
        const Load *l = e.as<Load>();
        return l && l->name == op->name && same_site(l->index, op->index);
    };
    // The atomicrmw form, if there is one.
    using BinOp = llvm::AtomicRMWInst::BinOp;
    std::optional<BinOp> bin;
    Expr operand;
    const bool is_int = elem_type.is_int_or_uint() && !elem_type.is_bool();
    const bool is_float = elem_type.is_float() && (elem_type.bits() == 32 || elem_type.bits() == 64);
    auto other_operand = [&](const Expr &a, const Expr &b, bool commutative) -> Expr {
        if (is_self_load(a) && !reads_buffer(b, op->name)) return b;
        if (commutative && is_self_load(b) && !reads_buffer(a, op->name)) return a;
        return Expr();
    };
    if (const Add *add = value.as<Add>(); add && (is_int || is_float)) {
        operand = other_operand(add->a, add->b, true);
        bin = is_int ? BinOp::Add : BinOp::FAdd;
    } else if (const Sub *sub = value.as<Sub>(); sub && (is_int || is_float)) {
        operand = other_operand(sub->a, sub->b, false);
        bin = is_int ? BinOp::Sub : BinOp::FSub;
    } else if (const Min *mn = value.as<Min>(); mn && is_int) {
        operand = other_operand(mn->a, mn->b, true);
        bin = elem_type.is_int() ? BinOp::Min : BinOp::UMin;
    } else if (const Max *mx = value.as<Max>(); mx && is_int) {
        operand = other_operand(mx->a, mx->b, true);
        bin = elem_type.is_int() ? BinOp::Max : BinOp::UMax;
    } else if (const Call *c = value.as<Call>(); c && is_int && c->args.size() == 2 &&
                                                 (c->is_intrinsic(intrinsic::bitwise_and) ||
                                                  c->is_intrinsic(intrinsic::bitwise_or) ||
                                                  c->is_intrinsic(intrinsic::bitwise_xor))) {
        operand = other_operand(c->args[0], c->args[1], true);
        bin = c->is_intrinsic(intrinsic::bitwise_and) ? BinOp::And
              : c->is_intrinsic(intrinsic::bitwise_or) ? BinOp::Or
                                                        : BinOp::Xor;
    }
    if (!operand.defined()) bin.reset();
    if (!bin && (is_int || is_float) && !reads_buffer(value, op->name)) {
        operand = value;
        bin = BinOp::Xchg;
    }

    const bool predicated = op->predicate.defined() && !is_always_true(op->predicate);
    llvm::Value *pred = predicated ? codegen(op->predicate) : nullptr;
    llvm::Value *index = codegen_index(op->index);
    const Type index_type = op->index.type();
    llvm::Value *operand_value = bin ? codegen(operand) : nullptr;
    auto lane_of = [&](llvm::Value *v, int lane) -> llvm::Value * {
        if (!v->getType()->isVectorTy()) return v;
        return builder_->CreateExtractElement(v, (uint64_t)lane);
    };

    for (int lane = 0; lane < lanes; lane++) {
        llvm::BasicBlock *after = nullptr;
        if (pred) {
            llvm::BasicBlock *body = llvm::BasicBlock::Create(context_, op->name + ".atomic", function_);
            after = llvm::BasicBlock::Create(context_, op->name + ".atomic_done", function_);
            builder_->CreateCondBr(lane_of(pred, lane), body, after);
            builder_->SetInsertPoint(body);
        }
        llvm::Value *i = lane_of(index, lane);
        llvm::Value *p = builder_->CreateGEP(elem, host, index_to_i64(i, index_type.element_of()));
        if (bin) {
            auto *rmw = builder_->CreateAtomicRMW(*bin, p, lane_of(operand_value, lane), align,
                                                  llvm::AtomicOrdering::Monotonic);
            tag_buffer_access(rmw, op->name);
        } else {
            // The compare-and-swap loop, on the element's bits.
            llvm::Type *bits = llvm::IntegerType::get(context_, elem_type.bytes() * 8);
            llvm::LoadInst *first = builder_->CreateAlignedLoad(bits, p, align, op->name + ".atomic_old");
            first->setAtomic(llvm::AtomicOrdering::Monotonic);
            llvm::BasicBlock *before = builder_->GetInsertBlock();
            llvm::BasicBlock *retry = llvm::BasicBlock::Create(context_, op->name + ".cas", function_);
            llvm::BasicBlock *done = llvm::BasicBlock::Create(context_, op->name + ".cas_done", function_);
            builder_->CreateBr(retry);
            builder_->SetInsertPoint(retry);
            llvm::PHINode *old_bits = builder_->CreatePHI(bits, 2);
            old_bits->addIncoming(first, before);
            llvm::Value *old_value = builder_->CreateBitCast(old_bits, elem);
            if (elem_type.is_bool()) old_value = builder_->CreateICmpNE(old_value, llvm::Constant::getNullValue(elem));
            const std::string old_name = op->name + ".atomic_old." + std::to_string(lane);
            Expr replaced = ReplaceSelfLoads(op->name, op->index, Variable::make(elem_type, old_name)).mutate(value);
            llvm::Value *new_value = nullptr;
            {
                ScopedBinding<llvm::Value *> bind(symbols_, old_name, old_value);
                new_value = lane_of(codegen(replaced), lane);
            }
            if (elem_type.is_bool()) new_value = builder_->CreateZExt(new_value, elem);
            llvm::Value *new_bits = builder_->CreateBitCast(new_value, bits);
            auto *cas = builder_->CreateAtomicCmpXchg(p, old_bits, new_bits, align, llvm::AtomicOrdering::Monotonic,
                                                      llvm::AtomicOrdering::Monotonic);
            llvm::Value *seen = builder_->CreateExtractValue(cas, 0);
            llvm::Value *swapped = builder_->CreateExtractValue(cas, 1);
            old_bits->addIncoming(seen, builder_->GetInsertBlock());
            builder_->CreateCondBr(swapped, done, retry);
            builder_->SetInsertPoint(done);
        }
        if (after) {
            builder_->CreateBr(after);
            builder_->SetInsertPoint(after);
        }
    }
}

llvm::Value *CodeGenLLVM::codegen_prefetch(const Call *op) {
    const Load *load = op->args.size() == 1 ? op->args[0].as<Load>() : nullptr;
    if (!load) throw InternalError("codegen_llvm: prefetch takes one Load");
    llvm::Type *elem = llvm_memory_type_of(load->type.element_of());
    llvm::Value *host = host_pointer(load->name);
    llvm::Value *index = codegen_index(load->index);
    llvm::Function *prefetch = llvm::Intrinsic::getDeclaration(module_.get(), llvm::Intrinsic::prefetch,
                                                               {builder_->getPtrTy()});
    const int lanes = load->index.type().lanes();
    for (int lane = 0; lane < lanes; lane++) {
        llvm::Value *i = lanes > 1 ? builder_->CreateExtractElement(index, (uint64_t)lane) : index;
        llvm::Value *p = builder_->CreateGEP(elem, host, index_to_i64(i, load->index.type().element_of()));
        // (address, read, high temporal locality, data cache)
        builder_->CreateCall(prefetch, {p, builder_->getInt32(0), builder_->getInt32(3), builder_->getInt32(1)});
    }
    return llvm::ConstantInt::get(llvm_type_of(op->type), 0);
}

llvm::Value *CodeGenLLVM::codegen_memoize(const Call *op) {
    const bool store = op->name == memoize_store_intrinsic;
    const size_t first_key = store ? 5 : 3;
    const StringImm *id = op->args.size() >= first_key ? op->args[0].as<StringImm>() : nullptr;
    const StringImm *buffer = op->args.size() >= first_key ? op->args[1].as<StringImm>() : nullptr;
    if (!id || !buffer) throw InternalError("codegen_llvm: malformed " + op->name + " call");
    llvm::Type *i32 = builder_->getInt32Ty(), *i64 = builder_->getInt64Ty(), *ptr = builder_->getPtrTy();
    const size_t words = op->args.size() - first_key;
    llvm::Type *array_type = llvm::ArrayType::get(i64, std::max<size_t>(words, 1));
    llvm::AllocaInst *key = entry_alloca(array_type, nullptr, buffer->value + ".memoize_key");
    for (size_t k = 0; k < words; k++) {
        llvm::Value *slot = builder_->CreateConstGEP2_32(array_type, key, 0, (unsigned)k);
        builder_->CreateStore(codegen(op->args[first_key + k]), slot);
    }
    llvm::Value *host = host_pointer(buffer->value);
    llvm::Value *bytes = codegen(op->args[2]);
    std::vector<llvm::Value *> args = {user_context(), string_constant(id->value), key,
                                       builder_->getInt32((uint32_t)words), host, bytes};
    std::vector<llvm::Type *> types = {ptr, ptr, ptr, i32, ptr, i64};
    if (store) {
        args.push_back(codegen(op->args[3]));
        args.push_back(codegen(op->args[4]));
        types.push_back(i32);
        types.push_back(i64);
    }
    llvm::Function *fn = declare_function(store ? "loom_memoization_cache_store" : "loom_memoization_cache_lookup", i32,
                                          types);
    return builder_->CreateCall(fn, args);
}

}  // namespace internal
}  // namespace loom
