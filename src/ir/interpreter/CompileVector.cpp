// Vector nodes for the interpreter: Ramp, Broadcast, Shuffle, VectorReduce.
// A base or value may itself be a vector (nested ramps and broadcasts), in
// which case the result repeats it lane group by lane group.

#include "ir/interpreter/InterpCore.h"
#include "ir/interpreter/InterpOps.h"

namespace loom {
namespace internal {
namespace interp {

namespace {

// Lane j*B + k is base[k] + j * stride[k], with the type's arithmetic.
template<Kind K>
void eval_ramp(Node &n, Frame &f, Scalar *out) {
    Scalar *base = n.run(0, f);
    Scalar *stride = n.run(1, f);
    const int group = n.kids[0]->lanes;
    const int bits = n.type.bits();
    const int count = n.lanes / group;
    for (int j = 0; j < count; j++) {
        for (int k = 0; k < group; k++) {
            Scalar step;
            if constexpr (K == Kind::Int) {
                step.i = j;
            } else if constexpr (K == Kind::UInt) {
                step.u = (uint64_t)j;
            } else {
                step.f = (double)j;
            }
            Scalar offset = apply_op<MulOp, K>(bits, step, stride[k]);
            out[j * group + k] = apply_op<AddOp, K>(bits, base[k], offset);
        }
    }
}

void eval_broadcast(Node &n, Frame &f, Scalar *out) {
    Scalar *v = n.run(0, f);
    const int group = n.kids[0]->lanes;
    for (int i = 0; i < n.lanes; i++) out[i] = v[i % group];
}

// The children's lanes lie one after another in scratch: the concatenation.
void eval_shuffle(Node &n, Frame &f, Scalar *out) {
    for (size_t k = 0; k < n.kids.size(); k++) n.run((int)k, f);
    const Scalar *lanes = n.kid_out(0, f);
    for (int i = 0; i < n.lanes; i++) out[i] = lanes[n.indices[i]];
}

// Adjacent groups of lanes fold left to right into one lane each.
template<class Op, Kind K>
void eval_reduce(Node &n, Frame &f, Scalar *out) {
    Scalar *v = n.run(0, f);
    const int factor = n.kids[0]->lanes / n.lanes;
    const int bits = n.type.bits();
    for (int i = 0; i < n.lanes; i++) {
        Scalar acc = v[i * factor];
        for (int k = 1; k < factor; k++) acc = apply_op<Op, K>(bits, acc, v[i * factor + k]);
        out[i] = acc;
    }
}

template<class Op>
EvalFn pick_reduce(Kind k) {
    switch (k) {
    case Kind::Int: return eval_reduce<Op, Kind::Int>;
    case Kind::UInt: return eval_reduce<Op, Kind::UInt>;
    case Kind::F32: return eval_reduce<Op, Kind::F32>;
    case Kind::F64: return eval_reduce<Op, Kind::F64>;
    case Kind::F16: return eval_reduce<Op, Kind::F16>;
    default: return nullptr;
    }
}

EvalFn pick_ramp(Kind k) {
    switch (k) {
    case Kind::Int: return eval_ramp<Kind::Int>;
    case Kind::UInt: return eval_ramp<Kind::UInt>;
    case Kind::F32: return eval_ramp<Kind::F32>;
    case Kind::F64: return eval_ramp<Kind::F64>;
    case Kind::F16: return eval_ramp<Kind::F16>;
    default: return nullptr;
    }
}

EvalFn reduce_fn(VectorReduce::Operator op, Kind k) {
    switch (op) {
    case VectorReduce::Add: return pick_reduce<AddOp>(k);
    case VectorReduce::Mul: return pick_reduce<MulOp>(k);
    case VectorReduce::Min: return pick_reduce<MinOp>(k);
    case VectorReduce::Max: return pick_reduce<MaxOp>(k);
    case VectorReduce::And: return eval_reduce<AndOp, Kind::UInt>;
    case VectorReduce::Or: return eval_reduce<OrOp, Kind::UInt>;
    }
    return nullptr;
}

}  // namespace

NodePtr compile_vector(Compiler &c, const Expr &e) {
    auto n = std::make_unique<Node>();
    n->type = e.type();
    n->lanes = n->type.lanes();
    if (const Ramp *r = e.as<Ramp>()) {
        n->fn = pick_ramp(kind_of(n->type));
        if (!n->fn) fail("Interpreter: Ramp of " + n->type.to_string() + " is not defined");
        n->add_kid(c.expr(r->base));
        n->add_kid(c.expr(r->stride));
        return n;
    }
    if (const Broadcast *b = e.as<Broadcast>()) {
        n->fn = eval_broadcast;
        n->add_kid(c.expr(b->value));
        return n;
    }
    if (const Shuffle *s = e.as<Shuffle>()) {
        n->fn = eval_shuffle;
        for (const Expr &v : s->vectors) n->add_kid(c.expr(v));
        n->indices = s->indices;
        for (int i : n->indices) {
            if (i < 0 || i >= n->scratch_size) fail("Interpreter: Shuffle index out of range");
        }
        return n;
    }
    if (const VectorReduce *v = e.as<VectorReduce>()) {
        n->fn = reduce_fn(v->op, kind_of(n->type));
        if (!n->fn) fail("Interpreter: VectorReduce of " + n->type.to_string() + " is not defined");
        n->add_kid(c.expr(v->value));
        if (n->kids[0]->lanes % n->lanes != 0) fail("Interpreter: VectorReduce lane counts do not divide");
        return n;
    }
    fail("Interpreter: compile_vector called on a non-vector node");
}

}  // namespace interp
}  // namespace internal
}  // namespace loom
