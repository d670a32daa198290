// The interpreter's compiler: slots and scopes, the expression dispatch,
// constants, variables and Let. Node families live in the other Compile*.cpp.

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "ir/interpreter/InterpCore.h"

namespace loom {
namespace internal {
namespace interp {

void fail(const std::string &message) { throw InternalError(message); }

Kind kind_of(Type t) {
    switch (t.code()) {
    case TypeCode::Int: return Kind::Int;
    case TypeCode::UInt: return Kind::UInt;
    case TypeCode::Handle: return Kind::Handle;
    // BFloat(16) values are emulated with their UInt(16) bits before code
    // generation (lower/EmulateBFloat16.h); what is left are the bits of
    // buffer elements and scalar arguments.
    case TypeCode::BFloat: return Kind::UInt;
    case TypeCode::Float:
        if (t.bits() == 16) return Kind::F16;
        if (t.bits() == 32) return Kind::F32;
        if (t.bits() == 64) return Kind::F64;
        break;
    }
    fail("Interpreter: values of type " + t.to_string() + " are not supported");
}

std::string format_value(Type t, const Scalar *lanes) {
    std::string s;
    if (t.is_vector()) s += "[";
    for (int i = 0; i < t.lanes(); i++) {
        if (i > 0) s += ", ";
        char buf[64];
        switch (t.code()) {
        case TypeCode::Int: std::snprintf(buf, sizeof(buf), "%" PRId64, lanes[i].i); break;
        case TypeCode::UInt:
        case TypeCode::BFloat: std::snprintf(buf, sizeof(buf), "%" PRIu64, lanes[i].u); break;
        case TypeCode::Float: std::snprintf(buf, sizeof(buf), "%g", lanes[i].f); break;
        case TypeCode::Handle: std::snprintf(buf, sizeof(buf), "%p", (void *)(uintptr_t)lanes[i].u); break;
        }
        s += buf;
    }
    if (t.is_vector()) s += "]";
    return s;
}

// ---------------------------------------------------------------- slots

int Compiler::bind(const std::string &name, Type t) {
    SlotInfo info;
    info.name = name;
    info.type = t;
    info.offset = total_values_;
    total_values_ += t.lanes();
    slots_.push_back(info);
    int s = (int)slots_.size() - 1;
    scope_[name].push_back(s);
    return s;
}

void Compiler::unbind(const std::string &name) {
    auto it = scope_.find(name);
    if (it == scope_.end() || it->second.empty()) fail("Interpreter: unbind of unbound name " + name);
    it->second.pop_back();
    if (it->second.empty()) scope_.erase(it);
}

int Compiler::lookup(const std::string &name) const {
    auto it = scope_.find(name);
    return it == scope_.end() ? -1 : it->second.back();
}

Frame Compiler::make_frame(int scratch_lanes) const {
    Frame f;
    f.values.assign(total_values_, Scalar{0});
    f.regions.assign(slots_.size(), Region{});
    f.scratch.assign(scratch_lanes, Scalar{0});
    return f;
}

// ---------------------------------------------------------------- scratch

namespace {

// Both return the end of what root and everything under it use.
int lay_out_node(Node &n, int base);

int lay_out_binding(HandleBinding &h, int base) {
    return h.buffer ? lay_out_node(*h.buffer, base) : base;
}

int lay_out_node(Node &n, int base) {
    n.scratch_base = base;
    for (int k = 0; k < Node::kCachedKids && k < (int)n.kids.size(); k++) {
        n.kid_node[k] = n.kids[k].get();
        n.kid_scratch[k] = base + n.kid_offset[k];
    }
    const int after = base + n.scratch_size;
    int end = after;
    for (NodePtr &kid : n.kids) end = std::max(end, lay_out_node(*kid, after));
    return std::max(end, lay_out_binding(n.handle, after));
}

int lay_out_exec(Exec &s, int base) {
    s.scratch_base = base;
    const int after = base + s.outs_size;
    int end = after;
    for (NodePtr &e : s.exprs) end = std::max(end, lay_out_node(*e, after));
    for (ExecPtr &child : s.stmts) end = std::max(end, lay_out_exec(*child, after));
    return std::max(end, lay_out_binding(s.handle, after));
}

}  // namespace

int lay_out_scratch(Exec &root) { return lay_out_exec(root, 0); }
int lay_out_scratch(Node &root) { return lay_out_node(root, 0); }

// ---------------------------------------------------------------- leaves

namespace {

void eval_constant(Node &n, Frame &, Scalar *out) {
    for (int i = 0; i < n.lanes; i++) out[i] = n.constants[i];
}

void eval_thrower(Node &n, Frame &, Scalar *) { fail(n.name); }

void eval_variable_scalar(Node &n, Frame &f, Scalar *out) { out[0] = f.values[n.value_offset]; }

void eval_variable_vector(Node &n, Frame &f, Scalar *out) {
    std::memcpy(out, &f.values[n.value_offset], sizeof(Scalar) * n.lanes);
}

void eval_let(Node &n, Frame &f, Scalar *out) {
    n.kids[0]->fn(*n.kids[0], f, &f.values[n.value_offset]);
    if (n.op) apply_handle_binding(n.handle, f, n.slot);
    n.kids[1]->fn(*n.kids[1], f, out);
}

// A scalar Param's current value, decoded from its bit-copied storage.
Scalar param_scalar(Type t, uint64_t bits) {
    Scalar s;
    s.u = bits;
    switch (kind_of(t)) {
    case Kind::Int: s.i = wrap_signed(t.bits(), (int64_t)bits); break;
    case Kind::UInt: s.u = t.is_bool() ? ((bits & 0xff) != 0) : wrap_unsigned(t.bits(), bits); break;
    case Kind::F32: {
        float x;
        uint32_t b = (uint32_t)bits;
        std::memcpy(&x, &b, 4);
        s.f = x;
        break;
    }
    case Kind::F64: std::memcpy(&s.f, &bits, 8); break;
    case Kind::F16: s.f = float16_t::float_from_bits((uint16_t)bits); break;
    case Kind::Handle: break;
    }
    return s;
}

}  // namespace

NodePtr make_constant(Type t, const std::vector<Scalar> &lanes) {
    auto n = std::make_unique<Node>();
    n->type = t;
    n->lanes = t.lanes();
    n->constants = lanes;
    n->constants.resize(n->lanes, lanes.empty() ? Scalar{0} : lanes.back());
    n->fn = eval_constant;
    return n;
}

bool is_scalar_slot_read(const Node &n) { return n.fn == eval_variable_scalar; }

bool is_constant(const Node &n) { return n.fn == eval_constant; }

NodePtr make_thrower(Type t, const std::string &message) {
    auto n = std::make_unique<Node>();
    n->type = t;
    n->lanes = t.lanes();
    n->name = message;
    n->fn = eval_thrower;
    return n;
}

NodePtr Compiler::variable(const Variable *v) {
    int s = lookup(v->name);
    if (s >= 0) {
        const SlotInfo &info = slots_[s];
        if (info.type != v->type) {
            fail("Interpreter: variable " + v->name + " is used as " + v->type.to_string() + " but bound as " +
                 info.type.to_string());
        }
        auto n = std::make_unique<Node>();
        n->type = v->type;
        n->lanes = v->type.lanes();
        n->slot = s;
        n->value_offset = info.offset;
        n->fn = n->lanes == 1 ? eval_variable_scalar : eval_variable_vector;
        return n;
    }
    // Not passed as an argument: fall back to what the Parameter holds now.
    if (v->param.defined()) {
        const Parameter &p = v->param;
        if (p.is_buffer()) {
            if (!p.buffer()) return make_thrower(v->type, "Interpreter: buffer parameter " + p.name() + " is not bound");
            Scalar s;
            s.u = (uint64_t)(uintptr_t)p.buffer();
            return make_constant(v->type, {s});
        }
        if (!p.scalar_set()) return make_thrower(v->type, "Interpreter: parameter " + p.name() + " has no value");
        return make_constant(v->type, {param_scalar(v->type.element_of(), p.get()->scalar_bits)});
    }
    return make_thrower(v->type, "Interpreter: variable " + v->name + " is not bound");
}

NodePtr Compiler::let(const Let *l) {
    auto n = std::make_unique<Node>();
    n->type = l->type;
    n->lanes = n->type.lanes();
    n->add_kid(expr(l->value));
    n->op = l->value.type().is_handle() ? 1 : 0;
    if (n->op) handle_binding(l->value, n->handle);
    n->slot = bind(l->name, l->value.type());
    n->value_offset = slots_[n->slot].offset;
    n->add_kid(expr(l->body));
    unbind(l->name);
    n->fn = eval_let;
    return n;
}

NodePtr Compiler::expr(const Expr &e) {
    if (!e.defined()) fail("Interpreter: undefined expression");
    Type t = e.type();
    switch (e.node_type()) {
    case IRNodeType::IntImm: {
        Scalar s;
        s.i = wrap_signed(t.bits(), e.as<IntImm>()->value);
        return make_constant(t, {s});
    }
    case IRNodeType::UIntImm: {
        Scalar s;
        s.u = wrap_unsigned(t.bits(), e.as<UIntImm>()->value);
        return make_constant(t, {s});
    }
    case IRNodeType::FloatImm: {
        Scalar s;
        s.f = e.as<FloatImm>()->value;
        s = normalize(t, kind_of(t), s);
        return make_constant(t, {s});
    }
    case IRNodeType::StringImm: {
        // The node keeps the text alive; its address is the Handle value.
        NodePtr n = make_constant(t, {});
        n->name = e.as<StringImm>()->value;
        n->constants[0].u = (uint64_t)(uintptr_t)n->name.c_str();
        return n;
    }
    case IRNodeType::Cast:
    case IRNodeType::Reinterpret: return compile_conversion(*this, e);
    case IRNodeType::Variable: return variable(e.as<Variable>());
    case IRNodeType::Add:
    case IRNodeType::Sub:
    case IRNodeType::Mul:
        if (NodePtr n = compile_polynomial(*this, e)) return n;
        return compile_arithmetic(*this, e);
    case IRNodeType::Div:
    case IRNodeType::Mod:
    case IRNodeType::Min:
    case IRNodeType::Max:
    case IRNodeType::EQ:
    case IRNodeType::NE:
    case IRNodeType::LT:
    case IRNodeType::LE:
    case IRNodeType::GT:
    case IRNodeType::GE:
    case IRNodeType::And:
    case IRNodeType::Or:
    case IRNodeType::Not:
    case IRNodeType::Select: return compile_arithmetic(*this, e);
    case IRNodeType::Load: return load(e.as<Load>());
    case IRNodeType::Ramp:
    case IRNodeType::Broadcast:
    case IRNodeType::Shuffle:
    case IRNodeType::VectorReduce: return compile_vector(*this, e);
    case IRNodeType::Call: return call(e.as<Call>());
    case IRNodeType::Let: return let(e.as<Let>());
    default: break;
    }
    fail("Interpreter: a statement node was found where an expression was expected");
}

}  // namespace interp
}  // namespace internal
}  // namespace loom
