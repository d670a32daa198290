// Code generation of constants, conversions, arithmetic, comparisons, logic
// and vector shapes.
//
// Integer semantics (Halide's): + - * wrap (the index arithmetic Loom
// generates for loads and stores is nsw instead: codegen_index in
// CodeGen_LLVM_Memory.cpp); division is Euclidean, i.e. it
// rounds toward -inf for a positive divisor and so that a % b is in [0, |b|)
// for a negative one; x / 0 and x % 0 are 0. Nothing here may produce LLVM
// poison or UB: divisors are made safe before sdiv/udiv, and INT_MIN / -1
// wraps to INT_MIN.
//
// Float(16) (LLVM half) arithmetic extends its operands to float, computes
// there and truncates the result back to half (ties to even), once per IR
// operation, exactly as the interpreter does; comparisons, min, max and
// select need no rounding and work on half directly.
//
// Floating-point contraction (Halide's policy): a float32 or float64 add,
// subtract or multiply carries LLVM's `contract` flag, so the back end may
// fuse a*b+c into one FMA instruction (one rounding instead of two) where
// the target has FMA. Float(16) arithmetic never does: its float operations
// are each followed by the rounding to half, and fusing across that rounding
// would change the result. The strict_float target feature turns
// contraction off altogether (and the target machine's AllowFPOpFusion too,
// LLVMTarget.cpp), so results match an unfused C++ evaluation bit for bit.
// Float modulus (a - b*floor(a/b)) is never contracted, like the interpreter.

#include <llvm/ADT/APFloat.h>
#include <llvm/ADT/APSInt.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/PatternMatch.h>

#include "codegen/llvm/CodeGen_LLVM_Internal.h"
#include "loom/Error.h"

