// Let and LetStmt: a value that is cheap to recompute (see simple_value_variable)
// is substituted into the body and into later lets, so that facts such as
// `let extent = x*16 - min + 16` with `let min = x*16` fold (to 16); any other
// value is kept, its bounds and alignment become known facts about the name
// inside the body, and the binding is dropped if the body no longer uses it.

#include <set>
#include <vector>

#include "ir/IRVisitor.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "ir/simplify/SimplifyInternal.h"

namespace loom {
namespace internal {

bool affine_variables(const Expr &e, std::vector<const Variable *> &vars, int max_vars) {
    if (simplify_impl::const_int(e)) return true;
    if (const auto *v = e.as<Variable>()) {
        vars.push_back(v);
        return (int)vars.size() <= max_vars;
    }
    if (const auto *add = e.as<Add>()) {
        return affine_variables(add->a, vars, max_vars) && affine_variables(add->b, vars, max_vars);
    }
    if (const auto *sub = e.as<Sub>()) {
        return affine_variables(sub->a, vars, max_vars) && affine_variables(sub->b, vars, max_vars);
    }
    if (const auto *mul = e.as<Mul>(); mul && simplify_impl::const_int(mul->b) && mul->a.as<Variable>()) {
        return affine_variables(mul->a, vars, max_vars);
    }
    return false;
}

namespace simplify_impl {

namespace {

struct FindBinder : IRVisitor {
    explicit FindBinder(const std::string &n) : name(n) {}
    const std::string &name;
    bool found = false;
    using IRVisitor::visit;
    void visit(const Let *op) override {
        if (op->name == name) found = true;
        IRVisitor::visit(op);
    }
    void visit(const LetStmt *op) override {
        if (op->name == name) found = true;
        IRVisitor::visit(op);
    }
    void visit(const For *op) override {
        if (op->name == name) found = true;
        IRVisitor::visit(op);
    }
};

/** A value worth substituting instead of binding: a constant, a variable, an
 * integer affine form of at most kMaxSubstitutedTerms variables
 * (x*32 + y*4 + 3), or a Broadcast/Ramp (with a constant stride) of such.
 * Recomputing one costs a few adds and multiplies, which LLVM shares again
 * where it matters; substituted, it lets every rule see the value
 * (x*16 - x*16 + 16 -> 16, the alignment of x*16 for divisions). Collects
 * the variables it reads. */
bool is_cheap_value(const Expr &value, std::vector<const Variable *> &vars) {
    if (is_constant(value)) return true;
    if (const auto *b = value.as<Broadcast>()) return is_cheap_value(b->value, vars);
    if (const auto *r = value.as<Ramp>()) return is_constant(r->stride) && is_cheap_value(r->base, vars);
    if (value.type().is_int_or_uint() && value.type().is_scalar()) {
        return affine_variables(value, vars, kMaxSubstitutedTerms);
    }
    if (const auto *v = value.as<Variable>()) {
        vars.push_back(v);
        return true;
    }
    return false;
}

/** What the body may assume about a kept let's name: that it equals its
 * value, unless the value mentions the name itself (then the two mean
 * different bindings). An opaque value (a call such as
 * buffer_get_min(b.buffer, 0), a load) would only rename the variable, yet
 * make every comparison that mentions it try the expensive symbolic
 * fallback, so it gives no interval. */
Interval symbolic_interval_of(const std::string &name, const Expr &value) {
    if (!value.type().is_int_or_uint() || !value.type().is_scalar()) return Interval();
    if (value.as<Call>() || value.as<Load>()) return Interval();
    if (expr_uses_var(value, name)) return Interval();
    return Interval(value, value);
}

}  // namespace

bool binds_name(const Expr &e, const std::string &name) {
    FindBinder f(name);
    e.accept(&f);
    return f.found;
}

bool binds_name(const Stmt &s, const std::string &name) {
    FindBinder f(name);
    s.accept(&f);
    return f.found;
}

template<typename Body>
bool Simplifier::should_substitute(const std::string &name, const Expr &value, const Body &body) {
    std::vector<const Variable *> vars;
    if (!is_cheap_value(value, vars)) return false;
    for (const Variable *v : vars) {
        // let y = y*2 + 1: the body's y is not the value's y; facts learned
        // about one would be applied to the other.
        if (v->name == name) return false;
        if (may_be_rebound(v->name, body)) return false;
    }
    return true;
}

template<typename Body>
bool Simplifier::may_be_rebound(const std::string &name, const Body &body) {
    if (binder_counts_) {
        // Unique names (what lowering produces) need no search of the body:
        // a name bound nowhere, or bound once by a binder we are inside,
        // cannot be bound again in the body.
        auto it = binder_counts_->find(name);
        int count = it == binder_counts_->end() ? 0 : it->second;
        if (count == 0) return false;
        if (count == 1 && active_binders_.count(name)) return false;
    }
    return binds_name(body, name);
}

namespace {
/** Every name an Expr reads (a Variable or a Load's buffer), bound inside it
 * or not: a superset of its free variables, found in one walk of its graph. */
std::set<std::string> names_read(const Expr &e) {
    struct Names : IRGraphVisitor {
        std::set<std::string> names;
        using IRGraphVisitor::visit;
        void visit(const Variable *op) override { names.insert(op->name); }
        void visit(const Load *op) override {
            names.insert(op->name);
            IRGraphVisitor::visit(op);
        }
    } names;
    names.include(e);
    return std::move(names.names);
}
}  // namespace

Expr Simplifier::visit(const Let *op) {
    // A chain of lets is simplified in one pass: each value in order with
    // the lets before it known, the body once, then the lets the result
    // reads are kept, innermost first. A test per let of whether the body
    // reads it cost a walk of the body each: quadratic in a chain's length
    // (bounds of fused, tiled loops build chains of hundreds).
    struct Binding {
        const Let *let;
        Expr value;
        bool substituted;
    };
    std::vector<Binding> chain;
    Expr rest = op;
    while (const Let *l = rest.as<Let>()) {
        Expr value = mutate(l->value);
        const bool substituted = should_substitute(l->name, value, l->body);
        if (substituted) {
            push_var(l->name, info_of(value), Interval(), value);
        } else {
            push_var(l->name, info_of(value), symbolic_interval_of(l->name, value), Expr());
        }
        chain.push_back({l, value, substituted});
        rest = l->body;
    }
    const Expr innermost_body = rest;
    Expr body = mutate(innermost_body);
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) pop_var(it->let->name);

