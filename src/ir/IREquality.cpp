#include "ir/IREquality.h"

#include <cmath>

#include "loom/Error.h"

namespace loom {
namespace internal {

namespace {

template<typename T>
int compare_scalars(const T &a, const T &b) {
    if (a < b) return -1;
    if (b < a) return 1;
    return 0;
}

// NaN sorts first and equals itself, so the order stays total.
// Constants are equal when they are the same value: all NaNs are one value,
// and -0.0 differs from 0.0 (select(c, 0.0f, -0.0f) is not 0.0f).
int compare_doubles(double a, double b) {
    bool na = std::isnan(a), nb = std::isnan(b);
    if (na || nb) return na == nb ? 0 : (na ? -1 : 1);
    if (a == 0 && b == 0) return compare_scalars(std::signbit(b), std::signbit(a));
    return compare_scalars(a, b);
}

int compare_types(const Type &a, const Type &b) {
    if (int c = compare_scalars((int)a.code(), (int)b.code())) return c;
    if (int c = compare_scalars(a.bits(), b.bits())) return c;
    return compare_scalars(a.lanes(), b.lanes());
}

// A lexicographic comparison of two trees of the same shape: each compare()
// step returns early at the first difference.
class Comparer {
public:
    int compare(const Expr &a, const Expr &b) {
        if (a.same_as(b)) return 0;
        if (!a.defined() || !b.defined()) return a.defined() ? 1 : -1;
        if (int c = compare_scalars((int)a.node_type(), (int)b.node_type())) return c;
        if (int c = compare_types(a.type(), b.type())) return c;
        return compare_same_kind(a, b);
    }

    int compare(const Stmt &a, const Stmt &b) {
        if (a.same_as(b)) return 0;
        if (!a.defined() || !b.defined()) return a.defined() ? 1 : -1;
        if (int c = compare_scalars((int)a.node_type(), (int)b.node_type())) return c;
        return compare_same_kind(a, b);
    }

private:
    template<typename T>
    int compare(const std::vector<T> &a, const std::vector<T> &b) {
        if (int c = compare_scalars(a.size(), b.size())) return c;
        for (size_t i = 0; i < a.size(); i++) {
            if (int c = compare(a[i], b[i])) return c;
        }
        return 0;
    }

    int compare(const std::vector<Type> &a, const std::vector<Type> &b) {
        if (int c = compare_scalars(a.size(), b.size())) return c;
        for (size_t i = 0; i < a.size(); i++) {
            if (int c = compare_types(a[i], b[i])) return c;
        }
        return 0;
    }

    int compare(const Region &a, const Region &b) {
        if (int c = compare_scalars(a.size(), b.size())) return c;
        for (size_t i = 0; i < a.size(); i++) {
            if (int c = compare(a[i].min, b[i].min)) return c;
            if (int c = compare(a[i].extent, b[i].extent)) return c;
        }
        return 0;
    }

    template<typename T>
    int binary(const Expr &a, const Expr &b) {
        const T *x = a.as<T>(), *y = b.as<T>();
        if (int c = compare(x->a, y->a)) return c;
        return compare(x->b, y->b);
    }

