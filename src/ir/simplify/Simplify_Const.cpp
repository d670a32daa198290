// Reading, making and folding constants with Loom's integer semantics.

#include <cmath>
#include <limits>
#include <vector>

#include "ir/IREquality.h"
#include "ir/IRUtil.h"
#include "ir/IRVisitor.h"

#include "ir/simplify/SimplifyInternal.h"

namespace loom {
namespace internal {
namespace simplify_impl {

std::optional<int64_t> const_int(const Expr &e) {
    if (!e.defined()) return std::nullopt;
    if (const auto *b = e.as<Broadcast>()) return const_int(b->value);
    if (const auto *i = e.as<IntImm>()) return i->value;
    if (const auto *u = e.as<UIntImm>()) return (int64_t)u->value;
    return std::nullopt;
}

namespace {

/** The signs of the floating-point zero constants of an expression, in
 * visiting order. */
struct ZeroSigns : IRVisitor {
    std::vector<bool> signs;
    using IRVisitor::visit;
    void visit(const FloatImm *op) override {
        if (op->value == 0) signs.push_back(std::signbit(op->value));
    }
};

}  // namespace

bool identical(const Expr &a, const Expr &b) {
    if (a.same_as(b)) return true;
    if (!equal(a, b)) return false;
    // Same shape, so the visiting orders match.
    ZeroSigns za, zb;
    a.accept(&za);
    b.accept(&zb);
    return za.signs == zb.signs;
}

std::optional<double> const_float(const Expr &e) {
    if (!e.defined()) return std::nullopt;
    if (const auto *b = e.as<Broadcast>()) return const_float(b->value);
    if (const auto *f = e.as<FloatImm>()) return f->value;
    return std::nullopt;
}

bool is_constant(const Expr &e) { return const_int(e).has_value() || const_float(e).has_value(); }

std::optional<bool> const_bool(const Expr &e) {
    if (!e.defined() || !e.type().is_bool()) return std::nullopt;
    auto v = const_int(e);
    if (!v) return std::nullopt;
    return *v != 0;
}

Expr int_const(Type t, int64_t bits) {
    Type s = t.element_of();
    Expr c;
    if (s.is_uint()) {
        c = UIntImm::make(s, (uint64_t)bits);
    } else if (s.is_int()) {
        c = IntImm::make(s, bits);
    } else if (s.is_float()) {
        c = FloatImm::make(s, (double)bits);
    } else {
        throw InternalError("int_const of type " + t.to_string());
    }
    return t.is_vector() ? Broadcast::make(c, t.lanes()) : c;
}

Expr float_const(Type t, double value) {
    Expr c = FloatImm::make(t.element_of(), value);
    return t.is_vector() ? Broadcast::make(c, t.lanes()) : c;
}

Expr bool_const(bool value, int lanes) {
    Expr c = UIntImm::make(Bool(), value ? 1 : 0);
    return lanes > 1 ? Broadcast::make(c, lanes) : c;
}

int64_t normalize_signed(Type t, int64_t v) {
    int bits = t.bits();
    if (bits >= 64) return v;
    uint64_t mask = (uint64_t(1) << bits) - 1;
    uint64_t u = (uint64_t)v & mask;
    uint64_t sign = uint64_t(1) << (bits - 1);
    return (int64_t)((u ^ sign) - sign);
}

int64_t wrap_to(Type t, int64_t v) {
    if (t.is_int()) return normalize_signed(t, v);
    int bits = t.bits();
    if (bits >= 64) return v;
    return (int64_t)((uint64_t)v & ((uint64_t(1) << bits) - 1));
}

int64_t floor_div(int64_t a, int64_t b) {
    if (b == 0) return 0;
    if (b == -1) return (int64_t)(0 - (uint64_t)a);  // INT64_MIN / -1 wraps
    int64_t q = a / b, r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) q--;
    return q;
}

// Loom's division: IRUtil's definition, shared with the interpreter.
int64_t euclid_div(int64_t a, int64_t b) { return div_euclid(a, b); }

int64_t euclid_mod(int64_t a, int64_t b) { return mod_euclid(a, b); }

int64_t gcd64(int64_t a, int64_t b) {
    uint64_t x = a < 0 ? 0 - (uint64_t)a : (uint64_t)a;
    uint64_t y = b < 0 ? 0 - (uint64_t)b : (uint64_t)b;
    while (y) {
        uint64_t r = x % y;
        x = y;
        y = r;
    }
    // gcd(INT64_MIN, 0) does not fit; callers treat a non-positive result as "no information".
    return x > (uint64_t)std::numeric_limits<int64_t>::max() ? 0 : (int64_t)x;
}

int64_t fold_mul(Type t, int64_t a, int64_t b) { return wrap_to(t, (int64_t)((uint64_t)a * (uint64_t)b)); }

int64_t fold_div(Type t, int64_t a, int64_t b) {
    if (b == 0) return 0;
    if (t.is_uint()) return wrap_to(t, (int64_t)((uint64_t)a / (uint64_t)b));
    return wrap_to(t, euclid_div(a, b));
}

int64_t fold_mod(Type t, int64_t a, int64_t b) {
    if (b == 0) return 0;
    if (t.is_uint()) return wrap_to(t, (int64_t)((uint64_t)a % (uint64_t)b));
    return wrap_to(t, euclid_mod(a, b));
}

bool fold_lt(Type t, int64_t a, int64_t b) {
    if (t.is_uint()) return (uint64_t)a < (uint64_t)b;
    return a < b;
}

}  // namespace simplify_impl
}  // namespace internal
}  // namespace loom
