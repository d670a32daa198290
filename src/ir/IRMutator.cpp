#include "ir/IRMutator.h"

#include "loom/Error.h"

namespace loom {
namespace internal {

Expr IRMutator::mutate(const Expr &e) {
    if (!e.defined()) return Expr();
    const IRNode *node = e.get();
    switch (node->node_type) {
#define LOOM_DISPATCH(T) \
    case IRNodeType::T:  \
        return visit(static_cast<const T *>(node));
        LOOM_DISPATCH(IntImm)
        LOOM_DISPATCH(UIntImm)
        LOOM_DISPATCH(FloatImm)
        LOOM_DISPATCH(StringImm)
        LOOM_DISPATCH(Cast)
        LOOM_DISPATCH(Reinterpret)
        LOOM_DISPATCH(Variable)
        LOOM_DISPATCH(Add)
        LOOM_DISPATCH(Sub)
        LOOM_DISPATCH(Mul)
        LOOM_DISPATCH(Div)
        LOOM_DISPATCH(Mod)
        LOOM_DISPATCH(Min)
        LOOM_DISPATCH(Max)
        LOOM_DISPATCH(EQ)
        LOOM_DISPATCH(NE)
        LOOM_DISPATCH(LT)
        LOOM_DISPATCH(LE)
        LOOM_DISPATCH(GT)
        LOOM_DISPATCH(GE)
        LOOM_DISPATCH(And)
        LOOM_DISPATCH(Or)
        LOOM_DISPATCH(Not)
        LOOM_DISPATCH(Select)
        LOOM_DISPATCH(Load)
        LOOM_DISPATCH(Ramp)
        LOOM_DISPATCH(Broadcast)
        LOOM_DISPATCH(Call)
        LOOM_DISPATCH(Let)
        LOOM_DISPATCH(Shuffle)
        LOOM_DISPATCH(VectorReduce)
    default:
        throw InternalError("IRMutator::mutate(Expr) on a statement node");
    }
}

Stmt IRMutator::mutate(const Stmt &s) {
    if (!s.defined()) return Stmt();
    const IRNode *node = s.get();
    switch (node->node_type) {
        LOOM_DISPATCH(LetStmt)
        LOOM_DISPATCH(AssertStmt)
        LOOM_DISPATCH(ProducerConsumer)
        LOOM_DISPATCH(For)
        LOOM_DISPATCH(While)
        LOOM_DISPATCH(Store)
        LOOM_DISPATCH(Provide)
        LOOM_DISPATCH(Allocate)
        LOOM_DISPATCH(Free)
        LOOM_DISPATCH(Realize)
        LOOM_DISPATCH(Block)
        LOOM_DISPATCH(IfThenElse)
        LOOM_DISPATCH(Evaluate)
        LOOM_DISPATCH(Fork)
#undef LOOM_DISPATCH
    default:
        throw InternalError("IRMutator::mutate(Stmt) on an expression node");
    }
}

bool IRMutator::mutate_exprs(const std::vector<Expr> &in, std::vector<Expr> &out) {
    bool changed = false;
    out.clear();
    out.reserve(in.size());
    for (const Expr &e : in) {
        out.push_back(mutate(e));
        if (!out.back().same_as(e)) changed = true;
    }
    return changed;
}

// ---------------------------------------------------------------- leaves

Expr IRMutator::visit(const IntImm *op) { return op; }
Expr IRMutator::visit(const UIntImm *op) { return op; }
Expr IRMutator::visit(const FloatImm *op) { return op; }
Expr IRMutator::visit(const StringImm *op) { return op; }
Expr IRMutator::visit(const Variable *op) { return op; }
Stmt IRMutator::visit(const Free *op) { return op; }

// ---------------------------------------------------------------- expressions

Expr IRMutator::visit(const Cast *op) {
    Expr value = mutate(op->value);
    if (value.same_as(op->value)) return op;
    return Cast::make(op->type, std::move(value));
}

Expr IRMutator::visit(const Reinterpret *op) {
    Expr value = mutate(op->value);
    if (value.same_as(op->value)) return op;
    return Reinterpret::make(op->type, std::move(value));
}

namespace {
template<typename T>
Expr mutate_binary(IRMutator *m, const T *op) {
    Expr a = m->mutate(op->a);
    Expr b = m->mutate(op->b);
    if (a.same_as(op->a) && b.same_as(op->b)) return op;
    return T::make(std::move(a), std::move(b));
}
}  // namespace

Expr IRMutator::visit(const Add *op) { return mutate_binary(this, op); }
Expr IRMutator::visit(const Sub *op) { return mutate_binary(this, op); }
Expr IRMutator::visit(const Mul *op) { return mutate_binary(this, op); }
Expr IRMutator::visit(const Div *op) { return mutate_binary(this, op); }
Expr IRMutator::visit(const Mod *op) { return mutate_binary(this, op); }
Expr IRMutator::visit(const Min *op) { return mutate_binary(this, op); }
Expr IRMutator::visit(const Max *op) { return mutate_binary(this, op); }
Expr IRMutator::visit(const EQ *op) { return mutate_binary(this, op); }
Expr IRMutator::visit(const NE *op) { return mutate_binary(this, op); }
Expr IRMutator::visit(const LT *op) { return mutate_binary(this, op); }
Expr IRMutator::visit(const LE *op) { return mutate_binary(this, op); }
Expr IRMutator::visit(const GT *op) { return mutate_binary(this, op); }
Expr IRMutator::visit(const GE *op) { return mutate_binary(this, op); }
Expr IRMutator::visit(const And *op) { return mutate_binary(this, op); }
Expr IRMutator::visit(const Or *op) { return mutate_binary(this, op); }

Expr IRMutator::visit(const Not *op) {
    Expr a = mutate(op->a);
    if (a.same_as(op->a)) return op;
    return Not::make(std::move(a));
}

Expr IRMutator::visit(const Select *op) {
    Expr c = mutate(op->condition);
    Expr t = mutate(op->true_value);
    Expr f = mutate(op->false_value);
    if (c.same_as(op->condition) && t.same_as(op->true_value) && f.same_as(op->false_value)) return op;
    return Select::make(std::move(c), std::move(t), std::move(f));
}

Expr IRMutator::visit(const Load *op) {
    Expr predicate = mutate(op->predicate);
    Expr index = mutate(op->index);
    if (predicate.same_as(op->predicate) && index.same_as(op->index)) return op;
    // The type is computed before index is moved into the call (argument
    // evaluation order is unspecified).
    Type type = op->type.with_lanes(index.type().lanes());
    return Load::make(type, op->name, std::move(index), std::move(predicate),
                      op->param);
}

Expr IRMutator::visit(const Ramp *op) {
    Expr base = mutate(op->base);
    Expr stride = mutate(op->stride);
    if (base.same_as(op->base) && stride.same_as(op->stride)) return op;
    return Ramp::make(std::move(base), std::move(stride), op->lanes);
}

Expr IRMutator::visit(const Broadcast *op) {
    Expr value = mutate(op->value);
    if (value.same_as(op->value)) return op;
    return Broadcast::make(std::move(value), op->lanes);
}

Expr IRMutator::visit(const Call *op) {
    std::vector<Expr> args;
    if (!mutate_exprs(op->args, args)) return op;
    return Call::make(op->type, op->name, args, op->call_type, op->func, op->value_index, op->param);
}

Expr IRMutator::visit(const Let *op) {
    Expr value = mutate(op->value);
    Expr body = mutate(op->body);
    if (value.same_as(op->value) && body.same_as(op->body)) return op;
    return Let::make(op->name, std::move(value), std::move(body));
}

Expr IRMutator::visit(const Shuffle *op) {
    std::vector<Expr> vectors;
    if (!mutate_exprs(op->vectors, vectors)) return op;
    return Shuffle::make(vectors, op->indices);
}

Expr IRMutator::visit(const VectorReduce *op) {
    Expr value = mutate(op->value);
    if (value.same_as(op->value)) return op;
    return VectorReduce::make(op->op, std::move(value), op->type.lanes());
}

// ---------------------------------------------------------------- statements

Stmt IRMutator::visit(const LetStmt *op) {
    Expr value = mutate(op->value);
    Stmt body = mutate(op->body);
    if (value.same_as(op->value) && body.same_as(op->body)) return op;
    return LetStmt::make(op->name, std::move(value), std::move(body));
}

Stmt IRMutator::visit(const AssertStmt *op) {
    Expr condition = mutate(op->condition);
    Expr message = mutate(op->message);
    if (condition.same_as(op->condition) && message.same_as(op->message)) return op;
    return AssertStmt::make(std::move(condition), std::move(message));
}

Stmt IRMutator::visit(const ProducerConsumer *op) {
    Stmt body = mutate(op->body);
    if (body.same_as(op->body)) return op;
    return ProducerConsumer::make(op->name, op->is_producer, std::move(body));
}

Stmt IRMutator::visit(const For *op) {
    Expr min = mutate(op->min);
    Expr extent = mutate(op->extent);
    Stmt body = mutate(op->body);
    if (min.same_as(op->min) && extent.same_as(op->extent) && body.same_as(op->body)) return op;
    return For::make(op->name, std::move(min), std::move(extent), op->for_type, op->device_api, std::move(body));
}

Stmt IRMutator::visit(const While *op) {
    Expr condition = mutate(op->condition);
    Stmt body = mutate(op->body);
    if (condition.same_as(op->condition) && body.same_as(op->body)) return op;
    return While::make(std::move(condition), std::move(body));
}

Stmt IRMutator::visit(const Store *op) {
    Expr predicate = mutate(op->predicate);
    Expr value = mutate(op->value);
    Expr index = mutate(op->index);
    if (predicate.same_as(op->predicate) && value.same_as(op->value) && index.same_as(op->index)) return op;
    return Store::make(op->name, std::move(value), std::move(index), std::move(predicate), op->param);
}

Stmt IRMutator::visit(const Provide *op) {
    Expr predicate = mutate(op->predicate);
    std::vector<Expr> values, args;
    bool values_changed = mutate_exprs(op->values, values);
    bool args_changed = mutate_exprs(op->args, args);
    if (!values_changed && !args_changed && predicate.same_as(op->predicate)) return op;
    return Provide::make(op->name, values, args, std::move(predicate));
}

Stmt IRMutator::visit(const Allocate *op) {
    std::vector<Expr> extents;
    bool extents_changed = mutate_exprs(op->extents, extents);
    Expr condition = mutate(op->condition);
    Stmt body = mutate(op->body);
    if (!extents_changed && condition.same_as(op->condition) && body.same_as(op->body)) return op;
    return Allocate::make(op->name, op->type, op->memory_type, extents, std::move(condition), std::move(body));
}

Stmt IRMutator::visit(const Realize *op) {
    Region bounds;
    bool changed = false;
    for (const Range &r : op->bounds) {
        Expr min = mutate(r.min);
        Expr extent = mutate(r.extent);
        if (!min.same_as(r.min) || !extent.same_as(r.extent)) changed = true;
        bounds.emplace_back(std::move(min), std::move(extent));
    }
    Expr condition = mutate(op->condition);
    Stmt body = mutate(op->body);
    if (!changed && condition.same_as(op->condition) && body.same_as(op->body)) return op;
    return Realize::make(op->name, op->types, op->memory_type, bounds, std::move(condition), std::move(body));
}

Stmt IRMutator::visit(const Block *op) {
    Stmt first = mutate(op->first);
    Stmt rest = mutate(op->rest);
    if (first.same_as(op->first) && rest.same_as(op->rest)) return op;
    // A mutator may delete a statement by returning an undefined one.
    return Block::make(std::vector<Stmt>{std::move(first), std::move(rest)});
}

Stmt IRMutator::visit(const Fork *op) {
    Stmt first = mutate(op->first);
    Stmt rest = mutate(op->rest);
    if (first.same_as(op->first) && rest.same_as(op->rest)) return op;
    // A branch deleted by the mutator leaves the other to run alone.
    if (!first.defined()) return rest;
    if (!rest.defined()) return first;
    return Fork::make(std::move(first), std::move(rest));
}

Stmt IRMutator::visit(const IfThenElse *op) {
    Expr condition = mutate(op->condition);
    Stmt then_case = mutate(op->then_case);
    Stmt else_case = mutate(op->else_case);
    if (condition.same_as(op->condition) && then_case.same_as(op->then_case) && else_case.same_as(op->else_case)) {
        return op;
    }
    if (!then_case.defined()) {
        if (!else_case.defined()) return Stmt();
        // Keep the else branch by negating the condition.
        return IfThenElse::make(Not::make(std::move(condition)), std::move(else_case));
    }
    return IfThenElse::make(std::move(condition), std::move(then_case), std::move(else_case));
}

Stmt IRMutator::visit(const Evaluate *op) {
    Expr value = mutate(op->value);
    if (value.same_as(op->value)) return op;
    return Evaluate::make(std::move(value));
}

// ---------------------------------------------------------------- graph mutator

Expr IRGraphMutator::mutate(const Expr &e) {
    if (!e.defined()) return Expr();
    auto it = expr_replacements_.find(e);
    if (it != expr_replacements_.end()) return it->second;
    Expr result = IRMutator::mutate(e);
    expr_replacements_.emplace(e, result);
    return result;
}

Stmt IRGraphMutator::mutate(const Stmt &s) {
    if (!s.defined()) return Stmt();
    auto it = stmt_replacements_.find(s.get());
    if (it != stmt_replacements_.end()) return it->second;
    Stmt result = IRMutator::mutate(s);
    stmt_replacements_.emplace(s.get(), result);
    return result;
}

}  // namespace internal
}  // namespace loom
