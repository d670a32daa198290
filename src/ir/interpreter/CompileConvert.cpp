// Cast and Reinterpret for the interpreter.
//
// Cast: int->int wraps (to Bool: x != 0), int->float rounds to nearest,
// float->int truncates toward zero. A cast to Float(16) rounds once, from
// the source's own precision, to binary16 (ties to even). A float outside the target's range (or
// NaN) is undefined in compiled code; the interpreter saturates it (NaN -> 0)
// so that it never invokes undefined behaviour itself, which means compiled
// code may differ from it only there.

#include <cmath>
#include <cstring>

#include "ir/interpreter/InterpCore.h"

namespace loom {
namespace internal {
namespace interp {

namespace {

int64_t float_to_int(int bits, double x) {
    if (std::isnan(x)) return 0;
    x = std::trunc(x);
    double limit = std::ldexp(1.0, bits - 1);
    if (x >= limit) return bits >= 64 ? INT64_MAX : (int64_t)limit - 1;
    if (x < -limit) return bits >= 64 ? INT64_MIN : -(int64_t)limit;
    return (int64_t)x;
}

uint64_t float_to_uint(int bits, double x) {
    if (std::isnan(x) || x <= 0) return 0;
    x = std::trunc(x);
    double limit = std::ldexp(1.0, bits);
    if (x >= limit) return bits >= 64 ? UINT64_MAX : (uint64_t(1) << bits) - 1;
    return (uint64_t)x;
}

template<Kind From, Kind To>
Scalar convert(int to_bits, Scalar v) {
    Scalar r;
    constexpr bool from_float = From == Kind::F32 || From == Kind::F64 || From == Kind::F16;
    if constexpr (To == Kind::Int) {
        if constexpr (from_float) {
            r.i = float_to_int(to_bits, v.f);
        } else {
            r.i = wrap_signed(to_bits, v.i);
        }
    } else if constexpr (To == Kind::UInt) {
        if constexpr (from_float) {
            r.u = to_bits == 1 ? (v.f != 0) : float_to_uint(to_bits, v.f);
        } else {
            r.u = to_bits == 1 ? (v.u != 0) : wrap_unsigned(to_bits, v.u);
        }
    } else if constexpr (To == Kind::F32) {
        if constexpr (From == Kind::Int) {
            r.f = (double)(float)v.i;
        } else if constexpr (From == Kind::UInt) {
            r.f = (double)(float)v.u;
        } else {
            r.f = (double)(float)v.f;
        }
    } else if constexpr (To == Kind::F16) {
        // An integer beyond 2^53 loses bits on the way to double, but is far
        // beyond binary16's range either way.
        if constexpr (From == Kind::Int) {
            r.f = round_to_half((double)v.i);
        } else if constexpr (From == Kind::UInt) {
            r.f = round_to_half((double)v.u);
        } else {
            r.f = round_to_half(v.f);
        }
    } else {
        if constexpr (From == Kind::Int) {
            r.f = (double)v.i;
        } else if constexpr (From == Kind::UInt) {
            r.f = (double)v.u;
        } else {
            r.f = v.f;
        }
    }
    return r;
}

template<Kind From, Kind To>
void eval_cast(Node &n, Frame &f, Scalar *out) {
    Scalar *a = n.run(0, f);
    const int bits = n.type.bits();
    for (int i = 0; i < n.lanes; i++) out[i] = convert<From, To>(bits, a[i]);
}

// One lane: no lane loop, and a variable operand read in place.
template<Kind From, Kind To, bool Slot>
void eval_scalar_cast(Node &n, Frame &f, Scalar *out) {
    const Scalar a = Slot ? f.values[n.in_place[0].slot[0]] : *n.run(0, f);
    out[0] = convert<From, To>(n.type.bits(), a);
}

// Handles only convert to and from 64-bit integers, bit for bit.
void eval_copy(Node &n, Frame &f, Scalar *out) {
    Scalar *a = n.run(0, f);
    for (int i = 0; i < n.lanes; i++) out[i] = a[i];
}

/** The cast of every lane (Form Node, a vector), or of one lane read
 * from its node or (Slot) in place. */
enum class CastForm { Lanes, Scalar, Slot };

template<Kind From, Kind To>
EvalFn pick_cast_form(CastForm form) {
    switch (form) {
    case CastForm::Scalar: return eval_scalar_cast<From, To, false>;
    case CastForm::Slot: return eval_scalar_cast<From, To, true>;
    default: return eval_cast<From, To>;
    }
}

template<Kind From>
EvalFn pick_cast_to(Kind to, CastForm form) {
    switch (to) {
    case Kind::Int: return pick_cast_form<From, Kind::Int>(form);
    case Kind::UInt: return pick_cast_form<From, Kind::UInt>(form);
    case Kind::F32: return pick_cast_form<From, Kind::F32>(form);
    case Kind::F64: return pick_cast_form<From, Kind::F64>(form);
    case Kind::F16: return pick_cast_form<From, Kind::F16>(form);
    default: return nullptr;
    }
}

EvalFn pick_cast(Type from, Type to, CastForm form) {
    Kind kf = kind_of(from), kt = kind_of(to);
    if (kf == Kind::Handle || kt == Kind::Handle) {
        Type other = kf == Kind::Handle ? to : from;
        if (other.is_handle() || (other.is_int_or_uint() && other.bits() == 64)) return eval_copy;
        return nullptr;
    }
    switch (kf) {
    case Kind::Int: return pick_cast_to<Kind::Int>(kt, form);
    case Kind::UInt: return pick_cast_to<Kind::UInt>(kt, form);
    case Kind::F32: return pick_cast_to<Kind::F32>(kt, form);
    case Kind::F64: return pick_cast_to<Kind::F64>(kt, form);
    case Kind::F16: return pick_cast_to<Kind::F16>(kt, form);
    default: return nullptr;
    }
}

// ---------------------------------------------------------------- reinterpret

void put_bits(Type t, Scalar v, uint8_t *bytes) {
    int size = t.bits() / 8;
    uint64_t raw = v.u;
    if (t.is_float() && t.bits() == 32) {
        float x = (float)v.f;
        uint32_t b;
        std::memcpy(&b, &x, 4);
        raw = b;
    } else if (t.is_float() && t.bits() == 16) {
        raw = float16_t::bits_from_double(v.f);
    } else if (t.is_float()) {
        std::memcpy(&raw, &v.f, 8);
    }
    for (int k = 0; k < size; k++) bytes[k] = (uint8_t)(raw >> (8 * k));
}

Scalar get_bits(Type t, const uint8_t *bytes) {
    int size = t.bits() / 8;
    uint64_t raw = 0;
    for (int k = 0; k < size; k++) raw |= (uint64_t)bytes[k] << (8 * k);
    Scalar r;
    if (t.is_float() && t.bits() == 32) {
        uint32_t b = (uint32_t)raw;
        float x;
        std::memcpy(&x, &b, 4);
        r.f = x;
    } else if (t.is_float() && t.bits() == 16) {
        r.f = float16_t::float_from_bits((uint16_t)raw);
    } else if (t.is_float()) {
        std::memcpy(&r.f, &raw, 8);
    } else if (t.is_int()) {
        r.i = wrap_signed(t.bits(), (int64_t)raw);
    } else {
        r.u = raw;
    }
    return r;
}

// Little-endian bytes in between, as in memory.
void eval_reinterpret(Node &n, Frame &f, Scalar *out) {
    Scalar *a = n.run(0, f);
    Type from = n.operand_type.element_of(), to = n.type.element_of();
    uint8_t bytes[8 * 64];
    int from_size = from.bits() / 8, to_size = to.bits() / 8;
    int from_lanes = n.kids[0]->lanes;
    std::vector<uint8_t> big;
    uint8_t *buf = bytes;
    if ((size_t)from_size * from_lanes > sizeof(bytes)) {
        big.resize((size_t)from_size * from_lanes);
        buf = big.data();
    }
    for (int i = 0; i < from_lanes; i++) put_bits(from, a[i], buf + i * from_size);
    for (int i = 0; i < n.lanes; i++) out[i] = get_bits(to, buf + i * to_size);
}

bool reinterpretable(Type t) {
    if (t.bits() % 8 != 0 || t.bits() > 64) return false;
    if (t.is_float()) return t.bits() == 16 || t.bits() == 32 || t.bits() == 64;
    return true;
}

}  // namespace

NodePtr compile_conversion(Compiler &c, const Expr &e) {
    auto n = std::make_unique<Node>();
    n->type = e.type();
    n->lanes = n->type.lanes();
    if (const Cast *cast = e.as<Cast>()) {
        n->operand_type = cast->value.type();
        n->add_kid(c.expr(cast->value));
        CastForm form = CastForm::Lanes;
        if (n->lanes == 1) {
            form = in_place_form(cast->value, *n->kids[0], false, n->in_place[0]) == InPlaceForm::Slot ? CastForm::Slot
                                                                                                    : CastForm::Scalar;
        }
        n->fn = pick_cast(n->operand_type, n->type, form);
        if (!n->fn) {
            fail("Interpreter: cannot cast " + n->operand_type.to_string() + " to " + n->type.to_string());
        }
        return n;
    }
    const Reinterpret *r = e.as<Reinterpret>();
    if (!r) fail("Interpreter: compile_conversion called on a non-conversion node");
    n->operand_type = r->value.type();
    if (!reinterpretable(n->operand_type) || !reinterpretable(n->type)) {
        fail("Interpreter: cannot reinterpret " + n->operand_type.to_string() + " as " + n->type.to_string());
    }
    n->fn = eval_reinterpret;
    n->add_kid(c.expr(r->value));
    return n;
}

}  // namespace interp
}  // namespace internal
}  // namespace loom
