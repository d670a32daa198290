// Mul: constant folding, distribution of constant factors over sums, and
// pulling constant factors out of products of non-constants.

#include "ir/simplify/SimplifyInternal.h"

namespace loom {
namespace internal {
namespace simplify_impl {

Expr Simplifier::visit(const Mul *op) { return simplify_mul(mutate(op->a), mutate(op->b)); }

Expr Simplifier::simplify_mul(const Expr &a, const Expr &b) {
    Type t = a.type();
    const auto *ba = a.as<Broadcast>(), *bb = b.as<Broadcast>();
    if (ba && bb && same_shape(ba, bb)) return Broadcast::make(simplify_mul(ba->value, bb->value), ba->lanes);
    if (t.is_float()) {
        auto fa = const_float(a), fb = const_float(b);
        if (fa && fb) return float_const(t, *fa * *fb);
        if (fa) return simplify_mul(b, a);  // float multiplication commutes exactly
        if (fb && *fb == 1.0) return a;
        return Mul::make(a, b);
    }
    if (!t.is_int_or_uint()) return Mul::make(a, b);

    auto ca = const_int(a), cb = const_int(b);
    if (ca && cb) return int_const(t, fold_mul(t, *ca, *cb));
    if (ca) return simplify_mul(b, a);
    const auto *ra = a.as<Ramp>(), *rb = b.as<Ramp>();
    if (cb) {
        if (*cb == 0) return int_const(t, 0);
        if (ra) {
            Expr c = int_const(ra->base.type(), *cb);
            return Ramp::make(simplify_mul(ra->base, c), simplify_mul(ra->stride, c), ra->lanes);
        }
        if (ba) return Broadcast::make(simplify_mul(ba->value, int_const(ba->value.type(), *cb)), ba->lanes);
        LinearForm f = linear_form(a);
        f.scale_by(*cb);
        return rebuild(f);
    }
    // (base + stride*i) * v == base*v + stride*v*i in ring arithmetic.
    if (ra && bb && ra->base.type() == bb->value.type())
        return Ramp::make(simplify_mul(ra->base, bb->value), simplify_mul(ra->stride, bb->value), ra->lanes);
    if (ba && rb && rb->base.type() == ba->value.type())
        return Ramp::make(simplify_mul(ba->value, rb->base), simplify_mul(ba->value, rb->stride), rb->lanes);
    // Pull constant factors outwards: (x*c)*y -> (x*y)*c.
    if (const auto *ma = a.as<Mul>(); ma && const_int(ma->b)) return simplify_mul(simplify_mul(ma->a, b), ma->b);
    if (const auto *mb = b.as<Mul>(); mb && const_int(mb->b)) return simplify_mul(simplify_mul(a, mb->a), mb->b);
    return Mul::make(a, b);
}

}  // namespace simplify_impl
}  // namespace internal
}  // namespace loom
