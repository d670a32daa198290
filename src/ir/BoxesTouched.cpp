// The boxes of Funcs and input buffers that a piece of IR touches
// (boxes_required / boxes_provided).
//
// Boxes are built from the leaves up. A call contributes the exact point it
// reads, in terms of the variables free where it sits. Going outwards, a let
// substitutes its value into the boxes of its body (exact: min and max stay
// correlated), a condition clamps the variables it tests, and only a loop
// relaxes its variable over [min, min + extent - 1]. Relaxing innermost
// first is what keeps a region exact when a loop's min and extent both
// depend on an outer loop: a producer computed at a tile loop spans
// [min(t), max(t)] per tile, so over all tiles it spans up to max over t of
// max(t), never max(min) + max(extent). An endpoint past a size limit is
// the exception: relaxed over all its loops at once, as Halide relaxes
// every endpoint, since relaxing it loop by loop could double it at each
// (kMaxEndpointRelaxedPerLoop).
//
// Endpoints are simplified at every step (each let, guard and loop), so
// those simplifications use the cheap facts only (constants, alignment,
// linear forms), not the simplifier's symbolic fallback: an endpoint that
// keeps big lets as Expr Lets made every step ask the fallback the same
// questions again (fuzz seed 720060: 60% of its lowering). The region lets
// are simplified once more, with the fallback, where bounds inference
// defines them in the statement.

#include <algorithm>
#include <functional>
#include <optional>
#include <set>

#include "ir/Bounds.h"
#include "ir/EndpointBounds.h"
#include "ir/IREquality.h"
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

using BoxMap = std::map<std::string, Box>;

/** A variable the enclosing condition restricts, and the expression it is
 * known to equal inside the branch (min(v, e) for v <= e, and so on). */
struct Restriction {
    std::string var;
    Expr value;
    /** How the value compares with the variable everywhere, in or out of
     * the branch: min(v, e) <= v is Below, max(v, e) >= v is Above; the
     * value of an equality is Unordered. */
    enum Order { Below, Above, Unordered } order;
    /** Solved out of a sum (x + y < 3 gives x <= 2 - y and y <= 2 - x):
     * applied only to endpoints monotonic in the variable, where the
     * substitution replaces the variable without a min/max around the
     * endpoint, so a condition over many variables cannot grow them. */
    bool monotonic_only = false;
    /** Substituted after the restrictions of every smaller step
     * (restrict_in_boxes). */
    int step = 0;
};

/** What a condition restricts, two ways (restrict_in_boxes). */
struct Restrictions {
    std::vector<Restriction> together, stepped;
    /** Whether stepped differs from together (a condition was solved
     * innermost loop first). */
    bool any_stepped = false;
};

/** Applies f to every defined endpoint: min endpoints with is_max false. */
template<typename F>
void for_each_endpoint(BoxMap &boxes, F f) {
    for (auto &[name, box] : boxes) {
        for (Interval &i : box) {
            if (i.min.defined()) i.min = f(i.min, false);
            if (i.max.defined()) i.max = f(i.max, true);
        }
    }
}

/** How many times e reads variable `name`, as a tree. */
int count_uses(const Expr &e, const std::string &name) {
    struct Count : IRGraphVisitor {
        explicit Count(const std::string &n) : name(n) {}
        const std::string &name;
        int uses = 0;
        void include(const Expr &e) override {
            if (e.defined()) e.accept(this);
        }
        using IRGraphVisitor::visit;
        void visit(const Variable *op) override { uses += op->name == name; }
    } c(name);
    c.include(e);
    return c.uses;
}

/** Replaces a free variable by its let-bound value in every endpoint, or,
 * where that would make the endpoint too big, binds it with an Expr Let. */
void substitute_in_boxes(BoxMap &boxes, const std::string &name, const Expr &value) {
    const int value_nodes = expr_size(value, kMaxSubstitutedEndpointNodes + 1);
    for_each_endpoint(boxes, [&](const Expr &e, bool) {
        if (!expr_uses_var(e, name)) return e;
        const int nodes = expr_size(e, kMaxSubstitutedEndpointNodes + 1);
        const int64_t grown = nodes > kMaxSubstitutedEndpointNodes
                                  ? nodes
                                  : nodes + int64_t(count_uses(e, name)) * (value_nodes - 1);
        if (grown > kMaxSubstitutedEndpointNodes) return simplify(Let::make(name, value, e));
        return simplify(substitute(name, value, e));
    });
}

/** How many times bound_over_loop may split a loop's range. */
constexpr int kMaxRangeSplits = 2;