    int compare_same_kind(const Expr &a, const Expr &b) {
        switch (a.node_type()) {
        case IRNodeType::IntImm:
            return compare_scalars(a.as<IntImm>()->value, b.as<IntImm>()->value);
        case IRNodeType::UIntImm:
            return compare_scalars(a.as<UIntImm>()->value, b.as<UIntImm>()->value);
        case IRNodeType::FloatImm:
            return compare_doubles(a.as<FloatImm>()->value, b.as<FloatImm>()->value);
        case IRNodeType::StringImm:
            return compare_scalars(a.as<StringImm>()->value, b.as<StringImm>()->value);
        case IRNodeType::Cast:
            return compare(a.as<Cast>()->value, b.as<Cast>()->value);
        case IRNodeType::Reinterpret:
            return compare(a.as<Reinterpret>()->value, b.as<Reinterpret>()->value);
        case IRNodeType::Variable:
            return compare_scalars(a.as<Variable>()->name, b.as<Variable>()->name);
        case IRNodeType::Add: return binary<Add>(a, b);
        case IRNodeType::Sub: return binary<Sub>(a, b);
        case IRNodeType::Mul: return binary<Mul>(a, b);
        case IRNodeType::Div: return binary<Div>(a, b);
        case IRNodeType::Mod: return binary<Mod>(a, b);
        case IRNodeType::Min: return binary<Min>(a, b);
        case IRNodeType::Max: return binary<Max>(a, b);
        case IRNodeType::EQ: return binary<EQ>(a, b);
        case IRNodeType::NE: return binary<NE>(a, b);
        case IRNodeType::LT: return binary<LT>(a, b);
        case IRNodeType::LE: return binary<LE>(a, b);
        case IRNodeType::GT: return binary<GT>(a, b);
        case IRNodeType::GE: return binary<GE>(a, b);
        case IRNodeType::And: return binary<And>(a, b);
        case IRNodeType::Or: return binary<Or>(a, b);
        case IRNodeType::Not:
            return compare(a.as<Not>()->a, b.as<Not>()->a);
        case IRNodeType::Select: {
            const Select *x = a.as<Select>(), *y = b.as<Select>();
            if (int c = compare(x->condition, y->condition)) return c;
            if (int c = compare(x->true_value, y->true_value)) return c;
            return compare(x->false_value, y->false_value);
        }
        case IRNodeType::Load: {
            const Load *x = a.as<Load>(), *y = b.as<Load>();
            if (int c = compare_scalars(x->name, y->name)) return c;
            if (int c = compare(x->index, y->index)) return c;
            return compare(x->predicate, y->predicate);
        }
        case IRNodeType::Ramp: {
            const Ramp *x = a.as<Ramp>(), *y = b.as<Ramp>();
            if (int c = compare_scalars(x->lanes, y->lanes)) return c;
            if (int c = compare(x->base, y->base)) return c;
            return compare(x->stride, y->stride);
        }
        case IRNodeType::Broadcast: {
            const Broadcast *x = a.as<Broadcast>(), *y = b.as<Broadcast>();
            if (int c = compare_scalars(x->lanes, y->lanes)) return c;
            return compare(x->value, y->value);
        }
        case IRNodeType::Call: {
            const Call *x = a.as<Call>(), *y = b.as<Call>();
            if (int c = compare_scalars(x->name, y->name)) return c;
            if (int c = compare_scalars((int)x->call_type, (int)y->call_type)) return c;
            if (int c = compare_scalars(x->value_index, y->value_index)) return c;
            return compare(x->args, y->args);
        }
        case IRNodeType::Let: {
            const Let *x = a.as<Let>(), *y = b.as<Let>();
            if (int c = compare_scalars(x->name, y->name)) return c;
            if (int c = compare(x->value, y->value)) return c;
            return compare(x->body, y->body);
        }
        case IRNodeType::Shuffle: {
            const Shuffle *x = a.as<Shuffle>(), *y = b.as<Shuffle>();
            if (int c = compare_scalars(x->indices, y->indices)) return c;
            return compare(x->vectors, y->vectors);
        }
        case IRNodeType::VectorReduce: {
            const VectorReduce *x = a.as<VectorReduce>(), *y = b.as<VectorReduce>();
            if (int c = compare_scalars((int)x->op, (int)y->op)) return c;
            return compare(x->value, y->value);
        }
        default:
            throw InternalError("compare: a statement node inside an Expr");
        }
    }