namespace loom {
namespace internal {

namespace {

bool is_half(llvm::Value *v) { return v->getType()->getScalarType()->isHalfTy(); }

// The float type of the same shape as a half (or vector of half) type.
llvm::Type *widened_to_float(llvm::Type *t) {
    llvm::Type *f32 = llvm::Type::getFloatTy(t->getContext());
    if (auto *v = llvm::dyn_cast<llvm::FixedVectorType>(t)) return llvm::FixedVectorType::get(f32, v->getNumElements());
    return f32;
}

// op(a, b) computed in float when the operands are half, rounded back to
// half; otherwise just op(a, b).
template<class Op>
llvm::Value *float_op(llvm::IRBuilder<> &b, llvm::Value *x, llvm::Value *y, Op op) {
    if (!is_half(x)) return op(x, y);
    llvm::Type *half = x->getType(), *wide = widened_to_float(half);
    llvm::Value *r = op(b.CreateFPExt(x, wide), b.CreateFPExt(y, wide));
    return b.CreateFPTrunc(r, half);
}

llvm::Value *fadd(llvm::IRBuilder<> &b, llvm::Value *x, llvm::Value *y) {
    return float_op(b, x, y, [&](llvm::Value *p, llvm::Value *q) { return b.CreateFAdd(p, q); });
}

llvm::Value *fmul(llvm::IRBuilder<> &b, llvm::Value *x, llvm::Value *y) {
    return float_op(b, x, y, [&](llvm::Value *p, llvm::Value *q) { return b.CreateFMul(p, q); });
}

// Sets the `contract` flag on v if it is a float instruction (a constant
// folded by the builder has none to set).
llvm::Value *contractable(llvm::Value *v) {
    if (auto *inst = llvm::dyn_cast<llvm::Instruction>(v); inst && llvm::isa<llvm::FPMathOperator>(inst)) {
        inst->setHasAllowContract(true);
    }
    return v;
}

// A vector float -> int conversion that saturates (NaN -> 0), as
// llvm.fpto[su]i.sat does, in vector instructions: LLVM 19 scalarizes the
// intrinsic's vector form on x86 into a compare and two branches per lane
// (62 instructions for 8 lanes; local_laplacian's 8-lane lookup index spent
// most of its loop there). Clamped into the range the plain conversion
// defines, converted, then the lanes above the largest float below the
// type's maximum and the NaN lanes replaced (a select ignores the poison of
// the lane it does not choose). 10 instructions for 8 lanes.
llvm::Value *saturating_vector_float_to_int(llvm::IRBuilder<> &b, llvm::Value *v, Type to, llvm::Type *dst) {
    llvm::Type *ft = v->getType();
    const llvm::fltSemantics &sem = ft->getScalarType()->getFltSemantics();
    const bool is_signed = to.is_int();
    const llvm::APSInt lo_int = llvm::APSInt::getMinValue(to.bits(), !is_signed);
    const llvm::APSInt hi_int = llvm::APSInt::getMaxValue(to.bits(), !is_signed);
    // Both ends as floats, rounded toward zero: inside the type's range.
    llvm::APFloat lo_fp(sem), hi_fp(sem);
    lo_fp.convertFromAPInt(lo_int, is_signed, llvm::APFloat::rmTowardZero);
    hi_fp.convertFromAPInt(hi_int, is_signed, llvm::APFloat::rmTowardZero);
    llvm::Value *lo = llvm::ConstantFP::get(ft, lo_fp), *hi = llvm::ConstantFP::get(ft, hi_fp);
    llvm::Value *clamped = b.CreateSelect(b.CreateFCmpOLT(v, lo), lo, v);
    clamped = b.CreateSelect(b.CreateFCmpOGT(clamped, hi), hi, clamped);
    llvm::Value *r = is_signed ? b.CreateFPToSI(clamped, dst) : b.CreateFPToUI(clamped, dst);
    r = b.CreateSelect(b.CreateFCmpOGT(v, hi), llvm::ConstantInt::get(dst, hi_int), r);
    return b.CreateSelect(b.CreateFCmpUNO(v, v), llvm::Constant::getNullValue(dst), r);
}

}  // namespace

bool CodeGenLLVM::may_contract(llvm::Value *operand) const {
    return !target_.has_feature(Target::StrictFloat) && !is_half(operand);
}

// ------------------------------------------------------------------ constants

void CodeGenLLVM::visit(const IntImm *op) {
    value_ = llvm::ConstantInt::get(llvm_type_of(op->type), op->value, /*IsSigned=*/true);
}

void CodeGenLLVM::visit(const UIntImm *op) {
    value_ = llvm::ConstantInt::get(llvm_type_of(op->type), op->value, /*IsSigned=*/false);
}

void CodeGenLLVM::visit(const FloatImm *op) {
    value_ = llvm::ConstantFP::get(llvm_type_of(op->type), op->value);
}

void CodeGenLLVM::visit(const StringImm *op) {
    value_ = string_constant(op->value);
}

void CodeGenLLVM::visit(const Variable *op) {
    value_ = lookup_symbol(op->name);
}

// ------------------------------------------------------------------ conversions

void CodeGenLLVM::visit(const Cast *op) {
    value_ = cast_value(codegen(op->value), op->value.type(), op->type);
}

// C conversions, except that float -> int saturates (NaN -> 0) through
// llvm.fpto[su]i.sat: an out-of-range value is undefined in C and poison in
// LLVM, and a saturated value is at least deterministic.
llvm::Value *CodeGenLLVM::cast_value(llvm::Value *v, Type from, Type to) {
    llvm::Type *dst = llvm_type_of(to);
    if (v->getType() == dst && from.code() == to.code()) return v;
    if (to.is_bool()) {
        if (from.is_float()) return builder_->CreateFCmpUNE(v, llvm::Constant::getNullValue(v->getType()));
        return builder_->CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()));
    }
    if (from.is_handle() || to.is_handle()) {
        if (from.is_handle() && to.is_handle()) return v;
        if (from.is_handle()) return builder_->CreatePtrToInt(v, dst);
        return builder_->CreateIntToPtr(v, dst);
    }
    if (from.is_float() && to.is_float()) return builder_->CreateFPCast(v, dst);
    if (from.is_float()) {
        if (target_.arch == Target::X86 && v->getType()->isVectorTy()) {
            return saturating_vector_float_to_int(*builder_, v, to, dst);
        }
        auto id = to.is_int() ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat;
        return builder_->CreateIntrinsic(id, {dst, v->getType()}, {v});
    }
    const bool from_signed = from.is_int();  // bool counts as unsigned
    if (to.is_float()) return from_signed ? builder_->CreateSIToFP(v, dst) : builder_->CreateUIToFP(v, dst);
    return builder_->CreateIntCast(v, dst, from_signed);
}

