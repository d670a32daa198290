// Statements: loops of extent 0 vanish and loops of extent 1 become lets;
// the body of a loop knows its variable lies in [min, min + extent - 1];
// branches with provable conditions are resolved, and each branch knows what
// its condition says about variables; blocks are flattened and lose their
// no-ops; Evaluate of a constant and assert(true) disappear.

#include "ir/IRUtil.h"
#include "ir/Substitute.h"
#include "ir/simplify/SimplifyInternal.h"

namespace loom {
namespace internal {
namespace simplify_impl {

Stmt make_no_op() { return Evaluate::make(IntImm::make(Int(32), 0)); }

bool is_no_op(const Stmt &s) {
    if (!s.defined()) return true;
    const auto *e = s.as<Evaluate>();
    return e && is_constant(e->value);
}

namespace {


}  // namespace

Stmt Simplifier::visit(const For *op) {
    Expr min = mutate(op->min), extent = mutate(op->extent);
    auto ce = const_int(extent);
    if (ce && *ce <= 0) return make_no_op();
    if (ce && *ce == 1 && !is_gpu_loop(op->for_type)) return simplify_let_stmt(op->name, min, op->body, nullptr);

    // Inside the loop: min <= var <= min + extent - 1, and extent >= 1.
    ExprInfo imin = info_of(min), iext = info_of(extent);
    ExprInfo var;
    var.min = imin.min;
    if (imin.max && iext.max) {
        __int128 hi = (__int128)*imin.max + *iext.max - 1;
        if (hi >= INT64_MIN && hi <= INT64_MAX) var.max = (int64_t)hi;
    }
    Expr one = int_const(extent.type(), 1);
    Interval symbolic(min, simplify_add(min, simplify_sub(extent, one)));
    // for (x, x + 1, n): the bounds' x is the outer one, not the loop's.
    if (expr_uses_var(symbolic.max, op->name)) symbolic = Interval();
    push_var(op->name, var, symbolic, Expr());
    Stmt body = mutate(op->body);
    pop_var(op->name);
    if (is_no_op(body)) return make_no_op();
    if (min.same_as(op->min) && extent.same_as(op->extent) && body.same_as(op->body)) return op;
    return For::make(op->name, min, extent, op->for_type, op->device_api, body);
}

Stmt Simplifier::visit(const IfThenElse *op) {
    Expr cond = mutate(op->condition);
    if (auto c = const_bool(cond)) {
        if (*c) return mutate(op->then_case);
        return op->else_case.defined() ? mutate(op->else_case) : make_no_op();
    }
    std::vector<std::string> facts = learn_facts(cond, true);
    Stmt then_case = mutate(op->then_case);
    forget_facts(facts);
    Stmt else_case;
    if (op->else_case.defined()) {
        facts = learn_facts(cond, false);
        else_case = mutate(op->else_case);
        forget_facts(facts);
        if (is_no_op(else_case)) else_case = Stmt();
    }
    if (is_no_op(then_case)) {
        if (!else_case.defined()) return make_no_op();
        return IfThenElse::make(simplify_not(cond), else_case);
    }
    if (cond.same_as(op->condition) && then_case.same_as(op->then_case) && else_case.same_as(op->else_case)) return op;
    return IfThenElse::make(cond, then_case, else_case);
}

Stmt Simplifier::visit(const Block *op) {
    std::vector<Stmt> in, out;
    flatten_block(op, in);
    for (const Stmt &s : in) {
        Stmt m = mutate(s);
        if (is_no_op(m)) continue;
        flatten_block(m, out);
    }
    if (out.empty()) return make_no_op();
    if (out.size() == 1) return out[0];
    return Block::make(out);
}

Stmt Simplifier::visit(const Evaluate *op) {
    Expr v = mutate(op->value);
    if (is_constant(v)) return make_no_op();
    if (v.same_as(op->value)) return op;
    return Evaluate::make(v);
}

Stmt Simplifier::visit(const AssertStmt *op) {
    Expr cond = mutate(op->condition);
    if (auto c = const_bool(cond); c && *c) return make_no_op();
    Expr message = mutate(op->message);
    if (cond.same_as(op->condition) && message.same_as(op->message)) return op;
    return AssertStmt::make(cond, message);
}

Stmt Simplifier::visit(const ProducerConsumer *op) {
    Stmt body = mutate(op->body);
    if (is_no_op(body)) return make_no_op();
    if (body.same_as(op->body)) return op;
    return ProducerConsumer::make(op->name, op->is_producer, body);
}

Stmt Simplifier::visit(const While *op) {
    Expr cond = mutate(op->condition);
    if (auto c = const_bool(cond); c && !*c) return make_no_op();
    Stmt body = mutate(op->body);
    if (cond.same_as(op->condition) && body.same_as(op->body)) return op;
    return While::make(cond, body);
}

Stmt Simplifier::visit(const Allocate *op) {
    std::vector<Expr> extents;
    bool changed = mutate_exprs(op->extents, extents);
    Expr cond = op->condition.defined() ? mutate(op->condition) : Expr();
    Stmt body = mutate(op->body);
    if (is_no_op(body)) return make_no_op();
    if (!changed && cond.same_as(op->condition) && body.same_as(op->body)) return op;
    return Allocate::make(op->name, op->type, op->memory_type, extents, cond, body);
}

Stmt Simplifier::visit(const Realize *op) {
    Region bounds;
    bool changed = false;
    for (const Range &r : op->bounds) {
        Expr mn = mutate(r.min), ex = mutate(r.extent);
        changed = changed || !mn.same_as(r.min) || !ex.same_as(r.extent);
        bounds.emplace_back(mn, ex);
    }
    Expr cond = op->condition.defined() ? mutate(op->condition) : Expr();
    Stmt body = mutate(op->body);
    if (is_no_op(body)) return make_no_op();
    if (!changed && cond.same_as(op->condition) && body.same_as(op->body)) return op;
    return Realize::make(op->name, op->types, op->memory_type, bounds, cond, body);
}

}  // namespace simplify_impl
}  // namespace internal
}  // namespace loom
