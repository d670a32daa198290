// Entry points of the simplifier, the scopes of known facts, variables, and
// diff_range: how comparisons and min/max are decided.

#include "ir/Simplify.h"

#include <algorithm>

#include "ir/Bounds.h"
#include "ir/IREquality.h"
#include "ir/IRVisitor.h"
#include "ir/simplify/SimplifyInternal.h"

namespace loom {
namespace internal {

using simplify_impl::Simplifier;

Expr simplify(const Expr &e, const Scope<Interval> &bounds) {
    if (!e.defined()) return e;
    Simplifier s(bounds);
    s.count_binders(e);
    return s.mutate(e);
}

Stmt simplify(const Stmt &st, const Scope<Interval> &bounds) {
    if (!st.defined()) return st;
    Simplifier s(bounds);
    s.count_binders(st);
    return s.mutate(st);
}

bool can_prove(const Expr &e, const Scope<Interval> &bounds) {
    Expr s = simplify(e, bounds);
    auto b = simplify_impl::const_bool(s);
    return b && *b;
}

namespace simplify_impl {

namespace {

using Opt = std::optional<int64_t>;

Opt checked_sub(Opt a, Opt b) {
    if (!a || !b) return std::nullopt;
    int64_t r;
    if (__builtin_sub_overflow(*a, *b, &r)) return std::nullopt;
    return r;
}

/** A bound of an integer type as an ExprInfo value, if it is a constant. */
Opt constant_bound(const Expr &e) {
    if (!e.defined() || !e.type().is_int_or_uint()) return std::nullopt;
    auto c = const_int(e);
    if (!c || (e.type().is_uint() && *c < 0)) return std::nullopt;
    return c;
}

bool is_constant_interval(const Interval &i) {
    return (!i.min.defined() || constant_bound(i.min)) && (!i.max.defined() || constant_bound(i.max));
}

struct CollectVars : IRVisitor {
    std::vector<std::string> names;
    using IRVisitor::visit;
    void visit(const Variable *op) override { names.push_back(op->name); }
};

struct UsesAnyVar : IRVisitor {
    explicit UsesAnyVar(const Scope<Interval> &s) : scope(s) {}
    const Scope<Interval> &scope;
    bool found = false;
    using IRVisitor::visit;
    void visit(const Variable *op) override {
        if (scope.contains(op->name)) found = true;
    }
};

/** Counts nodes, giving up past a limit. With a scope, a variable bound in
 * it counts as the larger of its interval's endpoints: the size of what the
 * symbolic fallback's bounds inference would work on. */
struct CountNodes : IRVisitor {
    int left;
    const Scope<Interval> *scope;
    explicit CountNodes(int limit, const Scope<Interval> *s = nullptr) : left(limit), scope(s) {}
    using IRVisitor::visit;
    void visit(const Variable *op) override {
        const Interval *i = scope ? scope->find(op->name) : nullptr;
        if (!i) return;
        int widest = 0;
        for (const Expr *e : {&i->min, &i->max}) {
            if (!e->defined()) continue;
            CountNodes c(left);
            e->accept(&c);
            widest = std::max(widest, left - c.left);
        }
        left -= widest;
    }
    void visit(const Add *op) override { step(op->a, op->b); }
    void visit(const Sub *op) override { step(op->a, op->b); }
    void visit(const Mul *op) override { step(op->a, op->b); }
    void visit(const Div *op) override { step(op->a, op->b); }
    void visit(const Mod *op) override { step(op->a, op->b); }
    void visit(const Min *op) override { step(op->a, op->b); }
    void visit(const Max *op) override { step(op->a, op->b); }
    void visit(const Select *op) override {
        if (--left > 0) op->condition.accept(this);
        step(op->true_value, op->false_value);
    }
    void step(const Expr &a, const Expr &b) {
        if (--left <= 0) return;
        a.accept(this);
        if (left > 0) b.accept(this);
    }
};

/** The symbolic fallback runs bounds inference on a - b: worth it for the
 * small comparisons that loop bounds produce (x < n, with x in [0, n - 1]),
 * not for huge trees, counted with each variable's interval in place: a
 * comparison of two region lets whose definitions are big expressions of
 * opaque buffer fields costs a millisecond and decides nothing. */
constexpr int kSymbolicFallbackMaxNodes = 48;

bool small_enough(const Expr &a, const Expr &b, const Scope<Interval> &symbolic) {
    CountNodes c(kSymbolicFallbackMaxNodes, &symbolic);
    c.step(a, b);
    return c.left > 0;
}

}  // namespace

namespace {

struct CountBinders : IRVisitor {
    std::map<std::string, int> counts;
    using IRVisitor::visit;
    void visit(const Let *op) override {
        counts[op->name]++;
        IRVisitor::visit(op);
    }
    void visit(const LetStmt *op) override {
        counts[op->name]++;
        IRVisitor::visit(op);
    }
    void visit(const For *op) override {
        counts[op->name]++;
        IRVisitor::visit(op);
    }
};

}  // namespace

void Simplifier::count_binders(const Expr &e) {
    CountBinders c;
    e.accept(&c);
    binder_counts_ = std::move(c.counts);
}

void Simplifier::count_binders(const Stmt &s) {
    CountBinders c;
    s.accept(&c);
    binder_counts_ = std::move(c.counts);
}

Simplifier::Simplifier(const Scope<Interval> &bounds) {
    bounds.for_each([&](const std::string &name, const Interval &i) {
        Interval s(i.min.defined() ? simplify(i.min) : Expr(), i.max.defined() ? simplify(i.max) : Expr());
        ExprInfo info;
        info.min = constant_bound(s.min);
        info.max = constant_bound(s.max);
        push_var(name, info, s, Expr(), /*is_fact=*/true);  // the given intervals hold together
    });
}

void Simplifier::push_var(const std::string &name, const ExprInfo &info, const Interval &symbolic,
                          const Expr &replacement, bool is_fact) {
    PushRecord rec;
    rec.binder = !is_fact;
    if (!is_fact) {
        active_binders_[name]++;
        auto it = symbolic_refs_.find(name);
        rec.blocks_fallback = it != symbolic_refs_.end() && it->second > 0;
        if (rec.blocks_fallback) fallback_blocked_++;
    }
    info_cache_.clear();
    var_info_.push(name, info);
    replacements_.push(name, replacement);
    bool has_symbolic = (symbolic.min.defined() || symbolic.max.defined()) && !is_constant_interval(symbolic);
    if (has_symbolic) {
        symbolic_bounds_.push(name, symbolic);
        CollectVars c;
        if (symbolic.min.defined()) symbolic.min.accept(&c);
        if (symbolic.max.defined()) symbolic.max.accept(&c);
        rec.refs = std::move(c.names);
        for (const auto &n : rec.refs) symbolic_refs_[n]++;
    } else if (symbolic_bounds_.contains(name)) {
        symbolic_bounds_.push(name, Interval::everything());  // shadows an outer binding of the name
        has_symbolic = true;
    }
    rec.pushed_symbolic = has_symbolic;
    pushed_.push(name, std::move(rec));
}

void Simplifier::pop_var(const std::string &name) {
    const PushRecord &rec = pushed_.get(name);
    info_cache_.clear();
    var_info_.pop(name);
    replacements_.pop(name);
    if (rec.pushed_symbolic) symbolic_bounds_.pop(name);
    for (const auto &n : rec.refs) {
        if (--symbolic_refs_[n] == 0) symbolic_refs_.erase(n);
    }
    if (rec.blocks_fallback) fallback_blocked_--;
    if (rec.binder) {
        auto it = active_binders_.find(name);
        if (--it->second == 0) active_binders_.erase(it);
    }
    pushed_.pop(name);
}

Expr Simplifier::visit(const Variable *op) {
    if (const Expr *r = replacements_.find(op->name); r && r->defined()) return *r;
    if (op->type.is_int_or_uint() && op->type.is_scalar()) {
        const ExprInfo *i = var_info_.find(op->name);
        if (i && i->is_constant()) {
            ExprInfo fitted = info_intersect(*i, info_of_type(op->type));
            if (fitted.is_constant()) return int_const(op->type, *fitted.min);
        }
    }
    return op;
}

bool Simplifier::uses_symbolic_var(const Expr &e) const {
    UsesAnyVar v(symbolic_bounds_);
    e.accept(&v);
    return v.found;
}

namespace {

/** The range of f where its terms cancel once each rounded multiple
 * m * (x / c) (c > 0 a constant, m a multiple of c) is written as
 * (m / c) * (x - x mod c), with the Euclidean remainder x mod c in
 * [0, c - 1]: a split's last point compared with the loop's
 * (min(((e + 3) / 4) * 4 - 1, e - 1) is e - 1). Nothing otherwise. */
std::optional<std::pair<int64_t, int64_t>> range_through_rounded_multiples(const LinearForm &f) {
    // |coef| < 2^30 keeps each remainder's part |k * (c - 1)| below 2^30.
    constexpr int64_t kLimit = int64_t(1) << 30;
    LinearForm expanded(f.type);
    expanded.add_constant(f.constant);
    int64_t lo = 0, hi = 0;
    bool any = false;
    for (const LinearForm::Term &term : f.terms) {
        const auto *div = term.expr.as<Div>();
        const std::optional<int64_t> c = div ? const_int(div->b) : std::nullopt;
        if (!c || *c <= 0 || *c >= kLimit || term.coef % *c != 0 || term.coef <= -kLimit || term.coef >= kLimit) {
            expanded.add_term(term.expr, term.coef);
            continue;
        }
        const int64_t k = term.coef / *c;
        expanded.add_form(linear_form(div->a), k);
        // - k * (x mod c), the remainder in [0, c - 1].
        const int64_t extreme = -k * (*c - 1);
        lo += std::min<int64_t>(0, extreme);
        hi += std::max<int64_t>(0, extreme);
        any = true;
    }
    if (!any) return std::nullopt;
    expanded.compact();
    if (!expanded.terms.empty() || expanded.constant <= -kLimit || expanded.constant >= kLimit) return std::nullopt;
    return std::make_pair(expanded.constant + lo, expanded.constant + hi);
}

}  // namespace

DiffRange Simplifier::diff_range(const Expr &a, const Expr &b) {
    Type t = a.type();
    DiffRange r;
    ExprInfo ia = info_of(a), ib = info_of(b);
    r.lo = checked_sub(ia.min, ib.max);
    r.hi = checked_sub(ia.max, ib.min);

    LinearForm f = linear_form(a);
    f.add_form(linear_form(b), -1);
    f.compact();
    if (!f.terms.empty()) substitute_let_values(f);
    if (!f.terms.empty() && no_overflow(t)) {
        if (auto range = range_through_rounded_multiples(f)) {
            if (!r.lo || range->first > *r.lo) r.lo = range->first;
            if (!r.hi || range->second < *r.hi) r.hi = range->second;
            r.nonzero = *r.lo > 0 || *r.hi < 0;
            return r;
        }
    }
    if (f.terms.empty()) {
        // a - b is a constant (modulo 2^bits for wrapping types).
        if (no_overflow(t) || f.constant == 0) {
            r.lo = r.hi = f.constant;
        } else {
            r.nonzero = true;
        }
        return r;
    }
    ExprInfo d = info_of(rebuild(f));
    if (no_overflow(t)) {
        if (d.min && (!r.lo || *d.min > *r.lo)) r.lo = d.min;
        if (d.max && (!r.hi || *d.max < *r.hi)) r.hi = d.max;
    }
    // A nonzero (possibly wrapped) difference means a != b.
    if ((d.min && *d.min > 0) || (d.max && *d.max < 0) || (d.modulus != 1 && d.remainder != 0)) r.nonzero = true;

    bool decided = (r.hi && *r.hi < 0) || (r.lo && *r.lo > 0) || (r.lo && r.hi && *r.lo == *r.hi);
    if (!decided) refine_with_symbolic_bounds(a, b, r);
    return r;
}

void Simplifier::substitute_let_values(LinearForm &f) const {
    // Only while no binder has shadowed a name the let values read.
    if (fallback_blocked_ > 0) return;
    LinearForm g(f.type);
    g.constant = f.constant;
    bool changed = false;
    for (const LinearForm::Term &t : f.terms) {
        const Variable *v = t.expr.as<Variable>();
        const Interval *i = v ? symbolic_bounds_.find(v->name) : nullptr;
        if (i && i->is_single_point() && i->min.defined() && i->min.type() == t.expr.type()) {
            g.add_form(linear_form(i->min), t.coef);
            changed = true;
        } else {
            g.add_term(t.expr, t.coef);
        }
    }
    if (!changed) return;
    g.compact();
    if (g.terms.empty()) f = std::move(g);  // decided: the difference is a constant
}

SimplifierCounters &simplifier_counters() {
    thread_local SimplifierCounters counters;
    return counters;
}

namespace {

/** bounds_of_expr_in_scope(e, scope) for the symbolic fallback, remembered.
 * It is a pure function of e and of the intervals the scope gives e's
 * variables (interval arithmetic reads nothing else, and simplifies its
 * endpoints with no facts), so one answer serves every later identical
 * question. The same comparisons of region endpoints come back in each
 * copy of a loop body and in each pass that simplifies the statement again:
 * lowering local_laplacian (8 levels) asked 5,146 times, 799 distinct
 * questions, none of which the bounds decided. Per thread; emptied when
 * full. */
class FallbackBounds {
public:
    Interval get(const Expr &e, const Scope<Interval> &scope) {
        Key key{e, {}};
        CollectVars c;
        e.accept(&c);
        std::sort(c.names.begin(), c.names.end());
        c.names.erase(std::unique(c.names.begin(), c.names.end()), c.names.end());
        for (const std::string &n : c.names) {
            if (const Interval *i = scope.find(n)) key.vars.push_back({n, *i});
        }
        auto it = cache_.find(key);
        if (it != cache_.end()) return it->second;
        simplifier_counters().fallback_bounds_computed++;
        Interval i = bounds_of_expr_in_scope(e, scope);
        if (cache_.size() >= kMaxEntries) cache_.clear();
        cache_.emplace(std::move(key), i);
        return i;
    }

private:
    static constexpr size_t kMaxEntries = 4096;
    struct Key {
        Expr e;
        std::vector<std::pair<std::string, Interval>> vars;
    };
    struct KeyLess {
        bool operator()(const Key &a, const Key &b) const {
            if (int c = compare(a.e, b.e)) return c < 0;
            if (a.vars.size() != b.vars.size()) return a.vars.size() < b.vars.size();
            for (size_t k = 0; k < a.vars.size(); k++) {
                const auto &[na, ia] = a.vars[k];
                const auto &[nb, ib] = b.vars[k];
                if (int c = na.compare(nb)) return c < 0;
                if (int c = compare(ia.min, ib.min)) return c < 0;
                if (int c = compare(ia.max, ib.max)) return c < 0;
            }
            return false;
        }
    };
    std::map<Key, Interval, KeyLess> cache_;
};

thread_local FallbackBounds fallback_bounds;

/** How many symbolic fallbacks are running on this thread. The bounds a
 * fallback asks for simplify with simplifiers of their own, whose min/max
 * would fall back again, one level per nested min/max: exponential in the
 * nesting (fuzz seed 700384 ran for minutes). One level is enough to decide
 * what the fallback is for. */
thread_local int symbolic_fallbacks_running = 0;
}  // namespace

WithoutSymbolicFallback::WithoutSymbolicFallback() { symbolic_fallbacks_running++; }
WithoutSymbolicFallback::~WithoutSymbolicFallback() { symbolic_fallbacks_running--; }

void Simplifier::refine_with_symbolic_bounds(const Expr &a, const Expr &b, DiffRange &r) {
    if (symbolic_fallbacks_running > 0 || fallback_blocked_ > 0 || symbolic_bounds_.empty()) return;
    if (!small_enough(a, b, symbolic_bounds_)) return;
    if (!uses_symbolic_var(a) && !uses_symbolic_var(b)) return;
    struct Running {
        Running() { symbolic_fallbacks_running++; }
        ~Running() { symbolic_fallbacks_running--; }
    } running;
    simplifier_counters().symbolic_fallbacks++;

    // The bounds are in terms of the variables without symbolic intervals;
    // simplifying them here applies the constant facts about those.
    auto lower = [&](const Expr &e) -> Opt { return e.defined() ? info_of(mutate(e)).min : std::nullopt; };
    auto upper = [&](const Expr &e) -> Opt { return e.defined() ? info_of(mutate(e)).max : std::nullopt; };
    Opt lo, hi;
    if (no_overflow(a.type())) {
        Interval i = fallback_bounds.get(Sub::make(a, b), symbolic_bounds_);
        lo = lower(i.min);
        hi = upper(i.max);
    } else {
        Interval ia = fallback_bounds.get(a, symbolic_bounds_);
        Interval ib = fallback_bounds.get(b, symbolic_bounds_);
        lo = checked_sub(lower(ia.min), upper(ib.max));
        hi = checked_sub(upper(ia.max), lower(ib.min));
    }
    if (lo && (!r.lo || *lo > *r.lo)) r.lo = lo;
    if (hi && (!r.hi || *hi < *r.hi)) r.hi = hi;
}

// ------------------------------------------------------------ facts from conditions

namespace {

struct Fact {
    std::string name;
    Type type;
    Opt min, max;       // constant facts
    Expr sym_min, sym_max;  // symbolic facts (Int(32)/Int(64) only)
};

/** Facts implied by `cond == truth`, for conditions already in canonical form. */
void collect_facts(const Expr &cond, bool truth, std::vector<Fact> &out) {
    if (const auto *n = cond.as<Not>()) return collect_facts(n->a, !truth, out);
    if (const auto *a = cond.as<And>()) {
        if (!truth) return;
        collect_facts(a->a, true, out);
        collect_facts(a->b, true, out);
        return;
    }
    if (const auto *o = cond.as<Or>()) {
        if (truth) return;
        collect_facts(o->a, false, out);
        collect_facts(o->b, false, out);
        return;
    }
    // Bring the comparison to a true LT, LE or EQ.
    IRNodeType kind;
    Expr a, b;
    if (const auto *op = cond.as<LT>()) {
        kind = truth ? IRNodeType::LT : IRNodeType::LE;
        a = truth ? op->a : op->b;
        b = truth ? op->b : op->a;
    } else if (const auto *op = cond.as<LE>()) {
        kind = truth ? IRNodeType::LE : IRNodeType::LT;
        a = truth ? op->a : op->b;
        b = truth ? op->b : op->a;
    } else if (const auto *op = cond.as<EQ>(); op && truth) {
        kind = IRNodeType::EQ;
        a = op->a;
        b = op->b;
    } else if (const auto *op = cond.as<NE>(); op && !truth) {
        kind = IRNodeType::EQ;
        a = op->a;
        b = op->b;
    } else {
        return;
    }
    Type t = a.type();
    if (!t.is_int_or_uint() || t.is_bool() || !t.is_scalar()) return;
    bool exact = no_overflow(t);
    auto add_fact = [&](const Variable *v, bool var_on_left, const Expr &other) {
        Fact f{v->name, t, std::nullopt, std::nullopt, Expr(), Expr()};
        auto c = const_int(other);
        if (c && t.is_uint() && *c < 0) return;
        if (c) {
            int64_t k = *c;
            if (kind == IRNodeType::EQ) {
                f.min = f.max = k;
            } else if (var_on_left) {
                if (kind == IRNodeType::LT && k == INT64_MIN) return;
                f.max = kind == IRNodeType::LT ? k - 1 : k;
            } else {
                if (kind == IRNodeType::LT && k == INT64_MAX) return;
                f.min = kind == IRNodeType::LT ? k + 1 : k;
            }
        } else if (exact) {
            Expr bound = kind == IRNodeType::LT
                             ? (var_on_left ? Sub::make(other, int_const(t, 1)) : Add::make(other, int_const(t, 1)))
                             : other;
            if (kind == IRNodeType::EQ || var_on_left) f.sym_max = bound;
            if (kind == IRNodeType::EQ || !var_on_left) f.sym_min = bound;
        } else {
            return;
        }
        out.push_back(f);
    };
    if (const auto *v = a.as<Variable>()) add_fact(v, true, b);
    if (const auto *v = b.as<Variable>()) add_fact(v, false, a);
}

}  // namespace

std::vector<std::string> Simplifier::learn_facts(const Expr &cond, bool truth) {
    std::vector<std::string> names;
    if (!cond.defined() || !cond.type().is_scalar()) return names;
    std::vector<Fact> facts;
    collect_facts(cond, truth, facts);
    for (const Fact &f : facts) {
        const ExprInfo *old = var_info_.find(f.name);
        ExprInfo known;
        known.min = f.min;
        known.max = f.max;
        ExprInfo info = old ? info_intersect(*old, known) : known;
        const Interval *old_sym = symbolic_bounds_.find(f.name);
        Interval sym = old_sym ? *old_sym : Interval();
        if (f.sym_min.defined()) {
            Expr m = mutate(f.sym_min);
            sym.min = sym.min.defined() ? simplify_min_max(sym.min, m, true) : m;
        }
        if (f.sym_max.defined()) {
            Expr m = mutate(f.sym_max);
            sym.max = sym.max.defined() ? simplify_min_max(sym.max, m, false) : m;
        }
        push_var(f.name, info, sym, Expr(), /*is_fact=*/true);
        names.push_back(f.name);
    }
    return names;
}

void Simplifier::forget_facts(const std::vector<std::string> &names) {
    for (auto it = names.rbegin(); it != names.rend(); ++it) pop_var(*it);
}

}  // namespace simplify_impl
}  // namespace internal
}  // namespace loom