/** Bounds every endpoint over the variables of scope: the smallest value a
 * min endpoint can take, the largest a max endpoint can. */
void relax_boxes(BoxMap &boxes, const Scope<Interval> &scope) {
    for_each_endpoint(boxes, [&](const Expr &e, bool is_max) {
        Interval i = bounds_of_expr_in_scope(e, scope);
        return is_max ? i.max : i.min;
    });
}

/** Largest endpoint, in tree nodes, that is relaxed one loop at a time.
 * Relaxing a loop needs both bounds of every let value the endpoint reads
 * (the smallest of min(a, v) - v needs v's largest and smallest), so each
 * loop can double an endpoint, and a deep nest of guarded tiles around a
 * fused producer grows one exponentially (fuzz seed 1102455: 1,165 nodes
 * became 57,775 over five loops, 13 s of lowering). Past this size an
 * endpoint is relaxed over all the loops around it at once instead, as
 * Halide's bounds inference does: each loop's range and each let's value
 * bounded once, from the outside in. That is linear in the nest's depth,
 * and can be looser where an inner loop's range depends on an outer one
 * (a guarded tile's last row), which only endpoints already this big
 * give up. */
constexpr int kMaxEndpointRelaxedPerLoop = 2048;

/** Bounds every endpoint over one loop's range; an endpoint larger than
 * kMaxEndpointRelaxedPerLoop over every loop and let of `around` at once
 * (outermost first, this loop included), where that bounds it. */
template<typename Around>
void relax_boxes_over_loop(BoxMap &boxes, const std::string &var, const Interval &range, const Around &around) {
    std::optional<Scope<Interval>> outside;  // built once, for the first big endpoint
    for_each_endpoint(boxes, [&](const Expr &e, bool is_max) {
        if (!expr_uses_var(e, var)) return e;
        if (expr_size(e, kMaxEndpointRelaxedPerLoop + 1) > kMaxEndpointRelaxedPerLoop) {
            if (!outside) outside = around();
            const Interval all = bounds_of_expr_in_scope(e, *outside);
            const Expr bound = is_max ? all.max : all.min;
            if (bound.defined()) return simplify(bound);
        }
        return bound_over_loop(e, var, range, is_max, kMaxRangeSplits);
    });
}

class BoxesTouched : public IRVisitor {
public:
    BoxesTouched(bool provided, const BoxFilter &wanted) : provided_(provided), wanted_(wanted) {}
    /** In terms of the variables free at the node being visited. */
    BoxMap boxes;

private:
    bool provided_;
    /** Which names to record (all when empty). The boxes of the others are
     * never built, so their endpoints are not carried through every let and
     * loop on the way out. */
    const BoxFilter &wanted_;

    bool wanted(const std::string &name) const { return !wanted_ || wanted_(name); }

    /** A loop (its variable's first and last value) or a let (its value)
     * around the node being visited. */
    struct Enclosing {
        std::string name;
        bool is_loop;
        Expr min_or_value, max;
    };
    /** Outermost first. */
    std::vector<Enclosing> enclosing_;

    using IRVisitor::visit;

    /** Visits with an empty box map and returns what the visit found,
     * leaving the boxes found so far in place. */
    template<typename F>
    BoxMap collect(F visit_part) {
        BoxMap outer;
        std::swap(outer, boxes);
        visit_part();
        std::swap(outer, boxes);
        return outer;
    }

    void merge_in(const BoxMap &found) {
        for (const auto &[name, box] : found) merge_boxes(boxes[name], box);
    }

    static Box point_box(const std::vector<Expr> &args) {
        Box b;
        const Scope<Interval> none;
        for (const Expr &a : args) b.push_back(bounds_of_expr_in_scope(a, none));
        return b;
    }

    void visit(const Call *op) override {
        IRVisitor::visit(op);  // calls in the arguments (f(g(x))) count too
        if (!provided_ && (op->call_type == CallType::Func || op->call_type == CallType::Image) && wanted(op->name)) {
            merge_boxes(boxes[op->name], point_box(op->args));
        }
    }

    void visit(const Provide *op) override {
        IRVisitor::visit(op);
        if (provided_ && wanted(op->name)) merge_boxes(boxes[op->name], point_box(op->args));
    }

    template<typename LetOrLetStmt>
    void visit_let(const LetOrLetStmt *op) {
        op->value.accept(this);
        enclosing_.push_back({op->name, false, op->value, Expr()});
        BoxMap inner = collect([&] { op->body.accept(this); });
        enclosing_.pop_back();
        substitute_in_boxes(inner, op->name, op->value);
        merge_in(inner);
    }

