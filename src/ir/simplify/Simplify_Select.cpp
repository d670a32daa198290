// Select: constant or provable conditions, equal branches, negated
// conditions, boolean selects, nested selects on the same condition, and
// select(a < b, a, b) -> min(a, b). Each branch is simplified knowing the
// condition's value when the condition bounds a variable by a constant --
// unless the branch reads memory: both branches of a select are evaluated,
// so a clamp that keeps the untaken branch's read in bounds must stay.

#include "ir/IREquality.h"
#include "ir/IRVisitor.h"
#include "ir/simplify/SimplifyInternal.h"

namespace loom {
namespace internal {
namespace simplify_impl {

namespace {

/** Whether evaluating e reads memory (a Load, or a call of a Func or an
 * input buffer, which become Loads). */
class ReadsMemory : public IRVisitor {
public:
    bool found = false;

private:
    using IRVisitor::visit;
    void visit(const Load *) override { found = true; }
    void visit(const Call *op) override {
        if (op->call_type == CallType::Func || op->call_type == CallType::Image) found = true;
        IRVisitor::visit(op);
    }
};

bool reads_memory(const Expr &e) {
    ReadsMemory finder;
    e.accept(&finder);
    return finder.found;
}

}  // namespace

Expr Simplifier::visit(const Select *op) {
    Expr c = mutate(op->condition);
    if (auto v = const_bool(c)) return mutate(*v ? op->true_value : op->false_value);
    auto mutate_knowing = [&](const Expr &branch, bool value) {
        if (reads_memory(branch)) return mutate(branch);
        std::vector<std::string> facts = learn_facts(c, value);
        Expr result = mutate(branch);
        forget_facts(facts);
        return result;
    };
    Expr t = mutate_knowing(op->true_value, true);
    Expr f = mutate_knowing(op->false_value, false);
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
