#include "lower/LoopNames.h"

#include <cctype>
#include <functional>
#include <map>
#include <set>

#include "ir/Bounds.h"
#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/IRVisitor.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"

namespace loom {
namespace internal {

namespace {

struct FreeVariables : IRGraphVisitor {
    std::set<std::string> names;
    using IRGraphVisitor::visit;
    void visit(const Variable *op) override { names.insert(op->name); }
};

}  // namespace

std::string describe_loop(const std::string &loop) {
    // Find ".s<digits>." after the Func's name.
    for (size_t i = loop.find(".s"); i != std::string::npos; i = loop.find(".s", i + 1)) {
        size_t j = i + 2;
        while (j < loop.size() && std::isdigit((unsigned char)loop[j])) j++;
        if (j == i + 2 || j >= loop.size() || loop[j] != '.') continue;
        const std::string func = loop.substr(0, i);
        const int stage = std::stoi(loop.substr(i + 2, j - i - 2));
        const std::string var = loop.substr(j + 1);
        if (stage == 0) return "loop " + var + " of Func " + func;
        return "loop " + var + " of update " + std::to_string(stage - 1) + " of Func " + func;
    }
    return "loop '" + loop + "'";
}

Expr resolve_through_lets(const Expr &e, const Scope<Expr> &lets) {
    // Each round replaces the names bound by lets; the values may name
    // further lets, so repeat while the result stays small. A chain of
    // definitions that refer to each other several times (the bounds of a
    // chain of Funcs) would otherwise grow exponentially; stopping early
    // only leaves some names unresolved, which the callers treat as unknown.
    constexpr int kMaxSize = 256;
    Expr result = simplify(e);
    for (int round = 0; round < 16; round++) {
        FreeVariables free;
        free.include(result);
        std::map<std::string, Expr> known;
        for (const std::string &name : free.names) {
            if (const Expr *value = lets.find(name)) known[name] = *value;
        }
        if (known.empty()) break;
        Expr next = simplify(substitute(known, result));
        if (expr_size(next, kMaxSize + 1) > kMaxSize) break;
        result = next;
    }
    return result;
}

namespace {

/** Moves additions and subtractions into min, max and select, which is
 * exact: min(a, b) - c == min(a - c, b - c), c - min(a, b) == max(c - a,
 * c - b), select(p, a, b) - c == select(p, a - c, b - c). Then each side
 * simplifies on its own: min(x + 15, x_max) - x becomes min(15, x_max - x),
 * whose upper bound is a constant, and x - select(p, x - 2, x) + 1 (a sliding
 * window's first iteration) becomes select(p, 3, 1). */
class DistributeIntoMinMax : public IRMutator {
protected:
    using IRMutator::visit;
    template<typename MinOrMax>
    static Expr apply(const MinOrMax *m, const std::function<Expr(const Expr &)> &f) {
        return MinOrMax::make(f(m->a), f(m->b));
    }
    /** Each side simplified first, where its terms cancel (the select
     * itself is not: the simplifier may move a common term back out). */
    Expr apply(const Select *s, const std::function<Expr(const Expr &)> &f) {
        return Select::make(s->condition, mutate(simplify(f(s->true_value))), mutate(simplify(f(s->false_value))));
    }
    Expr visit(const Add *op) override {
        // A select first, before the other side is distributed: its sides
        // cancel against that side as it is.
        if (const Select *s = op->a.as<Select>()) return apply(s, [&](const Expr &x) { return Add::make(x, op->b); });
        if (const Select *s = op->b.as<Select>()) return apply(s, [&](const Expr &x) { return Add::make(op->a, x); });
        Expr a = mutate(op->a), b = mutate(op->b);
        if (const Select *s = a.as<Select>()) return apply(s, [&](const Expr &x) { return Add::make(x, b); });
        if (const Select *s = b.as<Select>()) return apply(s, [&](const Expr &x) { return Add::make(a, x); });
        if (const Min *m = a.as<Min>()) return mutate(apply(m, [&](const Expr &x) { return Add::make(x, b); }));
        if (const Max *m = a.as<Max>()) return mutate(apply(m, [&](const Expr &x) { return Add::make(x, b); }));
        if (const Min *m = b.as<Min>()) return mutate(apply(m, [&](const Expr &x) { return Add::make(a, x); }));
        if (const Max *m = b.as<Max>()) return mutate(apply(m, [&](const Expr &x) { return Add::make(a, x); }));
        return Add::make(a, b);
    }
    Expr visit(const Sub *op) override {
        if (const Select *s = op->a.as<Select>()) return apply(s, [&](const Expr &x) { return Sub::make(x, op->b); });
        if (const Select *s = op->b.as<Select>()) return apply(s, [&](const Expr &x) { return Sub::make(op->a, x); });
        Expr a = mutate(op->a), b = mutate(op->b);
        if (const Select *s = a.as<Select>()) return apply(s, [&](const Expr &x) { return Sub::make(x, b); });
        if (const Select *s = b.as<Select>()) return apply(s, [&](const Expr &x) { return Sub::make(a, x); });
        if (const Min *m = a.as<Min>()) return mutate(apply(m, [&](const Expr &x) { return Sub::make(x, b); }));
        if (const Max *m = a.as<Max>()) return mutate(apply(m, [&](const Expr &x) { return Sub::make(x, b); }));
        if (const Min *m = b.as<Min>()) return mutate(Max::make(Sub::make(a, m->a), Sub::make(a, m->b)));
        if (const Max *m = b.as<Max>()) return mutate(Min::make(Sub::make(a, m->a), Sub::make(a, m->b)));
        return Sub::make(a, b);
    }
};

}  // namespace

Expr constant_upper_bound(const Expr &e, const Scope<Expr> &lets) {
    Expr resolved = resolve_through_lets(e, lets);
    if (as_const_int(resolved)) return resolved;
    if (expr_size(resolved, 64) <= 64) resolved = simplify(DistributeIntoMinMax().mutate(resolved));
    FreeVariables free;
    free.include(resolved);
    Scope<Interval> anything;
    for (const std::string &name : free.names) anything.push(name, Interval::everything());
    Interval range = bounds_of_expr_in_scope(resolved, anything);
    return range.has_upper_bound() && as_const_int(range.max) ? range.max : Expr();
}

std::optional<int64_t> bounded_extent(const For *loop, const Scope<Expr> &lets, Stmt &body) {
    Expr extent = resolve_through_lets(loop->extent, lets);
    if (auto n = as_const_int(extent)) return n;
    Expr upper = constant_upper_bound(extent, lets);
    if (!upper.defined()) return std::nullopt;
    Expr v = Variable::make(loop->min.type(), loop->name);
    body = IfThenElse::make(LT::make(v, Add::make(loop->min, loop->extent)), body);
    return as_const_int(upper);
}

}  // namespace internal
}  // namespace loom
