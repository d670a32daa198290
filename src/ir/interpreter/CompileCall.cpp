// Calls for the interpreter: Loom's intrinsics (namespace intrinsic in
// ir/IR.h) and the C math functions named by PureExtern calls. Image and Func
// calls belong to the front end's form and never reach lowered code.

#include <cmath>
#include <cstring>
#include <unordered_map>

#include "runtime/RuntimeInternal.h"
#include "ir/interpreter/InterpCore.h"
#include "loom/runtime/loom_runtime.h"
#include "lower/LowerAtomics.h"
#include "lower/Memoize.h"
#include "ir/LowerBitIntrinsics.h"

namespace loom {
namespace internal {
namespace interp {

namespace {

// ---------------------------------------------------------------- buffers

const loom_buffer_t *buffer_arg(Node &n, Frame &f) {
    return (const loom_buffer_t *)(uintptr_t)n.run(0, f)[0].u;
}

const loom_buffer_t *non_null_buffer(Node &n, Frame &f) {
    const loom_buffer_t *b = buffer_arg(n, f);
    if (!b) fail("Interpreter: " + n.name + " of a null buffer");
    return b;
}

void eval_buffer_host(Node &n, Frame &f, Scalar *out) {
    out[0].u = (uint64_t)(uintptr_t)non_null_buffer(n, f)->host;
}

// op: 0 = min, 1 = extent, 2 = stride.
void eval_buffer_dim(Node &n, Frame &f, Scalar *out) {
    const loom_buffer_t *b = non_null_buffer(n, f);
    int64_t d = n.run(1, f)[0].i;
    if (d < 0 || d >= b->dimensions || !b->dim) {
        fail("Interpreter: " + n.name + " of dimension " + std::to_string(d) + " of a buffer with " +
             std::to_string(b->dimensions) + " dimensions");
    }
    const loom_dimension_t &dim = b->dim[d];
    int32_t v = n.op == 0 ? dim.min : n.op == 1 ? dim.extent : dim.stride;
    out[0].i = wrap_signed(n.type.bits(), v);
}

// op: 0 = dimensions, 1 = type code, 2 = type bits.
void eval_buffer_field(Node &n, Frame &f, Scalar *out) {
    const loom_buffer_t *b = non_null_buffer(n, f);
    int64_t v = n.op == 0 ? b->dimensions : n.op == 1 ? b->type.code : b->type.bits;
    out[0].u = (uint64_t)v;
    out[0] = normalize(n.type, kind_of(n.type), out[0]);
}

// A bounds query's answer: writes min/extent/dense stride into dim[d].
void eval_buffer_set_bounds(Node &n, Frame &f, Scalar *out) {
    loom_buffer_t *b = const_cast<loom_buffer_t *>(non_null_buffer(n, f));
    int64_t d = n.run(1, f)[0].i;
    if (d < 0 || d >= b->dimensions || !b->dim) fail("Interpreter: buffer_set_bounds of a missing dimension");
    out[0].i = loom_buffer_set_bounds(b, (int32_t)d, (int32_t)n.run(2, f)[0].i, (int32_t)n.run(3, f)[0].i);
}

void eval_buffer_is_null(Node &n, Frame &f, Scalar *out) { out[0].u = buffer_arg(n, f) == nullptr; }

void eval_buffer_host_is_null(Node &n, Frame &f, Scalar *out) {
    const loom_buffer_t *b = buffer_arg(n, f);
    out[0].u = b == nullptr || b->host == nullptr;
}

// ---------------------------------------------------------------- messages

// Pieces from index `first` on: text verbatim, values formatted.
std::string pieces(Node &n, Frame &f, size_t first, const char *separator) {
    std::string s;
    for (size_t p = first; p < n.texts.size(); p++) {
        if (p > first) s += separator;
        int k = n.text_kid[p];
        if (k < 0) {
            s += n.texts[p];
        } else {
            s += format_value(n.kids[k]->type, n.run(k, f));
        }
    }
    return s;
}

void eval_error(Node &n, Frame &f, Scalar *out) {
    Scalar code = n.run(0, f)[0];
    std::string message = pieces(n, f, 1, "");
    loom_error(f.user_context, message.c_str());
    out[0] = code;
}

void eval_print(Node &n, Frame &f, Scalar *out) {
    std::string line = pieces(n, f, 0, " ") + "\n";
    loom_print(f.user_context, line.c_str());
    out[0].u = 0;
}

// op: index of the value piece (0 for print_value, 1 for print_value_when).
void eval_print_value(Node &n, Frame &f, Scalar *out) {
    int first = n.op;
    if (first == 1 && n.run(0, f)[0].u == 0) {
        n.run(n.text_kid[1], f);
    } else {
        std::string line = pieces(n, f, first, " ") + "\n";
        loom_print(f.user_context, line.c_str());
    }
    std::memcpy(out, n.kid_out(n.text_kid[first], f), sizeof(Scalar) * n.lanes);
}

// intrinsic::require (condition, value, error call): where the condition is
// false in any lane, reports the error once and leaves its code in the frame
// (the enclosing statements return it); the value is returned either way.
void eval_require(Node &n, Frame &f, Scalar *out) {
    Scalar *condition = n.run(0, f);
    bool holds = true;
    for (int i = 0; i < n.kids[0]->lanes; i++) holds = holds && condition[i].u != 0;
    if (!holds && f.failure == 0) {
        int code = (int)n.run(2, f)[0].i;
        f.failure = code != 0 ? code : loom_error_code_generic;
    }
    std::memcpy(out, n.run(1, f), sizeof(Scalar) * n.lanes);
}

// ---------------------------------------------------------------- trace

// intrinsic::trace (lower/InjectTracing.cpp): texts = {func, tag}, op = the
// event, constants[0] = value_index; kid 0 is the value, kid 1 the parent
// id, kids 2.. the coordinates. Builds the loom_trace_event_t the LLVM back
// end builds (a half float is reported as a float) and returns the value of
// a load or store, the handler's id for the event otherwise.
void eval_trace(Node &n, Frame &f, Scalar *out) {
    const Type t = n.kids[0]->type;
    const int lanes = n.kids[0]->lanes;
    const bool has_value = n.op == loom_trace_load || n.op == loom_trace_store;
    Scalar *value = n.run(0, f);
    std::vector<int32_t> coordinates;
    const int coordinate_lanes = has_value ? lanes : 1;
    const int32_t parent_id = (int32_t)n.run(1, f)[0].i;
    for (size_t k = 2; k < n.kids.size(); k++) {
        Scalar *c = n.run((int)k, f);
        for (int i = 0; i < coordinate_lanes; i++) coordinates.push_back((int32_t)c[n.kids[k]->lanes > 1 ? i : 0].i);
    }
    const Kind kind = kind_of(t);
    int bits = t.is_bool() ? 8 : t.bits();
    if (kind == Kind::F16) bits = 32;
    const int bytes = bits <= 8 ? 1 : bits <= 16 ? 2 : bits <= 32 ? 4 : 8;
    std::vector<uint8_t> values((size_t)bytes * lanes);
    for (int i = 0; i < lanes; i++) {
        uint8_t *dst = values.data() + (size_t)bytes * i;
        if (kind == Kind::F32 || kind == Kind::F16) {
            float x = (float)value[i].f;
            std::memcpy(dst, &x, 4);
        } else if (kind == Kind::F64) {
            std::memcpy(dst, &value[i].f, 8);
        } else {
            std::memcpy(dst, &value[i].u, bytes);  // the low bytes (little-endian hosts)
        }
    }
    // A tag's numbers are appended to its text (the func_type_and_dim tags).
    std::string tag = n.texts[1];
    if (n.op == loom_trace_tag && !coordinates.empty()) {
        for (int32_t c : coordinates) tag += " " + std::to_string(c);
        coordinates.clear();
    }
    loom_trace_event_t e;
    e.func = n.texts[0].c_str();
    e.value = has_value ? values.data() : nullptr;
    e.coordinates = coordinates.data();
    e.trace_tag = tag.empty() ? nullptr : tag.c_str();
    e.type.code = (uint8_t)(t.is_int() ? loom_type_int : t.is_uint() ? loom_type_uint
                                                       : t.is_float() ? loom_type_float : loom_type_handle);
    e.type.bits = (uint8_t)(kind == Kind::F16 ? 32 : t.bits());
    e.type.lanes = (uint16_t)(has_value ? lanes : 1);
    e.event = n.op;
    e.parent_id = parent_id;
    e.value_index = (int32_t)n.constants[0].i;
    e.dimensions = (int32_t)coordinates.size();
    const int32_t id = loom_trace(f.user_context, &e);
    if (has_value) {
        std::memcpy(out, value, sizeof(Scalar) * n.lanes);
    } else {
        for (int i = 0; i < n.lanes; i++) out[i].i = id;
    }
}

// ---------------------------------------------------------------- bits

void eval_identity(Node &n, Frame &f, Scalar *out) {
    std::memcpy(out, n.run(0, f), sizeof(Scalar) * n.lanes);
}

/** memoize_lookup / memoize_store (lower/Memoize.h): texts[0] is the
 * identity, slot the buffer's host pointer; kids are the byte count, then
 * (store) has_eviction_key and the eviction key, then the key words. */
void eval_memoize(Node &n, Frame &f, Scalar *out) {
    const bool store = n.op == 1;
    const size_t first_key = store ? 3 : 1;
    const Region &r = f.regions[n.slot];
    if (!r.base) fail("Interpreter: memoized buffer '" + n.name + "' has no memory");
    int64_t bytes = n.run(0, f)[0].i;
    std::vector<uint64_t> key;
    for (size_t k = first_key; k < n.kids.size(); k++) key.push_back(n.run((int)k, f)[0].u);
    if (store) {
        out[0].i = loom_memoization_cache_store(f.user_context, n.texts[0].c_str(), key.data(), (int32_t)key.size(),
                                                r.base, bytes, (int32_t)n.run(1, f)[0].i, n.run(2, f)[0].u);
    } else {
        out[0].i = loom_memoization_cache_lookup(f.user_context, n.texts[0].c_str(), key.data(),
                                                 (int32_t)key.size(), r.base, bytes);
    }
}

/** loom_atomic_mutex_lock / _unlock (lower/LowerAtomics.h): op 1 unlocks;
 * the kid is the key. */
void eval_atomic_mutex(Node &n, Frame &f, Scalar *out) {
    const uint64_t key = n.run(0, f)[0].u;
    out[0].i = n.op == 1 ? loom_atomic_mutex_unlock(f.user_context, key) : loom_atomic_mutex_lock(f.user_context, key);
}

/** semaphore_acquire / semaphore_release (Func::async): op 0 acquires, 1
 * releases. A poisoned semaphore's error becomes the frame's failure, which
 * the enclosing statements return. make_semaphore is a LetStmt's value
 * only; CompileStmt.cpp makes its storage. */
void eval_semaphore(Node &n, Frame &f, Scalar *out) {
    void *semaphore = (void *)(uintptr_t)n.run(0, f)[0].u;
    const int count = (int)n.run(1, f)[0].i;
    if (n.op == 1) {
        out[0].i = loom_semaphore_release(semaphore, count);
        return;
    }
    const int result = loom_semaphore_acquire(semaphore, count);
    if (result != 0 && f.failure == 0) f.failure = result;
    out[0].i = 0;
}

/** intrinsic::prefetch: a cache hint, nothing to do here (its Load, which
 * may lie outside the buffer with PrefetchBoundStrategy::NonFaulting, is not
 * evaluated). */
void eval_zero(Node &n, Frame &f, Scalar *out) { std::memset(out, 0, sizeof(Scalar) * n.lanes); }

void eval_abs(Node &n, Frame &f, Scalar *out) {
    Scalar *a = n.run(0, f);
    Kind from = kind_of(n.kids[0]->type), to = kind_of(n.type);
    for (int i = 0; i < n.lanes; i++) {
        Scalar r;
        if (from == Kind::Int) {
            r.u = a[i].i < 0 ? 0 - (uint64_t)a[i].i : (uint64_t)a[i].i;
        } else if (from == Kind::UInt) {
            r.u = a[i].u;
        } else {
            r.f = std::fabs(a[i].f);
        }
        out[i] = normalize(n.type, to, r);
    }
}

void eval_is_nan(Node &n, Frame &f, Scalar *out) {
    Scalar *a = n.run(0, f);
    for (int i = 0; i < n.lanes; i++) out[i].u = std::isnan(a[i].f);
}

// op: 0 and, 1 or, 2 xor, 3 not. Sign-extended ints combine correctly as raw bits.
void eval_bitwise(Node &n, Frame &f, Scalar *out) {
    Scalar *a = n.run(0, f);
    Scalar *b = n.kids.size() > 1 ? n.run(1, f) : a;
    Kind k = kind_of(n.type);
    for (int i = 0; i < n.lanes; i++) {
        Scalar r;
        switch (n.op) {
        case 0: r.u = a[i].u & b[i].u; break;
        case 1: r.u = a[i].u | b[i].u; break;
        case 2: r.u = a[i].u ^ b[i].u; break;
        default: r.u = ~a[i].u; break;
        }
        out[i] = normalize(n.type, k, r);
    }
}

// op: 0 left, 1 right. A negative signed amount shifts the other way; an
// amount of the type's width or more shifts everything out (sign bits remain
// for a signed right shift). Compiled code must match these definitions.
void eval_shift(Node &n, Frame &f, Scalar *out) {
    Scalar *a = n.run(0, f);
    Scalar *b = n.run(1, f);
    Kind k = kind_of(n.type);
    const bool signed_amount = n.kids[1]->type.is_int();
    const int bits = n.type.bits();
    for (int i = 0; i < n.lanes; i++) {
        int64_t amount = signed_amount ? b[i].i : (b[i].u > 1024 ? 1024 : (int64_t)b[i].u);
        bool left = n.op == 0;
        if (amount < 0) {
            left = !left;
            amount = amount < -1024 ? 1024 : -amount;
        }
        Scalar r;
        if (left) {
            r.u = amount >= bits ? 0 : a[i].u << amount;
        } else if (k == Kind::Int) {
            r.i = amount >= bits ? (a[i].i < 0 ? -1 : 0) : a[i].i >> amount;
        } else {
            r.u = amount >= bits ? 0 : a[i].u >> amount;
        }
        out[i] = normalize(n.type, k, r);
    }
}

// ---------------------------------------------------------------- math

struct MathFunction {
    int arity;
    float (*f1)(float);
    double (*d1)(double);
    float (*f2)(float, float);
    double (*d2)(double, double);
};

const std::unordered_map<std::string, MathFunction> &math_functions() {
#define LOOM_F1(name) {#name, {1, [](float x) { return ::name(x); }, nullptr, nullptr, nullptr}}
#define LOOM_D1(name) {#name, {1, nullptr, [](double x) { return ::name(x); }, nullptr, nullptr}}
#define LOOM_F2(name) {#name, {2, nullptr, nullptr, [](float x, float y) { return ::name(x, y); }, nullptr}}
#define LOOM_D2(name) {#name, {2, nullptr, nullptr, nullptr, [](double x, double y) { return ::name(x, y); }}}
#define LOOM_BOTH1(f, d) LOOM_F1(f), LOOM_D1(d)
#define LOOM_BOTH2(f, d) LOOM_F2(f), LOOM_D2(d)
    static const std::unordered_map<std::string, MathFunction> table = {
        LOOM_BOTH1(sinf, sin),     LOOM_BOTH1(cosf, cos),       LOOM_BOTH1(tanf, tan),
        LOOM_BOTH1(asinf, asin),   LOOM_BOTH1(acosf, acos),     LOOM_BOTH1(atanf, atan),
        LOOM_BOTH1(sinhf, sinh),   LOOM_BOTH1(coshf, cosh),     LOOM_BOTH1(tanhf, tanh),
        LOOM_BOTH1(asinhf, asinh), LOOM_BOTH1(acoshf, acosh),   LOOM_BOTH1(atanhf, atanh),
        LOOM_BOTH1(expf, exp),     LOOM_BOTH1(exp2f, exp2),     LOOM_BOTH1(expm1f, expm1),
        LOOM_BOTH1(logf, log),     LOOM_BOTH1(log2f, log2),     LOOM_BOTH1(log10f, log10),
        LOOM_BOTH1(log1pf, log1p), LOOM_BOTH1(sqrtf, sqrt),     LOOM_BOTH1(cbrtf, cbrt),
        LOOM_BOTH1(floorf, floor), LOOM_BOTH1(ceilf, ceil),     LOOM_BOTH1(roundf, round),
        LOOM_BOTH1(truncf, trunc), LOOM_BOTH1(nearbyintf, nearbyint), LOOM_BOTH1(rintf, rint),
        LOOM_BOTH1(fabsf, fabs),   LOOM_BOTH1(erff, erf),       LOOM_BOTH2(powf, pow),
        LOOM_BOTH2(atan2f, atan2), LOOM_BOTH2(fmodf, fmod),     LOOM_BOTH2(hypotf, hypot),
        LOOM_BOTH2(fminf, fmin),   LOOM_BOTH2(fmaxf, fmax),     LOOM_BOTH2(copysignf, copysign),
    };
#undef LOOM_F1
#undef LOOM_D1
#undef LOOM_F2
#undef LOOM_D2
#undef LOOM_BOTH1
#undef LOOM_BOTH2
    return table;
}

// The float or the double C function, whichever the name denotes; results
// are rounded to the call's type (a Float(16) call uses the float function).
void eval_math(Node &n, Frame &f, Scalar *out) {
    const MathFunction &m = *(const MathFunction *)n.function;
    Scalar *a = n.run(0, f);
    Scalar *b = m.arity == 2 ? n.run(1, f) : nullptr;
    const Kind k = kind_of(n.type);
    for (int i = 0; i < n.lanes; i++) {
        double r;
        if (m.f1) {
            r = m.f1((float)a[i].f);
        } else if (m.d1) {
            r = m.d1(a[i].f);
        } else if (m.f2) {
            r = m.f2((float)a[i].f, (float)b[i].f);
        } else {
            r = m.d2(a[i].f, b[i].f);
        }
        out[i].f = r;
        out[i] = normalize(n.type, k, out[i]);
    }
}

// a * b + c rounded once: fmaf for Float(32) (and halves), fma for Float(64).
void eval_fma(Node &n, Frame &f, Scalar *out) {
    Scalar *a = n.run(0, f);
    Scalar *b = n.run(1, f);
    Scalar *c = n.run(2, f);
    const Kind k = kind_of(n.type);
    for (int i = 0; i < n.lanes; i++) {
        if (k == Kind::F64) {
            out[i].f = std::fma(a[i].f, b[i].f, c[i].f);
        } else {
            out[i].f = std::fmaf((float)a[i].f, (float)b[i].f, (float)c[i].f);
        }
        out[i] = normalize(n.type, k, out[i]);
    }
}

NodePtr call_node(const Call *c, EvalFn fn, int op = 0) {
    auto n = std::make_unique<Node>();
    n->type = c->type;
    n->lanes = c->type.lanes();
    n->name = c->name;
    n->fn = fn;
    n->op = op;
    return n;
}

void require_args(const Call *c, size_t count) {
    if (c->args.size() < count) {
        fail("Interpreter: call to " + c->name + " needs " + std::to_string(count) + " arguments, has " +
             std::to_string(c->args.size()));
    }
}

}  // namespace

NodePtr Compiler::call(const Call *c) {
    if (c->call_type == CallType::Image || c->call_type == CallType::Func) {
        fail("Interpreter: call to " + c->name +
             " reads a Func or image by coordinates; lowered code must use Load (run storage flattening first)");
    }
    if (c->call_type == CallType::Extern &&
        (c->name == atomic_mutex_lock_function || c->name == atomic_mutex_unlock_function)) {
        require_args(c, 2);
        NodePtr n = call_node(c, eval_atomic_mutex, c->name == atomic_mutex_unlock_function ? 1 : 0);
        n->add_kid(expr(c->args[1]));
        return n;
    }
    if (c->call_type == CallType::Extern) {
        return make_thrower(c->type, "Interpreter: cannot call extern function " + c->name);
    }
    if (c->call_type == CallType::PureExtern) {
        auto it = math_functions().find(c->name);
        if (it == math_functions().end() || !c->type.is_float() || kind_of(c->type) == Kind::Handle) {
            return make_thrower(c->type, "Interpreter: unknown extern function " + c->name);
        }
        // Float(16) computes in float: "sqrt" on halves means sqrtf.
        if (kind_of(c->type) == Kind::F16 && !it->second.f1 && !it->second.f2) {
            it = math_functions().find(c->name + "f");
            if (it == math_functions().end()) {
                return make_thrower(c->type, "Interpreter: no float version of extern function " + c->name);
            }
        }
        require_args(c, it->second.arity);
        NodePtr n = call_node(c, eval_math);
        n->function = &it->second;
        for (int k = 0; k < it->second.arity; k++) n->add_kid(expr(c->args[k]));
        return n;
    }

    const std::string &name = c->name;
    NodePtr n;
    size_t arity = 1;  // leading arguments compiled as children
    if (name == intrinsic::buffer_get_host) {
        n = call_node(c, eval_buffer_host);
    } else if (name == intrinsic::buffer_get_min || name == intrinsic::buffer_get_extent ||
               name == intrinsic::buffer_get_stride) {
        int op = name == intrinsic::buffer_get_min ? 0 : name == intrinsic::buffer_get_extent ? 1 : 2;
        n = call_node(c, eval_buffer_dim, op);
        arity = 2;
    } else if (name == intrinsic::buffer_get_dimensions || name == intrinsic::buffer_get_type_code ||
               name == intrinsic::buffer_get_type_bits) {
        int op = name == intrinsic::buffer_get_dimensions ? 0 : name == intrinsic::buffer_get_type_code ? 1 : 2;
        n = call_node(c, eval_buffer_field, op);
    } else if (name == intrinsic::buffer_set_bounds) {
        n = call_node(c, eval_buffer_set_bounds);
        arity = 4;
    } else if (name == intrinsic::buffer_is_null) {
        n = call_node(c, eval_buffer_is_null);
    } else if (name == intrinsic::buffer_host_is_null) {
        n = call_node(c, eval_buffer_host_is_null);
    } else if (name == intrinsic::likely || name == intrinsic::promise_clamped) {
        n = call_node(c, eval_identity);
    } else if (name == intrinsic::atomic_update) {
        // The Store around it takes the element's lock (CompileMemory.cpp).
        n = call_node(c, eval_identity);
    } else if (name == intrinsic::semaphore_acquire || name == intrinsic::semaphore_release) {
        n = call_node(c, eval_semaphore, name == intrinsic::semaphore_release ? 1 : 0);
        arity = 2;
    } else if (name == intrinsic::make_semaphore) {
        fail("Interpreter: make_semaphore outside the value of a LetStmt");
    } else if (name == intrinsic::prefetch) {
        return call_node(c, eval_zero);
    } else if (name == memoize_lookup_intrinsic || name == memoize_store_intrinsic) {
        const bool store = name == memoize_store_intrinsic;
        require_args(c, store ? 5 : 3);
        const StringImm *id = c->args[0].as<StringImm>(), *buffer = c->args[1].as<StringImm>();
        if (!id || !buffer) return make_thrower(c->type, "Interpreter: malformed " + name + " call");
        n = call_node(c, eval_memoize, store ? 1 : 0);
        n->name = buffer->value;
        n->texts = {id->value};
        n->slot = lookup(buffer->value);
        if (n->slot < 0) {
            return make_thrower(c->type, "Interpreter: memoized buffer '" + buffer->value + "' is not bound");
        }
        for (size_t k = 2; k < c->args.size(); k++) n->add_kid(expr(c->args[k]));
        return n;
    } else if (name == intrinsic::abs) {
        n = call_node(c, eval_abs);
    } else if (name == intrinsic::is_nan) {
        n = call_node(c, eval_is_nan);
    } else if (name == intrinsic::bitwise_and || name == intrinsic::bitwise_or || name == intrinsic::bitwise_xor) {
        int op = name == intrinsic::bitwise_and ? 0 : name == intrinsic::bitwise_or ? 1 : 2;
        n = call_node(c, eval_bitwise, op);
        arity = 2;
    } else if (name == intrinsic::bitwise_not) {
        n = call_node(c, eval_bitwise, 3);
    } else if (name == intrinsic::shift_left || name == intrinsic::shift_right) {
        n = call_node(c, eval_shift, name == intrinsic::shift_left ? 0 : 1);
        arity = 2;
    } else if (name == intrinsic::error || name == intrinsic::print || name == intrinsic::print_value ||
               name == intrinsic::print_value_when) {
        // Message pieces: StringImms are kept as text, the rest are children.
        size_t first = 0;
        if (name == intrinsic::error) {
            n = call_node(c, eval_error);
            require_args(c, 1);
            first = 1;
        } else if (name == intrinsic::print) {
            n = call_node(c, eval_print);
        } else {
            int value_piece = name == intrinsic::print_value ? 0 : 1;
            require_args(c, value_piece + 1);
            n = call_node(c, eval_print_value, value_piece);
            first = value_piece + 1;  // the value itself is printed as a value
        }
        for (size_t k = 0; k < c->args.size(); k++) {
            const StringImm *text = c->args[k].as<StringImm>();
            if (text && k >= first) {
                n->texts.push_back(text->value);
                n->text_kid.push_back(-1);
            } else {
                n->texts.emplace_back();
                n->text_kid.push_back(n->add_kid(expr(c->args[k])));
            }
        }
        return n;
    } else if (name == intrinsic::require) {
        n = call_node(c, eval_require);
        arity = 3;
    } else if (name == intrinsic::trace) {
        require_args(c, 6);
        const StringImm *func = c->args[0].as<StringImm>(), *tag = c->args[3].as<StringImm>();
        const IntImm *event = c->args[1].as<IntImm>(), *value_index = c->args[2].as<IntImm>();
        if (!func || !tag || !event || !value_index) return make_thrower(c->type, "Interpreter: malformed trace call");
        n = call_node(c, eval_trace, (int)event->value);
        n->texts = {func->value, tag->value};
        Scalar index;
        index.i = value_index->value;
        n->constants = {index};
        n->add_kid(expr(c->args[5]));  // the value
        n->add_kid(expr(c->args[4]));  // the parent id
        for (size_t k = 6; k < c->args.size(); k++) n->add_kid(expr(c->args[k]));
        return n;
    } else if (name == intrinsic::fma) {
        n = call_node(c, eval_fma);
        arity = 3;
    } else if (Expr lowered = lower_bit_intrinsic(c); lowered.defined()) {
        // saturating_add/sub and the bit counts: the shared plain-IR form.
        return expr(lowered);
    } else {
        return make_thrower(c->type, "Interpreter: unknown intrinsic " + name);
    }
    require_args(c, arity);
    for (size_t k = 0; k < arity; k++) n->add_kid(expr(c->args[k]));
    return n;
}

}  // namespace interp
}  // namespace internal
}  // namespace loom
