#include "loom/InlineReductions.h"

#include <limits>
#include <map>
#include <utility>
#include <vector>

#include "ir/IR.h"
#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/Scope.h"
#include "lang/UniqueName.h"
#include "loom/Error.h"
#include "loom/IROperator.h"

namespace loom {

namespace {

using internal::Scope;

/** "sum", or `sum "name"` when the user named it otherwise. */
std::string describe(const std::string &kind, const std::string &name) {
    return name == kind ? kind : kind + " \"" + name + "\"";
}

/** Finds what an inline reduction reduces over (the RDom given, or the one
 * whose RVars the expression uses) and the free variables it stays a
 * function of. With an explicit RDom, the RVars of other RDoms are free:
 * they become pure Vars of the reduction's Func, and the call passes them. */
class FindFreeVars : public internal::IRMutator {
public:
    FindFreeVars(const RDom &r, std::string reduction) : rdom(r), explicit_rdom_(r.defined()), reduction_(std::move(reduction)) {}

    RDom rdom;
    std::vector<Var> free_vars;
    std::vector<Expr> call_args;

private:
    using internal::IRMutator::visit;

    Expr visit(const internal::Let *op) override {
        Expr value = mutate(op->value);
        internal::ScopedBinding<int> bound(lets_, op->name, 0);
        Expr body = mutate(op->body);
        if (value.same_as(op->value) && body.same_as(op->body)) return op;
        return internal::Let::make(op->name, value, body);
    }

    Expr visit(const internal::Variable *op) override {
        if (lets_.contains(op->name) || op->param.defined()) return op;
        if (!op->reduction_domain.defined()) {
            add_free_var(op->name, op);
            return op;
        }
        if (explicit_rdom_) {
            if (op->reduction_domain.same_as(rdom.domain())) return op;
            // Another RDom's RVar: a pure Var of the reduction's Func.
            auto [it, added] = renamed_rvars_.emplace(op->name, "");
            if (added) it->second = internal::unique_name('v');
            add_free_var(it->second, op);
            return internal::Variable::make(op->type, it->second);
        }
        if (!rdom.defined()) {
            rdom = RDom(op->reduction_domain);
        } else if (!rdom.domain().same_as(op->reduction_domain)) {
            throw CompileError("Inline reduction " + reduction_ + " refers to RVars of two RDoms, " + rdom.x.name() +
                               " and " + op->name +
                               "; it reduces over one of them: pass it explicitly, e.g. sum(r, e), to leave "
                               "the other's RVars free.");
        }
        return op;
    }

    void add_free_var(const std::string &name, const Expr &call_arg) {
        for (const Var &v : free_vars) {
            if (v.name() == name) return;
        }
        free_vars.emplace_back(name);
        call_args.push_back(call_arg);
    }

    bool explicit_rdom_;
    std::string reduction_;
    Scope<int> lets_;
    std::map<std::string, std::string> renamed_rvars_;
};

/** An inline reduction's parts: the Func to define, its pure Vars, the
 * arguments of the call returned, the RDom and the expression (over those
 * Vars and the RDom's RVars). */
struct Reduction {
    Func f;
    std::vector<Var> vars;
    std::vector<Expr> call_args;
    RDom rdom;
    Expr e;