void CodeGenLLVM::visit(const Reinterpret *op) {
    llvm::Value *v = codegen(op->value);
    Type from = op->value.type();
    llvm::Type *dst = llvm_type_of(op->type);
    if (v->getType() == dst) {
        value_ = v;
    } else if (from.is_handle() && !op->type.is_handle()) {
        value_ = builder_->CreatePtrToInt(v, dst);
    } else if (!from.is_handle() && op->type.is_handle()) {
        value_ = builder_->CreateIntToPtr(v, dst);
    } else {
        value_ = builder_->CreateBitCast(v, dst);
    }
}

// ------------------------------------------------------------------ arithmetic

void CodeGenLLVM::visit(const Add *op) {
    llvm::Value *a = codegen(op->a), *b = codegen(op->b);
    if (!op->type.is_float()) {
        value_ = builder_->CreateAdd(a, b);
        return;
    }
    value_ = fadd(*builder_, a, b);
    if (may_contract(a)) contractable(value_);
}

void CodeGenLLVM::visit(const Sub *op) {
    llvm::Value *a = codegen(op->a), *b = codegen(op->b);
    if (!op->type.is_float()) {
        value_ = builder_->CreateSub(a, b);
        return;
    }
    value_ = float_op(*builder_, a, b, [&](llvm::Value *p, llvm::Value *q) { return builder_->CreateFSub(p, q); });
    if (may_contract(a)) contractable(value_);
}

void CodeGenLLVM::visit(const Mul *op) {
    llvm::Value *a = codegen(op->a), *b = codegen(op->b);
    if (!op->type.is_float()) {
        value_ = builder_->CreateMul(a, b);
        return;
    }
    value_ = fmul(*builder_, a, b);
    if (may_contract(a)) contractable(value_);
}

void CodeGenLLVM::visit(const Div *op) {
    llvm::Value *a = codegen(op->a), *b = codegen(op->b);
    if (!op->type.is_float()) {
        value_ = div_euclid(a, b, op->type);
        return;
    }
    value_ = float_op(*builder_, a, b, [&](llvm::Value *p, llvm::Value *q) { return builder_->CreateFDiv(p, q); });
}

// Float modulus is a - b * floor(a / b): it has the sign of b, like Halide's.
// For Float(16) the whole formula runs in float and rounds once at the end.
void CodeGenLLVM::visit(const Mod *op) {
    llvm::Value *a = codegen(op->a), *b = codegen(op->b);
    if (!op->type.is_float()) {
        value_ = mod_euclid(a, b, op->type);
        return;
    }
    value_ = float_op(*builder_, a, b, [&](llvm::Value *p, llvm::Value *q) {
        llvm::Value *ratio = builder_->CreateUnaryIntrinsic(llvm::Intrinsic::floor, builder_->CreateFDiv(p, q));
        return builder_->CreateFSub(p, builder_->CreateFMul(q, ratio));
    });
}

