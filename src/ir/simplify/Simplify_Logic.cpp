// And, Or, Not: constants, idempotence, x && !x, double negation, and
// negated comparisons (!(a < b) -> b <= a for integers only: with floats NaN
// makes both false).

#include "ir/IREquality.h"
#include "ir/simplify/SimplifyInternal.h"

namespace loom {
namespace internal {
namespace simplify_impl {

namespace {

/** Whether a == !b: a Not of the other, or complementary comparisons
 * (a < b and b <= a for integers, a == b and a != b). */
bool are_negations(const Expr &a, const Expr &b) {
    if (const auto *n = a.as<Not>(); n && identical(n->a, b)) return true;
    if (const auto *n = b.as<Not>(); n && identical(n->a, a)) return true;
    auto crossed = [](const auto *p, const auto *q) { return identical(p->a, q->b) && identical(p->b, q->a); };
    auto same = [](const auto *p, const auto *q) { return identical(p->a, q->a) && identical(p->b, q->b); };
    for (int i = 0; i < 2; i++) {
        const Expr &p = i ? b : a, &q = i ? a : b;
        const auto *lt = p.as<LT>();
        const auto *le = q.as<LE>();
        if (lt && le && !lt->a.type().is_float() && crossed(lt, le)) return true;
        const auto *eq = p.as<EQ>();
        const auto *ne = q.as<NE>();
        if (eq && ne && same(eq, ne)) return true;
    }
    return false;
}

/** A single condition (not a conjunction or disjunction), cheap to re-simplify. */
bool is_leaf_condition(const Expr &e) { return !e.as<And>() && !e.as<Or>() && !e.as<Not>(); }

}  // namespace

// In a && b, b matters only where a holds (and in a || b only where a does
// not), so b is simplified knowing that.
Expr Simplifier::visit(const And *op) {
    Expr a = mutate(op->a);
    std::vector<std::string> facts = learn_facts(a, true);
    Expr b = mutate(op->b);
    forget_facts(facts);
    if (is_leaf_condition(a) && !const_bool(b)) {
        // b implies a: then a && b == b.
        facts = learn_facts(b, true);
        Expr a_given_b = mutate(a);
        forget_facts(facts);
        if (auto c = const_bool(a_given_b); c && *c) return b;
    }
    return simplify_and(a, b);
}

Expr Simplifier::visit(const Or *op) {
    Expr a = mutate(op->a);
    std::vector<std::string> facts = learn_facts(a, false);
    Expr b = mutate(op->b);
    forget_facts(facts);
    if (is_leaf_condition(a) && !const_bool(b)) {
        // a implies b: then a || b == b.
        facts = learn_facts(b, false);
        Expr a_given_not_b = mutate(a);
        forget_facts(facts);
        if (auto c = const_bool(a_given_not_b); c && !*c) return b;
    }
    return simplify_or(a, b);
}
Expr Simplifier::visit(const Not *op) { return simplify_not(mutate(op->a)); }

Expr Simplifier::simplify_and(const Expr &a, const Expr &b) {
    int lanes = a.type().lanes();
    auto ca = const_bool(a), cb = const_bool(b);
    if (ca) return *ca ? b : a;
    if (cb) return *cb ? a : b;
    if (identical(a, b)) return a;
    if (are_negations(a, b)) return bool_const(false, lanes);
    const auto *ba = a.as<Broadcast>(), *bb = b.as<Broadcast>();
    if (ba && bb && same_shape(ba, bb)) return Broadcast::make(simplify_and(ba->value, bb->value), ba->lanes);
    return And::make(a, b);
}

Expr Simplifier::simplify_or(const Expr &a, const Expr &b) {
    int lanes = a.type().lanes();
    auto ca = const_bool(a), cb = const_bool(b);
    if (ca) return *ca ? a : b;
    if (cb) return *cb ? b : a;
    if (identical(a, b)) return a;
    if (are_negations(a, b)) return bool_const(true, lanes);
    const auto *ba = a.as<Broadcast>(), *bb = b.as<Broadcast>();
    if (ba && bb && same_shape(ba, bb)) return Broadcast::make(simplify_or(ba->value, bb->value), ba->lanes);
    return Or::make(a, b);
}

Expr Simplifier::simplify_not(const Expr &a) {
    int lanes = a.type().lanes();
    if (auto c = const_bool(a)) return bool_const(!*c, lanes);
    if (const auto *n = a.as<Not>()) return n->a;
    if (const auto *b = a.as<Broadcast>()) return Broadcast::make(simplify_not(b->value), b->lanes);
    if (const auto *op = a.as<EQ>()) return simplify_cmp(IRNodeType::NE, op->a, op->b);
    if (const auto *op = a.as<NE>()) return simplify_cmp(IRNodeType::EQ, op->a, op->b);
    if (const auto *op = a.as<LT>(); op && !op->a.type().is_float()) return simplify_cmp(IRNodeType::LE, op->b, op->a);
    if (const auto *op = a.as<LE>(); op && !op->a.type().is_float()) return simplify_cmp(IRNodeType::LT, op->b, op->a);
    return Not::make(a);
}

}  // namespace simplify_impl
}  // namespace internal
}  // namespace loom