    void visit(const Let *op) override { visit_let(op); }
    void visit(const LetStmt *op) override { visit_let(op); }

    void visit(const For *op) override {
        op->min.accept(this);
        op->extent.accept(this);
        Expr last = simplify(Sub::make(Add::make(op->min, op->extent), int_const(op->min.type(), 1)));
        enclosing_.push_back({op->name, true, op->min, last});
        BoxMap inner = collect([&] { op->body.accept(this); });
        relax_boxes_over_loop(inner, op->name, Interval(op->min, last), [&] { return ranges_of_enclosing(); });
        enclosing_.pop_back();
        merge_in(inner);
    }

    /** Each enclosing loop's variable over its whole range and each
     * enclosing let's name over its value's bounds, from the outermost in:
     * in terms of the variables free outside them all. */
    Scope<Interval> ranges_of_enclosing() const {
        Scope<Interval> scope;
        for (const Enclosing &en : enclosing_) {
            if (en.is_loop) {
                const Interval first = bounds_of_expr_in_scope(en.min_or_value, scope);
                const Interval last = bounds_of_expr_in_scope(en.max, scope);
                scope.push(en.name, Interval(first.min, last.max));
            } else {
                scope.push(en.name, bounds_of_expr_in_scope(en.min_or_value, scope));
            }
        }
        return scope;
    }

    void visit(const IfThenElse *op) override {
        op->condition.accept(this);
        BoxMap then_boxes = collect([&] { op->then_case.accept(this); });
        // Solving the condition is work only a box in the branch needs (the
        // boxes wanted are often in few of a pipeline's branches).
        if (!then_boxes.empty()) {
            Restrictions restrictions;
            find_restrictions(op->condition, restrictions);
            restrict_in_boxes(then_boxes, restrictions);
        }
        if (op->else_case.defined() && reads_only_inputs(op->condition)) {
            // A branch on the pipeline's inputs (a specialization) goes one
            // way for a whole run: each box is the taken branch's, as in
            // Halide, not the union of both.
            BoxMap else_boxes = collect([&] { op->else_case.accept(this); });
            merge_in(select_boxes(op->condition, then_boxes, else_boxes));
            return;
        }
        merge_in(then_boxes);
        if (op->else_case.defined()) op->else_case.accept(this);
    }

    /** Whether cond reads only Params and buffer fields (no loop variable,
     * no Func or buffer element). */
    static bool reads_only_inputs(const Expr &cond) {
        struct Check : IRGraphVisitor {
            bool ok = true;
            using IRGraphVisitor::visit;
            void visit(const Variable *v) override { ok = ok && v->param.defined(); }
            void visit(const Call *c) override {
                ok = ok && c->call_type != CallType::Func && c->call_type != CallType::Image;
                IRGraphVisitor::visit(c);
            }
            void visit(const Load *) override { ok = false; }
        } check;
        check.include(cond);
        return check.ok;
    }

    /** select(cond, then, else) per endpoint; a box found in one branch
     * only is kept as it is (a bound for every run), an unbounded endpoint
     * in either stays unbounded. */
    static BoxMap select_boxes(const Expr &cond, const BoxMap &then_boxes, const BoxMap &else_boxes) {
        BoxMap result = else_boxes;
        for (const auto &[name, a] : then_boxes) {
            auto it = result.find(name);
            if (it == result.end() || it->second.size() != a.size()) {
                merge_boxes(result[name], a);
                continue;
            }
            Box &b = it->second;
            auto pick = [&](const Expr &x, const Expr &y) -> Expr {
                if (!x.defined() || !y.defined()) return Expr();
                if (x.same_as(y) || equal(x, y)) return x;
                return Select::make(cond, x, y);
            };
            for (size_t d = 0; d < a.size(); d++) b[d] = Interval(pick(a[d].min, b[d].min), pick(a[d].max, b[d].max));
        }
        return result;
    }

