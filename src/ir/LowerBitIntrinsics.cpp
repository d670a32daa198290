#include "ir/LowerBitIntrinsics.h"

#include "ir/IRUtil.h"
#include "loom/Error.h"

namespace loom {
namespace internal {

namespace {

Expr bit_call(const char *name, std::vector<Expr> args) {
    Type t = args[0].type();
    return Call::make(t, name, args, CallType::PureIntrinsic);
}

Expr shift_right_by(const Expr &a, int amount) {
    return bit_call(intrinsic::shift_right, {a, make_const(a.type(), amount)});
}

Expr bit_and(const Expr &a, const Expr &b) { return bit_call(intrinsic::bitwise_and, {a, b}); }
Expr bit_or(const Expr &a, const Expr &b) { return bit_call(intrinsic::bitwise_or, {a, b}); }
Expr bit_not(const Expr &a) { return bit_call(intrinsic::bitwise_not, {a}); }

// A pattern constant of 64 bits cut to the width of t.
Expr pattern(Type t, uint64_t bits64) {
    uint64_t mask = t.bits() == 64 ? ~0ull : ((1ull << t.bits()) - 1);
    return make_const(t, bits64 & mask);
}

// Counts the ones of an unsigned value (the classic SWAR sum: pairs,
// nibbles, bytes, then one multiply adds the bytes into the top byte).
Expr popcount_unsigned(const Expr &u) {
    Type t = u.type();
    Expr v = Sub::make(u, bit_and(shift_right_by(u, 1), pattern(t, 0x5555555555555555ull)));
    Expr m2 = pattern(t, 0x3333333333333333ull);
    v = Add::make(bit_and(v, m2), bit_and(shift_right_by(v, 2), m2));
    v = bit_and(Add::make(v, shift_right_by(v, 4)), pattern(t, 0x0f0f0f0f0f0f0f0full));
    if (t.bits() > 8) v = shift_right_by(Mul::make(v, pattern(t, 0x0101010101010101ull)), t.bits() - 8);
    return v;
}

Expr as_unsigned(const Expr &x) {
    Type t = x.type();
    return t.is_uint() ? x : Reinterpret::make(t.with_code(TypeCode::UInt), x);
}

Expr from_unsigned(Type t, const Expr &u) { return t.is_uint() ? u : Reinterpret::make(t, u); }

Expr lower_count(const Call *op) {
    Type t = op->type;
    Expr u = as_unsigned(op->args[0]);
    if (op->is_intrinsic(intrinsic::popcount)) return from_unsigned(t, popcount_unsigned(u));
    if (op->is_intrinsic(intrinsic::count_trailing_zeros)) {
        // The ones below the lowest set bit (all ones for 0).
        Expr below = bit_and(bit_not(u), Sub::make(u, make_one(u.type())));
        return from_unsigned(t, popcount_unsigned(below));
    }
    // Leading zeros: smear the highest one downwards, count the zeros left.
    Expr v = u;
    for (int s = 1; s < t.bits(); s *= 2) v = bit_or(v, shift_right_by(v, s));
    return from_unsigned(t, popcount_unsigned(bit_not(v)));
}

// Clamps a first so that adding (subtracting) b cannot leave the type's
// range: no wider type is needed, which suits every back end.
Expr lower_saturating(const Call *op, bool add) {
    const Expr &a = op->args[0], &b = op->args[1];
    Type t = a.type();
    Expr tmin = t.min(), tmax = t.max();  // broadcast for vectors
    Expr zero = make_zero(t);
    Expr lo = add ? Sub::make(tmin, Min::make(b, zero)) : Add::make(tmin, Max::make(b, zero));
    Expr hi = add ? Sub::make(tmax, Max::make(b, zero)) : Add::make(tmax, Min::make(b, zero));
    Expr clamped = Max::make(Min::make(a, hi), lo);
    return add ? Add::make(clamped, b) : Sub::make(clamped, b);
}

}  // namespace

bool is_bit_intrinsic(const Call *op) {
    for (const char *n : {intrinsic::saturating_add, intrinsic::saturating_sub, intrinsic::count_leading_zeros,
                          intrinsic::count_trailing_zeros, intrinsic::popcount, intrinsic::fma}) {
        if (op->is_intrinsic(n)) return true;
    }
    return false;
}

Expr lower_bit_intrinsic(const Call *op) {
    const bool saturating = op->is_intrinsic(intrinsic::saturating_add) || op->is_intrinsic(intrinsic::saturating_sub);
    const bool count = op->is_intrinsic(intrinsic::count_leading_zeros) ||
                       op->is_intrinsic(intrinsic::count_trailing_zeros) || op->is_intrinsic(intrinsic::popcount);
    if (!saturating && !count) return Expr();
    if (op->args.size() != (saturating ? 2u : 1u) || !op->args[0].type().is_int_or_uint()) {
        throw InternalError("lower_bit_intrinsic: malformed call to " + op->name);
    }
    if (saturating) return lower_saturating(op, op->is_intrinsic(intrinsic::saturating_add));
    return lower_count(op);
}

}  // namespace internal
}  // namespace loom