    std::set<std::string> read = names_read(body);
    bool unchanged = body.same_as(innermost_body);
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        const std::string &name = it->let->name;
        if (it->substituted || !read.count(name)) {
            unchanged = false;
            continue;
        }
        read.erase(name);
        for (const std::string &n : names_read(it->value)) read.insert(n);
        unchanged = unchanged && it->value.same_as(it->let->value);
        body = Let::make(name, it->value, body);
    }
    return unchanged ? Expr(op) : body;
}

Stmt Simplifier::visit(const LetStmt *op) { return simplify_let_stmt(op->name, mutate(op->value), op->body, op); }

Stmt Simplifier::simplify_let_stmt(const std::string &name, const Expr &value, const Stmt &body_in,
                                   const LetStmt *orig) {
    if (should_substitute(name, value, body_in)) {
        push_var(name, info_of(value), Interval(), value);
        Stmt body = mutate(body_in);
        pop_var(name);
        return body;
    }
    push_var(name, info_of(value), symbolic_interval_of(name, value), Expr());
    Stmt body = mutate(body_in);
    pop_var(name);
    if (is_no_op(body)) return make_no_op();
    if (!stmt_uses_var(body, name)) return body;
    if (orig && value.same_as(orig->value) && body.same_as(orig->body)) return orig;
    return LetStmt::make(name, value, body);
}

}  // namespace simplify_impl
}  // namespace internal
}  // namespace loom
