// Div and Mod: folding (x / 0 == x % 0 == 0), results decided by bounds and
// alignment, and constant divisors pulled through linear forms. Division
// rules that need exact arithmetic are limited to Int(32)/Int(64); modulus
// rules also hold for wrapping types when the divisor divides 2^bits.

#include <cmath>

#include "ir/simplify/SimplifyInternal.h"

namespace loom {
namespace internal {
namespace simplify_impl {

namespace {

bool is_power_of_two(int64_t m) { return m > 0 && (m & (m - 1)) == 0; }

/** Whether (a mod 2^bits) mod m == a mod m, i.e. m divides 2^bits. */
bool divides_type_modulus(Type t, int64_t m) {
    if (!is_power_of_two(m)) return false;
    return t.bits() >= 63 || m <= (int64_t(1) << t.bits());
}

}  // namespace

bool Simplifier::ramp_in_one_block(const Ramp *r, int64_t k) {
    if (!no_overflow(r->base.type()) || k == 0 || k == INT64_MIN) return false;
    auto s = const_int(r->stride);
    if (!s) return false;
    int64_t m = k < 0 ? -k : k;
    // base % m lies in [lo, hi] (from alignment or bounds); lane j adds s*j.
    ExprInfo rem = info_mod(info_of(r->base), ExprInfo::constant(m));
    if (!rem.bounded()) return false;
    __int128 span = (__int128)*s * (r->lanes - 1);
    __int128 lo = (__int128)*rem.min + (span < 0 ? span : 0);
    __int128 hi = (__int128)*rem.max + (span > 0 ? span : 0);
    return lo >= 0 && hi < m;
}

Expr Simplifier::visit(const Div *op) { return simplify_div(mutate(op->a), mutate(op->b)); }
Expr Simplifier::visit(const Mod *op) { return simplify_mod(mutate(op->a), mutate(op->b)); }

/** a / b for a divisor that is not a constant but whose sign is known:
 * Euclidean division has (Q*b + R) / b == Q + R / b for any b != 0, and a
 * constant c over b >= d >= 1 is 0 for c in [0, d) and -1 for c in [-d, 0).
 * A fused loop's outer variable is xy / max(I, 1) over
 * xy < Q * max(I, 1) (lower/StageLoopNest.cpp): its last value simplifies
 * to Q - 1. */
Expr Simplifier::simplify_div_by_symbol(const Expr &a, const Expr &b) {
    Type t = a.type();
    ExprInfo ib = info_of(b);
    const bool positive = ib.min && *ib.min >= 1, negative = ib.max && *ib.max <= -1;
    if (!t.is_int() || !t.is_scalar() || !no_overflow(t) || (!positive && !negative)) return Div::make(a, b);
    if (auto ca = const_int(a); ca && positive) {
        if (*ca >= 0 && *ca < *ib.min) return int_const(t, 0);
        if (*ca < 0 && *ca >= -*ib.min) return int_const(t, -1);
        return Div::make(a, b);
    }
    LinearForm f = linear_form(a);
    LinearForm quotient(t), rest(t);
    rest.add_constant(f.constant);
    for (const auto &term : f.terms) {
        const auto *m = term.expr.as<Mul>();
        if (identical(term.expr, b)) {
            quotient.add_constant(term.coef);
        } else if (m && identical(m->b, b)) {
            quotient.add_term(m->a, term.coef);
        } else if (m && identical(m->a, b)) {
            quotient.add_term(m->b, term.coef);
        } else {
            rest.add_term(term.expr, term.coef);
        }
    }
    if (quotient.terms.empty() && quotient.constant == 0) return Div::make(a, b);
    return simplify_add(rebuild(quotient), simplify_div_by_symbol(rebuild(rest), b));
}

Expr Simplifier::simplify_div(const Expr &a, const Expr &b) {
    Type t = a.type();
    const auto *ba = a.as<Broadcast>(), *bb = b.as<Broadcast>();
    if (ba && bb && same_shape(ba, bb)) return Broadcast::make(simplify_div(ba->value, bb->value), ba->lanes);
    if (t.is_float()) {
        auto fa = const_float(a), fb = const_float(b);
        if (fa && fb) return float_const(t, *fa / *fb);
        if (fb && *fb == 1.0) return a;
        return Div::make(a, b);
    }
    if (!t.is_int_or_uint()) return Div::make(a, b);

    auto ca = const_int(a), cb = const_int(b);
    if (cb && *cb == 0) return int_const(t, 0);
    if (ca && cb) return int_const(t, fold_div(t, *ca, *cb));
    if (ca && *ca == 0) return a;
    if (!cb) return simplify_div_by_symbol(a, b);
    int64_t k = *cb;
    if (k == 1) return a;
    if (t.is_uint() && k < 0) return Div::make(a, b);  // a UInt(64) divisor above INT64_MAX
    if (k == -1 && t.is_int()) return simplify_sub(int_const(t, 0), a);

    // a / k is monotone in a (decreasing for k < 0), so equal quotients of
    // the bounds decide it.
    ExprInfo ia = info_of(a);
    if (ia.bounded() && euclid_div(*ia.min, k) == euclid_div(*ia.max, k)) return int_const(t, euclid_div(*ia.min, k));

    // Every lane of the ramp in the base's block of |k|: one quotient
    // (ramp(x*16, 1, 8) / 16 -> broadcast(x, 8)).
    if (const auto *ra = a.as<Ramp>(); ra && ramp_in_one_block(ra, k)) {
        return Broadcast::make(simplify_div(ra->base, int_const(ra->base.type(), k)), ra->lanes);
    }

    // Euclidean division has (k*Q + R) / k == Q + R / k for either sign of k.
    if (no_overflow(t) && k != INT64_MIN) {
        const auto *ra = a.as<Ramp>();
        if (auto s = ra ? const_int(ra->stride) : std::nullopt; s && *s % k == 0) {
            // (base + k*j*i) / k == base / k + j*i
            Type st = ra->base.type();
            return Ramp::make(simplify_div(ra->base, int_const(st, k)), int_const(st, *s / k), ra->lanes);
        }
        // (k*Q + R) / k == Q + R / k: pull out every term with a multiple of k.
        LinearForm f = linear_form(a);
        LinearForm quotient(t), rest(t);
        for (const auto &term : f.terms) {
            if (term.coef % k == 0) {
                quotient.add_term(term.expr, term.coef / k);
            } else {
                rest.add_term(term.expr, term.coef);
            }
        }
        int64_t qc = euclid_div(f.constant, k);
        int64_t rc = euclid_mod(f.constant, k);
        if (!quotient.terms.empty() || qc != 0) {
            quotient.add_constant(qc);
            rest.add_constant(rc);
            Expr r = rest.terms.empty() ? int_const(t, 0) : simplify_div(rebuild(rest), b);
            return simplify_add(rebuild(quotient), r);
        }
    }
    // (x / c1) / c2 == x / (c1*c2) for positive divisors.
    if (const auto *inner = a.as<Div>(); inner && k > 0) {
        auto c1 = const_int(inner->b);
        __int128 p = c1 ? (__int128)*c1 * k : 0;
        auto tmax = type_max(t);
        if (c1 && *c1 > 0 && tmax && p <= *tmax) return simplify_div(inner->a, int_const(t, (int64_t)p));
    }
    return Div::make(a, b);
}

Expr Simplifier::simplify_mod(const Expr &a, const Expr &b) {
    Type t = a.type();
    const auto *ba = a.as<Broadcast>(), *bb = b.as<Broadcast>();
    if (ba && bb && same_shape(ba, bb)) return Broadcast::make(simplify_mod(ba->value, bb->value), ba->lanes);
    if (t.is_float()) {
        // a - b * floor(a / b), each step rounded to the type (as the interpreter does).
        auto fa = const_float(a), fb = const_float(b);
        if (!fa || !fb || t.bits() < 32) return Mod::make(a, b);
        if (t.bits() == 32) {
            float x = (float)*fa, y = (float)*fb;
            float q = std::floor(x / y);
            float m = y * q;
            return float_const(t, x - m);
        }
        double q = std::floor(*fa / *fb);
        double m = *fb * q;
        return float_const(t, *fa - m);
    }
    if (!t.is_int_or_uint()) return Mod::make(a, b);

    auto ca = const_int(a), cb = const_int(b);
    if (cb && *cb == 0) return int_const(t, 0);
    if (ca && cb) return int_const(t, fold_mod(t, *ca, *cb));
    if (ca && *ca == 0) return a;
    if (!cb) return Mod::make(a, b);
    int64_t k = *cb;
    if (k == 1 || (k == -1 && t.is_int())) return int_const(t, 0);
    if ((t.is_uint() && k < 0) || k == INT64_MIN) return Mod::make(a, b);
    int64_t m = k < 0 ? -k : k;  // x % k == x % |k| (Euclidean)

    ExprInfo ia = info_of(a);
    if (ia.modulus == 0) return int_const(t, euclid_mod(ia.remainder, m));
    if (ia.modulus % m == 0) return int_const(t, euclid_mod(ia.remainder, m));
    if (ia.bounded()) {
        int64_t p = euclid_div(*ia.min, m);
        if (p == euclid_div(*ia.max, m)) return p == 0 ? a : simplify_sub(a, int_const(t, p * m));
    }

    // Every lane of the ramp in the base's block of m: the lanes' remainders
    // are the base's plus the ramp (ramp(x*16 + 2, 1, 8) % 16 -> ramp(2, 1, 8)).
    if (const auto *ra = a.as<Ramp>(); ra && ramp_in_one_block(ra, m)) {
        return Ramp::make(simplify_mod(ra->base, int_const(ra->base.type(), m)), ra->stride, ra->lanes);
    }

    if (no_overflow(t) || divides_type_modulus(t, m)) {
        const auto *ra = a.as<Ramp>();
        if (auto s = ra ? const_int(ra->stride) : std::nullopt; s && *s % m == 0) {
            return Broadcast::make(simplify_mod(ra->base, int_const(ra->base.type(), k)), ra->lanes);
        }
        // Terms whose coefficient is a multiple of m do not change a % m.
        LinearForm f = linear_form(a);
        LinearForm kept(t);
        bool changed = false;
        for (const auto &term : f.terms) {
            int64_t c = term.coef;
            if (c % m == 0) {
                changed = true;
                continue;
            }
            if (c >= m || c <= -m) {
                c = euclid_mod(c, m);
                changed = true;
            }
            kept.add_term(term.expr, c);
        }
        int64_t c = f.constant;
        if (c < 0 || c >= m) {
            c = euclid_mod(c, m);
            changed = true;
        }
        kept.add_constant(c);
        if (changed) return simplify_mod(rebuild(kept), b);
    }
    // (x % c1) % c2 == x % c2 when c2 divides c1.
    if (const auto *inner = a.as<Mod>()) {
        auto c1 = const_int(inner->b);
        if (c1 && *c1 != 0 && *c1 != INT64_MIN && (*c1 % m) == 0 && !(t.is_uint() && *c1 < 0)) {
            return simplify_mod(inner->a, b);
        }
    }
    return Mod::make(a, b);
}

}  // namespace simplify_impl
}  // namespace internal
}  // namespace loom
