#include "lower/EmulateBFloat16.h"

#include <string>
#include <vector>

#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "loom/Error.h"
#include "loom/runtime/bfloat16.h"

namespace loom {
namespace internal {

namespace {

Type bits_type(int lanes) { return UInt(16, lanes); }

Expr u32(Type like, uint32_t value) { return make_const(UInt(32, like.lanes()), (uint64_t)value); }

Expr intrinsic_call(const char *name, Type t, const std::vector<Expr> &args) {
    return Call::make(t, name, args, CallType::PureIntrinsic);
}

// The float a BFloat(16)'s bits stand for: the bits are the float's top half.
Expr widen(const Expr &bits) {
    const int lanes = bits.type().lanes();
    Expr wide = Cast::make(UInt(32, lanes), bits);
    wide = intrinsic_call(intrinsic::shift_left, wide.type(), {wide, u32(wide.type(), 16)});
    return Reinterpret::make(Float(32, lanes), wide);
}

// The BFloat(16) bits nearest to the float whose bits are `u` (UInt(32)),
// ties to even: adding 0x7fff, plus one when the kept half is odd, carries
// into the kept half exactly when it must round up. A NaN stays a quiet NaN.
Expr narrow_float_bits(const Expr &u) {
    const Type t = u.type();
    Expr magnitude = intrinsic_call(intrinsic::bitwise_and, t, {u, u32(t, 0x7fffffffu)});
    Expr is_nan = GT::make(magnitude, u32(t, 0x7f800000u));
    Expr high = intrinsic_call(intrinsic::shift_right, t, {u, u32(t, 16)});
    Expr odd = intrinsic_call(intrinsic::bitwise_and, t, {high, u32(t, 1)});
    Expr rounded = Add::make(u, Add::make(u32(t, 0x7fffu), odd));
    rounded = intrinsic_call(intrinsic::shift_right, t, {rounded, u32(t, 16)});
    Expr quiet_nan = intrinsic_call(intrinsic::bitwise_or, t, {high, u32(t, 0x40u)});
    return Cast::make(bits_type(t.lanes()), Select::make(is_nan, quiet_nan, rounded));
}

Expr narrow(const Expr &f32) { return narrow_float_bits(Reinterpret::make(UInt(32, f32.type().lanes()), f32)); }

// The BFloat(16) bits nearest to a Float(64), rounded once: round to odd into
// a float (round to nearest, step back toward zero if that went away from
// zero, set the last bit if inexact), whose 16 extra bits make rounding it to
// nearest the correctly rounded result. As bfloat16_t::bits_from_double.
Expr narrow_double(const Expr &d) {
    const int lanes = d.type().lanes();
    Expr f = Cast::make(Float(32, lanes), d);
    Expr back = Cast::make(Float(64, lanes), f);
    Expr zero = make_zero(d.type());
    Expr away_from_zero = Select::make(LT::make(d, zero), LT::make(back, d), GT::make(back, d));
    Expr inexact = NE::make(back, d);  // also for a NaN, which keeps a nonzero mantissa
    Expr u = Reinterpret::make(UInt(32, lanes), f);
    u = Select::make(away_from_zero, Sub::make(u, u32(u.type(), 1)), u);
    u = Select::make(inexact, intrinsic_call(intrinsic::bitwise_or, u.type(), {u, u32(u.type(), 1)}), u);
    return narrow_float_bits(u);
}

// x (of any non-BFloat type) as the nearest BFloat(16) bits.
Expr to_bfloat_bits(const Expr &x) {
    const Type t = x.type();
    const int lanes = t.lanes();
    if (t.is_float() && t.bits() == 32) return narrow(x);
    if (t.is_float() && t.bits() == 16) return narrow(Cast::make(Float(32, lanes), x));  // exact in float
    if (t.is_float()) return narrow_double(x);
    // Integers of up to 32 bits are exact in a double (64-bit ones rarely
    // round there first, as in a C conversion through double).
    return narrow_double(Cast::make(Float(64, lanes), x));
}

class EmulateBFloat16 : public IRMutator {
    using IRMutator::visit;

    std::string gpu_loop_;  // the innermost enclosing GPU loop, "" on the host

    void check_not_in_kernel(Type t) {
        if (!t.is_bfloat() || gpu_loop_.empty()) return;
        throw CompileError("A " + t.to_string() + " value is computed in the GPU loop " + gpu_loop_ +
                           ", but Loom's Vulkan back end has no bfloat16 support. Compute the Funcs that use "
                           "BFloat(16) on the host, or use Float(16) or Float(32) in kernels.");
    }

    Expr bits_of(const Expr &e) {
        check_not_in_kernel(e.type());
        return mutate(e);
    }

    template<typename Op>
    Expr arithmetic(const Op *op) {
        if (!op->type.is_bfloat()) return IRMutator::visit(op);
        return narrow(Op::make(widen(bits_of(op->a)), widen(bits_of(op->b))));
    }
    template<typename Op>
    Expr comparison(const Op *op) {
        if (!op->a.type().is_bfloat()) return IRMutator::visit(op);
        return Op::make(widen(bits_of(op->a)), widen(bits_of(op->b)));
    }