    /** Inside a branch taken only when `v <= e` holds, v equals min(v, e),
     * so an endpoint with that substituted bounds every access the branch
     * makes. Where the branch never runs it bounds nothing, and could
     * reach past what the branch ever touches (for v <= -1 in an
     * iteration where no v is that small), so the endpoint only ever
     * narrows: a min endpoint becomes max(lo(v), lo(min(v, e))), a max
     * endpoint min(hi(v), hi(min(v, e))). When the endpoint is monotonic
     * in v, that min or max is decided up front (ir/Monotonic.h).
     * The restrictions a condition gives are substituted together, each
     * where the endpoint (as it was before any of them) moves with its
     * variable the narrowing way: x + r < 17 makes x + r + 1 into
     * min(x, 16 - r) + min(r, 16 - x) + 1, which is no larger anywhere,
     * where one at a time would leave it non-monotonic in the second
     * variable. A variable restricted twice (x <= a && x <= b) takes its
     * second restriction in a second round.
     *
     * Where a condition is also solved innermost loop first
     * (solve_innermost_first), the endpoint is narrowed a second way, the
     * stepped restrictions substituted one step after another, each into
     * the endpoint the previous one made, and the endpoint is the
     * narrower of the two: min(together, stepped) for a max endpoint. Both
     * are true bounds of every access in the branch (each substitutes only
     * what the condition makes true there), and each is no larger than the
     * endpoint anywhere, so the pair is nowhere larger than either.
     * Neither alone is enough: with y split twice, 4 < y + r.y narrows the
     * row y + r.y + 2 exactly only stepped (fuzz seed 1030343), while
     * max(max(r + 4, 17), x) under r + x < 17 narrows only together
     * (stepped, r's bound min(r, 16 - x) leaves the endpoint not monotonic
     * in x, so x's bound cannot be substituted; fuzz seed 1104 on the GPU:
     * the unscheduled pipeline then asked rows up to 22 for 18). */
    static void restrict_in_boxes(BoxMap &boxes, const Restrictions &restrictions) {
        int last_step = 0;
        for (const Restriction &r : restrictions.stepped) last_step = std::max(last_step, r.step);
        for_each_endpoint(boxes, [&](const Expr &endpoint, bool is_max) {
            const Expr together = restrict_endpoint(endpoint, is_max, restrictions.together, 0, false);
            if (!restrictions.any_stepped) return together;
            Expr stepped = endpoint;
            for (int step = 0; step <= last_step; step++) {
                stepped = restrict_endpoint(stepped, is_max, restrictions.stepped, step, true);
            }
            if (equal(stepped, together)) return together;
            const Expr both =
                simplify(is_max ? Expr(Min::make(together, stepped)) : Expr(Max::make(together, stepped)));
            // Substituting never grows an endpoint much; keep the pair only
            // while it stays small.
            constexpr int kMaxGrowth = 4;
            const int limit = kMaxGrowth * std::max(expr_size(endpoint, kMaxSubstitutedEndpointNodes + 1),
                                                    kMaxSubstitutedEndpointNodes);
            return expr_size(both, limit + 1) <= limit ? both : together;
        });
    }

    /** A restriction substituted into each leaf of the mins, maxes and
     * selects at the top of an endpoint that it narrows (a leaf monotonic
     * in the variable the narrowing way), the others left as they are:
     * under 9 < x + r, r >= 10 - x narrows x * 2 - r in
     * max(x + r, x * 2 - r), which as a whole is not monotonic in r. Each
     * leaf is no larger anywhere, and equal inside the branch. */
    static Expr restrict_narrowing_leaves(const Expr &e, const Restriction &r, bool is_max) {
        if (const auto *op = e.as<Min>()) {
            Expr a = restrict_narrowing_leaves(op->a, r, is_max), b = restrict_narrowing_leaves(op->b, r, is_max);
            return a.same_as(op->a) && b.same_as(op->b) ? e : Expr(Min::make(a, b));
        }
        if (const auto *op = e.as<Max>()) {
            Expr a = restrict_narrowing_leaves(op->a, r, is_max), b = restrict_narrowing_leaves(op->b, r, is_max);
            return a.same_as(op->a) && b.same_as(op->b) ? e : Expr(Max::make(a, b));
        }
        if (const auto *op = e.as<Select>()) {
            Expr t = restrict_narrowing_leaves(op->true_value, r, is_max);
            Expr f = restrict_narrowing_leaves(op->false_value, r, is_max);
            return t.same_as(op->true_value) && f.same_as(op->false_value) ? e
                                                                            : Expr(Select::make(op->condition, t, f));
        }
        const Monotonic m = monotonic_in(e, r.var);
        if (m != Monotonic::Increasing && m != Monotonic::Decreasing) return e;
        const bool restricted_is_smaller = (m == Monotonic::Increasing) == (r.order == Restriction::Below);
        return restricted_is_smaller == is_max ? substitute(r.var, r.value, e) : e;
    }

