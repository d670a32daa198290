// Entry points of the reference interpreter: binds the arguments of the
// calling convention (ir/LoweredFunc.h) to slots, compiles the body with
// interp::Compiler, and runs it. See ir/interpreter/InterpCore.h for how.

#include "ir/Interpreter.h"

#include <cstring>

#include "ir/interpreter/InterpCore.h"

namespace loom {
namespace internal {

using interp::Compiler;
using interp::Frame;
using interp::Kind;
using interp::Scalar;

namespace {

// A scalar argument: the bytes of a C variable of type t.
Scalar read_scalar_argument(Type t, const void *p) {
    Scalar s;
    s.u = 0;
    if (t.is_bool()) {
        s.u = *(const uint8_t *)p != 0;
        return s;
    }
    switch (interp::kind_of(t)) {
    case Kind::Int: {
        int64_t raw = 0;
        std::memcpy(&raw, p, t.bytes());
        s.i = interp::wrap_signed(t.bits(), raw);  // little-endian: low bytes first
        break;
    }
    case Kind::UInt: {
        uint64_t raw = 0;
        std::memcpy(&raw, p, t.bytes());
        s.u = interp::wrap_unsigned(t.bits(), raw);
        break;
    }
    case Kind::F32: {
        float x;
        std::memcpy(&x, p, 4);
        s.f = x;
        break;
    }
    case Kind::F64: std::memcpy(&s.f, p, 8); break;
    case Kind::F16: {
        uint16_t bits;
        std::memcpy(&bits, p, 2);
        s.f = float16_t::float_from_bits(bits);
        break;
    }
    case Kind::Handle: std::memcpy(&s.u, p, sizeof(void *)); break;
    }
    return s;
}

/** The type the lowered body reads a scalar argument as: a BFloat(16)
 * argument is its UInt(16) bits after lowering (lower/EmulateBFloat16.h). */
Type argument_type(Type t) { return t.is_bfloat() ? UInt(16, t.lanes()) : t; }

}  // namespace

int interpret(const LoweredFunc &f, void **args, void *user_context) {
    Compiler compiler;
    std::vector<int> arg_slots;
    std::vector<std::string> arg_names;
    for (const LoweredArgument &a : f.args) {
        if (a.is_buffer()) {
            arg_names.push_back(a.name + ".buffer");
            arg_slots.push_back(compiler.bind(arg_names.back(), Handle()));
        } else {
            if (!a.type.is_scalar()) throw InternalError("Interpreter: argument " + a.name + " of " + f.name + " is a vector");
            arg_names.push_back(a.name);
            arg_slots.push_back(compiler.bind(a.name, argument_type(a.type)));
        }
    }
    // Loop-invariant work is computed once per loop, as compiled code does
    // after LLVM's LICM.
    interp::ExecPtr body = compiler.stmt(interp::hoist_loop_invariant_work(f.body, arg_names));
    Frame frame = compiler.make_frame(interp::lay_out_scratch(*body));
    frame.user_context = user_context;
    for (size_t i = 0; i < f.args.size(); i++) {
        const LoweredArgument &a = f.args[i];
        Scalar &value = frame.values[compiler.slot(arg_slots[i]).offset];
        if (a.is_buffer()) {
            value.u = (uint64_t)(uintptr_t)args[i];
            continue;
        }
        if (!args[i]) throw InternalError("Interpreter: scalar argument " + a.name + " of " + f.name + " is null");
        value = read_scalar_argument(argument_type(a.type), args[i]);
    }
    const int result = body->fn(*body, frame);
    return result != 0 ? result : frame.failure;
}

ScalarValue evaluate_scalar(const Expr &e, const std::map<std::string, ScalarValue> &vars) {
    if (!e.defined()) throw InternalError("evaluate_scalar: undefined expression");
    if (!e.type().is_scalar()) throw InternalError("evaluate_scalar: " + e.type().to_string() + " is not a scalar type");
    Compiler compiler;
    std::vector<std::pair<int, const ScalarValue *>> bound;
    for (const auto &[name, value] : vars) {
        if (!value.type.is_scalar()) throw InternalError("evaluate_scalar: variable " + name + " is not a scalar");
        bound.emplace_back(compiler.bind(name, value.type), &value);
    }
    interp::NodePtr node = compiler.expr(e);
    Frame frame = compiler.make_frame(interp::lay_out_scratch(*node));
    for (const auto &[slot, value] : bound) {
        Scalar s;
        s.u = value->u;
        frame.values[compiler.slot(slot).offset] = interp::normalize(value->type, interp::kind_of(value->type), s);
    }
    Scalar out;
    node->fn(*node, frame, &out);
    ScalarValue result;
    result.type = e.type();
    result.u = out.u;
    return result;
}

}  // namespace internal
}  // namespace loom
