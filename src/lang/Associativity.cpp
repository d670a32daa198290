// rfactor's associativity check (see Associativity.h).

#include "lang/Associativity.h"

#include <cmath>

#include "ir/IREquality.h"
#include "ir/IRUtil.h"
#include "ir/IRVisitor.h"
#include "loom/IROperator.h"

namespace loom {
namespace internal {

namespace {

enum class OpKind { Add, Mul, Min, Max, And, Or };

/** The self-references: calls of f at exactly the update's left-hand side. */
class SelfCalls {
public:
    SelfCalls(const FunctionContents &f, const std::vector<Expr> &lhs) : f_(f), lhs_(lhs) {}

    /** Which Tuple element e reads if it is f(lhs)[i], else -1. */
    int element_of(const Expr &e) const {
        const Call *c = e.as<Call>();
        if (!c || c->call_type != CallType::Func || c->func.get() != &f_) return -1;
        if (c->args.size() != lhs_.size()) return -1;
        for (size_t i = 0; i < lhs_.size(); i++) {
            if (!equal(c->args[i], lhs_[i])) return -1;
        }
        return c->value_index;
    }

    /** Whether e calls f anywhere. */
    bool reads_f(const Expr &e) const {
        struct Finder : IRGraphVisitor {
            const FunctionContents *f;
            bool found = false;
            using IRGraphVisitor::visit;
            void visit(const Call *op) override {
                if (op->call_type == CallType::Func && op->func.get() == f) found = true;
                IRGraphVisitor::visit(op);
            }
        } finder;
        finder.f = &f_;
        finder.include(e);
        return finder.found;
    }

private:
    const FunctionContents &f_;
    const std::vector<Expr> &lhs_;
};

template<typename Node>
void flatten(const Expr &e, std::vector<Expr> &leaves) {
    if (const Node *n = e.as<Node>()) {
        flatten<Node>(n->a, leaves);
        flatten<Node>(n->b, leaves);
        return;
    }
    leaves.push_back(e);
}

Expr make_op(OpKind kind, const Expr &a, const Expr &b) {
    switch (kind) {
    case OpKind::Add: return Add::make(a, b);
    case OpKind::Mul: return Mul::make(a, b);
    case OpKind::Min: return Min::make(a, b);
    case OpKind::Max: return Max::make(a, b);
    case OpKind::And: return And::make(a, b);
    case OpKind::Or: return Or::make(a, b);
    }
    return Expr();
}

Expr largest(Type t) { return t.is_float() ? make_const(t, (double)INFINITY) : t.max(); }
Expr smallest(Type t) { return t.is_float() ? make_const(t, -(double)INFINITY) : t.min(); }

Expr identity_of(OpKind kind, Type t) {
    switch (kind) {
    case OpKind::Add: return make_zero(t);
    case OpKind::Mul: return make_one(t);
    case OpKind::Min: return largest(t);
    case OpKind::Max: return smallest(t);
    case OpKind::And: return make_const(t, 1);
    case OpKind::Or: return make_const(t, 0);
    }
    return Expr();
}

/** One element: f[i] op y (op one of the commutative operators), or f[i]
 * unchanged. Fills combine, identity and y of element i. */
bool match_element(const SelfCalls &self, int i, const Expr &value, const Expr &x, const Expr &y_var,
                   AssociativeOp &op, std::string &why) {
    if (self.element_of(value) == i) {
        op.combine[i] = x;
        op.identities[i] = make_zero(value.type());
        op.y[i] = make_zero(value.type());
        return true;
    }
    std::vector<Expr> leaves;
    OpKind kind;
    if (value.as<Add>()) kind = OpKind::Add, flatten<Add>(value, leaves);
    else if (value.as<Mul>()) kind = OpKind::Mul, flatten<Mul>(value, leaves);
    else if (value.as<Min>()) kind = OpKind::Min, flatten<Min>(value, leaves);
    else if (value.as<Max>()) kind = OpKind::Max, flatten<Max>(value, leaves);
    else if (value.as<And>()) kind = OpKind::And, flatten<And>(value, leaves);
    else if (value.as<Or>()) kind = OpKind::Or, flatten<Or>(value, leaves);
    else {
        why = value.as<Sub>() || value.as<Div>()
                  ? "subtraction and division are not associative ((a - b) - c != a - (b - c)); write the update as "
                    "f(x) += -(...) or f(x) *= ... of what is combined"
                  : "its value is not f(...) combined with other terms by one of +, *, min, max, &&, ||";
        return false;
    }
    int self_leaves = 0;
    Expr rest;
    for (const Expr &leaf : leaves) {
        int element = self.element_of(leaf);
        if (element == i) {
            self_leaves++;
            continue;
        }
        if (element >= 0 || self.reads_f(leaf)) {
            why = "the terms combined with the value so far read the Func itself (e.g. f(x) * 2 + ... or another "
                  "element of its Tuple), so the partial results can't be computed independently";
            return false;
        }
        rest = rest.defined() ? make_op(kind, rest, leaf) : leaf;
    }
    if (self_leaves != 1 || !rest.defined()) {
        why = self_leaves == 0 ? "its value does not combine the value so far (the Func at the same point) with "
                                 "something else"
                               : "the value so far is combined with itself";
        return false;
    }
    op.combine[i] = make_op(kind, x, y_var);
    op.identities[i] = identity_of(kind, value.type());
    op.y[i] = rest;
    return true;
}

enum class Cmp { LT, LE, GT, GE, None };

/** c as "f[k] cmp other", with k and other found. */
Cmp comparison(const SelfCalls &self, const Expr &c, int &k, Expr &other) {
    auto parts = [&](const Expr &a, const Expr &b, Cmp direct, Cmp swapped) {
        if (int e = self.element_of(a); e >= 0 && !self.reads_f(b)) {
            k = e, other = b;
            return direct;
        }
        if (int e = self.element_of(b); e >= 0 && !self.reads_f(a)) {
            k = e, other = a;
            return swapped;
        }
        return Cmp::None;
    };
    if (const LT *n = c.as<LT>()) return parts(n->a, n->b, Cmp::LT, Cmp::GT);
    if (const LE *n = c.as<LE>()) return parts(n->a, n->b, Cmp::LE, Cmp::GE);
    if (const GT *n = c.as<GT>()) return parts(n->a, n->b, Cmp::GT, Cmp::LT);
    if (const GE *n = c.as<GE>()) return parts(n->a, n->b, Cmp::GE, Cmp::LE);
    return Cmp::None;
}

Cmp negate(Cmp c) {
    switch (c) {
    case Cmp::LT: return Cmp::GE;
    case Cmp::LE: return Cmp::GT;
    case Cmp::GT: return Cmp::LE;
    case Cmp::GE: return Cmp::LT;
    default: return Cmp::None;
    }
}

Expr make_cmp(Cmp c, const Expr &a, const Expr &b) {
    switch (c) {
    case Cmp::LT: return LT::make(a, b);
    case Cmp::LE: return LE::make(a, b);
    case Cmp::GT: return GT::make(a, b);
    default: return GE::make(a, b);
    }
}

/** The argmin/argmax form: every element select(c, f[i], y[i]) (or swapped)
 * with c comparing f[k] with y[k]. */
bool match_select_form(const SelfCalls &self, const std::vector<Expr> &values, const std::vector<Expr> &xs,
                       const std::vector<Expr> &ys, AssociativeOp &op) {
    // The condition: that of the first select. One element (the extreme
    // itself) may instead be min(f[k], y) or max(f[k], y), as in Halide's
    // documented argmax: Tuple(select(f[1] < v, r, f[0]), max(v, f[1])).
    Expr cond;
    for (const Expr &v : values) {
        if (const Select *s = v.as<Select>()) {
            cond = s->condition;
            break;
        }
    }
    if (!cond.defined()) return false;
    enum class Kind { KeepXWhenTrue, KeepYWhenTrue, Min, Max };
    std::vector<Kind> kinds(values.size());
    for (size_t i = 0; i < values.size(); i++) {
        if (const Select *s = values[i].as<Select>()) {
            if (!equal(s->condition, cond)) return false;
            if (self.element_of(s->true_value) == (int)i && !self.reads_f(s->false_value)) {
                kinds[i] = Kind::KeepXWhenTrue;
                op.y[i] = s->false_value;
            } else if (self.element_of(s->false_value) == (int)i && !self.reads_f(s->true_value)) {
                kinds[i] = Kind::KeepYWhenTrue;
                op.y[i] = s->true_value;
            } else {
                return false;
            }
            continue;
        }
        const Min *mn = values[i].as<Min>();
        const Max *mx = values[i].as<Max>();
        Expr a = mn ? mn->a : mx ? mx->a : Expr(), b = mn ? mn->b : mx ? mx->b : Expr();
        if (!a.defined()) return false;
        if (self.element_of(b) == (int)i) std::swap(a, b);
        if (self.element_of(a) != (int)i || self.reads_f(b)) return false;
        kinds[i] = mn ? Kind::Min : Kind::Max;
        op.y[i] = b;
    }
    int k = -1;
    Expr other;
    Cmp c = comparison(self, cond, k, other);
    if (c == Cmp::None || k < 0 || k >= (int)values.size() || !equal(other, op.y[k])) return false;
    // Every select keeps the value so far under the same condition.
    Cmp keep_x = Cmp::None;
    for (size_t i = 0; i < values.size(); i++) {
        if (kinds[i] == Kind::Min || kinds[i] == Kind::Max) continue;
        Cmp keep = kinds[i] == Kind::KeepXWhenTrue ? c : negate(c);
        if (keep_x != Cmp::None && keep != keep_x) return false;
        keep_x = keep;
    }
    const bool min_like = keep_x == Cmp::LT || keep_x == Cmp::LE;
    for (size_t i = 0; i < values.size(); i++) {
        if ((kinds[i] == Kind::Min && !min_like) || (kinds[i] == Kind::Max && min_like)) return false;
        if ((kinds[i] == Kind::Min || kinds[i] == Kind::Max) && (int)i != k) return false;
    }
    const Expr keep = make_cmp(keep_x, xs[k], ys[k]);
    for (size_t i = 0; i < values.size(); i++) {
        op.combine[i] = kinds[i] == Kind::Min   ? Min::make(xs[i], ys[i])
                        : kinds[i] == Kind::Max ? Max::make(xs[i], ys[i])
                                                : Select::make(keep, xs[i], ys[i]);
        Type t = values[i].type();
        op.identities[i] = (int)i != k ? make_zero(t) : min_like ? largest(t) : smallest(t);
    }
    // Ties pick one side: the order of the partial results matters.
    op.commutative = values.size() == 1;
    return true;
}

/** a * b with one factor f[element] and the other not reading f: the other
 * factor, and which element. */
bool self_times(const SelfCalls &self, const Expr &e, int &element, Expr &other) {
    const Mul *m = e.as<Mul>();
    if (!m) return false;
    for (const auto &[a, b] : {std::make_pair(m->a, m->b), std::make_pair(m->b, m->a)}) {
        int k = self.element_of(a);
        if (k >= 0 && !self.reads_f(b)) {
            element = k, other = b;
            return true;
        }
    }
    return false;
}

/** Complex multiplication of a pair: (f[0] * a - f[1] * b, f[0] * b + f[1] *
 * a), the factors in any order (Halide's example of a Tuple operator). */
bool match_complex_multiply(const SelfCalls &self, const std::vector<Expr> &values, const std::vector<Expr> &xs,
                            const std::vector<Expr> &ys, AssociativeOp &op) {
    if (values.size() != 2) return false;
    const Sub *re = values[0].as<Sub>();
    const Add *im = values[1].as<Add>();
    if (!re || !im) return false;
    int k0, k1, k2, k3;
    Expr a, b, c, d;
    if (!self_times(self, re->a, k0, a) || !self_times(self, re->b, k1, b) || k0 != 0 || k1 != 1) return false;
    if (!self_times(self, im->a, k2, c) || !self_times(self, im->b, k3, d) || k2 == k3) return false;
    if (k2 == 1) std::swap(c, d);  // c: the factor of f[0], d: the factor of f[1]
    if (!equal(c, b) || !equal(d, a)) return false;
    op.y = {a, b};
    op.combine = {xs[0] * ys[0] - xs[1] * ys[1], xs[0] * ys[1] + xs[1] * ys[0]};
    op.identities = {make_one(values[0].type()), make_zero(values[1].type())};
    op.commutative = true;
    return true;
}

}  // namespace

AssociativeOp find_associative_op(const FunctionContents &f, const std::vector<Expr> &args,
                                  const std::vector<Expr> &values, const Expr &predicate) {
    SelfCalls self(f, args);
    AssociativeOp op;
    if (predicate.defined() && self.reads_f(predicate)) {
        op.why_not = "its where() predicate reads the Func itself, so which terms count depends on the order";
        return op;
    }
    const size_t n = values.size();
    op.combine.resize(n);
    op.identities.resize(n);
    op.y.resize(n);
    std::vector<Expr> xs, ys;
    for (size_t i = 0; i < n; i++) {
        op.x_names.push_back("rfactor$x" + std::to_string(i));
        op.y_names.push_back("rfactor$y" + std::to_string(i));
        xs.push_back(Variable::make(values[i].type(), op.x_names[i]));
        ys.push_back(Variable::make(values[i].type(), op.y_names[i]));
    }
    std::string why;
    bool elementwise = true;
    size_t failed = 0;
    for (size_t i = 0; i < n && elementwise; i++) {
        elementwise = match_element(self, (int)i, values[i], xs[i], ys[i], op, why);
        failed = i;
    }
    if (elementwise) {
        op.associative = true;
        return op;
    }
    if (match_select_form(self, values, xs, ys, op) || match_complex_multiply(self, values, xs, ys, op)) {
        op.associative = true;
        return op;
    }
    op.why_not = n > 1 ? "in Tuple element " + std::to_string(failed) + ": " + why + " (and it is not the argmin/argmax form select(f[k] < y, f[i], "
                         "y[i]) with one condition for every element)"
                       : why;
    return op;
}

}  // namespace internal
}  // namespace loom
