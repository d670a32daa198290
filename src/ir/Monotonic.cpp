// Monotonicity of an expression in one variable (ir/Monotonic.h).
//
// Bottom-up over the expression: a node that does not use the variable is
// Constant; the variable itself is Increasing; sums and differences, min and
// max, multiplication and Euclidean division by a constant, widening casts
// and selects on a condition free of the variable combine their operands'
// directions. Only types whose arithmetic is assumed exact (signed 32- and
// 64-bit integers) are trusted: anywhere else a wrap could reverse the order.

#include "ir/Monotonic.h"

#include <optional>

#include "ir/IRUtil.h"
#include "ir/Substitute.h"

namespace loom {
namespace internal {

namespace {

Monotonic flip(Monotonic m) {
    switch (m) {
    case Monotonic::Increasing: return Monotonic::Decreasing;
    case Monotonic::Decreasing: return Monotonic::Increasing;
    default: return m;
    }
}

/** The direction of a + b (also of min(a, b), max(a, b), and of both
 * branches of a select): agreeing directions, Constant being neutral. */
Monotonic unify(Monotonic a, Monotonic b) {
    if (a == Monotonic::Constant) return b;
    if (b == Monotonic::Constant) return a;
    return a == b ? a : Monotonic::Unknown;
}

bool exact_arithmetic(Type t) { return t.is_scalar() && t.is_int() && t.bits() >= 32; }

/** The sign of a constant integer: -1, 0 or 1; nothing if e is not one. */
std::optional<int> constant_sign(const Expr &e) {
    std::optional<int64_t> v = as_const_int(e);
    if (!v) return std::nullopt;
    return *v > 0 ? 1 : *v < 0 ? -1 : 0;
}

class MonotonicIn {
public:
    explicit MonotonicIn(const std::string &var) : var_(var) {}

    Monotonic of(const Expr &e) {
        if (const auto *v = e.as<Variable>()) {
            if (v->name != var_) return Monotonic::Constant;
            return exact_arithmetic(v->type) ? Monotonic::Increasing : Monotonic::Unknown;
        }
        if (is_const(e)) return Monotonic::Constant;
        if (!exact_arithmetic(e.type())) return opaque(e);
        if (const auto *op = e.as<Add>()) return unify(of(op->a), of(op->b));
        if (const auto *op = e.as<Sub>()) return unify(of(op->a), flip(of(op->b)));
        if (const auto *op = e.as<Min>()) return unify(of(op->a), of(op->b));
        if (const auto *op = e.as<Max>()) return unify(of(op->a), of(op->b));
        if (const auto *op = e.as<Mul>()) {
            if (auto s = constant_sign(op->b)) return scaled(of(op->a), *s);
            if (auto s = constant_sign(op->a)) return scaled(of(op->b), *s);
            return opaque(e);
        }
        if (const auto *op = e.as<Div>()) {
            // Euclidean division by a positive constant rounds down: it keeps
            // the order; by a negative one it reverses it.
            auto s = constant_sign(op->b);
            if (!s || *s == 0) return opaque(e);
            return scaled(of(op->a), *s);
        }
        if (const auto *op = e.as<Cast>()) {
            // Only widening between exact types keeps every value.
            const Type from = op->value.type();
            if (exact_arithmetic(from) && op->type.bits() >= from.bits()) return of(op->value);
            return opaque(e);
        }
        if (const auto *op = e.as<Select>()) {
            if (expr_uses_var(op->condition, var_)) return Monotonic::Unknown;
            return unify(of(op->true_value), of(op->false_value));
        }
        if (const auto *op = e.as<Let>()) {
            // A let whose value is free of the variable is a constant name in
            // its body; one that shadows the variable, or depends on it, is
            // not followed.
            if (op->name == var_) return opaque(e);
            if (expr_uses_var(op->value, var_)) return Monotonic::Unknown;
            return of(op->body);
        }
        return opaque(e);
    }

private:
    /** A node the rules do not look into: Constant only if it does not use
     * the variable at all. */
    Monotonic opaque(const Expr &e) const {
        return expr_uses_var(e, var_) ? Monotonic::Unknown : Monotonic::Constant;
    }

    static Monotonic scaled(Monotonic m, int sign) {
        if (sign == 0 || m == Monotonic::Constant) return Monotonic::Constant;
        return sign > 0 ? m : flip(m);
    }

    const std::string &var_;
};

}  // namespace

Monotonic monotonic_in(const Expr &e, const std::string &var) { return MonotonicIn(var).of(e); }

}  // namespace internal
}  // namespace loom
