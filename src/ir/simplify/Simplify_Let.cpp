// Let and LetStmt: a value that is a constant or a variable is substituted
// into the body; any other value is kept, its bounds become known facts about
// the name inside the body, and the binding is dropped if the body no longer
// uses it.

#include "ir/IRVisitor.h"
#include "ir/Substitute.h"
#include "ir/simplify/SimplifyInternal.h"

namespace loom {
namespace internal {
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

/** Whether a let of this value should be substituted into `body`. */
template<typename Body>
bool should_substitute(const Expr &value, const Body &body) {
    if (is_constant(value)) return true;
    if (const auto *v = value.as<Variable>()) return !binds_name(body, v->name);
    return false;
}

/** What the body may assume about a kept let's name. */
Interval symbolic_interval_of(const Expr &value) {
    if (!value.type().is_int_or_uint() || !value.type().is_scalar()) return Interval();
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

Expr Simplifier::visit(const Let *op) {
    Expr value = mutate(op->value);
    if (should_substitute(value, op->body)) {
        push_var(op->name, info_of(value), Interval(), value);
        Expr body = mutate(op->body);
        pop_var(op->name);
        return body;
    }
    push_var(op->name, info_of(value), symbolic_interval_of(value), Expr());
    Expr body = mutate(op->body);
    pop_var(op->name);
    if (!expr_uses_var(body, op->name)) return body;
    if (value.same_as(op->value) && body.same_as(op->body)) return op;
    return Let::make(op->name, value, body);
}

Stmt Simplifier::visit(const LetStmt *op) { return simplify_let_stmt(op->name, mutate(op->value), op->body, op); }

Stmt Simplifier::simplify_let_stmt(const std::string &name, const Expr &value, const Stmt &body_in,
                                   const LetStmt *orig) {
    if (should_substitute(value, body_in)) {
        push_var(name, info_of(value), Interval(), value);
        Stmt body = mutate(body_in);
        pop_var(name);
        return body;
    }
    push_var(name, info_of(value), symbolic_interval_of(value), Expr());
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
