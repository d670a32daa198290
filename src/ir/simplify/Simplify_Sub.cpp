// Sub: constant folding, vector forms, and integer differences through
// LinearForm (so x - x -> 0 and (x + y) - x -> y).

#include <cmath>

#include "ir/simplify/SimplifyInternal.h"

namespace loom {
namespace internal {
namespace simplify_impl {

Expr Simplifier::visit(const Sub *op) { return simplify_sub(mutate(op->a), mutate(op->b)); }

Expr Simplifier::simplify_sub(const Expr &a, const Expr &b) {
    Type t = a.type();
    const auto *ba = a.as<Broadcast>(), *bb = b.as<Broadcast>();
    if (ba && bb && same_shape(ba, bb)) return Broadcast::make(simplify_sub(ba->value, bb->value), ba->lanes);
    if (t.is_float()) {
        auto fa = const_float(a), fb = const_float(b);
        if (fa && fb) return float_const(t, *fa - *fb);
        // x - 0.0 == x for every x, -0.0 included (x - -0.0 is not).
        if (fb && *fb == 0.0 && !std::signbit(*fb)) return a;
        return Sub::make(a, b);
    }
    if (!t.is_int_or_uint()) return Sub::make(a, b);

    const auto *ra = a.as<Ramp>(), *rb = b.as<Ramp>();
    if (ra && bb && ra->base.type() == bb->value.type())
        return Ramp::make(simplify_sub(ra->base, bb->value), ra->stride, ra->lanes);
    if (ba && rb && rb->base.type() == ba->value.type()) {
        Expr zero = int_const(rb->stride.type(), 0);
        return Ramp::make(simplify_sub(ba->value, rb->base), simplify_sub(zero, rb->stride), rb->lanes);
    }
    if (ra && rb && ra->lanes == rb->lanes && ra->base.type() == rb->base.type()) {
        Expr stride = simplify_sub(ra->stride, rb->stride);
        Expr base = simplify_sub(ra->base, rb->base);
        if (auto s = const_int(stride); s && *s == 0) return Broadcast::make(base, ra->lanes);
        return Ramp::make(base, stride, ra->lanes);
    }

    LinearForm f = linear_form(a);
    f.add_form(linear_form(b), -1);
    f.compact();
    return rebuild(f);
}

}  // namespace simplify_impl
}  // namespace internal
}  // namespace loom