llvm::Value *CodeGenLLVM::div_euclid(llvm::Value *a, llvm::Value *b, Type t) {
    using namespace llvm::PatternMatch;
    llvm::Type *ty = a->getType();
    const int bits = t.bits();
    llvm::Value *zero = llvm::Constant::getNullValue(ty);
    llvm::Value *one = llvm::ConstantInt::get(ty, 1);

    // Constant divisors (scalar or splat): the cheap exact forms.
    const llvm::APInt *c = nullptr;
    if (match(b, m_APInt(c))) {
        if (c->isZero()) return zero;
        if (t.is_uint()) {
            if (c->isPowerOf2()) return builder_->CreateLShr(a, llvm::ConstantInt::get(ty, c->logBase2()));
            return builder_->CreateUDiv(a, b);
        }
        if (c->isStrictlyPositive()) {
            if (c->isPowerOf2()) return builder_->CreateAShr(a, llvm::ConstantInt::get(ty, c->logBase2()));
            // floor(a / c) = ~(~a / c) for negative a; ~a >= 0, so sdiv is exact.
            llvm::Value *sign = builder_->CreateAShr(a, llvm::ConstantInt::get(ty, bits - 1));
            llvm::Value *q = builder_->CreateSDiv(builder_->CreateXor(a, sign), b);
            return builder_->CreateXor(q, sign);
        }
        if (c->isAllOnes()) return builder_->CreateSub(zero, a);  // wraps for INT_MIN
    }

    llvm::Value *b_is_zero = builder_->CreateICmpEQ(b, zero);
    llvm::Value *b_safe = builder_->CreateSelect(b_is_zero, one, b);
    if (t.is_uint()) return builder_->CreateSelect(b_is_zero, zero, builder_->CreateUDiv(a, b_safe));

    // Divide a + 1 instead of a when a < 0: that cannot overflow (not even
    // INT_MIN / -1), and moving the truncated quotient one step away from
    // zero then gives the Euclidean quotient.
    llvm::Value *a_sign = builder_->CreateAShr(a, llvm::ConstantInt::get(ty, bits - 1));  // -1 or 0
    llvm::Value *q = builder_->CreateSDiv(builder_->CreateSub(a, a_sign), b_safe);
    llvm::Value *step = builder_->CreateSelect(builder_->CreateICmpSLT(b_safe, zero), one,
                                               llvm::Constant::getAllOnesValue(ty));
    q = builder_->CreateAdd(q, builder_->CreateAnd(a_sign, step));
    return builder_->CreateSelect(b_is_zero, zero, q);
}

llvm::Value *CodeGenLLVM::mod_euclid(llvm::Value *a, llvm::Value *b, Type t) {
    using namespace llvm::PatternMatch;
    llvm::Type *ty = a->getType();
    const int bits = t.bits();
    llvm::Value *zero = llvm::Constant::getNullValue(ty);
    llvm::Value *one = llvm::ConstantInt::get(ty, 1);

    const llvm::APInt *c = nullptr;
    if (match(b, m_APInt(c))) {
        if (c->isZero()) return zero;
        if (t.is_uint()) {
            if (c->isPowerOf2()) return builder_->CreateAnd(a, llvm::ConstantInt::get(ty, *c - 1));
            return builder_->CreateURem(a, b);
        }
        if (c->isStrictlyPositive()) {
            if (c->isPowerOf2()) return builder_->CreateAnd(a, llvm::ConstantInt::get(ty, *c - 1));
            // A negative C remainder moves up by b.
            llvm::Value *r = builder_->CreateSRem(a, b);
            llvm::Value *r_sign = builder_->CreateAShr(r, llvm::ConstantInt::get(ty, bits - 1));
            return builder_->CreateAdd(r, builder_->CreateAnd(r_sign, b));
        }
        if (c->isAllOnes()) return zero;
    }

    llvm::Value *b_is_zero = builder_->CreateICmpEQ(b, zero);
    llvm::Value *b_safe = builder_->CreateSelect(b_is_zero, one, b);
    if (t.is_uint()) return builder_->CreateSelect(b_is_zero, zero, builder_->CreateURem(a, b_safe));

    // As in div_euclid: for a < 0 take the remainder of a + 1, which lies in
    // (-|b|, 0], and shift it by |b| - 1 into [0, |b|). |INT_MIN| wraps to
    // INT_MIN, which is still right modulo 2^bits.
    llvm::Value *a_sign = builder_->CreateAShr(a, llvm::ConstantInt::get(ty, bits - 1));
    llvm::Value *r = builder_->CreateSRem(builder_->CreateSub(a, a_sign), b_safe);
    llvm::Value *abs_b = builder_->CreateSelect(builder_->CreateICmpSLT(b_safe, zero),
                                                builder_->CreateSub(zero, b_safe), b_safe);
    r = builder_->CreateAdd(r, builder_->CreateAnd(a_sign, builder_->CreateSub(abs_b, one)));
    return builder_->CreateSelect(b_is_zero, zero, r);
}

