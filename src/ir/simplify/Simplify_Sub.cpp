// Sub: constant folding, vector forms, and integer differences through
// LinearForm (so x - x -> 0 and (x + y) - x -> y).

#include <cmath>
#include <optional>

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
    if (no_overflow(t) && t.is_scalar()) {
        if (Expr pushed = push_into_min_max(f); pushed.defined()) return pushed;
        if (Expr clamped = difference_of_min_max(f); clamped.defined()) return clamped;
    }
    return rebuild(f);
}

namespace {

/** The constant a - b, if it is one. */
std::optional<int64_t> constant_difference(const Expr &a, const Expr &b) {
    LinearForm d = linear_form(a);
    d.add_form(linear_form(b), -1);
    d.compact();
    if (!d.terms.empty()) return std::nullopt;
    return d.constant;
}

}  // namespace

/** With d = b - a and c = c1 - c2 >= 0:
 *   min(a + c1, b + c2) - min(a, b) == c2 + clamp(d, 0, c)
 *   max(a + c1, b + c2) - max(a, b) == c1 - clamp(d, 0, c)
 * (check the three cases b <= a, a <= b <= a + c, a + c <= b). With
 * c1 < c2 the operands swap roles. Extents of tiles shifted by a constant
 * are such differences, e.g. min(m + 3, n) - min(m, n) + 2 columns: the
 * clamp bounds them by a constant (2..5) where interval arithmetic on the
 * two mins cannot, and a and b appear once instead of twice. */
Expr Simplifier::difference_of_min_max(const LinearForm &f) {
    for (size_t i = 0; i < f.terms.size(); i++) {
        if (f.terms[i].coef != 1) continue;
        const bool is_max = f.terms[i].expr.as<Max>() != nullptr;
        Expr p1, p2;
        if (!match_min_max(f.terms[i].expr, is_max, p1, p2)) continue;
        for (size_t j = 0; j < f.terms.size(); j++) {
            Expr a, b;
            if (f.terms[j].coef != -1 || !match_min_max(f.terms[j].expr, is_max, a, b)) continue;
            auto c1 = constant_difference(p1, a), c2 = constant_difference(p2, b);
            if (!c1 || !c2) {  // min commutes: pair the operands the other way
                std::swap(a, b);
                c1 = constant_difference(p1, a);
                c2 = constant_difference(p2, b);
            }
            if (!c1 || !c2) continue;
            if (*c1 < *c2) {
                std::swap(a, b);
                std::swap(c1, c2);
            }
            // Constants that large could overflow below; leave them alone.
            const int64_t limit = int64_t(1) << 30;
            if (*c1 > limit || *c2 < -limit) continue;
            const Type t = f.type;
            Expr clamp = simplify_min_max(simplify_min_max(simplify_sub(b, a), int_const(t, 0), true),
                                          int_const(t, *c1 - *c2), false);
            LinearForm g(t);
            for (size_t k = 0; k < f.terms.size(); k++) {
                if (k != i && k != j) g.add_term(f.terms[k].expr, f.terms[k].coef);
            }
            g.add_constant(f.constant);
            g.add_constant(is_max ? *c1 : *c2);
            g.add_term(clamp, is_max ? -1 : 1);
            g.compact();
            return rebuild(g);
        }
    }
    return Expr();
}

}  // namespace simplify_impl
}  // namespace internal
}  // namespace loom