    int compare_same_kind(const Stmt &a, const Stmt &b) {
        switch (a.node_type()) {
        case IRNodeType::LetStmt: {
            const LetStmt *x = a.as<LetStmt>(), *y = b.as<LetStmt>();
            if (int c = compare_scalars(x->name, y->name)) return c;
            if (int c = compare(x->value, y->value)) return c;
            return compare(x->body, y->body);
        }
        case IRNodeType::AssertStmt: {
            const AssertStmt *x = a.as<AssertStmt>(), *y = b.as<AssertStmt>();
            if (int c = compare(x->condition, y->condition)) return c;
            return compare(x->message, y->message);
        }
        case IRNodeType::ProducerConsumer: {
            const ProducerConsumer *x = a.as<ProducerConsumer>(), *y = b.as<ProducerConsumer>();
            if (int c = compare_scalars(x->name, y->name)) return c;
            if (int c = compare_scalars(x->is_producer, y->is_producer)) return c;
            return compare(x->body, y->body);
        }
        case IRNodeType::For: {
            const For *x = a.as<For>(), *y = b.as<For>();
            if (int c = compare_scalars(x->name, y->name)) return c;
            if (int c = compare_scalars((int)x->for_type, (int)y->for_type)) return c;
            if (int c = compare_scalars((int)x->device_api, (int)y->device_api)) return c;
            if (int c = compare(x->min, y->min)) return c;
            if (int c = compare(x->extent, y->extent)) return c;
            return compare(x->body, y->body);
        }
        case IRNodeType::While: {
            const While *x = a.as<While>(), *y = b.as<While>();
            if (int c = compare(x->condition, y->condition)) return c;
            return compare(x->body, y->body);
        }
        case IRNodeType::Store: {
            const Store *x = a.as<Store>(), *y = b.as<Store>();
            if (int c = compare_scalars(x->name, y->name)) return c;
            if (int c = compare(x->value, y->value)) return c;
            if (int c = compare(x->index, y->index)) return c;
            return compare(x->predicate, y->predicate);
        }
        case IRNodeType::Provide: {
            const Provide *x = a.as<Provide>(), *y = b.as<Provide>();
            if (int c = compare_scalars(x->name, y->name)) return c;
            if (int c = compare(x->values, y->values)) return c;
            if (int c = compare(x->args, y->args)) return c;
            return compare(x->predicate, y->predicate);
        }
        case IRNodeType::Allocate: {
            const Allocate *x = a.as<Allocate>(), *y = b.as<Allocate>();
            if (int c = compare_scalars(x->name, y->name)) return c;
            if (int c = compare_types(x->type, y->type)) return c;
            if (int c = compare_scalars((int)x->memory_type, (int)y->memory_type)) return c;
            if (int c = compare(x->extents, y->extents)) return c;
            if (int c = compare(x->condition, y->condition)) return c;
            return compare(x->body, y->body);
        }
        case IRNodeType::Free:
            return compare_scalars(a.as<Free>()->name, b.as<Free>()->name);
        case IRNodeType::Realize: {
            const Realize *x = a.as<Realize>(), *y = b.as<Realize>();
            if (int c = compare_scalars(x->name, y->name)) return c;
            if (int c = compare(x->types, y->types)) return c;
            if (int c = compare_scalars((int)x->memory_type, (int)y->memory_type)) return c;
            if (int c = compare(x->bounds, y->bounds)) return c;
            if (int c = compare(x->condition, y->condition)) return c;
            return compare(x->body, y->body);
        }
        case IRNodeType::Block: {
            const Block *x = a.as<Block>(), *y = b.as<Block>();
            if (int c = compare(x->first, y->first)) return c;
            return compare(x->rest, y->rest);
        }
        case IRNodeType::Fork: {
            const Fork *x = a.as<Fork>(), *y = b.as<Fork>();
            if (int c = compare(x->first, y->first)) return c;
            return compare(x->rest, y->rest);
        }
        case IRNodeType::IfThenElse: {
            const IfThenElse *x = a.as<IfThenElse>(), *y = b.as<IfThenElse>();
            if (int c = compare(x->condition, y->condition)) return c;
            if (int c = compare(x->then_case, y->then_case)) return c;
            return compare(x->else_case, y->else_case);
        }
        case IRNodeType::Evaluate:
            return compare(a.as<Evaluate>()->value, b.as<Evaluate>()->value);
        default:
            throw InternalError("compare: an expression node inside a Stmt");
        }
    }
};

}  // namespace

bool equal(const Expr &a, const Expr &b) { return Comparer().compare(a, b) == 0; }
bool equal(const Stmt &a, const Stmt &b) { return Comparer().compare(a, b) == 0; }
int compare(const Expr &a, const Expr &b) { return Comparer().compare(a, b); }

}  // namespace internal
}  // namespace loom
