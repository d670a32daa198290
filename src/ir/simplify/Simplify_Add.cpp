// Add: constant folding, vector forms, and integer sums through LinearForm.

#include <cmath>

#include "ir/simplify/SimplifyInternal.h"

namespace loom {
namespace internal {
namespace simplify_impl {

Expr Simplifier::visit(const Add *op) { return simplify_add(mutate(op->a), mutate(op->b)); }

Expr Simplifier::simplify_add(const Expr &a, const Expr &b) {
    Type t = a.type();
    const auto *ba = a.as<Broadcast>(), *bb = b.as<Broadcast>();
    if (ba && bb && same_shape(ba, bb)) return Broadcast::make(simplify_add(ba->value, bb->value), ba->lanes);
    if (t.is_float()) {
        auto fa = const_float(a), fb = const_float(b);
        if (fa && fb) return float_const(t, *fa + *fb);
        if (fa) return simplify_add(b, a);  // float addition commutes exactly
        // x + -0.0 == x for every x (x + 0.0 is not: it turns -0.0 into 0.0).
        if (fb && *fb == 0.0 && std::signbit(*fb)) return a;
        return Add::make(a, b);
    }
    if (!t.is_int_or_uint()) return Add::make(a, b);

    const auto *ra = a.as<Ramp>(), *rb = b.as<Ramp>();
    if (ra && bb && ra->base.type() == bb->value.type())
        return Ramp::make(simplify_add(ra->base, bb->value), ra->stride, ra->lanes);
    if (ba && rb && rb->base.type() == ba->value.type())
        return Ramp::make(simplify_add(ba->value, rb->base), rb->stride, rb->lanes);
    if (ra && rb && ra->lanes == rb->lanes && ra->base.type() == rb->base.type()) {
        Expr stride = simplify_add(ra->stride, rb->stride);
        Expr base = simplify_add(ra->base, rb->base);
        if (auto s = const_int(stride); s && *s == 0) return Broadcast::make(base, ra->lanes);
        return Ramp::make(base, stride, ra->lanes);
    }

    LinearForm f = linear_form(a);
    f.add_form(linear_form(b), 1);
    f.compact();
    if (no_overflow(t) && t.is_scalar()) {
        if (Expr pushed = push_into_min_max(f); pushed.defined()) return pushed;
        if (Expr clamped = difference_of_min_max(f); clamped.defined()) return clamped;
    }
    return rebuild(f);
}

/** min(a, b) + c == min(a + c, b + c) (and max), without overflow: taken
 * where it cancels terms, so that an endpoint such as
 * max(x.max - x.min + 1, 1) + x.min - 1 (a fused loop's inner variable,
 * ir/BoxesTouched.cpp) becomes max(x.max, x.min) and stays correlated
 * with the loop it is relaxed over. Only with fewer terms in all, so it
 * cannot undo itself. Undefined when it does not apply. */
Expr Simplifier::push_into_min_max(const LinearForm &f) {
    for (size_t i = 0; i < f.terms.size(); i++) {
        if (f.terms[i].coef != 1) continue;
        const Expr &e = f.terms[i].expr;
        const auto *mn = e.as<Min>();
        const auto *mx = e.as<Max>();
        if (!mn && !mx) continue;
        LinearForm rest(f.type);
        for (size_t j = 0; j < f.terms.size(); j++) {
            if (j != i) rest.add_term(f.terms[j].expr, f.terms[j].coef);
        }
        if (rest.terms.empty()) return Expr();
        rest.add_constant(f.constant);
        const Expr &x = mn ? mn->a : mx->a, &y = mn ? mn->b : mx->b;
        LinearForm fx = linear_form(x), fy = linear_form(y);
        const size_t before = fx.terms.size() + fy.terms.size() + rest.terms.size();
        fx.add_form(rest, 1);
        fx.compact();
        fy.add_form(rest, 1);
        fy.compact();
        if (fx.terms.size() + fy.terms.size() >= before) return Expr();
        Expr px = rebuild(fx), py = rebuild(fy);
        return mutate(mn ? Expr(Min::make(px, py)) : Expr(Max::make(px, py)));
    }
    return Expr();
}

}  // namespace simplify_impl
}  // namespace internal
}  // namespace loom
