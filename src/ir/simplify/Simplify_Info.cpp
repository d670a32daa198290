// ExprInfo: constant bounds and alignment of integer expressions. Every
// operation here is sound for the exact (unwrapped) value; fit_to_type then
// keeps what survives the type's wrapping. Arithmetic on the facts themselves
// is overflow-checked: an overflow means "unknown", never a wrong bound.

#include <algorithm>

#include "ir/simplify/SimplifyInternal.h"

namespace loom {
namespace internal {
namespace simplify_impl {

namespace {

using Opt = std::optional<int64_t>;

Opt checked(__int128 v) {
    if (v < (__int128)INT64_MIN || v > (__int128)INT64_MAX) return std::nullopt;
    return (int64_t)v;
}

Opt add_opt(Opt a, Opt b) { return (a && b) ? checked((__int128)*a + *b) : std::nullopt; }
Opt sub_opt(Opt a, Opt b) { return (a && b) ? checked((__int128)*a - *b) : std::nullopt; }
Opt mul_opt(Opt a, Opt b) { return (a && b) ? checked((__int128)*a * *b) : std::nullopt; }

ExprInfo unknown() { return ExprInfo(); }

/** Puts remainder in [0, modulus) (modulus 0 means the exact value). */
void normalize_alignment(ExprInfo &i) {
    if (i.modulus < 0) i.modulus = -i.modulus;
    if (i.modulus > 0) i.remainder = euclid_mod(i.remainder, i.modulus);
    if (i.modulus == 1) i.remainder = 0;
}

void no_alignment(ExprInfo &i) {
    i.modulus = 1;
    i.remainder = 0;
}

/** Sets the alignment from (modulus, remainder) computed in 128 bits. */
void set_alignment(ExprInfo &i, __int128 m, __int128 r) {
    if (m < 0) m = -m;
    if (m == 0) {
        Opt v = checked(r);
        if (!v) return no_alignment(i);
        i.modulus = 0;
        i.remainder = *v;
        return;
    }
    if (m > (__int128)INT64_MAX) return no_alignment(i);
    i.modulus = (int64_t)m;
    __int128 rr = r % m;
    if (rr < 0) rr += m;
    i.remainder = (int64_t)rr;
    normalize_alignment(i);
}

__int128 gcd128(__int128 a, __int128 b) {
    if (a < 0) a = -a;
    if (b < 0) b = -b;
    while (b) {
        __int128 r = a % b;
        a = b;
        b = r;
    }
    return a;
}

/** Narrows the bounds with an exact alignment, and the reverse. */
void tidy(ExprInfo &i) {
    normalize_alignment(i);
    if (i.modulus == 0) {
        if ((i.min && *i.min > i.remainder) || (i.max && *i.max < i.remainder)) {
            no_alignment(i);  // contradictory facts (dead code): keep the bounds only
            return;
        }
        i.min = i.max = i.remainder;
        return;
    }
    // Round the bounds inwards to values of the right residue.
    if (i.modulus > 1) {
        Opt lo = i.min, hi = i.max;
        if (lo) {
            __int128 up = ((__int128)i.remainder - *lo) % i.modulus;
            if (up < 0) up += i.modulus;
            lo = checked((__int128)*lo + up);
        }
        if (hi) {
            __int128 down = ((__int128)*hi - i.remainder) % i.modulus;
            if (down < 0) down += i.modulus;
            hi = checked((__int128)*hi - down);
        }
        if (lo && hi && *lo > *hi) {
            no_alignment(i);  // contradictory facts (dead code): keep the bounds only
            return;
        }
        if (lo) i.min = lo;
        if (hi) i.max = hi;
    }
    if (i.is_constant()) {
        i.modulus = 0;
        i.remainder = *i.min;
    }
}

}  // namespace

ExprInfo info_of_type(Type t) {
    ExprInfo i;
    if (t.is_bool()) {
        i.min = 0;
        i.max = 1;
    } else if (t.is_int_or_uint()) {
        i.min = type_min(t);
        i.max = type_max(t);
    }
    return i;
}

ExprInfo fit_to_type(Type t, ExprInfo i) {
    if (!t.is_int_or_uint()) return unknown();
    if (no_overflow(t)) {
        // Already inside the type: nothing to clamp (the common case).
        if (i.min && i.max && *i.min >= *type_min(t) && *i.max <= *type_max(t)) return i;
        ExprInfo r = info_intersect(i, info_of_type(t));
        if (r.min && r.max && *r.min > *r.max) return info_of_type(t);
        return r;
    }
    return wrap_to_type(t, i);
}

ExprInfo wrap_to_type(Type t, ExprInfo i) {
    if (!t.is_int_or_uint()) return unknown();
    Opt tmin = type_min(t), tmax = type_max(t);
    if (t.is_bool()) {
        tmin = 0;
        tmax = 1;
    }
    bool fits = i.min && i.max && *i.min >= *tmin && (!tmax || *i.max <= *tmax);
    if (fits) return i;
    // The value wraps: only residues modulo a divisor of 2^bits survive.
    ExprInfo r = info_of_type(t);
    if (i.modulus == 0) {
        int64_t v = wrap_to(t, i.remainder);
        if (t.is_uint() && t.bits() >= 64 && v < 0) return r;
        return ExprInfo::constant(v);
    }
    int64_t m = i.modulus;
    int64_t pow2 = m & -m;  // the largest power of two dividing m
    if (t.bits() < 62) pow2 = std::min<int64_t>(pow2, int64_t(1) << t.bits());
    if (pow2 > 1) {
        r.modulus = pow2;
        r.remainder = euclid_mod(i.remainder, pow2);
    }
    return r;
}

ExprInfo info_intersect(const ExprInfo &a, const ExprInfo &b) {
    ExprInfo r;
    r.min = a.min ? (b.min ? std::max(*a.min, *b.min) : *a.min) : b.min;
    r.max = a.max ? (b.max ? std::min(*a.max, *b.max) : *a.max) : b.max;
    if (a.modulus == 0) {
        r.modulus = 0;
        r.remainder = a.remainder;
    } else if (b.modulus == 0) {
        r.modulus = 0;
        r.remainder = b.remainder;
    } else if (b.modulus % a.modulus == 0) {
        r.modulus = b.modulus;
        r.remainder = b.remainder;
    } else {
        r.modulus = a.modulus;
        r.remainder = a.remainder;
    }
    tidy(r);
    return r;
}

ExprInfo info_union(const ExprInfo &a, const ExprInfo &b) {
    ExprInfo r;
    if (a.min && b.min) r.min = std::min(*a.min, *b.min);
    if (a.max && b.max) r.max = std::max(*a.max, *b.max);
    __int128 m = gcd128(gcd128(a.modulus, b.modulus), (__int128)a.remainder - b.remainder);
    set_alignment(r, m, a.remainder);
    tidy(r);
    return r;
}

ExprInfo info_add(const ExprInfo &a, const ExprInfo &b) {
    ExprInfo r;
    r.min = add_opt(a.min, b.min);
    r.max = add_opt(a.max, b.max);
    set_alignment(r, gcd128(a.modulus, b.modulus), (__int128)a.remainder + b.remainder);
    tidy(r);
    return r;
}

ExprInfo info_sub(const ExprInfo &a, const ExprInfo &b) {
    ExprInfo r;
    r.min = sub_opt(a.min, b.max);
    r.max = sub_opt(a.max, b.min);
    set_alignment(r, gcd128(a.modulus, b.modulus), (__int128)a.remainder - b.remainder);
    tidy(r);
    return r;
}

ExprInfo info_mul(const ExprInfo &a, const ExprInfo &b) {
    ExprInfo r;
    bool a_pos = a.min && *a.min >= 0, a_neg = a.max && *a.max <= 0;
    bool b_pos = b.min && *b.min >= 0, b_neg = b.max && *b.max <= 0;
    if ((a.is_constant() && *a.min == 0) || (b.is_constant() && *b.min == 0)) {
        return ExprInfo::constant(0);
    } else if (a_pos && b_pos) {
        r.min = mul_opt(a.min, b.min);
        r.max = mul_opt(a.max, b.max);
    } else if (a_pos && b_neg) {
        r.min = mul_opt(a.max, b.min);
        r.max = mul_opt(a.min, b.max);
    } else if (a_neg && b_pos) {
        r.min = mul_opt(a.min, b.max);
        r.max = mul_opt(a.max, b.min);
    } else if (a_neg && b_neg) {
        r.min = mul_opt(a.max, b.max);
        r.max = mul_opt(a.min, b.min);
    } else if (a.bounded() && b.bounded()) {
        Opt p[4] = {mul_opt(a.min, b.min), mul_opt(a.min, b.max), mul_opt(a.max, b.min), mul_opt(a.max, b.max)};
        bool ok = p[0] && p[1] && p[2] && p[3];
        if (ok) {
            r.min = std::min({*p[0], *p[1], *p[2], *p[3]});
            r.max = std::max({*p[0], *p[1], *p[2], *p[3]});
        }
    }
    // (ma*i + ra)(mb*j + rb) = ma*mb*ij + ma*rb*i + mb*ra*j + ra*rb
    __int128 ma = a.modulus, mb = b.modulus, ra = a.remainder, rb = b.remainder;
    __int128 m = gcd128(gcd128(ma * mb, ma * rb), mb * ra);
    set_alignment(r, m, ra * rb);
    tidy(r);
    return r;
}

ExprInfo info_div(const ExprInfo &a, const ExprInfo &b) {
    ExprInfo r;
    if (b.is_constant()) {
        int64_t k = *b.min;
        if (k == 0) return ExprInfo::constant(0);
        if (k == -1 && !(a.min && *a.min > INT64_MIN)) return r;  // INT64_MIN / -1 wraps
        // a / k is increasing in a for k > 0 and decreasing for k < 0.
        if (k > 0) {
            if (a.min) r.min = euclid_div(*a.min, k);
            if (a.max) r.max = euclid_div(*a.max, k);
        } else {
            if (a.max) r.min = euclid_div(*a.max, k);
            if (a.min) r.max = euclid_div(*a.min, k);
        }
        if (a.modulus == 0) {
            set_alignment(r, 0, euclid_div(a.remainder, k));
        } else if (k != INT64_MIN && a.modulus % k == 0) {
            // a = m*i + rem with k | m: a / k = (m / k)*i + rem / k (Euclidean).
            set_alignment(r, a.modulus / k, euclid_div(a.remainder, k));
        }
        tidy(r);
        return r;
    }
    if (b.min && *b.min > 0) {
        // a / b is increasing in a, and in b decreasing for a >= 0, increasing for a < 0.
        if (a.min) r.min = *a.min >= 0 ? (b.max ? euclid_div(*a.min, *b.max) : 0) : euclid_div(*a.min, *b.min);
        if (a.max) r.max = *a.max >= 0 ? euclid_div(*a.max, *b.min) : (b.max ? euclid_div(*a.max, *b.max) : -1);
        return r;
    }
    if (b.max && *b.max < 0 && b.min && a.bounded() && *b.max != -1 && *b.min != -1) {
        // Monotone in each operand for a fixed sign of a: the extremes are at corners.
        int64_t p[4] = {euclid_div(*a.min, *b.min), euclid_div(*a.min, *b.max), euclid_div(*a.max, *b.min),
                        euclid_div(*a.max, *b.max)};
        r.min = std::min({p[0], p[1], p[2], p[3]});
        r.max = std::max({p[0], p[1], p[2], p[3]});
        return r;
    }
    // Any divisor, zero included: |a / b| <= |a|.
    if (a.bounded() && *a.min > INT64_MIN) {
        int64_t m = std::max({*a.max, -*a.min, int64_t(0)});
        r.min = -m;
        r.max = m;
    }
    return r;
}

ExprInfo info_mod(const ExprInfo &a, const ExprInfo &b) {
    ExprInfo r;
    r.min = 0;
    if (b.is_constant()) {
        int64_t k = *b.min;
        if (k == 0 || k == 1 || k == -1) return ExprInfo::constant(0);
        if (k == INT64_MIN) return r;
        int64_t m = k < 0 ? -k : k;
        r.max = m - 1;
        if (a.bounded() && euclid_div(*a.min, m) == euclid_div(*a.max, m)) {
            r.min = euclid_mod(*a.min, m);
            r.max = euclid_mod(*a.max, m);
        }
        __int128 g = gcd128(a.modulus, m);
        if (g == m) return ExprInfo::constant(euclid_mod(a.remainder, m));  // m divides a's modulus
        set_alignment(r, g, a.remainder);
        tidy(r);
        return r;
    }
    if (b.bounded() && *b.min > INT64_MIN) {
        int64_t m = std::max({*b.max, -*b.min, int64_t(1)});
        r.max = m - 1;
    }
    if (a.min && *a.min >= 0 && a.max) r.max = r.max ? std::min(*r.max, *a.max) : *a.max;
    return r;
}

ExprInfo info_min(const ExprInfo &a, const ExprInfo &b) {
    ExprInfo r = info_union(a, b);
    r.min = (a.min && b.min) ? Opt(std::min(*a.min, *b.min)) : std::nullopt;
    r.max = a.max ? (b.max ? std::min(*a.max, *b.max) : *a.max) : b.max;
    tidy(r);
    return r;
}

ExprInfo info_max(const ExprInfo &a, const ExprInfo &b) {
    ExprInfo r = info_union(a, b);
    r.min = a.min ? (b.min ? std::max(*a.min, *b.min) : *a.min) : b.min;
    r.max = (a.max && b.max) ? Opt(std::max(*a.max, *b.max)) : std::nullopt;
    tidy(r);
    return r;
}

// ------------------------------------------------------------ info_of

ExprInfo Simplifier::info_of(const Expr &e) {
    Type t = e.type();
    if (!t.is_int_or_uint()) return unknown();
    // Rules ask about the same operands over and over (every min/max of a
    // nested min/max tree asks about its whole subtree): remember the answers
    // for inner nodes until what is known about variables changes.
    bool cacheable = e.node_type() != IRNodeType::Variable && e.node_type() != IRNodeType::IntImm &&
                     e.node_type() != IRNodeType::UIntImm && e.node_type() != IRNodeType::Let;
    if (!cacheable) return fit_to_type(t, info_of_node(e));
    auto it = info_cache_.find((const void *)e.get());
    if (it != info_cache_.end()) return it->second.info;
    ExprInfo info = fit_to_type(t, info_of_node(e));
    info_cache_.emplace((const void *)e.get(), CachedInfo{e, info});
    return info;
}

ExprInfo Simplifier::info_of_cast(const Cast *op) {
    Type from = op->value.type();
    if (from.is_bool()) return info_of_type(Bool());
    // A cast wraps, even to Int(32)/Int(64) (whose arithmetic is assumed not
    // to overflow): int32(x_uint32) may be negative.
    if (from.is_int_or_uint()) return wrap_to_type(op->type, info_of(op->value));
    return info_of_type(op->type);
}

ExprInfo Simplifier::info_of_call(const Call *op) {
    if ((op->is_intrinsic(intrinsic::likely) || op->is_intrinsic(intrinsic::promise_clamped)) && !op->args.empty() &&
        op->args[0].type() == op->type) {
        return info_of(op->args[0]);
    }
    if (op->is_intrinsic(intrinsic::abs) && op->args.size() == 1 && op->args[0].type().is_int_or_uint()) {
        ExprInfo a = info_of(op->args[0]);
        ExprInfo r;
        if (a.min && *a.min >= 0) return a;
        if (a.bounded() && *a.min > INT64_MIN) {
            if (*a.max <= 0) {
                r.min = -*a.max;
                r.max = -*a.min;
            } else {
                r.min = 0;
                r.max = std::max(*a.max, -*a.min);
            }
            return r;
        }
        r.min = 0;
        return r;
    }
    if (op->is_intrinsic(intrinsic::bitwise_and) && op->args.size() == 2) {
        for (const Expr &arg : op->args) {
            auto k = const_int(arg);
            if (k && *k >= 0 && (op->type.is_uint() || *k <= *type_max(op->type))) {
                ExprInfo r;
                r.min = 0;
                r.max = *k;
                return r;
            }
        }
    }
    return info_of_type(op->type);
}

ExprInfo Simplifier::info_of_node(const Expr &e) {
    Type t = e.type();
    switch (e.node_type()) {
    case IRNodeType::IntImm:
        return ExprInfo::constant(e.as<IntImm>()->value);
    case IRNodeType::UIntImm: {
        uint64_t v = e.as<UIntImm>()->value;
        if (v > (uint64_t)INT64_MAX) return info_of_type(t);
        return ExprInfo::constant((int64_t)v);
    }
    case IRNodeType::Broadcast:
        return info_of(e.as<Broadcast>()->value);
    case IRNodeType::Variable: {
        const ExprInfo *i = var_info_.find(e.as<Variable>()->name);
        return i ? info_intersect(*i, info_of_type(t)) : info_of_type(t);
    }
    case IRNodeType::Add: {
        const auto *op = e.as<Add>();
        return info_add(info_of(op->a), info_of(op->b));
    }
    case IRNodeType::Sub: {
        const auto *op = e.as<Sub>();
        return info_sub(info_of(op->a), info_of(op->b));
    }
    case IRNodeType::Mul: {
        const auto *op = e.as<Mul>();
        return info_mul(info_of(op->a), info_of(op->b));
    }
    case IRNodeType::Div: {
        const auto *op = e.as<Div>();
        ExprInfo a = info_of(op->a), b = info_of(op->b);
        if (t.is_uint() && b.is_constant() && *b.min < 0) return info_of_type(t);
        return info_div(a, b);
    }
    case IRNodeType::Mod: {
        const auto *op = e.as<Mod>();
        return info_mod(info_of(op->a), info_of(op->b));
    }
    case IRNodeType::Min: {
        const auto *op = e.as<Min>();
        return info_min(info_of(op->a), info_of(op->b));
    }
    case IRNodeType::Max: {
        const auto *op = e.as<Max>();
        return info_max(info_of(op->a), info_of(op->b));
    }
    case IRNodeType::Select: {
        const auto *op = e.as<Select>();
        return info_union(info_of(op->true_value), info_of(op->false_value));
    }
    case IRNodeType::Cast:
        return info_of_cast(e.as<Cast>());
    case IRNodeType::Ramp: {
        const auto *op = e.as<Ramp>();
        ExprInfo lanes;
        lanes.min = 0;
        lanes.max = op->lanes - 1;
        return info_add(info_of(op->base), info_mul(info_of(op->stride), lanes));
    }
    case IRNodeType::Call:
        return info_of_call(e.as<Call>());
    case IRNodeType::Let: {
        const auto *op = e.as<Let>();
        ExprInfo v = info_of(op->value);
        info_cache_.clear();
        var_info_.push(op->name, v);
        ExprInfo r = info_of(op->body);
        var_info_.pop(op->name);
        info_cache_.clear();
        return r;
    }
    default:
        return info_of_type(t);
    }
}

}  // namespace simplify_impl
}  // namespace internal
}  // namespace loom