    /** The restrictions of one step substituted into an endpoint; `moved`:
     * an endpoint not monotonic in a restricted variable is tried with its
     * sums moved into its min/max leaves (monotonic_leaves). */
    static Expr restrict_endpoint(Expr e, bool is_max, const std::vector<Restriction> &restrictions, int step,
                                  bool moved_leaves) {
        std::vector<const Restriction *> pending;
        for (const Restriction &r : restrictions) {
            if (r.step == step) pending.push_back(&r);
        }
        while (!pending.empty()) {
            std::map<std::string, Expr> together;
            std::vector<const Restriction *> unordered, by_leaf, later;
            for (const Restriction *r : pending) {
                if (!expr_uses_var(e, r->var)) continue;
                if (together.count(r->var)) {
                    later.push_back(r);
                    continue;
                }
                const bool ordered = r->order != Restriction::Unordered;
                Monotonic m = ordered ? monotonic_in(e, r->var) : Monotonic::Unknown;
                // The same value with its sums moved into the leaves may be
                // monotonic where e is not (an earlier step's
                // y + max(r.y, 3 - y) is max(y + r.y, 3)).
                Expr moved = moved_leaves && ordered && m == Monotonic::Unknown ? monotonic_leaves(e, r->var, is_max)
                                                                                : Expr();
                if (moved.defined()) m = monotonic_in(moved, r->var);
                if (m == Monotonic::Constant) continue;
                if (m == Monotonic::Increasing || m == Monotonic::Decreasing) {
                    const bool restricted_is_smaller =
                        (m == Monotonic::Increasing) == (r->order == Restriction::Below);
                    if (restricted_is_smaller != is_max) continue;
                    if (moved.defined()) e = moved;
                    together[r->var] = r->value;
                    continue;
                }
                if (!r->monotonic_only) {
                    unordered.push_back(r);
                } else if (moved_leaves && ordered) {
                    by_leaf.push_back(r);
                }
            }
            if (!together.empty()) e = simplify(substitute(together, e));
            for (const Restriction *r : unordered) {
                Expr restricted = substitute(r->var, r->value, e);
                e = simplify(is_max ? Expr(Min::make(e, restricted)) : Expr(Max::make(e, restricted)));
            }
            for (const Restriction *r : by_leaf) {
                Expr narrowed = restrict_narrowing_leaves(e, *r, is_max);
                if (!narrowed.same_as(e)) e = simplify(narrowed);
            }
            pending = std::move(later);
        }
        return e;
    }

    /** The restrictions a condition known to be true puts on variables:
     * v <= e gives v == min(v, e); likewise for <, >=, >, == and
     * conjunctions. Int(32)/Int(64) only, so e - 1 and e + 1 are exact.
     * `together`: each variable of a linear condition bounded by the whole
     * condition (solve_linear); `stepped`: the same, except for the
     * conditions solve_innermost_first solves (restrict_in_boxes uses
     * both). */
    void find_restrictions(const Expr &cond, Restrictions &out) const {
        if (const auto *a = cond.as<And>()) {
            find_restrictions(a->a, out);
            find_restrictions(a->b, out);
            return;
        }
        Expr lhs, rhs;
        IRNodeType kind;
        if (const auto *op = cond.as<LT>()) { lhs = op->a; rhs = op->b; kind = IRNodeType::LT; }
        else if (const auto *op = cond.as<LE>()) { lhs = op->a; rhs = op->b; kind = IRNodeType::LE; }
        else if (const auto *op = cond.as<GT>()) { lhs = op->b; rhs = op->a; kind = IRNodeType::LT; }
        else if (const auto *op = cond.as<GE>()) { lhs = op->b; rhs = op->a; kind = IRNodeType::LE; }
        else if (const auto *op = cond.as<EQ>()) { lhs = op->a; rhs = op->b; kind = IRNodeType::EQ; }
        else return;
        if (!lhs.type().is_scalar() || !no_overflow(lhs.type())) return;
        Expr one = int_const(lhs.type(), 1);
        // lhs < rhs, lhs <= rhs or lhs == rhs: restrict whichever side is a variable.
        // Every variable of a linear condition is bounded by the others;
        // a lone variable on one side also without the monotonic limit.
        std::string lone;
        if (const auto *v = lhs.as<Variable>(); v && !expr_uses_var(rhs, v->name)) {
            lone = v->name;
        } else if (const auto *w = rhs.as<Variable>(); w && !expr_uses_var(lhs, w->name)) {
            lone = w->name;
        }
        solve_linear(lhs, rhs, kind, lone, out.together);
        if (solve_innermost_first(lhs, rhs, kind, lone, out.stepped)) {
            out.any_stepped = true;
        } else {
            solve_linear(lhs, rhs, kind, lone, out.stepped);
        }
        auto add = [&](Restriction r) {
            out.together.push_back(r);
            out.stepped.push_back(std::move(r));
        };
        if (const auto *v = lhs.as<Variable>(); v && !expr_uses_var(rhs, v->name)) {
            Expr hi = kind == IRNodeType::LT ? simplify(Sub::make(rhs, one)) : rhs;
            if (kind == IRNodeType::EQ) {
                add({v->name, rhs, Restriction::Unordered});
            } else {
                add({v->name, Min::make(lhs, hi), Restriction::Below});
            }
        } else if (const auto *w = rhs.as<Variable>(); w && !expr_uses_var(lhs, w->name)) {
            Expr lo = kind == IRNodeType::LT ? simplify(Add::make(lhs, one)) : lhs;
            if (kind == IRNodeType::EQ) {
                add({w->name, lhs, Restriction::Unordered});
            } else {
                add({w->name, Max::make(rhs, lo), Restriction::Above});
            }
        }
    }

