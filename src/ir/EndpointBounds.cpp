// Bounding one endpoint of a region over a loop (EndpointBounds.h).

#include "ir/EndpointBounds.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <vector>

#include "ir/Bounds.h"
#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/IRVisitor.h"
#include "ir/Monotonic.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "ir/simplify/SimplifyInternal.h"

namespace loom {
namespace internal {

using namespace simplify_impl;

namespace {

/** e + rest, with rest added to each leaf of the selects, mins and maxes
 * at the top of e (min(a, b) + d == min(a + d, b + d)). */
Expr add_to_leaves(const Expr &e, const Expr &rest) {
    if (const auto *op = e.as<Select>()) {
        return Select::make(op->condition, add_to_leaves(op->true_value, rest), add_to_leaves(op->false_value, rest));
    }
    if (const auto *op = e.as<Min>()) return Min::make(add_to_leaves(op->a, rest), add_to_leaves(op->b, rest));
    if (const auto *op = e.as<Max>()) return Max::make(add_to_leaves(op->a, rest), add_to_leaves(op->b, rest));
    return Add::make(e, rest);
}

bool is_branching(const Expr &e) { return e.as<Select>() || e.as<Min>() || e.as<Max>(); }

/** A select, min or max times a constant c, with c moved into its leaves
 * (min(a, b) * c == min(a * c, b * c) for c > 0, max(a * c, b * c) for
 * c < 0), so that a sum holding it can move into the leaves too
 * (sums_moved_into_leaves: y * 4 + min(r, 7 - y) * 4 is
 * min((y + r) * 4, 28)); any other term as it is. */
Expr scaled_into_leaves(const Expr &term) {
    const auto *mul = term.as<Mul>();
    if (!mul) return term;
    const bool constant_on_right = as_const_int(mul->b).has_value();
    const Expr &inner = constant_on_right ? mul->a : mul->b, &k = constant_on_right ? mul->b : mul->a;
    const std::optional<int64_t> c = as_const_int(k);
    if (!c || *c == 0 || !inner.type().is_scalar() || !is_branching(inner)) return term;
    std::function<Expr(const Expr &)> scale = [&](const Expr &e) -> Expr {
        if (const auto *op = e.as<Select>()) {
            return Select::make(op->condition, scale(op->true_value), scale(op->false_value));
        }
        if (const auto *op = e.as<Min>()) {
            return *c > 0 ? Expr(Min::make(scale(op->a), scale(op->b))) : Expr(Max::make(scale(op->a), scale(op->b)));
        }
        if (const auto *op = e.as<Max>()) {
            return *c > 0 ? Expr(Max::make(scale(op->a), scale(op->b))) : Expr(Min::make(scale(op->a), scale(op->b)));
        }
        return Mul::make(e, k);
    };
    return scale(inner);
}

/** The terms of a sum, flattened: (a + b) + c gives a, b and c. */
std::vector<Expr> sum_terms(const Expr &e) {
    std::vector<Expr> terms, pending = {e};
    while (!pending.empty()) {
        Expr t = pending.back();
        pending.pop_back();
        if (const auto *add = t.as<Add>()) {
            pending.push_back(add->a);
            pending.push_back(add->b);
        } else {
            terms.push_back(t);
        }
    }
    return terms;
}

/** Whether interval arithmetic bounds e's largest value (is_max) or its
 * smallest exactly in var, leaf by leaf: each leaf of the selects, mins and
 * maxes at its top that the bound depends on is monotonic in var. A
 * select's bound is its branches' union (its condition left out); the
 * largest value of min(a, b) is bounded by either operand's, so one exact
 * operand is enough there (a guarded split's last point min(unguarded,
 * guarded)), as it is for the smallest value of a max. */
bool bounded_exactly(const Expr &e, const std::string &var, bool is_max) {
    if (const auto *op = e.as<Select>()) {
        return bounded_exactly(op->true_value, var, is_max) && bounded_exactly(op->false_value, var, is_max);
    }
    if (const auto *op = e.as<Min>()) {
        const bool a = bounded_exactly(op->a, var, is_max), b = bounded_exactly(op->b, var, is_max);
        return is_max ? a || b : a && b;
    }
    if (const auto *op = e.as<Max>()) {
        const bool a = bounded_exactly(op->a, var, is_max), b = bounded_exactly(op->b, var, is_max);
        return is_max ? a && b : a || b;
    }
    return monotonic_in(e, var) != Monotonic::Unknown;
}

/** e with each sum at its top that holds a select, min or max moved into
 * that term's leaves (min(a, b) + d == min(a + d, b + d)), simplified, so
 * that terms which read var in opposite directions cancel. A sum of several
 * such terms (a fused loop's last row select(c, max(hi - lo + 1, 0), 0) +
 * lo, with lo itself a min) tries each as the one the others move into,
 * and keeps the first that interval arithmetic bounds exactly. `depth`
 * limits how often a moved leaf is rewritten again. */
Expr sums_moved_into_leaves(const Expr &e, const std::string &var, bool is_max, int depth) {
    if (monotonic_in(e, var) != Monotonic::Unknown) return e;
    if (const auto *op = e.as<Select>()) {
        Expr t = sums_moved_into_leaves(op->true_value, var, is_max, depth);
        Expr f = sums_moved_into_leaves(op->false_value, var, is_max, depth);
        if (t.same_as(op->true_value) && f.same_as(op->false_value)) return e;
        return Select::make(op->condition, t, f);
    }
    if (const auto *op = e.as<Min>()) {
        Expr a = sums_moved_into_leaves(op->a, var, is_max, depth);
        Expr b = sums_moved_into_leaves(op->b, var, is_max, depth);
        return a.same_as(op->a) && b.same_as(op->b) ? e : Expr(Min::make(a, b));
    }
    if (const auto *op = e.as<Max>()) {
        Expr a = sums_moved_into_leaves(op->a, var, is_max, depth);
        Expr b = sums_moved_into_leaves(op->b, var, is_max, depth);
        return a.same_as(op->a) && b.same_as(op->b) ? e : Expr(Max::make(a, b));
    }
    if (depth == 0 || !e.as<Add>()) return e;
    std::vector<Expr> terms = sum_terms(e);
    for (Expr &t : terms) t = scaled_into_leaves(t);
    for (size_t host = 0; host < terms.size(); host++) {
        if (!is_branching(terms[host])) continue;
        Expr rest;
        for (size_t t = 0; t < terms.size(); t++) {
            if (t != host) rest = rest.defined() ? Add::make(rest, terms[t]) : terms[t];
        }
        Expr moved = sums_moved_into_leaves(simplify(add_to_leaves(terms[host], rest)), var, is_max, depth - 1);
        if (bounded_exactly(moved, var, is_max)) return moved;
    }
    return e;
}

/** An endpoint that reads the loop variable both inside a select, min or
 * max and in a term added to it, which interval arithmetic bounds as if
 * the two were independent: a fused loop's last row per tile of 7 rows is
 * select(c, max(min(hi - 7 t, 7), 0), 0) + 7 t - 1, whose largest value
 * is hi - 1 but which bounds to 7 + 7 t_max - 1. With the sum moved into
 * the leaves the terms cancel (max(min(hi, 7 t + 7), 7 t) - 1), and each
 * leaf is monotonic in t, which interval arithmetic bounds exactly. An
 * endpoint that keeps big lets as Expr Lets is tried with them substituted
 * (a name bound to a min or a select hides the terms that cancel). The
 * moved form is used where it is not much bigger; e otherwise. Interval
 * arithmetic bounds it at least as tightly as e (the largest value of
 * min(a, b) + c bounds to min(A + C, B + C), never more than
 * min(A, B) + C, and a moved sum may cancel), exactly where the leaves the
 * bound depends on are monotonic, and more tightly than e also where only
 * some are (bounded_exactly is then left to split_and_bound): the last row
 * of a producer computed per iteration of an RDom's loop in fuzz seed
 * 1144856, max(min(y, 27 - r) + min(r, 27 - y) + 2, x + r) under
 * r.where(r + y < 28), is at most 29, which only the moved form shows, next
 * to a leaf min(y, 27 - r) / 2 + min(r, 27 - y) that no rewrite makes
 * monotonic. Three rewrites reach the cancelling terms there. */
Expr monotonic_form(const Expr &e, const std::string &var, bool is_max) {
    if (monotonic_in(e, var) != Monotonic::Unknown) return e;
    constexpr int kMaxGrowth = 4;
    const int limit = kMaxGrowth * std::max(expr_size(e, kMaxSubstitutedEndpointNodes + 1), kMaxSubstitutedEndpointNodes);
    Expr start = e;
    if (e.as<Let>()) {
        start = simplify(substitute_in_all_lets(e));
        if (expr_size(start, limit + 1) > limit) return e;
    }
    constexpr int kMaxRewrites = 3;
    Expr moved = sums_moved_into_leaves(start, var, is_max, kMaxRewrites);
    if (moved.same_as(e)) return e;
    // start (e with its lets substituted) as it is, where that is exact.
    if (moved.same_as(start) && !bounded_exactly(moved, var, is_max)) return e;
    return expr_size(moved, limit + 1) <= limit ? moved : e;
}

/** A min or max in an endpoint whose operands a and b differ by a linear
 * function of the loop variable, k * var + rest (rest free of var): a <= b
 * holds on one side of a point s of var's range and not on the other, so on
 * each side the min or max is one of its operands. */
struct LinearBranch {
    Expr node;
    /** Which operand the node equals for var <= s, and for var > s. */
    Expr low, high;
    Expr split_point;
};

/** The first min or max in e (outermost first) whose operands differ
 * linearly in var (a guarded tile's last row min(32 t + 31, h - 1)). */
std::optional<LinearBranch> find_linear_branch(const Expr &e, const std::string &var) {
    struct Find : IRGraphVisitor {
        const std::string &var;
        std::optional<LinearBranch> found;
        explicit Find(const std::string &v) : var(v) {}
        using IRGraphVisitor::visit;
        void include(const Expr &e) override {
            if (!found && e.defined()) IRGraphVisitor::include(e);
        }
        void consider(const Expr &node, const Expr &a, const Expr &b, bool is_min) {
            if (found || !expr_uses_var(node, var)) return;
            const Type t = a.type();
            if (!t.is_scalar() || !no_overflow(t)) return;
            const LinearForm form = linear_form(simplify(Sub::make(a, b)));
            int64_t k = 0;
            LinearForm rest(t);
            for (const LinearForm::Term &term : form.terms) {
                const auto *v = term.expr.as<Variable>();
                if (v && v->name == var) {
                    k = term.coef;
                } else if (expr_uses_var(term.expr, var)) {
                    return;
                } else {
                    rest.add_term(term.expr, term.coef);
                }
            }
            if (k == 0 || k == INT64_MIN) return;
            rest.add_constant(form.constant);
            const Expr r = rebuild(rest);
            // a <= b <=> k * var + r <= 0. For k > 0 it holds for var <= s =
            // floor(-r / k); for k < 0 for var >= ceil(r / -k), i.e. not for
            // var <= s = ceil(r / -k) - 1 (division rounds down, ir/IR.h).
            Expr s;
            bool a_below_at_low;
            if (k > 0) {
                s = simplify(Div::make(Sub::make(int_const(t, 0), r), int_const(t, k)));
                a_below_at_low = true;
            } else {
                s = simplify(Sub::make(Div::make(Add::make(r, int_const(t, -k - 1)), int_const(t, -k)), int_const(t, 1)));
                a_below_at_low = false;
            }
            // min(a, b) is a where a <= b; max(a, b) is b there.
            const Expr &where_a_below = is_min ? a : b, &where_a_above = is_min ? b : a;
            found = LinearBranch{node, a_below_at_low ? where_a_below : where_a_above,
                                 a_below_at_low ? where_a_above : where_a_below, s};
        }
        void visit(const Min *op) override {
            consider(op, op->a, op->b, true);
            IRGraphVisitor::visit(op);
        }
        void visit(const Max *op) override {
            consider(op, op->a, op->b, false);
            IRGraphVisitor::visit(op);
        }
        // Inside a Let the variable may be shadowed; endpoints come here
        // with their lets substituted (bound_over_loop).
        void visit(const Let *) override {}
    } find(var);
    find.include(e);
    return find.found;
}

/** bound_over_loop without multiples_as_remainders (EndpointBounds.h). */
Expr split_and_bound(const Expr &e, const std::string &var, const Interval &range, bool is_max, int depth) {
    Scope<Interval> scope;
    scope.push(var, range);
    const Expr form = monotonic_form(e, var, is_max);
    const Interval plain = bounds_of_expr_in_scope(form, scope);
    Expr bound = is_max ? plain.max : plain.min;
    if (depth == 0 || !bound.defined() || bounded_exactly(form, var, is_max)) return bound;
    Expr start = e;
    if (e.as<Let>()) {
        start = simplify(substitute_in_all_lets(e));
        if (expr_size(start, kMaxSubstitutedEndpointNodes + 1) > kMaxSubstitutedEndpointNodes) return bound;
    }
    const std::optional<LinearBranch> branch = find_linear_branch(start, var);
    if (!branch) return bound;
    // var <= s on [min, s'], var > s on [s' + 1, max], with s' the split
    // point clamped to [min - 1, max]: one side may be empty, never both.
    const Type t = range.min.type();
    const Expr split = simplify(Max::make(Min::make(branch->split_point, range.max), Sub::make(range.min, int_const(t, 1))));
    const Expr after = simplify(Add::make(split, int_const(t, 1)));
    const Expr low = split_and_bound(simplify(substitute(branch->node, branch->low, start)), var,
                                     Interval(range.min, split), is_max, depth - 1);
    const Expr high = split_and_bound(simplify(substitute(branch->node, branch->high, start)), var,
                                      Interval(after, range.max), is_max, depth - 1);
    if (!low.defined() || !high.defined()) return bound;
    const Expr both = is_max ? Expr(Max::make(low, high)) : Expr(Min::make(low, high));
    // An empty side bounds nothing.
    const Expr sides = Select::make(LT::make(split, range.min), high,
                                    Select::make(LE::make(range.max, split), low, both));
    const Expr result = simplify(is_max ? Expr(Min::make(bound, sides)) : Expr(Max::make(bound, sides)));
    constexpr int kMaxGrowth = 4;
    const int limit = kMaxGrowth * std::max(expr_size(e, kMaxSubstitutedEndpointNodes + 1), kMaxSubstitutedEndpointNodes);
    return expr_size(result, limit + 1) <= limit ? result : bound;
}

/** e with each multiple of a constant that reads var, (a / c) * c with
 * c > 0, written a - a % c (Euclidean division: the same value), and
 * simplified, so that a sum holding it cancels: a RoundUp split's last
 * point lo + ((hi - lo + f) / f) * f - 1 reads lo twice, in opposite
 * directions, which interval arithmetic bounds as if they were
 * independent (fuzz seed 1144255: rows up to 36 of an input read only
 * through clamp(y, 4, 29), whose clamp the simplifier had dropped as the
 * last row is at most 22); written hi + f - 1 - (hi - lo + f) % f, it
 * bounds to at most hi + f - 1. Undefined where e holds no such
 * multiple. */
Expr multiples_as_remainders(const Expr &e, const std::string &var) {
    class Expand : public IRMutator {
    public:
        explicit Expand(const std::string &v) : var_(v) {}
        bool changed = false;

    protected:
        using IRMutator::visit;
        Expr visit(const Mul *op) override {
            const auto *div = op->a.as<Div>();
            const std::optional<int64_t> c = as_const_int(op->b);
            if (div && c && *c > 0 && op->type.is_scalar() && no_overflow(op->type) && as_const_int(div->b) == c &&
                expr_uses_var(div->a, var_)) {
                changed = true;
                const Expr a = mutate(div->a);
                return Sub::make(a, Mod::make(a, op->b));
            }
            return IRMutator::visit(op);
        }
        // Inside a Let the variable may be shadowed.
        Expr visit(const Let *op) override { return op; }

    private:
        const std::string &var_;
    } expand(var);
    Expr expanded = expand.mutate(e);
    return expand.changed ? simplify(expanded) : Expr();
}

}  // namespace

Expr monotonic_leaves(const Expr &e, const std::string &var, bool is_max) {
    constexpr int kMaxGrowth = 4, kMaxRewrites = 2;
    const int limit = kMaxGrowth * std::max(expr_size(e, kMaxSubstitutedEndpointNodes + 1), kMaxSubstitutedEndpointNodes);
    if (e.as<Let>()) return Expr();
    Expr moved = sums_moved_into_leaves(e, var, is_max, kMaxRewrites);
    if (moved.same_as(e) || monotonic_in(moved, var) == Monotonic::Unknown) return Expr();
    return expr_size(moved, limit + 1) <= limit ? moved : Expr();
}


Expr bound_over_loop(const Expr &e, const std::string &var, const Interval &range, bool is_max, int depth) {
    const Expr bound = split_and_bound(e, var, range, is_max, depth);
    const Expr expanded = multiples_as_remainders(e, var);
    if (!bound.defined() || !expanded.defined()) return bound;
    const Expr other = split_and_bound(expanded, var, range, is_max, depth);
    if (!other.defined()) return bound;
    // Both bound every value; the tighter is kept, where that does not
    // make the endpoint much bigger.
    const Expr both = simplify(is_max ? Expr(Min::make(bound, other)) : Expr(Max::make(bound, other)));
    constexpr int kMaxGrowth = 4;
    const int limit = kMaxGrowth * std::max(expr_size(e, kMaxSubstitutedEndpointNodes + 1), kMaxSubstitutedEndpointNodes);
    return expr_size(both, limit + 1) <= limit ? both : bound;
}

}  // namespace internal
}  // namespace loom