    Expr visit(const FloatImm *op) override {
        if (!op->type.is_bfloat()) return op;
        check_not_in_kernel(op->type);
        return make_const(UInt(16), (uint64_t)bfloat16_t::bits_from_double(op->value));
    }
    Expr visit(const Variable *op) override {
        if (!op->type.is_bfloat()) return op;
        check_not_in_kernel(op->type);
        if (op->param.defined()) return Variable::make(bits_type(op->type.lanes()), op->name, op->param);
        return Variable::make(bits_type(op->type.lanes()), op->name);
    }
    Expr visit(const Load *op) override {
        if (!op->type.is_bfloat()) return IRMutator::visit(op);
        check_not_in_kernel(op->type);
        Expr predicate = op->predicate.defined() ? mutate(op->predicate) : Expr();
        return Load::make(bits_type(op->type.lanes()), op->name, mutate(op->index), predicate, op->param);
    }
    Expr visit(const Cast *op) override {
        const Type from = op->value.type();
        if (!op->type.is_bfloat() && !from.is_bfloat()) return IRMutator::visit(op);
        check_not_in_kernel(op->type);
        check_not_in_kernel(from);
        Expr value = mutate(op->value);
        if (op->type.is_bfloat() && from.is_bfloat()) return value;
        if (op->type.is_bfloat()) return to_bfloat_bits(value);
        Expr wide = widen(value);
        return op->type.element_of() == Float(32) ? wide : Cast::make(op->type, wide);
    }
    Expr visit(const Reinterpret *op) override {
        const Type from = op->value.type();
        if (!op->type.is_bfloat() && !from.is_bfloat()) return IRMutator::visit(op);
        check_not_in_kernel(op->type);
        check_not_in_kernel(from);
        Expr value = mutate(op->value);
        Type to = op->type.is_bfloat() ? bits_type(op->type.lanes()) : op->type;
        return value.type() == to ? value : Reinterpret::make(to, value);
    }
    Expr visit(const Add *op) override { return arithmetic(op); }
    Expr visit(const Sub *op) override { return arithmetic(op); }
    Expr visit(const Mul *op) override { return arithmetic(op); }
    Expr visit(const Div *op) override { return arithmetic(op); }
    Expr visit(const Mod *op) override { return arithmetic(op); }
    Expr visit(const Min *op) override { return arithmetic(op); }
    Expr visit(const Max *op) override { return arithmetic(op); }
    Expr visit(const EQ *op) override { return comparison(op); }
    Expr visit(const NE *op) override { return comparison(op); }
    Expr visit(const LT *op) override { return comparison(op); }
    Expr visit(const LE *op) override { return comparison(op); }
    Expr visit(const GT *op) override { return comparison(op); }
    Expr visit(const GE *op) override { return comparison(op); }
    Expr visit(const Select *op) override {
        check_not_in_kernel(op->type);
        return IRMutator::visit(op);  // selects between the bits
    }
    Expr visit(const Call *op) override {
        // Math functions, abs, is_nan, print_value, likely, ...: on the
        // widened values, the result rounded back.
        bool any = op->type.is_bfloat();
        for (const Expr &a : op->args) any = any || a.type().is_bfloat();
        if (!any) return IRMutator::visit(op);
        check_not_in_kernel(op->type);
        std::vector<Expr> args;
        for (const Expr &a : op->args) {
            args.push_back(a.type().is_bfloat() ? widen(bits_of(a)) : mutate(a));
        }
        if (!op->type.is_bfloat()) {
            return Call::make(op->type, op->name, args, op->call_type, op->func, op->value_index, op->param);
        }
        Type wide = Float(32, op->type.lanes());
        return narrow(Call::make(wide, op->name, args, op->call_type, op->func, op->value_index, op->param));
    }
    Expr visit(const VectorReduce *op) override {
        if (!op->type.is_bfloat()) return IRMutator::visit(op);
        return narrow(VectorReduce::make(op->op, widen(bits_of(op->value)), op->type.lanes()));
    }
    Stmt visit(const Allocate *op) override {
        if (!op->type.is_bfloat()) return IRMutator::visit(op);
        std::vector<Expr> extents;
        mutate_exprs(op->extents, extents);
        Expr condition = op->condition.defined() ? mutate(op->condition) : Expr();
        return Allocate::make(op->name, bits_type(op->type.lanes()), op->memory_type, extents, condition,
                              mutate(op->body));
    }
    Stmt visit(const For *op) override {
        if (!is_gpu_loop(op->for_type)) return IRMutator::visit(op);
        std::string outer = gpu_loop_;
        gpu_loop_ = op->name;
        Stmt result = IRMutator::visit(op);
        gpu_loop_ = outer;
        return result;
    }
};

}  // namespace

Stmt emulate_bfloat16(const Stmt &s) { return EmulateBFloat16().mutate(s); }

}  // namespace internal
}  // namespace loom