    /** lhs < rhs (or <=, ==) over sums of variables: each variable that
     * occurs once, times a constant c, is bounded by the rest. With
     * lhs - rhs == c * v + rest, c * v + rest <= 0 (< 0: <= -1) gives
     * v <= floor(-rest / c) for c > 0 and v >= ceil(rest / -c) for c < 0
     * (division rounds down, ir/IR.h). An RDom's where(r.x + y < 3)
     * narrows both r.x and the pure Var y this way, as Halide's bounds
     * inference does with a predicate on the loops it encloses. */
    static void solve_linear(const Expr &lhs, const Expr &rhs, IRNodeType kind, const std::string &skip,
                             std::vector<Restriction> &out) {
        LinearForm form = linear_form(simplify(Sub::make(lhs, rhs)));
        if (kind == IRNodeType::LT) form.add_constant(1);  // c * v + rest < 0 <=> c * v + rest + 1 <= 0
        for (size_t i = 0; i < form.terms.size(); i++) {
            const auto *v = form.terms[i].expr.as<Variable>();
            if (v && v->name != skip) solve_for_term(form, i, kind == IRNodeType::EQ, 0, out);
        }
    }

    /** With form <= 0 (== 0 where `equality`), the restriction of the
     * variable that is term i: c * v + rest <= 0 gives v <= floor(-rest / c)
     * for c > 0 and v >= ceil(rest / -c) for c < 0. False (nothing added)
     * where term i is not a variable with a usable coefficient, or another
     * term reads the variable too. */
    static bool solve_for_term(const LinearForm &form, size_t i, bool equality, int step,
                               std::vector<Restriction> &out) {
        const Type t = form.type;
        const auto *v = form.terms[i].expr.as<Variable>();
        const int64_t c = form.terms[i].coef;
        if (!v || c == 0 || c == INT64_MIN) return false;
        LinearForm rest(t);
        for (size_t j = 0; j < form.terms.size(); j++) {
            if (j == i) continue;
            if (expr_uses_var(form.terms[j].expr, v->name)) return false;
            rest.add_term(form.terms[j].expr, form.terms[j].coef);
        }
        rest.add_constant(form.constant);
        const Expr r = rebuild(rest);
        const Expr vexpr = form.terms[i].expr;
        if (c > 0) {
            // v <= floor(-rest / c)
            Expr hi = simplify(Div::make(Sub::make(int_const(t, 0), r), int_const(t, c)));
            out.push_back({v->name, Min::make(vexpr, hi), Restriction::Below, true, step});
            if (equality) {
                Expr lo = simplify(
                    Div::make(Add::make(Sub::make(int_const(t, 0), r), int_const(t, c - 1)), int_const(t, c)));
                out.push_back({v->name, Max::make(vexpr, lo), Restriction::Above, true, step});
            }
        } else {
            // -c * v >= rest, v >= ceil(rest / -c)
            const int64_t n = -c;
            Expr lo = simplify(Div::make(Add::make(r, int_const(t, n - 1)), int_const(t, n)));
            out.push_back({v->name, Max::make(vexpr, lo), Restriction::Above, true, step});
            if (equality) {
                Expr hi = simplify(Div::make(r, int_const(t, n)));
                out.push_back({v->name, Min::make(vexpr, hi), Restriction::Below, true, step});
            }
        }
        return true;
    }

