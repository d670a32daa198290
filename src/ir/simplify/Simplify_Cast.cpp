// Cast and Reinterpret: constant folding (ints wrap, float -> int truncates
// and is folded only when the result is in range), casts that round-trip
// through a wider type, and casts of broadcasts.

#include <cmath>

#include "ir/simplify/SimplifyInternal.h"

namespace loom {
namespace internal {
namespace simplify_impl {

bool holds_every_value(Type outer, Type inner) {
    if (inner.is_bool()) return outer.is_int_or_uint() || outer.is_float();
    if (outer.is_float()) {
        if (inner.is_float()) return inner.bits() <= outer.bits();
        int mantissa = outer.bits() == 64 ? 53 : outer.bits() == 32 ? 24 : 11;
        return inner.is_int_or_uint() && inner.bits() <= mantissa;
    }
    if (outer.is_bool()) return false;
    if (outer.is_int()) {
        if (inner.is_int()) return inner.bits() <= outer.bits();
        if (inner.is_uint()) return inner.bits() < outer.bits();
        return false;
    }
    if (outer.is_uint()) return inner.is_uint() && inner.bits() <= outer.bits();
    return false;
}

namespace {

/** Converts an integer constant (bits of type `from`) to a double as the
 * target float type would round it. */
double int_to_float(Type from, int64_t bits, Type to) {
    if (to.bits() == 32) return from.is_uint() ? (double)(float)(uint64_t)bits : (double)(float)bits;
    return from.is_uint() ? (double)(uint64_t)bits : (double)bits;
}

}  // namespace

Expr Simplifier::visit(const Cast *op) { return simplify_cast(op->type, mutate(op->value)); }

Expr Simplifier::visit(const Reinterpret *op) {
    Expr v = mutate(op->value);
    Type t = op->type;
    if (auto c = const_int(v); c && t.is_int_or_uint() && !t.is_bool() && t.bits() == v.type().bits()) {
        return int_const(t, *c);
    }
    if (v.same_as(op->value)) return op;
    return Reinterpret::make(t, v);
}

Expr Simplifier::simplify_cast(Type t, const Expr &v) {
    Type from = v.type();
    if (t == from) return v;
    if (const auto *b = v.as<Broadcast>(); b && t.lanes() % b->lanes == 0) {
        return Broadcast::make(simplify_cast(t.with_lanes(t.lanes() / b->lanes), b->value), b->lanes);
    }
    if (auto c = const_int(v)) {
        if (t.is_bool()) return bool_const(*c != 0, t.lanes());
        if (t.is_int_or_uint()) return int_const(t, *c);
        if (t.is_float() && t.bits() >= 32) return float_const(t, int_to_float(from, *c, t));
    }
    if (auto f = const_float(v)) {
        if (t.is_float() && t.bits() >= 32) return float_const(t, t.bits() == 32 ? (double)(float)*f : *f);
        if (t.is_int_or_uint() && !t.is_bool() && std::isfinite(*f)) {
            double tr = std::trunc(*f);
            auto lo = type_min(t), hi = type_max(t);
            if (lo && hi && tr >= (double)*lo && tr < (double)*hi + 1.0) return int_const(t, (int64_t)tr);
        }
    }
    // cast(t, cast(u, x)) == x when x has type t and u holds every value of t.
    if (const auto *inner = v.as<Cast>(); inner && inner->value.type() == t && holds_every_value(from, t)) {
        return inner->value;
    }
    return Cast::make(t, v);
}

}  // namespace simplify_impl
}  // namespace internal
}  // namespace loom
