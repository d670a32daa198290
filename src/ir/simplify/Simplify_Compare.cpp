// Comparisons: GT/GE become LT/LE with swapped operands; constants fold;
// integer comparisons are decided from the bounds of a - b (diff_range); for
// Int(32)/Int(64) the terms of a - b are moved to the side where their
// coefficient is positive and divided by their common factor. EQ/NE cancel
// common terms for every integer type (x + c == y + c <=> x == y holds
// modulo 2^bits too); orderings of wrapping types are only decided, never
// rewritten.

#include "ir/IREquality.h"
#include "ir/simplify/SimplifyInternal.h"

namespace loom {
namespace internal {
namespace simplify_impl {

namespace {

Expr make_cmp(IRNodeType kind, const Expr &a, const Expr &b) {
    switch (kind) {
    case IRNodeType::EQ: return EQ::make(a, b);
    case IRNodeType::NE: return NE::make(a, b);
    case IRNodeType::LT: return LT::make(a, b);
    case IRNodeType::LE: return LE::make(a, b);
    case IRNodeType::GT: return GT::make(a, b);
    case IRNodeType::GE: return GE::make(a, b);
    default: throw InternalError("make_cmp: not a comparison");
    }
}

int64_t negate(int64_t v) { return (int64_t)(0 - (uint64_t)v); }

template<typename T>
bool fold_cmp(IRNodeType kind, T a, T b) {
    switch (kind) {
    case IRNodeType::EQ: return a == b;
    case IRNodeType::NE: return a != b;
    case IRNodeType::LT: return a < b;
    case IRNodeType::LE: return a <= b;
    default: throw InternalError("fold_cmp: not a canonical comparison");
    }
}

/** Whether the comparison `kind` is decided by the range of a - b. */
std::optional<bool> decide(IRNodeType kind, const DiffRange &d) {
    bool lt = d.hi && *d.hi < 0, le = d.hi && *d.hi <= 0;
    bool gt = d.lo && *d.lo > 0, ge = d.lo && *d.lo >= 0;
    bool ne = lt || gt || d.nonzero;
    bool eq = le && ge;
    switch (kind) {
    case IRNodeType::LT:
        if (lt) return true;
        if (ge) return false;
        break;
    case IRNodeType::LE:
        if (le) return true;
        if (gt) return false;
        break;
    case IRNodeType::EQ:
        if (eq) return true;
        if (ne) return false;
        break;
    case IRNodeType::NE:
        if (ne) return true;
        if (eq) return false;
        break;
    default: break;
    }
    return std::nullopt;
}

}  // namespace

Expr Simplifier::visit(const EQ *op) { return simplify_cmp(IRNodeType::EQ, mutate(op->a), mutate(op->b)); }
Expr Simplifier::visit(const NE *op) { return simplify_cmp(IRNodeType::NE, mutate(op->a), mutate(op->b)); }
Expr Simplifier::visit(const LT *op) { return simplify_cmp(IRNodeType::LT, mutate(op->a), mutate(op->b)); }
Expr Simplifier::visit(const LE *op) { return simplify_cmp(IRNodeType::LE, mutate(op->a), mutate(op->b)); }
Expr Simplifier::visit(const GT *op) { return simplify_cmp(IRNodeType::GT, mutate(op->a), mutate(op->b)); }
Expr Simplifier::visit(const GE *op) { return simplify_cmp(IRNodeType::GE, mutate(op->a), mutate(op->b)); }

Expr Simplifier::simplify_cmp(IRNodeType kind, const Expr &a, const Expr &b) {
    if (kind == IRNodeType::GT) return simplify_cmp(IRNodeType::LT, b, a);
    if (kind == IRNodeType::GE) return simplify_cmp(IRNodeType::LE, b, a);
    Type t = a.type();
    const auto *ba = a.as<Broadcast>(), *bb = b.as<Broadcast>();
    if (ba && bb && same_shape(ba, bb)) return Broadcast::make(simplify_cmp(kind, ba->value, bb->value), ba->lanes);

    if (t.is_float()) {
        auto fa = const_float(a), fb = const_float(b);
        if (fa && fb) return bool_const(fold_cmp(kind, *fa, *fb), t.lanes());
        return make_cmp(kind, a, b);
    }
    if (!t.is_int_or_uint()) return make_cmp(kind, a, b);
    if (t.is_bool()) {
        auto ca = const_bool(a), cb = const_bool(b);
        if (ca && cb) return bool_const(fold_cmp(kind, (int)*ca, (int)*cb), t.lanes());
        if (kind != IRNodeType::EQ && kind != IRNodeType::NE) return make_cmp(kind, a, b);
        if (identical(a, b)) return bool_const(kind == IRNodeType::EQ, t.lanes());
        if (ca) return simplify_cmp(kind, b, a);
        if (cb) {
            // x == true -> x, x == false -> !x, and the reverse for !=.
            bool keep = (*cb) == (kind == IRNodeType::EQ);
            return keep ? a : simplify_not(a);
        }
        return make_cmp(kind, a, b);
    }
    return simplify_int_cmp(kind, a, b);
}

Expr Simplifier::simplify_int_cmp(IRNodeType kind, const Expr &a, const Expr &b) {
    Type t = a.type();
    int lanes = t.lanes();
    auto ca = const_int(a), cb = const_int(b);
    if (ca && cb) {
        bool r;
        if (kind == IRNodeType::EQ || kind == IRNodeType::NE) {
            r = fold_cmp(kind, *ca, *cb);
        } else if (kind == IRNodeType::LT) {
            r = fold_lt(t, *ca, *cb);
        } else {
            r = !fold_lt(t, *cb, *ca);
        }
        return bool_const(r, lanes);
    }
    if (identical(a, b)) return bool_const(kind == IRNodeType::EQ || kind == IRNodeType::LE, lanes);

    DiffRange d = diff_range(a, b);
    if (auto r = decide(kind, d)) return bool_const(*r, lanes);

    bool is_equality = kind == IRNodeType::EQ || kind == IRNodeType::NE;
    if (!no_overflow(t) && !is_equality) return make_cmp(kind, a, b);

    // a - b <op> 0, as L + k <op> 0.
    LinearForm f = linear_form(a);
    f.add_form(linear_form(b), -1);
    f.compact();
    int64_t k = f.constant;
    if (no_overflow(t)) {
        int64_t g = terms_gcd(f);
        if (g > 1 && k != INT64_MIN) {
            for (auto &term : f.terms) term.coef /= g;
            switch (kind) {
            case IRNodeType::LT: k = floor_div(k, g); break;   // L' < -k/g  <=>  L' + floor(k/g) < 0
            case IRNodeType::LE: k = -floor_div(-k, g); break;  // L' <= -k/g <=>  L' + ceil(k/g) <= 0
            default:
                if (k % g != 0) return bool_const(kind == IRNodeType::NE, lanes);
                k /= g;
                break;
            }
        }
    }
    LinearForm lhs(t), rhs(t);
    for (const auto &term : f.terms) {
        if (term.coef > 0) {
            lhs.add_term(term.expr, term.coef);
        } else {
            rhs.add_term(term.expr, negate(term.coef));
        }
    }
    if (is_equality) {
        if (lhs.terms.empty()) {
            // -R + k == 0  <=>  R == k
            std::swap(lhs, rhs);
            rhs.add_constant(k);
        } else {
            rhs.add_constant(negate(k));  // L - R + k == 0  <=>  L == R - k
        }
        return make_cmp(kind, rebuild(lhs), rebuild(rhs));
    }
    if (lhs.terms.empty()) {
        // -R + k < 0  <=>  k < R
        return make_cmp(kind, int_const(t, k), rebuild(rhs));
    }
    rhs.add_constant(negate(k));  // L - R + k < 0  <=>  L < R - k
    return make_cmp(kind, rebuild(lhs), rebuild(rhs));
}

}  // namespace simplify_impl
}  // namespace internal
}  // namespace loom
