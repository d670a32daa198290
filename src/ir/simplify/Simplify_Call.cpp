// Calls (folding of intrinsics on constants), Ramp and Broadcast.

#include <cmath>

#include "ir/simplify/SimplifyInternal.h"

namespace loom {
namespace internal {
namespace simplify_impl {

Expr Simplifier::visit(const Call *op) {
    std::vector<Expr> args;
    bool changed = mutate_exprs(op->args, args);
    if (Expr folded = fold_intrinsic(op, args); folded.defined()) return folded;
    if (!changed) return op;
    return Call::make(op->type, op->name, args, op->call_type, op->func, op->value_index, op->param);
}

Expr Simplifier::fold_intrinsic(const Call *op, const std::vector<Expr> &args) {
    if (op->call_type != CallType::PureIntrinsic && op->call_type != CallType::Intrinsic) return Expr();
    Type t = op->type;
    if (op->is_intrinsic(intrinsic::abs) && args.size() == 1) {
        if (auto c = const_int(args[0])) {
            Type at = args[0].type();
            if (at.is_uint()) return int_const(t, *c);
            return int_const(t, *c < 0 ? (int64_t)(0 - (uint64_t)*c) : *c);
        }
        if (auto f = const_float(args[0])) return float_const(t, std::fabs(*f));
        return Expr();
    }
    if (!t.is_int_or_uint()) return Expr();
    if (op->is_intrinsic(intrinsic::bitwise_not) && args.size() == 1) {
        if (auto c = const_int(args[0])) return int_const(t, ~*c);
        return Expr();
    }
    if (args.size() != 2) return Expr();
    auto a = const_int(args[0]), b = const_int(args[1]);
    if (!a || !b) return Expr();
    if (op->is_intrinsic(intrinsic::bitwise_and)) return int_const(t, *a & *b);
    if (op->is_intrinsic(intrinsic::bitwise_or)) return int_const(t, *a | *b);
    if (op->is_intrinsic(intrinsic::bitwise_xor)) return int_const(t, *a ^ *b);
    bool in_range = *b >= 0 && *b < t.bits() && !(args[1].type().is_uint() && *b < 0);
    if (op->is_intrinsic(intrinsic::shift_left) && in_range) return int_const(t, (int64_t)((uint64_t)*a << *b));
    if (op->is_intrinsic(intrinsic::shift_right) && in_range) {
        if (t.is_uint()) return int_const(t, (int64_t)((uint64_t)*a >> *b));
        return int_const(t, *a >> *b);
    }
    return Expr();
}

Expr Simplifier::visit(const Ramp *op) {
    Expr base = mutate(op->base), stride = mutate(op->stride);
    if (auto s = const_int(stride); s && *s == 0) return Broadcast::make(base, op->lanes);
    if (base.same_as(op->base) && stride.same_as(op->stride)) return op;
    return Ramp::make(base, stride, op->lanes);
}

Expr Simplifier::visit(const Broadcast *op) {
    Expr v = mutate(op->value);
    if (v.same_as(op->value)) return op;
    return Broadcast::make(v, op->lanes);
}

}  // namespace simplify_impl
}  // namespace internal
}  // namespace loom
