// Select: constant or provable conditions, equal branches, negated
// conditions, boolean selects, nested selects on the same condition, and
// select(a < b, a, b) -> min(a, b). Each branch is simplified knowing the
// condition's value when the condition bounds a variable by a constant.

#include "ir/IREquality.h"
#include "ir/simplify/SimplifyInternal.h"

namespace loom {
namespace internal {
namespace simplify_impl {

Expr Simplifier::visit(const Select *op) {
    Expr c = mutate(op->condition);
    if (auto v = const_bool(c)) return mutate(*v ? op->true_value : op->false_value);
    std::vector<std::string> facts = learn_facts(c, true);
    Expr t = mutate(op->true_value);
    forget_facts(facts);
    facts = learn_facts(c, false);
    Expr f = mutate(op->false_value);
    forget_facts(facts);
    return simplify_select(c, t, f);
}

Expr Simplifier::simplify_select(const Expr &c, const Expr &t, const Expr &f) {
    if (auto v = const_bool(c)) return *v ? t : f;
    if (identical(t, f)) return t;
    if (const auto *n = c.as<Not>()) return simplify_select(n->a, f, t);
    bool same_lanes = c.type().lanes() == t.type().lanes();
    if (same_lanes && t.type().is_bool()) {
        auto ct = const_bool(t), cf = const_bool(f);
        if (ct && cf && *ct && !*cf) return c;
        if (ct && cf && !*ct && *cf) return simplify_not(c);
    }
    if (const auto *s = t.as<Select>(); s && identical(s->condition, c)) return simplify_select(c, s->true_value, f);
    if (const auto *s = f.as<Select>(); s && identical(s->condition, c)) return simplify_select(c, t, s->false_value);
    if (same_lanes && t.type().is_int_or_uint()) {
        Expr x, y;
        if (const auto *lt = c.as<LT>()) {
            x = lt->a;
            y = lt->b;
        } else if (const auto *le = c.as<LE>()) {
            x = le->a;
            y = le->b;
        }
        if (x.defined() && identical(t, x) && identical(f, y)) return simplify_min_max(x, y, false);
        if (x.defined() && identical(t, y) && identical(f, x)) return simplify_min_max(x, y, true);
    }
    return Select::make(c, t, f);
}

}  // namespace simplify_impl
}  // namespace internal
}  // namespace loom