// Float min/max are the selects b < a ? b : a and b > a ? b : a, as in the
// interpreter: when the comparison fails (a NaN operand, or +0 vs -0) they
// return a.
llvm::Value *CodeGenLLVM::min_value(llvm::Value *a, llvm::Value *b, Type t) {
    if (t.is_float()) return builder_->CreateSelect(builder_->CreateFCmpOLT(b, a), b, a);
    return builder_->CreateBinaryIntrinsic(t.is_int() ? llvm::Intrinsic::smin : llvm::Intrinsic::umin, a, b);
}

llvm::Value *CodeGenLLVM::max_value(llvm::Value *a, llvm::Value *b, Type t) {
    if (t.is_float()) return builder_->CreateSelect(builder_->CreateFCmpOGT(b, a), b, a);
    return builder_->CreateBinaryIntrinsic(t.is_int() ? llvm::Intrinsic::smax : llvm::Intrinsic::umax, a, b);
}

void CodeGenLLVM::visit(const Min *op) {
    llvm::Value *a = codegen(op->a), *b = codegen(op->b);
    value_ = min_value(a, b, op->type);
}

void CodeGenLLVM::visit(const Max *op) {
    llvm::Value *a = codegen(op->a), *b = codegen(op->b);
    value_ = max_value(a, b, op->type);
}

// ------------------------------------------------------------------ comparisons and logic

llvm::Value *CodeGenLLVM::compare(llvm::CmpInst::Predicate signed_int, llvm::CmpInst::Predicate unsigned_int,
                                  llvm::CmpInst::Predicate fp, const Expr &a, const Expr &b) {
    Type t = a.type();
    llvm::Value *va = codegen(a), *vb = codegen(b);
    if (t.is_float()) return builder_->CreateFCmp(fp, va, vb);
    return builder_->CreateICmp(t.is_int() ? signed_int : unsigned_int, va, vb);
}

// NE is unordered (true for NaN), every other float comparison ordered, as in C.
void CodeGenLLVM::visit(const EQ *op) {
    value_ = compare(llvm::CmpInst::ICMP_EQ, llvm::CmpInst::ICMP_EQ, llvm::CmpInst::FCMP_OEQ, op->a, op->b);
}
void CodeGenLLVM::visit(const NE *op) {
    value_ = compare(llvm::CmpInst::ICMP_NE, llvm::CmpInst::ICMP_NE, llvm::CmpInst::FCMP_UNE, op->a, op->b);
}
void CodeGenLLVM::visit(const LT *op) {
    value_ = compare(llvm::CmpInst::ICMP_SLT, llvm::CmpInst::ICMP_ULT, llvm::CmpInst::FCMP_OLT, op->a, op->b);
}
void CodeGenLLVM::visit(const LE *op) {
    value_ = compare(llvm::CmpInst::ICMP_SLE, llvm::CmpInst::ICMP_ULE, llvm::CmpInst::FCMP_OLE, op->a, op->b);
}
void CodeGenLLVM::visit(const GT *op) {
    value_ = compare(llvm::CmpInst::ICMP_SGT, llvm::CmpInst::ICMP_UGT, llvm::CmpInst::FCMP_OGT, op->a, op->b);
}
void CodeGenLLVM::visit(const GE *op) {
    value_ = compare(llvm::CmpInst::ICMP_SGE, llvm::CmpInst::ICMP_UGE, llvm::CmpInst::FCMP_OGE, op->a, op->b);
}

void CodeGenLLVM::visit(const And *op) {
    llvm::Value *a = codegen(op->a), *b = codegen(op->b);
    value_ = builder_->CreateAnd(a, b);
}

void CodeGenLLVM::visit(const Or *op) {
    llvm::Value *a = codegen(op->a), *b = codegen(op->b);
    value_ = builder_->CreateOr(a, b);
}

void CodeGenLLVM::visit(const Not *op) {
    value_ = builder_->CreateNot(codegen(op->a));
}