    /** The variables an expression reads; nullopt where it binds a name
     * itself (an Expr Let), which a plain list of names cannot tell apart. */
    static std::optional<std::set<std::string>> variables_read(const Expr &e) {
        struct Collect : IRGraphVisitor {
            std::set<std::string> names;
            bool binds = false;
            using IRGraphVisitor::visit;
            void visit(const Variable *op) override { names.insert(op->name); }
            void visit(const Let *) override { binds = true; }
        } collect;
        collect.include(e);
        if (collect.binds) return std::nullopt;
        return collect.names;
    }

    /** Position in enclosing_ of the innermost loop a variable varies with,
     * through the lets that define it: -1 for a variable bound outside the
     * statement (a Param, a buffer field) or by a let of no loop variable,
     * nullopt where a let's value cannot be read. Bindings at `below` and
     * inside it are not searched. */
    std::optional<int> loop_depth(const std::string &name, int below,
                                  std::map<std::pair<std::string, int>, std::optional<int>> &memo) const {
        for (int i = below - 1; i >= 0; i--) {
            const Enclosing &b = enclosing_[i];
            if (b.name != name) continue;
            if (b.is_loop) return i;
            auto key = std::make_pair(name, i);
            if (auto it = memo.find(key); it != memo.end()) return it->second;
            std::optional<int> depth = -1;
            const auto names = variables_read(b.min_or_value);
            if (!names) depth = std::nullopt;
            for (const std::string &n : names ? *names : std::set<std::string>{}) {
                const std::optional<int> d = loop_depth(n, i, memo);
                if (!d) {
                    depth = std::nullopt;
                    break;
                }
                depth = std::max(*depth, *d);
            }
            memo[key] = depth;
            return depth;
        }
        return -1;
    }

    /** The values a variable takes while the loops at positions `outside`
     * + 1 and inwards run (the lets among them substituted), in terms of
     * the bindings at `outside` and outwards; undefined where that is
     * unknown. */
    Interval range_inside(const std::string &name, const Type &t, int outside) const {
        Expr lo = Variable::make(t, name), hi = lo;
        for (int i = (int)enclosing_.size() - 1; i > outside; i--) {
            const Enclosing &b = enclosing_[i];
            if (!expr_uses_var(lo, b.name) && !expr_uses_var(hi, b.name)) continue;
            if (b.is_loop) {
                Scope<Interval> scope;
                scope.push(b.name, Interval(b.min_or_value, b.max));
                lo = bounds_of_expr_in_scope(lo, scope).min;
                hi = bounds_of_expr_in_scope(hi, scope).max;
                if (!lo.defined() || !hi.defined()) return Interval();
            } else {
                lo = substitute(b.name, b.min_or_value, lo);
                hi = substitute(b.name, b.min_or_value, hi);
            }
        }
        for (int i = (int)enclosing_.size() - 1; i > outside; i--) {
            if (expr_uses_var(lo, enclosing_[i].name) || expr_uses_var(hi, enclosing_[i].name)) return Interval();
        }
        return Interval(simplify(lo), simplify(hi));
    }

