#include "ir/IRVisitor.h"

#include "ir/IR.h"

namespace loom {
namespace internal {

namespace {

// The children of each node kind, in evaluation order, listed once and shared
// by IRVisitor (descends into every child) and IRGraphVisitor (descends into
// each distinct child once). Undefined optional children are skipped by f.
template<typename F> void for_each_child(const IntImm *, F &&) {}
template<typename F> void for_each_child(const UIntImm *, F &&) {}
template<typename F> void for_each_child(const FloatImm *, F &&) {}
template<typename F> void for_each_child(const StringImm *, F &&) {}
template<typename F> void for_each_child(const Variable *, F &&) {}
template<typename F> void for_each_child(const Free *, F &&) {}
template<typename F> void for_each_child(const Cast *op, F &&f) { f(op->value); }
template<typename F> void for_each_child(const Reinterpret *op, F &&f) { f(op->value); }
template<typename F> void for_each_child(const Not *op, F &&f) { f(op->a); }
template<typename F> void for_each_child(const Broadcast *op, F &&f) { f(op->value); }
template<typename F> void for_each_child(const VectorReduce *op, F &&f) { f(op->value); }
template<typename F> void for_each_child(const Evaluate *op, F &&f) { f(op->value); }

template<typename T, typename F>
void for_each_binary_child(const T *op, F &&f) {
    f(op->a);
    f(op->b);
}

template<typename F> void for_each_child(const Select *op, F &&f) {
    f(op->condition);
    f(op->true_value);
    f(op->false_value);
}
template<typename F> void for_each_child(const Load *op, F &&f) {
    f(op->predicate);
    f(op->index);
}
template<typename F> void for_each_child(const Ramp *op, F &&f) {
    f(op->base);
    f(op->stride);
}
template<typename F> void for_each_child(const Call *op, F &&f) {
    for (const Expr &a : op->args) f(a);
}
template<typename F> void for_each_child(const Let *op, F &&f) {
    f(op->value);
    f(op->body);
}
template<typename F> void for_each_child(const Shuffle *op, F &&f) {
    for (const Expr &v : op->vectors) f(v);
}
template<typename F> void for_each_child(const LetStmt *op, F &&f) {
    f(op->value);
    f(op->body);
}
template<typename F> void for_each_child(const AssertStmt *op, F &&f) {
    f(op->condition);
    f(op->message);
}
template<typename F> void for_each_child(const ProducerConsumer *op, F &&f) { f(op->body); }
template<typename F> void for_each_child(const For *op, F &&f) {
    f(op->min);
    f(op->extent);
    f(op->body);
}
template<typename F> void for_each_child(const While *op, F &&f) {
    f(op->condition);
    f(op->body);
}
template<typename F> void for_each_child(const Store *op, F &&f) {
    f(op->predicate);
    f(op->value);
    f(op->index);
}
template<typename F> void for_each_child(const Provide *op, F &&f) {
    f(op->predicate);
    for (const Expr &v : op->values) f(v);
    for (const Expr &a : op->args) f(a);
}
template<typename F> void for_each_child(const Allocate *op, F &&f) {
    for (const Expr &e : op->extents) f(e);
    f(op->condition);
    f(op->body);
}
template<typename F> void for_each_child(const Realize *op, F &&f) {
    for (const Range &r : op->bounds) {
        f(r.min);
        f(r.extent);
    }
    f(op->condition);
    f(op->body);
}
template<typename F> void for_each_child(const Block *op, F &&f) {
    f(op->first);
    f(op->rest);
}
template<typename F> void for_each_child(const Fork *op, F &&f) {
    f(op->first);
    f(op->rest);
}
template<typename F> void for_each_child(const IfThenElse *op, F &&f) {
    f(op->condition);
    f(op->then_case);
    f(op->else_case);
}

#define LOOM_FOR_EACH_BINARY(T) \
    template<typename F> void for_each_child(const T *op, F &&f) { for_each_binary_child(op, f); }
LOOM_FOR_EACH_BINARY(Add)
LOOM_FOR_EACH_BINARY(Sub)
LOOM_FOR_EACH_BINARY(Mul)
LOOM_FOR_EACH_BINARY(Div)
LOOM_FOR_EACH_BINARY(Mod)
LOOM_FOR_EACH_BINARY(Min)
LOOM_FOR_EACH_BINARY(Max)
LOOM_FOR_EACH_BINARY(EQ)
LOOM_FOR_EACH_BINARY(NE)
LOOM_FOR_EACH_BINARY(LT)
LOOM_FOR_EACH_BINARY(LE)
LOOM_FOR_EACH_BINARY(GT)
LOOM_FOR_EACH_BINARY(GE)
LOOM_FOR_EACH_BINARY(And)
LOOM_FOR_EACH_BINARY(Or)
#undef LOOM_FOR_EACH_BINARY

}  // namespace

// Applies the visit method pair to every node kind.
#define LOOM_FOR_EACH_NODE(M)                                                                              \
    M(IntImm) M(UIntImm) M(FloatImm) M(StringImm) M(Cast) M(Reinterpret) M(Variable) M(Add) M(Sub) M(Mul) \
    M(Div) M(Mod) M(Min) M(Max) M(EQ) M(NE) M(LT) M(LE) M(GT) M(GE) M(And) M(Or) M(Not) M(Select) M(Load) \
    M(Ramp) M(Broadcast) M(Call) M(Let) M(Shuffle) M(VectorReduce) M(LetStmt) M(AssertStmt)               \
    M(ProducerConsumer) M(For) M(While) M(Store) M(Provide) M(Allocate) M(Free) M(Realize) M(Block)       \
    M(IfThenElse) M(Evaluate) M(Fork)

#define LOOM_DEFINE_VISIT(T)                                                             \
    void IRVisitor::visit(const T *op) {                                                 \
        for_each_child(op, [this](const auto &child) {                                   \
            if (child.defined()) child.accept(this);                                     \
        });                                                                              \
    }                                                                                    \
    void IRGraphVisitor::visit(const T *op) {                                            \
        for_each_child(op, [this](const auto &child) {                                   \
            if (child.defined()) include(child);                                         \
        });                                                                              \
    }
LOOM_FOR_EACH_NODE(LOOM_DEFINE_VISIT)
#undef LOOM_DEFINE_VISIT
#undef LOOM_FOR_EACH_NODE

void IRGraphVisitor::include(const Expr &e) {
    if (!e.defined()) return;
    if (!visited_.insert(e.get()).second) return;
    e.accept(this);
}

void IRGraphVisitor::include(const Stmt &s) {
    if (!s.defined()) return;
    if (!visited_.insert(s.get()).second) return;
    s.accept(this);
}

}  // namespace internal
}  // namespace loom
