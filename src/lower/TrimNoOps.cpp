#include "lower/TrimNoOps.h"

#include "ir/IRMutator.h"
#include "ir/IRUtil.h"

namespace loom {
namespace internal {

bool is_no_op(const Stmt &s) {
    if (!s.defined()) return true;
    const Evaluate *e = s.as<Evaluate>();
    return e && (e->value.as<IntImm>() || e->value.as<UIntImm>() || e->value.as<FloatImm>());
}

namespace {

class TrimNoOps : public IRMutator {
    using IRMutator::visit;

    static Stmt nothing() { return Evaluate::make(Expr(0)); }

    Stmt visit(const Block *op) override {
        Stmt first = mutate(op->first), rest = mutate(op->rest);
        if (is_no_op(first)) return is_no_op(rest) ? nothing() : rest;
        if (is_no_op(rest)) return first;
        return Block::make(first, rest);
    }
    Stmt visit(const For *op) override {
        if (auto extent = as_const_int(op->extent); extent && *extent <= 0) return nothing();
        Stmt body = mutate(op->body);
        if (is_no_op(body)) return nothing();
        return For::make(op->name, op->min, op->extent, op->for_type, op->device_api, body);
    }
    Stmt visit(const IfThenElse *op) override {
        Stmt then_case = mutate(op->then_case);
        Stmt else_case = op->else_case.defined() ? mutate(op->else_case) : Stmt();
        if (is_no_op(else_case)) else_case = Stmt();
        if (is_const_one(op->condition)) return is_no_op(then_case) ? nothing() : then_case;
        if (is_const_zero(op->condition)) return else_case.defined() ? else_case : nothing();
        if (is_no_op(then_case) && !else_case.defined()) return nothing();
        if (is_no_op(then_case)) return IfThenElse::make(Not::make(op->condition), else_case);
        return IfThenElse::make(op->condition, then_case, else_case);
    }
    Stmt visit(const LetStmt *op) override {
        Stmt body = mutate(op->body);
        if (is_no_op(body)) return nothing();
        return LetStmt::make(op->name, op->value, body);
    }
    Stmt visit(const ProducerConsumer *op) override {
        Stmt body = mutate(op->body);
        if (is_no_op(body)) return nothing();
        return ProducerConsumer::make(op->name, op->is_producer, body);
    }
    Stmt visit(const Allocate *op) override {
        Stmt body = mutate(op->body);
        if (is_no_op(body)) return nothing();
        return Allocate::make(op->name, op->type, op->memory_type, op->extents, op->condition, body);
    }
};

}  // namespace

Stmt trim_no_ops(const Stmt &s) { return TrimNoOps().mutate(s); }

}  // namespace internal
}  // namespace loom
