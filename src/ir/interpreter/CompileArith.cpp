// Binary arithmetic, comparisons, logic and Select for the interpreter. Each
// node gets an eval function specialised for its operand kind, so the lane
// loop holds no type dispatch.

#include <type_traits>

#include "ir/interpreter/InterpCore.h"
#include "ir/interpreter/InterpOps.h"

namespace loom {
namespace internal {
namespace interp {

namespace {

template<class Op, Kind K>
void eval_binary(Node &n, Frame &f, Scalar *out) {
    Scalar *a = n.run(0, f);
    Scalar *b = n.run(1, f);
    const int bits = n.type.bits();
    for (int i = 0; i < n.lanes; i++) out[i] = apply_op<Op, K>(bits, a[i], b[i]);
}

// A scalar operand that is a variable or a constant is read in place (a
// slot offset in Node::indices, a value in Node::constants) instead of
// through a call to its own node: index arithmetic is mostly such operands,
// and so are comparisons and clamps. On fuzz seed 982345 (a reduction per
// point, run on the interpreter) half the run was Add/Mul/Sub nodes calling
// their leaves.
enum class Operand { Node, Slot, Constant };

template<Operand O>
inline Scalar operand(Node &n, int k, Frame &f) {
    if constexpr (O == Operand::Slot) {
        return f.values[n.indices[k]];
    } else if constexpr (O == Operand::Constant) {
        return n.constants[k];
    } else {
        return *n.run(k, f);
    }
}

/** A scalar arithmetic node's eval functions, by operand form. */
template<class Op, Kind K>
struct ScalarArith {
    template<Operand A, Operand B>
    static void fn(Node &n, Frame &f, Scalar *out) {
        const Scalar a = operand<A>(n, 0, f);
        const Scalar b = operand<B>(n, 1, f);
        out[0] = apply_op<Op, K>(n.type.bits(), a, b);
    }
};

Operand operand_of(const Node &kid) {
    if (is_scalar_slot_read(kid)) return Operand::Slot;
    if (is_constant(kid)) return Operand::Constant;
    return Operand::Node;
}

template<class Eval, Operand A>
EvalFn pick_in_place(Operand b) {
    switch (b) {
    case Operand::Slot: return Eval::template fn<A, Operand::Slot>;
    case Operand::Constant: return Eval::template fn<A, Operand::Constant>;
    default: return Eval::template fn<A, Operand::Node>;
    }
}

/** The eval function of a scalar binary node, reading a variable or
 * constant operand in place (it records where those are). */
template<class Eval>
EvalFn pick_in_place(Node &n) {
    const Operand a = operand_of(*n.kids[0]);
    const Operand b = operand_of(*n.kids[1]);
    if (a == Operand::Node && b == Operand::Node) return Eval::template fn<Operand::Node, Operand::Node>;
    n.indices.assign(2, 0);
    n.constants.assign(2, Scalar{0});
    for (int k = 0; k < 2; k++) {
        const Node &kid = *n.kids[k];
        if (is_scalar_slot_read(kid)) n.indices[k] = kid.value_offset;
        if (is_constant(kid)) n.constants[k] = kid.constants[0];
    }
    switch (a) {
    case Operand::Slot: return pick_in_place<Eval, Operand::Slot>(b);
    case Operand::Constant: return pick_in_place<Eval, Operand::Constant>(b);
    default: return pick_in_place<Eval, Operand::Node>(b);
    }
}

template<class Op>
EvalFn pick_scalar_arith(Kind k, Node &n) {
    switch (k) {
    case Kind::Int: return pick_in_place<ScalarArith<Op, Kind::Int>>(n);
    case Kind::UInt: return pick_in_place<ScalarArith<Op, Kind::UInt>>(n);
    case Kind::F32: return pick_in_place<ScalarArith<Op, Kind::F32>>(n);
    case Kind::F64: return pick_in_place<ScalarArith<Op, Kind::F64>>(n);
    case Kind::F16: return pick_in_place<ScalarArith<Op, Kind::F16>>(n);
    default: return nullptr;
    }
}

struct EqCmp {
    template<class T> static bool cmp(T a, T b) { return a == b; }
};
struct NeCmp {
    template<class T> static bool cmp(T a, T b) { return a != b; }
};
struct LtCmp {
    template<class T> static bool cmp(T a, T b) { return a < b; }
};
struct LeCmp {
    template<class T> static bool cmp(T a, T b) { return a <= b; }
};
struct GtCmp {
    template<class T> static bool cmp(T a, T b) { return a > b; }
};
struct GeCmp {
    template<class T> static bool cmp(T a, T b) { return a >= b; }
};

template<class Cmp, Kind K>
inline bool compare_lane(Scalar a, Scalar b) {
    if constexpr (K == Kind::Int) {
        return Cmp::cmp(a.i, b.i);
    } else if constexpr (K == Kind::UInt || K == Kind::Handle) {
        return Cmp::cmp(a.u, b.u);
    } else {
        return Cmp::cmp(a.f, b.f);
    }
}

template<class Cmp, Kind K>
void eval_compare(Node &n, Frame &f, Scalar *out) {
    Scalar *a = n.run(0, f);
    Scalar *b = n.run(1, f);
    for (int i = 0; i < n.lanes; i++) out[i].u = compare_lane<Cmp, K>(a[i], b[i]) ? 1 : 0;
}

/** A scalar comparison's eval functions, by operand form. */
template<class Cmp, Kind K>
struct ScalarCompare {
    template<Operand A, Operand B>
    static void fn(Node &n, Frame &f, Scalar *out) {
        const Scalar a = operand<A>(n, 0, f);
        const Scalar b = operand<B>(n, 1, f);
        out[0].u = compare_lane<Cmp, K>(a, b) ? 1 : 0;
    }
};

template<class Cmp>
EvalFn pick_scalar_compare(Kind k, Node &n) {
    switch (k) {
    case Kind::Int: return pick_in_place<ScalarCompare<Cmp, Kind::Int>>(n);
    case Kind::UInt: return pick_in_place<ScalarCompare<Cmp, Kind::UInt>>(n);
    case Kind::F32: return pick_in_place<ScalarCompare<Cmp, Kind::F32>>(n);
    case Kind::F64: return pick_in_place<ScalarCompare<Cmp, Kind::F64>>(n);
    case Kind::F16: return pick_in_place<ScalarCompare<Cmp, Kind::F16>>(n);
    default: return pick_in_place<ScalarCompare<Cmp, Kind::Handle>>(n);
    }
}

void eval_not(Node &n, Frame &f, Scalar *out) {
    Scalar *a = n.run(0, f);
    for (int i = 0; i < n.lanes; i++) out[i].u = a[i].u ? 0 : 1;
}

// Both values are evaluated, whatever the condition.
void eval_select(Node &n, Frame &f, Scalar *out) {
    Scalar *c = n.run(0, f);
    Scalar *t = n.run(1, f);
    Scalar *e = n.run(2, f);
    const bool scalar_condition = n.kids[0]->lanes == 1;
    for (int i = 0; i < n.lanes; i++) {
        bool pick = scalar_condition ? c[0].u != 0 : c[i].u != 0;
        out[i] = pick ? t[i] : e[i];
    }
}

template<class Op>
EvalFn pick_arith(Kind k, Type t) {
    switch (k) {
    case Kind::Int: return eval_binary<Op, Kind::Int>;
    case Kind::UInt: return eval_binary<Op, Kind::UInt>;
    case Kind::F32: return eval_binary<Op, Kind::F32>;
    case Kind::F64: return eval_binary<Op, Kind::F64>;
    case Kind::F16: return eval_binary<Op, Kind::F16>;
    default: break;
    }
    fail("Interpreter: arithmetic on " + t.to_string() + " values is not defined");
}

template<class Cmp>
EvalFn pick_compare(Kind k) {
    switch (k) {
    case Kind::Int: return eval_compare<Cmp, Kind::Int>;
    case Kind::UInt: return eval_compare<Cmp, Kind::UInt>;
    case Kind::F32: return eval_compare<Cmp, Kind::F32>;
    case Kind::F64: return eval_compare<Cmp, Kind::F64>;
    case Kind::F16: return eval_compare<Cmp, Kind::F16>;
    default: return eval_compare<Cmp, Kind::Handle>;
    }
}

NodePtr binary_node(Compiler &c, const Expr &result, const Expr &a, const Expr &b) {
    auto n = std::make_unique<Node>();
    n->type = result.type();
    n->lanes = n->type.lanes();
    n->operand_type = a.type();
    n->add_kid(c.expr(a));
    n->add_kid(c.expr(b));
    return n;
}

// A clamp, max(min(x, hi), lo) or min(max(x, lo), hi), of scalars with
// bounds that are variables or constants: one node computing both
// operations as the two nodes would (the inner one's node stays in the
// tree for x, unused at run time when x is read in place). Clamps are
// everywhere in lowered code: boundary conditions, clamped indices, the
// fuzzer's clamp(v, -1000, 1000).
template<class Inner, class Outer, Kind K>
struct ScalarClamp {
    template<Operand X, Operand Low, Operand High>
    static void fn(Node &n, Frame &f, Scalar *out) {
        const Scalar x = X == Operand::Slot ? f.values[n.in_place[0].slot[0]] : *n.kids[0]->run(0, f);
        const Scalar inner = Low == Operand::Slot ? f.values[n.in_place[1].slot[0]] : n.in_place[1].constant;
        const Scalar outer = High == Operand::Slot ? f.values[n.in_place[2].slot[0]] : n.in_place[2].constant;
        const int bits = n.type.bits();
        out[0] = apply_op<Outer, K>(bits, apply_op<Inner, K>(bits, x, inner), outer);
    }
};

template<class Clamp, Operand X, Operand I>
EvalFn pick_clamp_outer(Operand o) {
    return o == Operand::Slot ? Clamp::template fn<X, I, Operand::Slot> : Clamp::template fn<X, I, Operand::Constant>;
}

template<class Clamp, Operand X>
EvalFn pick_clamp_inner(Operand i, Operand o) {
    return i == Operand::Slot ? pick_clamp_outer<Clamp, X, Operand::Slot>(o)
                              : pick_clamp_outer<Clamp, X, Operand::Constant>(o);
}

template<class Inner, class Outer, Kind K>
EvalFn pick_clamp(Operand x, Operand i, Operand o) {
    using Clamp = ScalarClamp<Inner, Outer, K>;
    return x == Operand::Slot ? pick_clamp_inner<Clamp, Operand::Slot>(i, o) : pick_clamp_inner<Clamp, Operand::Node>(i, o);
}

/** n (a scalar Outer of an Inner) as one clamp node, or false. */
template<class Inner, class Outer>
bool make_clamp(Node &n) {
    Node &inner = *n.kids[0];
    if (n.lanes != 1 || inner.type != n.type || inner.kids.size() != 2) return false;
    const Operand x = operand_of(*inner.kids[0]), i = operand_of(*inner.kids[1]), o = operand_of(*n.kids[1]);
    if (x == Operand::Constant || i == Operand::Node || o == Operand::Node) return false;
    const Node *reads[3] = {inner.kids[0].get(), inner.kids[1].get(), n.kids[1].get()};
    for (int k = 0; k < 3; k++) {
        if (is_scalar_slot_read(*reads[k])) n.in_place[k].slot[0] = reads[k]->value_offset;
        if (is_constant(*reads[k])) n.in_place[k].constant = reads[k]->constants[0];
    }
    switch (kind_of(n.type)) {
    case Kind::Int: n.fn = pick_clamp<Inner, Outer, Kind::Int>(x, i, o); return true;
    case Kind::UInt: n.fn = pick_clamp<Inner, Outer, Kind::UInt>(x, i, o); return true;
    case Kind::F32: n.fn = pick_clamp<Inner, Outer, Kind::F32>(x, i, o); return true;
    case Kind::F64: n.fn = pick_clamp<Inner, Outer, Kind::F64>(x, i, o); return true;
    case Kind::F16: n.fn = pick_clamp<Inner, Outer, Kind::F16>(x, i, o); return true;
    default: return false;
    }
}

template<class NodeT, class Op>
NodePtr arith(Compiler &c, const Expr &e) {
    const NodeT *op = static_cast<const NodeT *>(e.get());
    NodePtr n = binary_node(c, e, op->a, op->b);
    if constexpr (std::is_same_v<NodeT, Max>) {
        if (op->a.template as<Min>() && make_clamp<MinOp, MaxOp>(*n)) return n;
    } else if constexpr (std::is_same_v<NodeT, Min>) {
        if (op->a.template as<Max>() && make_clamp<MaxOp, MinOp>(*n)) return n;
    }
    const Kind k = kind_of(n->type);
    const EvalFn scalar = n->lanes == 1 ? pick_scalar_arith<Op>(k, *n) : nullptr;
    n->fn = scalar ? scalar : pick_arith<Op>(k, n->type);
    return n;
}

template<class NodeT, class Cmp>
NodePtr compare(Compiler &c, const Expr &e) {
    const NodeT *op = static_cast<const NodeT *>(e.get());
    NodePtr n = binary_node(c, e, op->a, op->b);
    const Kind k = kind_of(op->a.type());
    const EvalFn scalar = n->lanes == 1 ? pick_scalar_compare<Cmp>(k, *n) : nullptr;
    n->fn = scalar ? scalar : pick_compare<Cmp>(k);
    return n;
}

template<class NodeT, class Op>
NodePtr logical(Compiler &c, const Expr &e) {
    const NodeT *op = static_cast<const NodeT *>(e.get());
    NodePtr n = binary_node(c, e, op->a, op->b);
    n->fn = eval_binary<Op, Kind::UInt>;
    return n;
}

}  // namespace

NodePtr compile_arithmetic(Compiler &c, const Expr &e) {
    switch (e.node_type()) {
    case IRNodeType::Add: return arith<Add, AddOp>(c, e);
    case IRNodeType::Sub: return arith<Sub, SubOp>(c, e);
    case IRNodeType::Mul: return arith<Mul, MulOp>(c, e);
    case IRNodeType::Div: return arith<Div, DivOp>(c, e);
    case IRNodeType::Mod: return arith<Mod, ModOp>(c, e);
    case IRNodeType::Min: return arith<Min, MinOp>(c, e);
    case IRNodeType::Max: return arith<Max, MaxOp>(c, e);
    case IRNodeType::EQ: return compare<EQ, EqCmp>(c, e);
    case IRNodeType::NE: return compare<NE, NeCmp>(c, e);
    case IRNodeType::LT: return compare<LT, LtCmp>(c, e);
    case IRNodeType::LE: return compare<LE, LeCmp>(c, e);
    case IRNodeType::GT: return compare<GT, GtCmp>(c, e);
    case IRNodeType::GE: return compare<GE, GeCmp>(c, e);
    case IRNodeType::And: return logical<And, AndOp>(c, e);
    case IRNodeType::Or: return logical<Or, OrOp>(c, e);
    case IRNodeType::Not: {
        auto n = std::make_unique<Node>();
        n->type = e.type();
        n->lanes = n->type.lanes();
        n->add_kid(c.expr(e.as<Not>()->a));
        n->fn = eval_not;
        return n;
    }
    case IRNodeType::Select: {
        const Select *s = e.as<Select>();
        auto n = std::make_unique<Node>();
        n->type = e.type();
        n->lanes = n->type.lanes();
        n->add_kid(c.expr(s->condition));
        n->add_kid(c.expr(s->true_value));
        n->add_kid(c.expr(s->false_value));
        n->fn = eval_select;
        return n;
    }
    default: break;
    }
    fail("Interpreter: compile_arithmetic called on a non-arithmetic node");
}

}  // namespace interp
}  // namespace internal
}  // namespace loom