    /** lhs < rhs or lhs <= rhs over the variables of several loops, solved
     * innermost loop first: the variable v of the innermost loop is bounded
     * by the condition (c * v + rest <= 0), then the condition is projected
     * over the values v takes inside the loops of the other variables
     * (some v in [lo, hi] satisfies it only where c * lo + rest <= 0, for
     * c > 0; c * hi + rest <= 0 otherwise), and the next variable is
     * bounded by what is left, and so on outwards. Each bound is a later
     * step (restrict_in_boxes), so an endpoint is narrowed in the order its
     * loops are relaxed: where(4 < y + r.y) makes the row y + r.y into
     * max(y + r.y, 5) and then, with r.y <= 1, y into max(y, 4), monotonic
     * in every loop that defines y, however y is split. Bounding every
     * variable by the whole condition at once made it
     * max(y, 5 - r.y) + max(r.y, 5 - y), exact only where y is one loop
     * (fuzz seed 1030343: y split twice, one row too few narrowed away per
     * split). False where the condition is not such a sum (terms that are
     * not variables, two variables of the same innermost loop, fewer than
     * two variables of loops): solve_linear bounds each variable by the
     * whole condition then. */
    bool solve_innermost_first(const Expr &lhs, const Expr &rhs, IRNodeType kind, const std::string &lone,
                               std::vector<Restriction> &out) const {
        if (kind != IRNodeType::LT && kind != IRNodeType::LE) return false;
        const Type t = lhs.type();
        LinearForm form = linear_form(simplify(Sub::make(lhs, rhs)));
        if (kind == IRNodeType::LT) form.add_constant(1);
        std::map<std::pair<std::string, int>, std::optional<int>> memo;
        std::vector<Restriction> found;
        // Each step removes the innermost loop's variable from the form, so
        // there are at most as many steps as loops.
        for (int step = 0; step <= (int)enclosing_.size(); step++) {
            // The innermost loop any term varies with, which term, and the
            // next innermost loop of the others.
            int deepest = -1, second = -1;
            size_t term = 0;
            int loop_terms = 0;
            for (size_t i = 0; i < form.terms.size(); i++) {
                const auto names = variables_read(form.terms[i].expr);
                if (!names) return step > 0 && commit(found, out);
                int depth = -1;
                for (const std::string &n : *names) {
                    const std::optional<int> d = loop_depth(n, (int)enclosing_.size(), memo);
                    if (!d) return step > 0 && commit(found, out);
                    depth = std::max(depth, *d);
                }
                if (depth < 0) continue;
                loop_terms++;
                if (depth > deepest) {
                    second = deepest;
                    deepest = depth;
                    term = i;
                } else {
                    second = std::max(second, depth);
                }
            }
            if (step == 0 && loop_terms < 2) return false;
            if (deepest < 0) break;
            if (deepest == second || !form.terms[term].expr.as<Variable>()) {
                if (step == 0) return false;
                // Bound each variable by what is left, as solve_linear does.
                for (size_t i = 0; i < form.terms.size(); i++) solve_for_term(form, i, false, step, found);
                break;
            }
            const std::string name = form.terms[term].expr.as<Variable>()->name;
            // A lone variable of the condition is bounded without the
            // monotonic limit by find_restrictions already.
            if (!(step == 0 && name == lone) && !solve_for_term(form, term, false, step, found)) {
                if (step == 0) return false;
                break;
            }
            const Interval range = range_inside(name, t, second);
            const int64_t c = form.terms[term].coef;
            const Expr &end = c > 0 ? range.min : range.max;
            if (!end.defined()) break;
            LinearForm rest(t);
            for (size_t j = 0; j < form.terms.size(); j++) {
                if (j != term) rest.add_term(form.terms[j].expr, form.terms[j].coef);
            }
            rest.add_constant(form.constant);
            form = linear_form(simplify(Add::make(rebuild(rest), Mul::make(int_const(t, c), end))));
        }
        return commit(found, out);
    }

    static bool commit(std::vector<Restriction> &found, std::vector<Restriction> &out) {
        for (Restriction &r : found) out.push_back(std::move(r));
        return true;
    }
};

BoxMap relaxed(BoxesTouched &v, const Scope<Interval> &scope) {
    if (!scope.empty()) relax_boxes(v.boxes, scope);
    return std::move(v.boxes);
}

}  // namespace

void merge_boxes(Box &a, const Box &b) {
    if (b.empty()) return;
    if (a.empty()) {
        a = b;
        return;
    }
    if (a.size() != b.size()) {
        throw InternalError("merge_boxes: boxes of " + std::to_string(a.size()) + " and " + std::to_string(b.size()) +
                            " dimensions");
    }
    for (size_t i = 0; i < a.size(); i++) a[i] = Interval::make_union(a[i], b[i]);
}

Box box_union(const Box &a, const Box &b) {
    Box r = a;
    merge_boxes(r, b);
    return r;
}

std::map<std::string, Box> boxes_required(const Expr &e, const Scope<Interval> &scope, const BoxFilter &wanted) {
    const WithoutSymbolicFallback cheap_facts_only;
    BoxesTouched v(false, wanted);
    if (e.defined()) e.accept(&v);
    return relaxed(v, scope);
}

std::map<std::string, Box> boxes_required(const Stmt &s, const Scope<Interval> &scope, const BoxFilter &wanted) {
    const WithoutSymbolicFallback cheap_facts_only;
    BoxesTouched v(false, wanted);
    if (s.defined()) s.accept(&v);
    return relaxed(v, scope);
}

std::map<std::string, Box> boxes_provided(const Stmt &s, const Scope<Interval> &scope, const BoxFilter &wanted) {
    const WithoutSymbolicFallback cheap_facts_only;
    BoxesTouched v(true, wanted);
    if (s.defined()) s.accept(&v);
    return relaxed(v, scope);
}

}  // namespace internal
}  // namespace loom
