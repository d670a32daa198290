// LinearForm: integer sums as terms times constant coefficients plus a
// constant. Addition, subtraction and multiplication are ring operations
// modulo 2^bits, so collecting terms is exact for wrapping types too.

#include "ir/IREquality.h"
#include "ir/simplify/SimplifyInternal.h"

namespace loom {
namespace internal {
namespace simplify_impl {

namespace {

int64_t wrapping_mul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }
int64_t wrapping_add(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }

void decompose(const Expr &e, int64_t scale, LinearForm &f) {
    if (auto c = const_int(e)) {
        f.add_constant(wrapping_mul(scale, *c));
        return;
    }
    if (const auto *op = e.as<Add>()) {
        decompose(op->a, scale, f);
        decompose(op->b, scale, f);
        return;
    }
    if (const auto *op = e.as<Sub>()) {
        decompose(op->a, scale, f);
        decompose(op->b, wrapping_mul(scale, -1), f);
        return;
    }
    if (const auto *op = e.as<Mul>()) {
        if (auto c = const_int(op->b)) {
            decompose(op->a, wrapping_mul(scale, *c), f);
            return;
        }
        if (auto c = const_int(op->a)) {
            decompose(op->b, wrapping_mul(scale, *c), f);
            return;
        }
    }
    f.add_term(e, scale);
}

/** The one coefficient that equals its own negation besides zero. */
bool is_self_negating(Type t, int64_t c) {
    if (t.bits() >= 64) return c == INT64_MIN;
    return c == -(int64_t(1) << (t.bits() - 1));
}

}  // namespace

void LinearForm::add_term(const Expr &e, int64_t coef) {
    coef = normalize_signed(type, coef);
    if (coef == 0) return;
    for (Term &t : terms) {
        if (identical(t.expr, e)) {
            t.coef = normalize_signed(type, wrapping_add(t.coef, coef));
            return;
        }
    }
    terms.push_back({e, coef});
}

void LinearForm::add_constant(int64_t c) { constant = normalize_signed(type, wrapping_add(constant, c)); }

void LinearForm::add_form(const LinearForm &other, int64_t scale) {
    for (const Term &t : other.terms) add_term(t.expr, wrapping_mul(t.coef, scale));
    add_constant(wrapping_mul(other.constant, scale));
}

void LinearForm::scale_by(int64_t s) {
    for (Term &t : terms) t.coef = normalize_signed(type, wrapping_mul(t.coef, s));
    constant = normalize_signed(type, wrapping_mul(constant, s));
    compact();
}

void LinearForm::compact() {
    std::vector<Term> kept;
    for (Term &t : terms) {
        if (t.coef != 0) kept.push_back(std::move(t));
    }
    terms = std::move(kept);
}

bool LinearForm::is_constant() const {
    for (const Term &t : terms) {
        if (t.coef != 0) return false;
    }
    return true;
}

bool match_min_max(const Expr &e, bool is_max, Expr &x, Expr &y) {
    if (is_max) {
        const auto *m = e.as<Max>();
        if (!m) return false;
        x = m->a;
        y = m->b;
        return true;
    }
    const auto *m = e.as<Min>();
    if (!m) return false;
    x = m->a;
    y = m->b;
    return true;
}

LinearForm linear_form(const Expr &e) {
    if (!e.type().is_int_or_uint()) throw InternalError("linear_form of a non-integer expression");
    LinearForm f(e.type());
    decompose(e, 1, f);
    return f;
}

int64_t terms_gcd(const LinearForm &f) {
    int64_t g = 0;
    for (const auto &t : f.terms) {
        if (t.coef != 0) g = gcd64(g, t.coef);
    }
    return g;
}

Expr rebuild(const LinearForm &f) {
    Type t = f.type;
    auto times = [&](const Expr &e, int64_t c) -> Expr { return c == 1 ? e : Mul::make(e, int_const(t, c)); };
    std::vector<LinearForm::Term> pos, neg;
    for (const auto &term : f.terms) {
        if (term.coef == 0) continue;
        if (term.coef > 0 || is_self_negating(t, term.coef)) {
            pos.push_back(term);
        } else {
            neg.push_back(term);
        }
    }
    Expr acc;
    if (!pos.empty()) {
        acc = times(pos[0].expr, pos[0].coef);
        for (size_t i = 1; i < pos.size(); i++) acc = Add::make(acc, times(pos[i].expr, pos[i].coef));
        for (const auto &n : neg) acc = Sub::make(acc, times(n.expr, -n.coef));
        if (f.constant != 0) acc = Add::make(acc, int_const(t, f.constant));
        return acc;
    }
    if (f.constant != 0) {
        acc = int_const(t, f.constant);
        for (const auto &n : neg) acc = Sub::make(acc, times(n.expr, -n.coef));
        return acc;
    }
    if (neg.empty()) return int_const(t, 0);
    if (neg.size() == 1 && neg[0].coef != -1) return Mul::make(neg[0].expr, int_const(t, neg[0].coef));
    Expr sum = times(neg[0].expr, -neg[0].coef);
    for (size_t i = 1; i < neg.size(); i++) sum = Add::make(sum, times(neg[i].expr, -neg[i].coef));
    return Sub::make(int_const(t, 0), sum);
}

}  // namespace simplify_impl
}  // namespace internal
}  // namespace loom
