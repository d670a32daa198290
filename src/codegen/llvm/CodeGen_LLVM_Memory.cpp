// Code generation of memory: buffer descriptor fields, Load, Store, Allocate
// and Free.
//
// An element pointer is host + index, in elements of the node's type (Bool
// elements are bytes). A vector index that is a Ramp of stride 1 becomes one
// vector load/store, a Ramp of stride -1 one vector load/store and a reverse
// shuffle; any other vector index a gather/scatter (buffer arguments are
// dense in dimension 0, so affine accesses along x are dense). Predicated
// accesses become masked intrinsics (vectors) or a branch (scalars); lanes
// masked off read as zero and touch no memory.

#include <llvm/IR/MDBuilder.h>

#include <algorithm>

#include "codegen/llvm/CodeGen_LLVM_Internal.h"
#include "codegen/StackAllocation.h"
#include "ir/IRVisitor.h"
#include "ir/SumTerms.h"
#include "loom/Error.h"
#include "loom/runtime/loom_runtime.h"

namespace loom {
namespace internal {

namespace {


bool is_const_one(const Expr &e) {
    if (const IntImm *i = e.as<IntImm>()) return i->value == 1;
    if (const UIntImm *u = e.as<UIntImm>()) return u->value == 1;
    return false;
}

bool is_const_true(const Expr &e) {
    if (const Broadcast *b = e.as<Broadcast>()) return is_const_true(b->value);
    const UIntImm *u = e.as<UIntImm>();
    return u && u->type.is_bool() && u->value == 1;
}

// A stride in an element index: a buffer's "<b>.stride.<d>" or the extent of
// an allocation's dimension ("<f>.stride.<d>", "<f>.<x>.extent_realized").
// Params are the user's, never strides.
bool is_stride_symbol(const Expr &e) {
    const Variable *v = e.as<Variable>();
    if (!v || v->param.defined() || !v->type.is_int() || v->type.bits() != 32) return false;
    return v->name.find(".stride.") != std::string::npos || v->name.find(".extent") != std::string::npos;
}

// The base of a dense (stride-1) vector index, or nullptr.
const Ramp *dense_ramp(const Expr &index) {
    const Ramp *r = index.as<Ramp>();
    if (r && r->base.type().is_scalar() && is_const_one(r->stride)) return r;
    return nullptr;
}

// Ramp(base, -1, n): the n elements from base - (n - 1) up, in reverse.
const Ramp *reversed_ramp(const Expr &index) {
    const Ramp *r = index.as<Ramp>();
    if (!r || !r->base.type().is_scalar()) return nullptr;
    const IntImm *i = r->stride.as<IntImm>();
    return i && i->value == -1 ? r : nullptr;
}

// Ramp(base, s, n) with a constant stride s other than 1 and -1, or
// nullptr.
const Ramp *strided_ramp(const Expr &index) {
    const Ramp *r = index.as<Ramp>();
    if (!r || !r->base.type().is_scalar()) return nullptr;
    const IntImm *i = r->stride.as<IntImm>();
    return i && i->value != 1 && i->value != -1 ? r : nullptr;
}

}  // namespace

llvm::Value *CodeGenLLVM::host_pointer(const std::string &name) const {
    llvm::Value *host = lookup_symbol(name);
    if (!host->getType()->isPointerTy()) {
        throw InternalError("codegen_llvm: Load/Store of '" + name + "', which is not a host pointer");
    }
    return host;
}

// ------------------------------------------------------------------ alias information

// Type-based alias analysis metadata, used as a name for the memory each
// access touches: memory a pipeline allocates itself (an Allocate, on the
// stack or from loom_malloc) is fresh, so it overlaps no input or output
// buffer and no other allocation. Every element access of an allocation
// carries a TBAA type of its own; all accesses of input and output buffers
// share one type, because the caller may pass overlapping host memory.
// Untagged accesses (buffer descriptors, runtime calls) may alias anything.
// This lets LLVM keep a value stored in an intermediate in a register across
// loads of the input (e.g. a running sum in a scan) and hoist more loads.
void CodeGenLLVM::tag_buffer_access(llvm::Instruction *access, const std::string &name) {
    const std::string key = internal_buffers_.count(name) ? name : std::string();
    llvm::MDNode *&tag = tbaa_tags_[key];
    if (!tag) {
        llvm::MDBuilder md(context_);
        if (!tbaa_root_) tbaa_root_ = md.createTBAARoot("Loom buffers");
        llvm::MDNode *type = md.createTBAAScalarTypeNode(key.empty() ? "input/output buffers" : "allocation " + key,
                                                         tbaa_root_);
        tag = md.createTBAAStructTagNode(type, type, 0);
    }
    access->setMetadata(llvm::LLVMContext::MD_tbaa, tag);
}

// ------------------------------------------------------------------ buffer fields

// The descriptor does not change while the pipeline runs, so its loads are
// invariant: LLVM may hoist them out of loops.
llvm::Value *CodeGenLLVM::buffer_field(llvm::Value *buffer, BufferField field) {
    llvm::StructType *bt = buffer_struct_type(context_);
    llvm::Value *p = builder_->CreateStructGEP(bt, buffer, field);
    llvm::LoadInst *load = builder_->CreateLoad(bt->getElementType(field), p);
    load->setMetadata(llvm::LLVMContext::MD_invariant_load, llvm::MDNode::get(context_, {}));
    return load;
}

llvm::Value *CodeGenLLVM::dimension_field(llvm::Value *buffer, llvm::Value *d, DimensionField field) {
    llvm::StructType *dt = dimension_struct_type(context_);
    llvm::Value *dims = buffer_field(buffer, BufDim);
    llvm::Value *d64 = builder_->CreateSExtOrTrunc(d, builder_->getInt64Ty());
    llvm::Value *p = builder_->CreateInBoundsGEP(dt, dims, {d64, builder_->getInt32(field)});
    llvm::LoadInst *load = builder_->CreateLoad(builder_->getInt32Ty(), p);
    load->setMetadata(llvm::LLVMContext::MD_invariant_load, llvm::MDNode::get(context_, {}));
    return load;
}

// ------------------------------------------------------------------ Load / Store

// The lowest element of a Ramp(base, -1, n) index: base - (n - 1).
llvm::Value *CodeGenLLVM::reversed_first(const Ramp *ramp) {
    llvm::Value *base = codegen_index(ramp->base);
    llvm::Value *back = llvm::ConstantInt::get(base->getType(), ramp->lanes - 1);
    return builder_->CreateSub(base, back, "", /*HasNUW=*/false, /*HasNSW=*/ramp->base.type().is_int());
}

// Signed 32-bit element indices are the index arithmetic Loom itself
// generates: storage flattening sums (coordinate - min) * stride over the
// dimensions, and the simplifier folds a coordinate's own additions into that
// sum. The region checks on entry keep every index inside its buffer, and
// bounds inference treats Int(32) as exact, so those additions, subtractions
// and multiplications by a stride do not overflow: they are marked nsw, which
// lets LLVM widen induction variables to 64 bits instead of sign-extending
// every index. Everything else inside an index (x * 3, x / 2, a loaded value,
// a let) is generated as usual and wraps (docs/LANGUAGE.md).
//
// The sum is emitted with the terms that do not change in the innermost loop
// first: that part is one loop-invariant value, and the index is then
// "invariant + varying" with nsw, the form LLVM widens (reassociating it
// later would drop the flags).
namespace {

struct IndexTerm {
    Expr e;
    bool negative;
};

void collect_index_terms(const Expr &e, bool negative, std::vector<IndexTerm> &terms) {
    if (e.type().is_int() && e.type().bits() == 32) {
        if (const Add *op = e.as<Add>()) {
            collect_index_terms(op->a, negative, terms);
            collect_index_terms(op->b, negative, terms);
            return;
        }
        if (const Sub *op = e.as<Sub>()) {
            collect_index_terms(op->a, negative, terms);
            collect_index_terms(op->b, !negative, terms);
            return;
        }
    }
    terms.push_back({e, negative});
}

class UsesAny : public IRGraphVisitor {
public:
    explicit UsesAny(const std::vector<std::string> &names) : names_(names) {}
    bool found = false;

protected:
    using IRGraphVisitor::visit;
    void visit(const Variable *op) override {
        if (!found) found = std::find(names_.begin(), names_.end(), op->name) != names_.end();
    }

private:
    const std::vector<std::string> &names_;
};

bool uses_any(const Expr &e, const std::vector<std::string> &names) {
    if (names.empty()) return false;
    UsesAny finder(names);
    finder.include(e);
    return finder.found;
}

}  // namespace

bool CodeGenLLVM::note_if_varying(const std::string &name, const Expr &value) {
    if (!uses_any(value, varying_)) return false;
    varying_.push_back(name);
    return true;
}

llvm::Value *CodeGenLLVM::codegen_index(const Expr &e) {
    if (large_buffers_) return codegen_wide_index(e);
    return index64_ ? codegen_index64(e) : codegen_index32(e);
}

// large_buffers (as Halide's promote_64): the sums and products that form an
// Int(32) index are computed in 64 bits, so an index past 2^31 elements (a
// row y * stride of a buffer over 2^31 bytes) is exact. A variable uses the
// 64-bit value of its let where bind_wide_let made one (a hoisted
// y * stride), else its 32-bit value sign-extended: loop variables,
// coordinates and buffer fields are 32-bit values, as in Halide.
llvm::Value *CodeGenLLVM::codegen_wide_index(const Expr &e) {
    const Type t = e.type();
    if (!t.is_int() || t.bits() != 32) return codegen(e);
    llvm::Type *wide = llvm_type_of(Int(64, t.lanes()));
    if (const IntImm *i = e.as<IntImm>()) return llvm::ConstantInt::get(wide, i->value);
    if (const Variable *v = e.as<Variable>()) {
        if (llvm::Value *const *w = symbols_.find(wide_name(v->name))) return *w;
        return builder_->CreateSExt(codegen(e), wide);
    }
    if (const Add *op = e.as<Add>()) {
        return builder_->CreateAdd(codegen_wide_index(op->a), codegen_wide_index(op->b), "", false, true);
    }
    if (const Sub *op = e.as<Sub>()) {
        return builder_->CreateSub(codegen_wide_index(op->a), codegen_wide_index(op->b), "", false, true);
    }
    if (const Mul *op = e.as<Mul>()) {
        return builder_->CreateMul(codegen_wide_index(op->a), codegen_wide_index(op->b), "", false, true);
    }
    if (const Broadcast *op = e.as<Broadcast>()) return splat(codegen_wide_index(op->value), op->lanes);
    if (const Ramp *op = e.as<Ramp>()) {
        std::vector<llvm::Constant *> lanes;
        for (int i = 0; i < op->lanes; i++) lanes.push_back(builder_->getInt64(i));
        llvm::Value *steps = builder_->CreateMul(splat(codegen_wide_index(op->stride), op->lanes),
                                                 llvm::ConstantVector::get(lanes), "", false, true);
        return builder_->CreateAdd(splat(codegen_wide_index(op->base), op->lanes), steps, "", false, true);
    }
    return builder_->CreateSExt(codegen(e), wide);
}

namespace {

/** Whether recomputing e in 64 bits repeats nothing but arithmetic: no
 * call with side effects (print, trace, extern functions, random). */
class HasSideEffects : public IRGraphVisitor {
public:
    bool found = false;

protected:
    using IRGraphVisitor::visit;
    void visit(const Call *op) override {
        if (op->call_type != CallType::PureIntrinsic && op->call_type != CallType::PureExtern) found = true;
        IRGraphVisitor::visit(op);
    }
};

}  // namespace

bool CodeGenLLVM::bind_wide_let(const std::string &name, const Expr &value) {
    if (!value.type().is_int() || value.type().bits() != 32) return false;
    if (index64_) {
        // A coordinate is index arithmetic itself (nsw, see visit(LetStmt)),
        // so its 64-bit sum is the same value; other lets wrap, and indices
        // sign-extend their 32-bit value.
        if (!value.type().is_scalar() || !coordinate_lets_.count(name)) return false;
        symbols_.push(wide_name(name), codegen_index64(value));
        return true;
    }
    if (!large_buffers_) return false;
    HasSideEffects effects;
    effects.include(value);
    if (effects.found) return false;
    symbols_.push(wide_name(name), codegen_wide_index(value));
    return true;
}

llvm::Value *CodeGenLLVM::codegen_index32(const Expr &e) { return codegen_index_sum(e, false); }

// On 64-bit targets (index64_) the same sum is formed in 64 bits, as Halide
// does on targets with 64-bit pointers: each term that is not a sum or a
// product with a stride (a variable, x * 3, a loaded value) is computed as
// before in 32 bits and sign-extended once, a coordinate let by its 64-bit
// sum (bind_wide_let). Where the 32-bit nsw sum is defined, the 64-bit one
// is the same number. The sign extensions are then of loads and variables,
// not of nsw arithmetic: LLVM's CodeGen Prepare would otherwise promote
// each extension through the arithmetic that feeds it, and on a large
// unrolled function redo that on every sweep (docs/FUZZING.md, issue 12).
llvm::Value *CodeGenLLVM::codegen_index64(const Expr &e) { return codegen_index_sum(e, true); }

llvm::Value *CodeGenLLVM::codegen_index_sum(const Expr &e, bool in64) {
    const Type t = e.type();
    if (!t.is_int() || t.bits() != 32) return codegen(e);
    llvm::Type *wide = in64 ? llvm_type_of(Int(64, t.lanes())) : nullptr;
    // One term's value: in 64 bits, a constant as such, a coordinate let's
    // 64-bit value, anything else sign-extended.
    auto term_value = [&](const Expr &term) -> llvm::Value * {
        if (!in64) return codegen(term);
        if (const IntImm *i = term.as<IntImm>()) return llvm::ConstantInt::get(wide, i->value);
        if (const Variable *v = term.as<Variable>()) {
            if (llvm::Value *const *w = symbols_.find(wide_name(v->name))) return *w;
        }
        if (const Broadcast *b = term.as<Broadcast>()) {
            return splat(builder_->CreateSExt(codegen(b->value), wide->getScalarType()), b->lanes);
        }
        return builder_->CreateSExt(codegen(term), wide);
    };
    std::vector<IndexTerm> terms;
    collect_index_terms(e, false, terms);
    // Invariant terms first, then the varying ones, constants last; in each
    // group an added term first. A constant added last stays a constant
    // offset from the rest (x - 1 and x address neighbours, which LLVM's
    // alias analysis sees); folded into the invariant part, LLVM would merge
    // it with a subtracted min into `~min`, dropping nsw, and the two
    // addresses could no longer be compared.
    auto group = [&](const IndexTerm &term) { return term.e.as<IntImm>() ? 2 : uses_any(term.e, varying_) ? 1 : 0; };
    std::stable_sort(terms.begin(), terms.end(), [&](const IndexTerm &a, const IndexTerm &b) {
        const int ga = group(a), gb = group(b);
        if (ga != gb) return ga < gb;
        return !a.negative && b.negative;
    });
    llvm::Value *sum = nullptr;
    for (const IndexTerm &term : terms) {
        llvm::Value *v = nullptr;
        const Mul *mul = term.e.as<Mul>();
        if (mul && term.e.type() == t && (is_stride_symbol(mul->a) || is_stride_symbol(mul->b))) {
            const bool b_is_stride = is_stride_symbol(mul->b);
            llvm::Value *c = codegen_index_sum(b_is_stride ? mul->a : mul->b, in64);
            llvm::Value *s = term_value(b_is_stride ? mul->b : mul->a);
            v = builder_->CreateMul(c, s, "", /*HasNUW=*/false, /*HasNSW=*/true);
        } else {
            v = term_value(term.e);
        }
        if (!sum) {
            sum = term.negative ? builder_->CreateNSWNeg(v) : v;
        } else {
            sum = term.negative ? builder_->CreateSub(sum, v, "", false, true) : builder_->CreateAdd(sum, v, "", false, true);
        }
    }
    return sum;
}

namespace {

/** index as lanes + broadcast(scalar): `lanes` sums its terms that differ
 * per lane (a zero vector if none), `scalar` the values of its Broadcast
 * terms (undefined if none). Exact for an Int(32) index: 32-bit wrap-around. */
void split_broadcast_terms(const Expr &index, Expr &lanes, Expr &scalar) {
    std::vector<SumTerm> terms, per_lane, broadcast;
    flatten_sum(index, false, terms);
    for (const SumTerm &term : terms) {
        if (const Broadcast *b = term.e.as<Broadcast>()) {
            broadcast.push_back({b->value, term.negative});
        } else {
            per_lane.push_back(term);
        }
    }
    lanes = sum_of(index.type(), per_lane);
    scalar = broadcast.empty() ? Expr() : sum_of(index.type().element_of(), broadcast);
}

}  // namespace

void CodeGenLLVM::visit(const Load *op) {
    Type t = op->type;
    llvm::Type *elem = llvm_memory_type_of(t);
    llvm::Value *host = host_pointer(op->name);
    const llvm::Align align(t.element_of().bytes());
    const bool predicated = op->predicate.defined() && !is_const_true(op->predicate);
    llvm::Value *result = nullptr;
    auto tagged = [&](llvm::Value *access) {
        tag_buffer_access(llvm::cast<llvm::Instruction>(access), op->name);
        return access;
    };

    if (t.is_scalar()) {
        llvm::Value *p = builder_->CreateGEP(elem, host, index_to_i64(codegen_index(op->index), op->index.type()));
        if (!predicated) {
            result = tagged(builder_->CreateAlignedLoad(elem, p, align, op->name));
        } else {
            llvm::Value *pred = codegen(op->predicate);
            llvm::BasicBlock *before = builder_->GetInsertBlock();
            llvm::BasicBlock *load_block = llvm::BasicBlock::Create(context_, op->name + ".load", function_);
            llvm::BasicBlock *after = llvm::BasicBlock::Create(context_, op->name + ".loaded", function_);
            builder_->CreateCondBr(pred, load_block, after);
            builder_->SetInsertPoint(load_block);
            llvm::Value *loaded = tagged(builder_->CreateAlignedLoad(elem, p, align, op->name));
            builder_->CreateBr(after);
            builder_->SetInsertPoint(after);
            llvm::PHINode *phi = builder_->CreatePHI(elem, 2);
            phi->addIncoming(llvm::Constant::getNullValue(elem), before);
            phi->addIncoming(loaded, load_block);
            result = phi;
        }
    } else {
        llvm::Type *vec = llvm::FixedVectorType::get(elem, t.lanes());
        llvm::Value *zero = llvm::Constant::getNullValue(vec);
        llvm::Value *mask = predicated ? splat(codegen(op->predicate), t.lanes()) : nullptr;
        if (const Ramp *ramp = dense_ramp(op->index)) {
            llvm::Value *p = builder_->CreateGEP(elem, host, index_to_i64(codegen_index(ramp->base), ramp->base.type()));
            if (mask) {
                result = tagged(builder_->CreateMaskedLoad(vec, p, align, mask, zero));
            } else {
                result = tagged(builder_->CreateAlignedLoad(vec, p, align, op->name));
            }
        } else if (const Ramp *ramp = reversed_ramp(op->index)) {
            llvm::Value *p = builder_->CreateGEP(elem, host, index_to_i64(reversed_first(ramp), ramp->base.type()));
            if (mask) {
                result = tagged(builder_->CreateMaskedLoad(vec, p, align, builder_->CreateVectorReverse(mask), zero));
            } else {
                result = tagged(builder_->CreateAlignedLoad(vec, p, align, op->name));
            }
            result = builder_->CreateVectorReverse(result);
        } else if (const Ramp *ramp = mask ? nullptr : strided_ramp(op->index)) {
            // A constant stride: one scalar load per lane at a constant
            // offset from the base, as Halide does on x86. A gather would
            // first build the vector of addresses, and is microcoded (slow)
            // on many x86 cores; iir_blur's transposes read columns so.
            llvm::Value *p = builder_->CreateGEP(elem, host, index_to_i64(codegen_index(ramp->base), ramp->base.type()));
            const int64_t stride = ramp->stride.as<IntImm>()->value;
            result = llvm::PoisonValue::get(vec);
            for (int lane = 0; lane < t.lanes(); lane++) {
                llvm::Value *lane_p = builder_->CreateConstGEP1_64(elem, p, lane * stride);
                llvm::Value *v = tagged(builder_->CreateAlignedLoad(elem, lane_p, align, op->name));
                result = builder_->CreateInsertElement(result, v, builder_->getInt32(lane));
            }
        } else if (!mask && !large_buffers_ && op->index.type().element_of() == Int(32) &&
                   (t.element_of().bytes() < 4 || (t.element_of().bytes() == 4 && t.lanes() <= 8))) {
            // One scalar load per lane at host + its 32-bit index, as Halide
            // does on x86. 8- and 16-bit elements have no gather
            // instruction, and LLVM would scalarize a masked gather from a
            // vector of 64-bit pointers (a vector add, then an extract per
            // lane): histogram_equalize's 256-entry lookup. Up to 8 lanes of
            // 32 bits, the loads beat vgatherdps on Zen 5 once the loads of
            // one vector of results share their index vector: the index's
            // broadcast terms are added after the extraction, so loads
            // whose indices differ only by them (bilateral_grid's 16 reads
            // of the grid per 8 pixels) share one vector and its 8 extracts
            // (docs/PERFORMANCE.md, session 22). 16 lanes keep the gather
            // (extracting from a zmm costs more: matmul's packing ran 3-10%
            // slower so).
            Expr lanes_part, scalar_part;
            split_broadcast_terms(op->index, lanes_part, scalar_part);
            llvm::Value *indices = codegen(lanes_part);
            llvm::Value *offset = scalar_part.defined() ? codegen(scalar_part) : nullptr;
            result = llvm::PoisonValue::get(vec);
            for (int lane = 0; lane < t.lanes(); lane++) {
                llvm::Value *index = builder_->CreateExtractElement(indices, builder_->getInt32(lane));
                if (offset) index = builder_->CreateAdd(index, offset);
                llvm::Value *lane_p = builder_->CreateGEP(elem, host, builder_->CreateSExt(index, builder_->getInt64Ty()));
                llvm::Value *v = tagged(builder_->CreateAlignedLoad(elem, lane_p, align, op->name));
                result = builder_->CreateInsertElement(result, v, builder_->getInt32(lane));
            }
        } else {
            llvm::Value *ptrs = builder_->CreateGEP(elem, host, gather_index(op->index));
            if (!mask) mask = llvm::Constant::getAllOnesValue(llvm::FixedVectorType::get(builder_->getInt1Ty(), t.lanes()));
            result = tagged(builder_->CreateMaskedGather(vec, ptrs, align, mask, zero));
        }
    }
    if (t.is_bool()) result = builder_->CreateICmpNE(result, llvm::Constant::getNullValue(result->getType()));
    value_ = result;
}

// The element offsets of a gather, in 64 bits. On a 64-bit target without
// large_buffers an Int(32) index is computed as the 32-bit vector it is in
// the IR (wrapping: the index of an element of a buffer under 2^31 bytes is
// exact modulo 2^32 whatever the order of the sum) and sign-extended as a
// whole, so that x86 gathers with 32-bit indices (vgatherdps: an 8-lane
// float gather takes a ymm of indices). codegen_index64's per-term 64-bit
// sum is right for a scalar or dense address, but as a vector it doubles
// the index arithmetic and leaves the back end 64-bit indices
// (vgatherqps, 8 lanes from a zmm): bilateral_grid's slice, 16 gathers per
// 8 pixels, took 8% longer in all (docs/PERFORMANCE.md, 2026-12-03).
llvm::Value *CodeGenLLVM::gather_index(const Expr &index) {
    if (!index64_ || index.type().element_of() != Int(32)) return index_to_i64(codegen_index(index), index.type());
    return index_to_i64(codegen(index), index.type());
}

void CodeGenLLVM::visit(const Store *op) {
    if (const Call *update = op->value.as<Call>(); update && update->is_intrinsic(intrinsic::atomic_update)) {
        codegen_atomic_store(op, update);
        return;
    }
    Type t = op->value.type();
    llvm::Type *elem = llvm_memory_type_of(t);
    llvm::Value *host = host_pointer(op->name);
    const llvm::Align align(t.element_of().bytes());
    const bool predicated = op->predicate.defined() && !is_const_true(op->predicate);

    llvm::Value *value = codegen(op->value);
    auto tagged = [&](llvm::Instruction *access) { tag_buffer_access(access, op->name); };
    if (t.is_bool()) value = builder_->CreateZExt(value, t.is_scalar() ? elem : llvm::FixedVectorType::get(elem, t.lanes()));

    if (t.is_scalar()) {
        llvm::Value *p = builder_->CreateGEP(elem, host, index_to_i64(codegen_index(op->index), op->index.type()));
        if (!predicated) {
            tagged(builder_->CreateAlignedStore(value, p, align));
            return;
        }
        llvm::Value *pred = codegen(op->predicate);
        llvm::BasicBlock *store_block = llvm::BasicBlock::Create(context_, op->name + ".store", function_);
        llvm::BasicBlock *after = llvm::BasicBlock::Create(context_, op->name + ".stored", function_);
        builder_->CreateCondBr(pred, store_block, after);
        builder_->SetInsertPoint(store_block);
        tagged(builder_->CreateAlignedStore(value, p, align));
        builder_->CreateBr(after);
        builder_->SetInsertPoint(after);
        return;
    }

    llvm::Value *mask = predicated ? splat(codegen(op->predicate), t.lanes()) : nullptr;
    if (const Ramp *ramp = dense_ramp(op->index)) {
        llvm::Value *p = builder_->CreateGEP(elem, host, index_to_i64(codegen_index(ramp->base), ramp->base.type()));
        if (mask) {
            tagged(builder_->CreateMaskedStore(value, p, align, mask));
        } else {
            tagged(builder_->CreateAlignedStore(value, p, align));
        }
        return;
    }
    if (const Ramp *ramp = reversed_ramp(op->index)) {
        llvm::Value *p = builder_->CreateGEP(elem, host, index_to_i64(reversed_first(ramp), ramp->base.type()));
        value = builder_->CreateVectorReverse(value);
        if (mask) {
            tagged(builder_->CreateMaskedStore(value, p, align, builder_->CreateVectorReverse(mask)));
        } else {
            tagged(builder_->CreateAlignedStore(value, p, align));
        }
        return;
    }
    // Scatter writes lanes in order, so with repeated indices the last lane wins.
    llvm::Value *ptrs = builder_->CreateGEP(elem, host, index_to_i64(codegen_index(op->index), op->index.type()));
    if (!mask) mask = llvm::Constant::getAllOnesValue(llvm::FixedVectorType::get(builder_->getInt1Ty(), t.lanes()));
    tagged(builder_->CreateMaskedScatter(value, ptrs, align, mask));
}

// ------------------------------------------------------------------ Allocate / Free

// Constant-size Stack/Register allocations up to 64 KiB and Auto ones up
// to 16 KiB are entry-block allocas; everything else comes from loom_malloc and is freed when the body ends
// (or earlier, by Free), and on every early return (see
// emit_return_with_frees). A failed loom_malloc returns
// loom_error_code_out_of_memory after reporting the allocation's name.
void CodeGenLLVM::visit(const Allocate *op) {
    // While the body is generated, accesses named op->name are to this
    // fresh memory (tag_buffer_access).
    struct InternalBuffer {
        std::map<std::string, int> &names;
        const std::string &name;
        InternalBuffer(std::map<std::string, int> &n, const std::string &s) : names(n), name(s) { names[name]++; }
        ~InternalBuffer() {
            if (--names[name] == 0) names.erase(name);
        }
    } internal(internal_buffers_, op->name);

    const int64_t element_bytes = int64_t(op->type.bytes()) * op->type.lanes();
    const std::optional<int64_t> constant_bytes = stack_allocation_bytes(op);
    if (constant_bytes) {
        llvm::Type *bytes = llvm::ArrayType::get(builder_->getInt8Ty(), std::max<int64_t>(*constant_bytes, 1));
        llvm::AllocaInst *a = entry_alloca(bytes, nullptr, op->name);
        a->setAlignment(llvm::Align(32));
        live_allocations_.push_back({op->name, nullptr});
        {
            ScopedBinding<llvm::Value *> bind(symbols_, op->name, a);
            codegen(op->body);
        }
        live_allocations_.pop_back();
        return;
    }

    llvm::Type *i64 = builder_->getInt64Ty();
    llvm::Type *ptr = builder_->getPtrTy();
    llvm::Value *size = llvm::ConstantInt::get(i64, element_bytes);
    for (const Expr &e : op->extents) {
        size = builder_->CreateMul(size, index_to_i64(codegen(e), e.type()));
    }
    // loom_malloc takes a size_t: 32 bits on 32-bit targets, where the
    // size checks of LargeBuffers.cpp keep every allocation under 2^31 bytes.
    llvm::Type *size_t_type = module_->getDataLayout().getIntPtrType(context_);
    size = builder_->CreateTrunc(size, size_t_type);
    llvm::Function *loom_malloc = declare_function("loom_malloc", ptr, {ptr, size_t_type});
    loom_malloc->addRetAttr(llvm::Attribute::NoAlias);  // fresh memory, like malloc's
    llvm::Value *null = llvm::ConstantPointerNull::get(builder_->getPtrTy());

    llvm::Value *p = nullptr;
    llvm::Value *wanted = nullptr;  // whether the allocation happens (null = always)
    if (op->condition.defined() && !is_const_true(op->condition)) {
        wanted = codegen(op->condition);
        llvm::BasicBlock *before = builder_->GetInsertBlock();
        llvm::BasicBlock *alloc = llvm::BasicBlock::Create(context_, op->name + ".alloc", function_);
        llvm::BasicBlock *join = llvm::BasicBlock::Create(context_, op->name + ".allocated", function_);
        builder_->CreateCondBr(wanted, alloc, join);
        builder_->SetInsertPoint(alloc);
        llvm::Value *allocated = builder_->CreateCall(loom_malloc, {user_context(), size});
        builder_->CreateBr(join);
        builder_->SetInsertPoint(join);
        llvm::PHINode *phi = builder_->CreatePHI(ptr, 2, op->name);
        phi->addIncoming(null, before);
        phi->addIncoming(allocated, alloc);
        p = phi;
    } else {
        p = builder_->CreateCall(loom_malloc, {user_context(), size}, op->name);
    }

    llvm::Value *failed = builder_->CreateIsNull(p);
    if (wanted) failed = builder_->CreateAnd(failed, wanted);
    llvm::BasicBlock *oom = llvm::BasicBlock::Create(context_, op->name + ".out_of_memory", function_);
    llvm::BasicBlock *ok = llvm::BasicBlock::Create(context_, op->name + ".ok", function_);
    builder_->CreateCondBr(failed, oom, ok, llvm::MDBuilder(context_).createUnlikelyBranchWeights());
    builder_->SetInsertPoint(oom);
    {
        call_loom_error(build_message({string_piece("Out of memory allocating " + op->name)}, "", ""));
        emit_return_with_frees(builder_->getInt32(loom_error_code_out_of_memory));
    }
    builder_->SetInsertPoint(ok);

    llvm::AllocaInst *slot = entry_alloca(ptr, nullptr, op->name + ".slot");
    builder_->CreateStore(p, slot);
    live_allocations_.push_back({op->name, slot});
    {
        ScopedBinding<llvm::Value *> bind(symbols_, op->name, p);
        codegen(op->body);
    }
    emit_free_live_allocation(live_allocations_.size() - 1);
    live_allocations_.pop_back();
}

void CodeGenLLVM::visit(const Free *op) {
    for (size_t i = live_allocations_.size(); i-- > 0;) {
        if (live_allocations_[i].name != op->name) continue;
        if (!live_allocations_[i].slot) return;  // stack memory
        emit_free_live_allocation(i);
        builder_->CreateStore(llvm::ConstantPointerNull::get(builder_->getPtrTy()), live_allocations_[i].slot);
        return;
    }
    throw InternalError("codegen_llvm: Free of '" + op->name + "', which is not allocated here");
}

}  // namespace internal
}  // namespace loom