void CodeGenLLVM::visit(const Select *op) {
    llvm::Value *c = codegen(op->condition);
    llvm::Value *t = codegen(op->true_value);
    llvm::Value *f = codegen(op->false_value);
    value_ = builder_->CreateSelect(c, t, f);
}

// ------------------------------------------------------------------ vectors

void CodeGenLLVM::visit(const Ramp *op) {
    llvm::Value *base = codegen(op->base);
    llvm::Value *stride = codegen(op->stride);
    Type et = op->base.type();
    if (et.is_vector()) {
        // A ramp of vectors: concatenate base, base + stride, ...
        std::vector<llvm::Value *> parts;
        llvm::Value *v = base;
        for (int i = 0; i < op->lanes; i++) {
            parts.push_back(v);
            v = et.is_float() ? fadd(*builder_, v, stride) : builder_->CreateAdd(v, stride);
        }
        value_ = concat_vectors(parts);
        return;
    }
    std::vector<llvm::Constant *> lane_numbers;
    for (int i = 0; i < op->lanes; i++) {
        lane_numbers.push_back(et.is_float() ? llvm::ConstantFP::get(base->getType(), i)
                                             : llvm::ConstantInt::get(base->getType(), i));
    }
    llvm::Value *lanes = llvm::ConstantVector::get(lane_numbers);
    llvm::Value *vbase = splat(base, op->lanes), *vstride = splat(stride, op->lanes);
    value_ = et.is_float() ? fadd(*builder_, vbase, fmul(*builder_, vstride, lanes))
                           : builder_->CreateAdd(vbase, builder_->CreateMul(vstride, lanes));
}

void CodeGenLLVM::visit(const Broadcast *op) {
    llvm::Value *v = codegen(op->value);
    Type vt = op->value.type();
    if (vt.is_scalar()) {
        value_ = splat(v, op->lanes);
        return;
    }
    std::vector<int> indices;
    for (int i = 0; i < op->lanes; i++) {
        for (int j = 0; j < vt.lanes(); j++) indices.push_back(j);
    }
    value_ = builder_->CreateShuffleVector(v, indices);
}

void CodeGenLLVM::visit(const Let *op) {
    llvm::Value *v = codegen(op->value);
    if (!v->hasName() && llvm::isa<llvm::Instruction>(v)) v->setName(op->name);
    const bool wide = bind_wide_let(op->name, op->value);  // large_buffers
    ScopedBinding<llvm::Value *> bind(symbols_, op->name, v);
    const bool varying = note_if_varying(op->name, op->value);
    value_ = codegen(op->body);
    if (varying) varying_.pop_back();
    if (wide) symbols_.pop(wide_name(op->name));
}

// Scalars join as one lane; vectors of different lengths are padded to a
// common length before each two-way shuffle.
llvm::Value *CodeGenLLVM::concat_vectors(const std::vector<llvm::Value *> &vs) {
    if (vs.empty()) throw InternalError("codegen_llvm: concatenation of no vectors");
    auto as_vector = [&](llvm::Value *v) -> llvm::Value * {
        if (v->getType()->isVectorTy()) return v;
        llvm::Type *vt = llvm::FixedVectorType::get(v->getType(), 1);
        return builder_->CreateInsertElement(llvm::PoisonValue::get(vt), v, uint64_t(0));
    };
    auto lanes_of = [](llvm::Value *v) {
        return (int)llvm::cast<llvm::FixedVectorType>(v->getType())->getNumElements();
    };
    auto widen = [&](llvm::Value *v, int lanes) -> llvm::Value * {
        int n = lanes_of(v);
        if (n == lanes) return v;
        std::vector<int> indices;
        for (int i = 0; i < lanes; i++) indices.push_back(i < n ? i : -1);
        return builder_->CreateShuffleVector(v, indices);
    };
    llvm::Value *result = as_vector(vs[0]);
    for (size_t k = 1; k < vs.size(); k++) {
        llvm::Value *next = as_vector(vs[k]);
        const int na = lanes_of(result), nb = lanes_of(next), m = std::max(na, nb);
        std::vector<int> indices;
        for (int i = 0; i < na; i++) indices.push_back(i);
        for (int i = 0; i < nb; i++) indices.push_back(m + i);
        result = builder_->CreateShuffleVector(widen(result, m), widen(next, m), indices);
    }
    return result;
}

