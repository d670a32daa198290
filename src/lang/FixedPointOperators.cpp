// Saturating, widening and fixed-point arithmetic, concise casts, rounding
// toward zero, and bit manipulation (declared in loom/IROperator.h).
//
// Most of these are built as plain IR here, once, so every back end and the
// interpreter run the same definition. The forms are chosen so that LLVM
// recognises the x86 instructions: narrow((widen(a) + widen(b) + 1) >> 1)
// is pavg, (widen(a) * widen(b)) >> 16 narrowed is pmulhw. The few operators that LLVM only
// emits as one instruction from its own intrinsic (saturating add/sub and
// the bit counts) stay calls; ir/LowerBitIntrinsics.h lowers them for the
// other back ends.

#include <cmath>

#include "ir/IR.h"
#include "ir/IRUtil.h"
#include "lang/IROperatorInternal.h"
#include "loom/Error.h"
#include "loom/IROperator.h"

namespace loom {

using namespace internal;

namespace {

[[noreturn]] void fail(const char *op, const std::string &why) { throw CompileError(std::string(op) + "(): " + why); }

void require_defined(const Expr &e, const char *op) {
    if (!e.defined()) fail(op, "an operand is an undefined Expr.");
}

void require_integer(const Expr &e, const char *op) {
    require_defined(e, op);
    if (!e.type().is_int_or_uint() || e.type().is_bool()) {
        fail(op, "needs integer operands, but " + describe_operand(e) + " is not one.");
    }
}

void require_number(const Expr &e, const char *op) {
    require_defined(e, op);
    if (e.type().is_handle() || e.type().is_bool()) {
        fail(op, "needs numeric operands, but " + describe_operand(e) + " is not one.");
    }
}

// The type of twice the bits; there is none past 64.
Type widened(Type t, const char *op) {
    if (t.bits() >= 64) fail(op, "cannot widen the 64-bit type " + t.element_of().to_string() + ".");
    return t.with_bits(t.bits() * 2);
}

void match_lanes(Expr &a, Expr &b, const char *op) {
    int la = a.type().lanes(), lb = b.type().lanes();
    if (la == lb) return;
    if (la != 1 && lb != 1) {
        fail(op, "the operands " + describe_operand(a) + " and " + describe_operand(b) +
                     " have different lane counts.");
    }
    if (la == 1) a = Broadcast::make(a, lb);
    if (lb == 1) b = Broadcast::make(b, la);
}

// The narrower integer gets the other's bits, keeping its signedness.
void match_bits(Expr &a, Expr &b) {
    if (a.type().bits() < b.type().bits()) a = cast(a.type().with_bits(b.type().bits()), a);
    if (b.type().bits() < a.type().bits()) b = cast(b.type().with_bits(a.type().bits()), b);
}

Expr intrinsic_call(Type t, const char *name, std::vector<Expr> args) {
    return Call::make(t, name, args, CallType::PureIntrinsic);
}

// a shifted by amount, which has a's bits and lanes and keeps its own
// signedness (a negative amount shifts the other way).
Expr shift_by(const Expr &a, Expr amount, bool left) {
    if (amount.type().bits() != a.type().bits()) amount = cast(amount.type().with_bits(a.type().bits()), amount);
    if (amount.type().lanes() != a.type().lanes()) amount = Broadcast::make(amount, a.type().lanes());
    return intrinsic_call(a.type(), left ? intrinsic::shift_left : intrinsic::shift_right, {a, std::move(amount)});
}

Expr shift_by(const Expr &a, int amount, bool left) {
    if (amount < 0) return shift_by(a, -amount, !left);
    return shift_by(a, make_const(a.type().with_code(TypeCode::UInt), amount), left);
}

std::optional<int64_t> constant_amount(const Expr &b) {
    if (auto v = as_const_int(b)) return v;
    if (auto v = as_const_uint(b); v && *v <= 1024) return (int64_t)*v;
    return std::nullopt;
}

// A constant shift amount as an unsigned constant of a's bits; negative
// amounts flip the direction, as in Halide.
Expr int_shift_amount(const Expr &a, int b, const char *op) {
    require_integer(a, op);
    if (b < -a.type().bits() * 2 || b > a.type().bits() * 2) {
        fail(op, "the shift amount " + std::to_string(b) + " is out of range for " + describe_operand(a) + ".");
    }
    return make_const(a.type().with_code(TypeCode::UInt), std::abs(b));
}

void two_same_integers(Expr &a, Expr &b, const char *op) {
    require_integer(a, op);
    require_integer(b, op);
    match_operand_types(a, b, op);
}

}  // namespace

// ---------------------------------------------------------------- saturating

Expr saturating_cast(Type t, Expr e) {
    const char *op = "saturating_cast";
    require_defined(e, op);
    if (!t.defined() || t.is_handle() || e.type().is_handle()) {
        fail(op, "cannot convert " + describe_operand(e) + " to " + (t.defined() ? t.to_string() : "an undefined type") +
                     ".");
    }
    if (t.is_scalar() && e.type().is_vector()) t = t.with_lanes(e.type().lanes());
    Type from = e.type().element_of(), to = t.element_of();
    if (from == to || to.is_bool() || from.is_bool()) return cast(t, e);
    if (to.is_float()) {
        // Only a narrower float can overflow; integers all fit a float's range
        // (uint64 rounds to at most 2^64, below FLT_MAX).
        if (from.is_float() && from.bits() > to.bits()) e = clamp(e, to.min(), to.max());
        return cast(t, e);
    }
    if (from.is_float()) {
        if (from.bits() == 16) e = cast(Float(32, e.type().lanes()), e);
        from = e.type().element_of();
        // The largest float of e's type not beyond each end of t's range.
        auto inside = [&](long double bound) {
            double d = (double)bound;
            if (from.bits() == 32) {
                float f = (float)bound;
                if ((long double)f > bound && bound > 0) f = std::nextafter(f, 0.0f);
                if ((long double)f < bound && bound < 0) f = std::nextafter(f, 0.0f);
                return (double)f;
            }
            if ((long double)d > bound && bound > 0) d = std::nextafter(d, 0.0);
            if ((long double)d < bound && bound < 0) d = std::nextafter(d, 0.0);
            return d;
        };
        long double lo = to.is_uint() ? 0.0L : -std::ldexp(1.0L, to.bits() - 1);
        long double hi = to.is_uint() ? std::ldexp(1.0L, to.bits()) - 1 : std::ldexp(1.0L, to.bits() - 1) - 1;
        Expr clamped = Max::make(Min::make(e, make_const(e.type(), inside(hi))), make_const(e.type(), inside(lo)));
        return cast(t, clamped);
    }
    // Integer to integer: clamp only at the ends where t's range is narrower.
    const bool need_lo = from.is_int() && (to.is_uint() || to.bits() < from.bits());
    const bool need_hi = to.bits() < from.bits() || (to.bits() == from.bits() && from.is_uint() && to.is_int());
    if (need_hi) {
        uint64_t hi = to.is_uint() ? (to.bits() == 64 ? ~0ull : (1ull << to.bits()) - 1) : (1ull << (to.bits() - 1)) - 1;
        e = Min::make(e, make_const(e.type(), hi));
    }
    if (need_lo) {
        int64_t lo = to.is_uint() ? 0 : -(int64_t)(1ull << (to.bits() - 1));
        e = Max::make(e, make_const(e.type(), lo));
    }
    return cast(t, e);
}

Expr saturating_add(Expr a, Expr b) {
    require_number(a, "saturating_add");
    require_number(b, "saturating_add");
    match_operand_types(a, b, "saturating_add");
    if (a.type().is_float()) return a + b;
    Type t = a.type();
    return intrinsic_call(t, intrinsic::saturating_add, {std::move(a), std::move(b)});
}

Expr saturating_sub(Expr a, Expr b) {
    require_number(a, "saturating_sub");
    require_number(b, "saturating_sub");
    match_operand_types(a, b, "saturating_sub");
    if (a.type().is_float()) return a - b;
    Type t = a.type();
    return intrinsic_call(t, intrinsic::saturating_sub, {std::move(a), std::move(b)});
}

// ---------------------------------------------------------------- widening

Expr widening_add(Expr a, Expr b) {
    require_number(a, "widening_add");
    require_number(b, "widening_add");
    match_operand_types(a, b, "widening_add");
    Type wide = widened(a.type(), "widening_add");
    return cast(wide, a) + cast(wide, b);
}

Expr widening_sub(Expr a, Expr b) {
    require_number(a, "widening_sub");
    require_number(b, "widening_sub");
    match_operand_types(a, b, "widening_sub");
    Type wide = widened(a.type(), "widening_sub");
    if (wide.is_uint()) wide = wide.with_code(TypeCode::Int);  // the difference may be negative
    return cast(wide, a) - cast(wide, b);
}

Expr widening_mul(Expr a, Expr b) {
    const char *op = "widening_mul";
    require_number(a, op);
    require_number(b, op);
    if (a.type().is_float() || b.type().is_float()) {
        match_operand_types(a, b, op);
        Type wide = widened(a.type(), op);
        return cast(wide, a) * cast(wide, b);
    }
    // The operands may differ in signedness and bits.
    match_lanes(a, b, op);
    match_bits(a, b);
    Type wide = widened(a.type(), op);
    if (b.type().is_int()) wide = wide.with_code(TypeCode::Int);
    return cast(wide, a) * cast(wide, b);
}

namespace {

/** widening_shift_left/right: a widened, then shifted by b. */
Expr widening_shift(Expr a, Expr b, bool left) {
    const char *op = left ? "widening_shift_left" : "widening_shift_right";
    require_integer(a, op);
    require_integer(b, op);
    match_lanes(a, b, op);
    match_bits(a, b);
    Type wide = widened(a.type(), op);
    return shift_by(cast(wide, a), std::move(b), left);
}

}  // namespace

Expr widening_shift_left(Expr a, Expr b) { return widening_shift(std::move(a), std::move(b), true); }

Expr widening_shift_left(Expr a, int b) {
    Expr amount = int_shift_amount(a, b, "widening_shift_left");
    return b >= 0 ? widening_shift_left(std::move(a), amount) : widening_shift_right(std::move(a), amount);
}

Expr widening_shift_right(Expr a, Expr b) { return widening_shift(std::move(a), std::move(b), false); }

Expr widening_shift_right(Expr a, int b) {
    Expr amount = int_shift_amount(a, b, "widening_shift_right");
    return b >= 0 ? widening_shift_right(std::move(a), amount) : widening_shift_left(std::move(a), amount);
}

namespace {

// a op widen(b) where a must already have twice b's bits.
Expr widen_right(Expr a, Expr b, const char *op) {
    require_integer(a, op);
    require_integer(b, op);
    match_lanes(a, b, op);
    Type wide = widened(b.type(), op);
    if (wide != a.type()) {
        fail(op, "the left operand " + describe_operand(a) + " must have the type " + wide.to_string() +
                     ", twice the bits of the right operand " + describe_operand(b) + ".");
    }
    return cast(wide, b);
}

}  // namespace

Expr widen_right_add(Expr a, Expr b) {
    Expr wide_b = widen_right(a, std::move(b), "widen_right_add");
    return a + wide_b;
}
Expr widen_right_sub(Expr a, Expr b) {
    Expr wide_b = widen_right(a, std::move(b), "widen_right_sub");
    return a - wide_b;
}
Expr widen_right_mul(Expr a, Expr b) {
    Expr wide_b = widen_right(a, std::move(b), "widen_right_mul");
    return a * wide_b;
}

// ---------------------------------------------------------------- halving

namespace {

// (a op b + round) >> 1 in the wider signed (for sub) or same-signed type,
// narrowed back, which LLVM matches to pavg for the rounding add. 64-bit
// types have no wider type: bitwise forms that cannot overflow instead.
Expr halving(Expr a, Expr b, bool subtract, bool round, const char *op) {
    require_number(a, op);
    require_number(b, op);
    match_operand_types(a, b, op);
    Type t = a.type();
    if (t.is_float()) {
        Expr sum = subtract ? a - b : a + b;
        return sum * make_const(t, 0.5);
    }
    if (t.bits() < 64) {
        Type wide = t.with_bits(t.bits() * 2);
        if (subtract) wide = wide.with_code(TypeCode::Int);
        Expr w = subtract ? cast(wide, a) - cast(wide, b) : cast(wide, a) + cast(wide, b);
        if (round) w = w + make_one(wide);
        return cast(t, shift_by(w, 1, false));
    }
    Expr one = make_one(t);
    Expr a_half = shift_by(a, 1, false), b_half = shift_by(b, 1, false);
    Expr a_low = a & one, b_low = b & one;
    if (subtract) return a_half - b_half - shift_by(b_low - a_low + one, 1, false);
    if (round) return a_half + b_half + shift_by(a_low + b_low + one, 1, false);
    return (a & b) + shift_by(a ^ b, 1, false);
}

}  // namespace

Expr halving_add(Expr a, Expr b) { return halving(std::move(a), std::move(b), false, false, "halving_add"); }
Expr halving_sub(Expr a, Expr b) { return halving(std::move(a), std::move(b), true, false, "halving_sub"); }
Expr rounding_halving_add(Expr a, Expr b) {
    return halving(std::move(a), std::move(b), false, true, "rounding_halving_add");
}

// ---------------------------------------------------------------- rounding shifts

namespace {

// a >> b, plus one if the last bit shifted out was a one: rounds halves up
// and never overflows. For a negative b this is a << -b; rounding_shift_left
// mirrors it.
Expr rounding_shift(Expr a, Expr b, bool left, const char *op) {
    require_integer(a, op);
    require_integer(b, op);
    match_lanes(a, b, op);
    match_bits(a, b);
    Type t = a.type();
    if (auto k = constant_amount(b)) {
        int64_t right = left ? -*k : *k;
        if (right <= 0) return shift_by(a, (int)std::min<int64_t>(-right, 1024), true);
        if (right > t.bits()) return make_zero(t);
        return shift_by(a, (int)right, false) + (shift_by(a, (int)right - 1, false) & make_one(t));
    }
    Expr one = make_one(b.type());
    Expr rounds = left ? b < make_zero(b.type()) : b > make_zero(b.type());
    Expr round_bit = left ? shift_by(a, b + one, true) : shift_by(a, b - one, false);
    Expr rounding = select(rounds, round_bit & make_one(t), make_zero(t));
    return shift_by(a, b, left) + rounding;
}

}  // namespace

Expr rounding_shift_right(Expr a, Expr b) {
    return rounding_shift(std::move(a), std::move(b), false, "rounding_shift_right");
}
Expr rounding_shift_right(Expr a, int b) {
    require_integer(a, "rounding_shift_right");
    Expr amount = make_const(a.type().with_code(TypeCode::Int), b);
    return rounding_shift(std::move(a), amount, false, "rounding_shift_right");
}
Expr rounding_shift_left(Expr a, Expr b) {
    return rounding_shift(std::move(a), std::move(b), true, "rounding_shift_left");
}
Expr rounding_shift_left(Expr a, int b) {
    require_integer(a, "rounding_shift_left");
    Expr amount = make_const(a.type().with_code(TypeCode::Int), b);
    return rounding_shift(std::move(a), amount, true, "rounding_shift_left");
}

// ---------------------------------------------------------------- mul_shift_right

namespace {

Expr mul_shift(Expr a, Expr b, Expr q, bool round, const char *op) {
    two_same_integers(a, b, op);
    require_defined(q, op);
    if (!q.type().is_uint() || q.type().is_bool()) {
        fail(op, "the shift " + describe_operand(q) + " must be an unsigned integer.");
    }
    match_lanes(a, q, op);
    match_lanes(b, q, op);
    Type t = a.type();
    Expr product = widening_mul(a, b);
    Type wide = product.type();
    q = cast(UInt(wide.bits(), q.type().lanes()), q);
    auto k = constant_amount(q);
    Expr shifted;
    if (k && round && *k >= 1) {
        // ((p >> (k - 1)) + 1) >> 1 cannot overflow for a product of two
        // narrow values, and is the shape of x86's pmulhrsw.
        Expr p = shift_by(product, (int)*k - 1, false) + make_one(wide);
        shifted = shift_by(p, 1, false);
    } else if (round) {
        shifted = rounding_shift_right(product, q);
    } else {
        shifted = shift_by(product, q, false);
    }
    return saturating_cast(t, shifted);
}

Expr const_shift(const Expr &a, int q, const char *op) {
    require_integer(a, op);
    if (q < 0 || q > 2 * a.type().bits()) {
        fail(op, "the shift " + std::to_string(q) + " is out of range for " + describe_operand(a) + ".");
    }
    return make_const(UInt(a.type().bits()), q);
}

}  // namespace

Expr mul_shift_right(Expr a, Expr b, Expr q) {
    return mul_shift(std::move(a), std::move(b), std::move(q), false, "mul_shift_right");
}
Expr mul_shift_right(Expr a, Expr b, int q) {
    Expr qe = const_shift(a, q, "mul_shift_right");
    return mul_shift(std::move(a), std::move(b), qe, false, "mul_shift_right");
}
Expr rounding_mul_shift_right(Expr a, Expr b, Expr q) {
    return mul_shift(std::move(a), std::move(b), std::move(q), true, "rounding_mul_shift_right");
}
Expr rounding_mul_shift_right(Expr a, Expr b, int q) {
    Expr qe = const_shift(a, q, "rounding_mul_shift_right");
    return mul_shift(std::move(a), std::move(b), qe, true, "rounding_mul_shift_right");
}

// ---------------------------------------------------------------- concise casts

Expr u8(Expr e) { return cast(UInt(8), std::move(e)); }
Expr u16(Expr e) { return cast(UInt(16), std::move(e)); }
Expr u32(Expr e) { return cast(UInt(32), std::move(e)); }
Expr u64(Expr e) { return cast(UInt(64), std::move(e)); }
Expr i8(Expr e) { return cast(Int(8), std::move(e)); }
Expr i16(Expr e) { return cast(Int(16), std::move(e)); }
Expr i32(Expr e) { return cast(Int(32), std::move(e)); }
Expr i64(Expr e) { return cast(Int(64), std::move(e)); }
Expr f16(Expr e) { return cast(Float(16), std::move(e)); }
Expr f32(Expr e) { return cast(Float(32), std::move(e)); }
Expr f64(Expr e) { return cast(Float(64), std::move(e)); }
Expr u8_sat(Expr e) { return saturating_cast(UInt(8), std::move(e)); }
Expr u16_sat(Expr e) { return saturating_cast(UInt(16), std::move(e)); }
Expr u32_sat(Expr e) { return saturating_cast(UInt(32), std::move(e)); }
Expr u64_sat(Expr e) { return saturating_cast(UInt(64), std::move(e)); }
Expr i8_sat(Expr e) { return saturating_cast(Int(8), std::move(e)); }
Expr i16_sat(Expr e) { return saturating_cast(Int(16), std::move(e)); }
Expr i32_sat(Expr e) { return saturating_cast(Int(32), std::move(e)); }
Expr i64_sat(Expr e) { return saturating_cast(Int(64), std::move(e)); }

// ---------------------------------------------------------------- rounding toward zero

namespace {

// From the Euclidean quotient q and remainder r (0 <= r < |y|): when x is
// negative and r is not zero, C's quotient is one step toward zero and its
// remainder is r - |y|. A zero divisor gives 0 either way.
void round_to_zero(const Expr &x, const Expr &y, Expr &quotient, Expr &remainder) {
    Expr q = x / y, r = x % y;
    Type t = x.type();
    if (t.is_uint()) {
        quotient = q;
        remainder = r;
        return;
    }
    Expr zero = make_zero(t), one = make_one(t);
    Expr adjust = x < zero && r != zero;
    Expr y_negative = y < zero;
    quotient = select(adjust, q + select(y_negative, zero - one, one), q);
    remainder = select(adjust, select(y_negative, r + y, r - y), r);
}

}  // namespace

Expr div_round_to_zero(Expr x, Expr y) {
    two_same_integers(x, y, "div_round_to_zero");
    Expr q, r;
    round_to_zero(x, y, q, r);
    return q;
}

Expr mod_round_to_zero(Expr x, Expr y) {
    two_same_integers(x, y, "mod_round_to_zero");
    Expr q, r;
    round_to_zero(x, y, q, r);
    return r;
}

// ---------------------------------------------------------------- bits

namespace {

Expr bit_count(Expr x, const char *name) {
    require_integer(x, name);
    Type t = x.type();
    return intrinsic_call(t, name, {std::move(x)});
}

}  // namespace

Expr count_leading_zeros(Expr x) { return bit_count(std::move(x), intrinsic::count_leading_zeros); }
Expr count_trailing_zeros(Expr x) { return bit_count(std::move(x), intrinsic::count_trailing_zeros); }
Expr popcount(Expr x) { return bit_count(std::move(x), intrinsic::popcount); }

Expr extract_bits(Type t, const Expr &e, const Expr &lsb) {
    const char *op = "extract_bits";
    require_integer(e, op);
    require_integer(lsb, op);
    if (!t.defined() || t.is_handle()) fail(op, "the result type must be a number type.");
    const int lanes = e.type().lanes();
    if (lsb.type().lanes() != lanes && lsb.type().lanes() != 1) {
        fail(op, "the bit index " + describe_operand(lsb) + " and the value " + describe_operand(e) +
                     " have different lane counts.");
    }
    t = t.with_lanes(lanes);
    Type u = UInt(e.type().bits(), lanes);
    Expr bits = e.type().is_uint() ? e : reinterpret(u, e);
    Expr amount = lsb.type().is_int() ? cast(Int(u.bits(), lsb.type().lanes()), lsb)
                                      : cast(UInt(u.bits(), lsb.type().lanes()), lsb);
    Expr shifted = shift_by(bits, amount, false);
    if (t.is_bool()) return (shifted & make_one(u)) != make_zero(u);
    Expr narrowed = cast(UInt(t.bits(), lanes), shifted);  // zero-extends or keeps the low bits
    return t.is_uint() ? narrowed : reinterpret(t, narrowed);
}

Expr concat_bits(const std::vector<Expr> &e) {
    const char *op = "concat_bits";
    if (e.empty()) fail(op, "needs at least one value.");
    if ((e.size() & (e.size() - 1)) != 0) {
        fail(op, "needs a power-of-two number of values, not " + std::to_string(e.size()) + ".");
    }
    for (const Expr &v : e) require_integer(v, op);
    Type t = e[0].type();
    for (const Expr &v : e) {
        if (v.type() != t) {
            fail(op, "all values must have one type, but " + describe_operand(v) + " differs from " +
                         describe_operand(e[0]) + ".");
        }
    }
    const int total = t.bits() * (int)e.size();
    if (total > 64) fail(op, "the result would have " + std::to_string(total) + " bits; at most 64 are allowed.");
    if (e.size() == 1) return e[0];
    Type wide = UInt(total, t.lanes());
    Expr result;
    for (size_t i = 0; i < e.size(); i++) {
        Expr piece = cast(wide, t.is_uint() ? e[i] : reinterpret(t.with_code(TypeCode::UInt), e[i]));
        if (i > 0) piece = shift_by(piece, (int)i * t.bits(), true);
        result = result.defined() ? (result | piece) : piece;
    }
    return t.is_uint() ? result : reinterpret(t.with_bits(total), result);
}

// ---------------------------------------------------------------- mux

Expr mux(const Expr &id, const std::initializer_list<Expr> &values) { return mux(id, std::vector<Expr>(values)); }

Expr mux(const Expr &id, const std::vector<Expr> &values) {
    const char *op = "mux";
    if (values.empty()) fail(op, "needs at least one value to choose from.");
    require_integer(id, op);
    for (const Expr &v : values) require_defined(v, op);
    if (values.size() == 1) return values[0];
    Type t = values[0].type();
    for (const Expr &v : values) {
        if (v.type() != t) {
            fail(op, "all values must have one type, but " + describe_operand(v) + " differs from " +
                         describe_operand(values[0]) + ".");
        }
    }
    // Any index out of range selects the last value, as in Halide.
    Expr result = values.back();
    for (size_t i = values.size() - 1; i-- > 0;) {
        if (!id.type().element_of().can_represent((int64_t)i)) continue;  // no id reaches it
        Expr index = make_const(id.type().element_of(), (int64_t)i);
        result = select(id == index, values[i], result);
    }
    return result;
}

}  // namespace loom