    FuncRef lhs() const { return f(vars); }
    FuncRef call() const { return f(call_args); }
};

/** name is the one the user gave (f's may have a suffix making it unique). */
Reduction prepare(const std::string &kind, const RDom &r, const Expr &e, const Func &f, const std::string &name) {
    const std::string what = describe(kind, name);
    if (f.defined()) {
        throw CompileError("Func " + f.name() + " passed to " + kind + " already has a definition.");
    }
    if (!e.defined()) throw CompileError("Inline reduction " + what + " of an undefined Expr.");
    FindFreeVars finder(r, what);
    Expr body = finder.mutate(e);
    if (!finder.rdom.defined()) {
        throw CompileError("Inline reduction " + what +
                           ": the expression refers to no RVar, so there is nothing to reduce over; use an "
                           "RDom's RVars in it, or pass the RDom: " +
                           kind + "(r, e).");
    }
    return Reduction{f, finder.free_vars, finder.call_args, finder.rdom, body};
}

Func named(const std::string &name) { return Func(internal::unique_func_name(name)); }

/** Halide's Type::max() and min(): +-infinity for floats (Loom's Type
 * gives the largest finite values), so that maximum and minimum of floats
 * start below and above every value. */
Expr largest_value(Type t) {
    return t.is_float() ? internal::make_const(t, std::numeric_limits<double>::infinity()) : t.max();
}
Expr smallest_value(Type t) {
    return t.is_float() ? internal::make_const(t, -std::numeric_limits<double>::infinity()) : t.min();
}

enum class Kind { Sum, SaturatingSum, Product, Maximum, Minimum };

const char *kind_name(Kind kind) {
    switch (kind) {
    case Kind::Sum: return "sum";
    case Kind::SaturatingSum: return "saturating_sum";
    case Kind::Product: return "product";
    case Kind::Maximum: return "maximum";
    case Kind::Minimum: return "minimum";
    }
    return "";
}

/** Defines f as the reduction of e over r (or the RDom e uses) and returns its call. */
Expr reduce(Kind kind, const RDom &r, const Expr &e, const Func &f, const std::string &name) {
    Reduction red = prepare(kind_name(kind), r, e, f, name);
    const Type t = red.e.type();
    switch (kind) {
    case Kind::Sum:
        red.lhs() = cast(t, 0);
        red.lhs() = red.lhs() + red.e;
        break;
    case Kind::SaturatingSum:
        red.lhs() = cast(t, 0);
        red.lhs() = saturating_add(red.lhs(), red.e);
        break;
    case Kind::Product:
        red.lhs() = cast(t, 1);
        red.lhs() = red.lhs() * red.e;
        break;
    case Kind::Maximum:
        red.lhs() = smallest_value(t);
        red.lhs() = max(red.lhs(), red.e);
        break;
    case Kind::Minimum:
        red.lhs() = largest_value(t);
        red.lhs() = min(red.lhs(), red.e);
        break;
    }
    return red.call();
}

Tuple arg_extreme(const std::string &kind, const RDom &r, const Expr &e, const Func &f, const std::string &name,
                  bool largest) {
    Reduction red = prepare(kind, r, e, f, name);
    const int dims = red.rdom.dimensions();
    std::vector<Expr> initial(dims + 1), candidate(dims + 1);
    for (int i = 0; i < dims; i++) {
        initial[i] = 0;
        candidate[i] = red.rdom[i];
    }
    initial[dims] = largest ? smallest_value(red.e.type()) : largest_value(red.e.type());
    candidate[dims] = red.e;
    red.lhs() = Tuple(initial);
    // Strictly better only, so ties keep the first point in iteration order.
    Expr so_far = red.lhs()[dims];
    Expr better = largest ? red.e > so_far : red.e < so_far;
    red.lhs() = select(better, Tuple(candidate), Tuple(red.lhs()));
    return Tuple(red.call());
}

}  // namespace

Expr sum(Expr e, const std::string &name) { return reduce(Kind::Sum, RDom(), e, named(name), name); }
Expr sum(Expr e, const Func &f) { return reduce(Kind::Sum, RDom(), e, f, f.name()); }
Expr sum(const RDom &r, Expr e, const std::string &name) { return reduce(Kind::Sum, r, e, named(name), name); }
Expr sum(const RDom &r, Expr e, const Func &f) { return reduce(Kind::Sum, r, e, f, f.name()); }

Expr saturating_sum(Expr e, const std::string &name) { return reduce(Kind::SaturatingSum, RDom(), e, named(name), name); }
Expr saturating_sum(Expr e, const Func &f) { return reduce(Kind::SaturatingSum, RDom(), e, f, f.name()); }
Expr saturating_sum(const RDom &r, Expr e, const std::string &name) { return reduce(Kind::SaturatingSum, r, e, named(name), name); }
Expr saturating_sum(const RDom &r, Expr e, const Func &f) { return reduce(Kind::SaturatingSum, r, e, f, f.name()); }

Expr product(Expr e, const std::string &name) { return reduce(Kind::Product, RDom(), e, named(name), name); }
Expr product(Expr e, const Func &f) { return reduce(Kind::Product, RDom(), e, f, f.name()); }
Expr product(const RDom &r, Expr e, const std::string &name) { return reduce(Kind::Product, r, e, named(name), name); }
Expr product(const RDom &r, Expr e, const Func &f) { return reduce(Kind::Product, r, e, f, f.name()); }

Expr maximum(Expr e, const std::string &name) { return reduce(Kind::Maximum, RDom(), e, named(name), name); }
Expr maximum(Expr e, const Func &f) { return reduce(Kind::Maximum, RDom(), e, f, f.name()); }
Expr maximum(const RDom &r, Expr e, const std::string &name) { return reduce(Kind::Maximum, r, e, named(name), name); }
Expr maximum(const RDom &r, Expr e, const Func &f) { return reduce(Kind::Maximum, r, e, f, f.name()); }

Expr minimum(Expr e, const std::string &name) { return reduce(Kind::Minimum, RDom(), e, named(name), name); }
Expr minimum(Expr e, const Func &f) { return reduce(Kind::Minimum, RDom(), e, f, f.name()); }
Expr minimum(const RDom &r, Expr e, const std::string &name) { return reduce(Kind::Minimum, r, e, named(name), name); }
Expr minimum(const RDom &r, Expr e, const Func &f) { return reduce(Kind::Minimum, r, e, f, f.name()); }

Tuple argmax(Expr e, const std::string &name) { return arg_extreme("argmax", RDom(), e, named(name), name, true); }
Tuple argmax(Expr e, const Func &f) { return arg_extreme("argmax", RDom(), e, f, f.name(), true); }
Tuple argmax(const RDom &r, Expr e, const std::string &name) {
    return arg_extreme("argmax", r, e, named(name), name, true);
}
Tuple argmax(const RDom &r, Expr e, const Func &f) { return arg_extreme("argmax", r, e, f, f.name(), true); }

Tuple argmin(Expr e, const std::string &name) { return arg_extreme("argmin", RDom(), e, named(name), name, false); }
Tuple argmin(Expr e, const Func &f) { return arg_extreme("argmin", RDom(), e, f, f.name(), false); }
Tuple argmin(const RDom &r, Expr e, const std::string &name) {
    return arg_extreme("argmin", r, e, named(name), name, false);
}
Tuple argmin(const RDom &r, Expr e, const Func &f) { return arg_extreme("argmin", r, e, f, f.name(), false); }

}  // namespace loom