void CodeGenLLVM::visit(const Shuffle *op) {
    std::vector<llvm::Value *> vs;
    for (const Expr &e : op->vectors) vs.push_back(codegen(e));
    if (op->type.is_scalar()) {
        if (op->indices.size() != 1) throw InternalError("codegen_llvm: scalar Shuffle with several indices");
        // Find the one vector that holds the lane, without concatenating.
        int lane = op->indices[0];
        for (size_t k = 0; k < vs.size(); k++) {
            const int n = op->vectors[k].type().lanes();
            if (lane < n) {
                value_ = n == 1 ? vs[k] : builder_->CreateExtractElement(vs[k], uint64_t(lane));
                return;
            }
            lane -= n;
        }
        throw InternalError("codegen_llvm: Shuffle index out of range");
    }
    llvm::Value *all = concat_vectors(vs);
    value_ = builder_->CreateShuffleVector(all, op->indices);
}

// Lanes are combined in order (lane 0 first) within each group of adjacent
// lanes, so float sums are bit-exact with a sequential loop; the ordered
// llvm.vector.reduce.fadd keeps that order.
void CodeGenLLVM::visit(const VectorReduce *op) {
    llvm::Value *v = codegen(op->value);
    Type t = op->type;
    const int in_lanes = op->value.type().lanes(), out_lanes = t.lanes();
    if (out_lanes < 1 || in_lanes % out_lanes != 0) throw InternalError("codegen_llvm: bad VectorReduce lanes");
    const int group = in_lanes / out_lanes;
    if (group == 1) {
        value_ = v;
        return;
    }

    // Half sums and products round after every step: fold them below.
    if (out_lanes == 1 && !is_half(v)) {
        const bool is_float = t.is_float();
        switch (op->op) {
        case VectorReduce::Add:
            value_ = is_float ? builder_->CreateFAddReduce(llvm::ConstantFP::getNegativeZero(v->getType()->getScalarType()), v)
                              : builder_->CreateAddReduce(v);
            return;
        case VectorReduce::Mul:
            value_ = is_float ? builder_->CreateFMulReduce(llvm::ConstantFP::get(v->getType()->getScalarType(), 1.0), v)
                              : builder_->CreateMulReduce(v);
            return;
        case VectorReduce::Min:
            if (is_float) break;
            value_ = builder_->CreateIntMinReduce(v, t.is_int());
            return;
        case VectorReduce::Max:
            if (is_float) break;
            value_ = builder_->CreateIntMaxReduce(v, t.is_int());
            return;
        case VectorReduce::And:
            value_ = builder_->CreateAndReduce(v);
            return;
        case VectorReduce::Or:
            value_ = builder_->CreateOrReduce(v);
            return;
        }
    }

    // Slice i holds lane i of every group; fold the slices in order.
    auto slice = [&](int i) -> llvm::Value * {
        if (out_lanes == 1) return builder_->CreateExtractElement(v, uint64_t(i));
        std::vector<int> indices;
        for (int j = 0; j < out_lanes; j++) indices.push_back(j * group + i);
        return builder_->CreateShuffleVector(v, indices);
    };
    llvm::Value *acc = slice(0);
    for (int i = 1; i < group; i++) {
        llvm::Value *x = slice(i);
        switch (op->op) {
        case VectorReduce::Add:
            acc = t.is_float() ? fadd(*builder_, acc, x) : builder_->CreateAdd(acc, x);
            break;
        case VectorReduce::Mul:
            acc = t.is_float() ? fmul(*builder_, acc, x) : builder_->CreateMul(acc, x);
            break;
        case VectorReduce::Min: acc = min_value(acc, x, t); break;
        case VectorReduce::Max: acc = max_value(acc, x, t); break;
        case VectorReduce::And: acc = builder_->CreateAnd(acc, x); break;
        case VectorReduce::Or: acc = builder_->CreateOr(acc, x); break;
        }
    }
    value_ = acc;
}

}  // namespace internal
}  // namespace loom
