#include "loom/IROperator.h"

#include <cmath>
#include <sstream>

#include "ir/IR.h"
#include "ir/IRUtil.h"
#include "lang/IROperatorInternal.h"
#include "loom/Error.h"

namespace loom {

using namespace internal;

namespace {

std::string describe(const Expr &e) {
    std::ostringstream os;
    os << e << " (" << e.type() << ")";
    return os.str();
}

void require_defined(const Expr &e, const char *op) {
    if (!e.defined()) {
        throw CompileError(std::string("Operand of '") + op +
                           "' is an undefined Expr; give every Expr a value before using it.");
    }
}

void require_not_handle(const Expr &e, const char *op) {
    if (e.type().is_handle()) {
        throw CompileError(std::string("Cannot apply '") + op + "' to " + describe(e) + ": it is a handle.");
    }
}

// The element type both operands are converted to (Halide's rules, see
// IROperator.h): floats win over integers, then the wider float; mixed
// signedness becomes signed of the wider width; otherwise the wider type.
Type common_element_type(Type a, Type b) {
    if (a == b) return a;
    if (a.is_float() && !b.is_float()) return a;
    if (b.is_float() && !a.is_float()) return b;
    int bits = std::max(a.bits(), b.bits());
    if (a.is_float()) {
        // BFloat(16) with Float(16): neither holds the other, Float(32) holds both.
        if (a.bits() == b.bits() && a.code() != b.code()) return Float(32);
        return a.bits() >= b.bits() ? a : b;
    }
    if (a.is_uint() && b.is_uint()) return UInt(bits);
    if (a.is_int() && b.is_int()) return Int(bits);
    // Mixed signedness (a bool counts as unsigned).
    return Int(std::max(bits, 8));
}

// Converts a to element type t, then broadcasts it to `lanes`.
Expr convert(Expr a, Type element, int lanes) {
    Type target = element.with_lanes(a.type().lanes());
    if (a.type().element_of() != element) a = cast(target, a);
    if (a.type().lanes() != lanes) a = Broadcast::make(std::move(a), lanes);
    return a;
}

// Gives a and b one type (see the header of IROperator.h).
void match_types(Expr &a, Expr &b, const char *op) {
    require_defined(a, op);
    require_defined(b, op);
    if (a.type() == b.type()) return;
    require_not_handle(a, op);
    require_not_handle(b, op);
    int la = a.type().lanes(), lb = b.type().lanes();
    if (la != lb && la != 1 && lb != 1) {
        throw CompileError(std::string("Cannot apply '") + op + "' to vectors of different lane counts: " +
                           describe(a) + " and " + describe(b) + ".");
    }
    int lanes = std::max(la, lb);
    Type element = common_element_type(a.type().element_of(), b.type().element_of());
    a = convert(std::move(a), element, lanes);
    b = convert(std::move(b), element, lanes);
}

// A C++ int literal next to an Expr takes the Expr's type; it must fit.
Expr int_literal(const Expr &other, int value, const char *op) {
    require_defined(other, op);
    require_not_handle(other, op);
    Type t = other.type();
    if (!t.element_of().can_represent((int64_t)value)) {
        throw CompileError("Integer constant " + std::to_string(value) + " in '" + op +
                           "' does not fit the type " + t.element_of().to_string() + " of the other operand " +
                           describe(other) + "; cast one side explicitly.");
    }
    return make_const(t, (int64_t)value);
}

// A C++ float/double literal: a float Expr keeps its type; an integer Expr is
// converted to the literal's precision.
void float_literal(Expr &other, double value, int literal_bits, Expr &literal, const char *op) {
    require_defined(other, op);
    require_not_handle(other, op);
    if (!other.type().is_float()) other = cast(Float(literal_bits, other.type().lanes()), other);
    literal = make_const(other.type(), value);
}

void require_bool(const Expr &e, const char *op) {
    require_defined(e, op);
    if (!e.type().is_bool()) {
        throw CompileError(std::string("Operand of '") + op + "' must be boolean, but " + describe(e) +
                           " is not; compare it with something first (e.g. x != 0).");
    }
}

void require_integer(const Expr &e, const char *op) {
    require_defined(e, op);
    if (!e.type().is_int_or_uint()) {
        throw CompileError(std::string("Operands of '") + op + "' must be integers, but " + describe(e) +
                           " is not.");
    }
}

Expr pure_intrinsic(Type t, const char *name, std::vector<Expr> args) {
    return Call::make(t, name, args, CallType::PureIntrinsic);
}

}  // namespace

namespace internal {

std::string describe_operand(const Expr &e) { return describe(e); }
void match_operand_types(Expr &a, Expr &b, const char *op) { match_types(a, b, op); }

}  // namespace internal

// ---------------------------------------------------------------- binary operators

#define LOOM_DEFINE_BINARY_OPERATOR(OP, NODE)                  \
    Expr operator OP(Expr a, Expr b) {                         \
        match_types(a, b, #OP);                                \
        return NODE::make(std::move(a), std::move(b));         \
    }                                                          \
    Expr operator OP(Expr a, int b) {                          \
        Expr lit = int_literal(a, b, #OP);                     \
        return NODE::make(std::move(a), std::move(lit));       \
    }                                                          \
    Expr operator OP(int a, Expr b) {                          \
        Expr lit = int_literal(b, a, #OP);                     \
        return NODE::make(std::move(lit), std::move(b));       \
    }                                                          \
    Expr operator OP(Expr a, float b) {                        \
        Expr lit;                                              \
        float_literal(a, b, 32, lit, #OP);                     \
        return NODE::make(std::move(a), std::move(lit));       \
    }                                                          \
    Expr operator OP(float a, Expr b) {                        \
        Expr lit;                                              \
        float_literal(b, a, 32, lit, #OP);                     \
        return NODE::make(std::move(lit), std::move(b));       \
    }                                                          \
    Expr operator OP(Expr a, double b) {                       \
        Expr lit;                                              \
        float_literal(a, b, 64, lit, #OP);                     \
        return NODE::make(std::move(a), std::move(lit));       \
    }                                                          \
    Expr operator OP(double a, Expr b) {                       \
        Expr lit;                                              \
        float_literal(b, a, 64, lit, #OP);                     \
        return NODE::make(std::move(lit), std::move(b));       \
    }

LOOM_DEFINE_BINARY_OPERATOR(+, Add)
LOOM_DEFINE_BINARY_OPERATOR(-, Sub)
LOOM_DEFINE_BINARY_OPERATOR(*, Mul)
LOOM_DEFINE_BINARY_OPERATOR(/, Div)
LOOM_DEFINE_BINARY_OPERATOR(%, Mod)
LOOM_DEFINE_BINARY_OPERATOR(==, EQ)
LOOM_DEFINE_BINARY_OPERATOR(!=, NE)
LOOM_DEFINE_BINARY_OPERATOR(<, LT)
LOOM_DEFINE_BINARY_OPERATOR(<=, LE)
LOOM_DEFINE_BINARY_OPERATOR(>, GT)
LOOM_DEFINE_BINARY_OPERATOR(>=, GE)
#undef LOOM_DEFINE_BINARY_OPERATOR

Expr operator-(Expr a) {
    require_defined(a, "-");
    require_not_handle(a, "-");
    Expr zero = make_zero(a.type());
    return Sub::make(std::move(zero), std::move(a));
}

Expr operator!(Expr a) {
    require_bool(a, "!");
    return Not::make(std::move(a));
}

Expr operator&&(Expr a, Expr b) {
    require_bool(a, "&&");
    require_bool(b, "&&");
    match_types(a, b, "&&");
    return And::make(std::move(a), std::move(b));
}

Expr operator&&(Expr a, bool b) { return std::move(a) && make_bool(b); }
Expr operator&&(bool a, Expr b) { return make_bool(a) && std::move(b); }

Expr operator||(Expr a, Expr b) {
    require_bool(a, "||");
    require_bool(b, "||");
    match_types(a, b, "||");
    return Or::make(std::move(a), std::move(b));
}

Expr operator||(Expr a, bool b) { return std::move(a) || make_bool(b); }
Expr operator||(bool a, Expr b) { return make_bool(a) || std::move(b); }

// ---------------------------------------------------------------- bitwise

namespace {

// An int32 constant (a C++ literal turned Expr) adopts the other side's type,
// so `u8 & 0xF` stays uint8, as in arithmetic.
void adopt_literal_type(Expr &literal, const Expr &other, const char *op) {
    std::optional<int64_t> v = as_const_int(literal);
    if (!v || literal.type() != Int(32) || other.type().element_of() == Int(32) || !literal.type().is_scalar()) {
        return;
    }
    if (!other.type().is_int_or_uint()) return;
    if (!other.type().element_of().can_represent(*v)) {
        throw CompileError("Integer constant " + std::to_string(*v) + " in '" + op + "' does not fit the type " +
                           other.type().element_of().to_string() + " of " + describe(other) + ".");
    }
    literal = make_const(other.type(), *v);
}

Expr bitwise(Expr a, Expr b, const char *op, const char *intrinsic_name) {
    require_defined(a, op);
    require_defined(b, op);
    bool both_bool = a.type().is_bool() && b.type().is_bool();
    if (!both_bool) {
        require_integer(a, op);
        require_integer(b, op);
    }
    adopt_literal_type(a, b, op);
    adopt_literal_type(b, a, op);
    match_types(a, b, op);
    Type t = a.type();
    return pure_intrinsic(t, intrinsic_name, {std::move(a), std::move(b)});
}

// A shift keeps the type of the value shifted; the amount is converted to it.
Expr shift(Expr a, Expr b, const char *op, const char *intrinsic_name) {
    require_integer(a, op);
    require_integer(b, op);
    int lanes = std::max(a.type().lanes(), b.type().lanes());
    if (a.type().lanes() != b.type().lanes() && a.type().lanes() != 1 && b.type().lanes() != 1) {
        throw CompileError(std::string("Cannot apply '") + op + "' to vectors of different lane counts: " +
                           describe(a) + " and " + describe(b) + ".");
    }
    Type element = a.type().element_of();
    a = convert(a, element, lanes);
    b = convert(b, element, lanes);
    Type t = a.type();
    return pure_intrinsic(t, intrinsic_name, {std::move(a), std::move(b)});
}

}  // namespace

Expr operator&(Expr a, Expr b) { return bitwise(std::move(a), std::move(b), "&", intrinsic::bitwise_and); }
Expr operator|(Expr a, Expr b) { return bitwise(std::move(a), std::move(b), "|", intrinsic::bitwise_or); }
Expr operator^(Expr a, Expr b) { return bitwise(std::move(a), std::move(b), "^", intrinsic::bitwise_xor); }

Expr operator~(Expr a) {
    require_defined(a, "~");
    if (!a.type().is_bool()) require_integer(a, "~");
    Type t = a.type();
    return pure_intrinsic(t, intrinsic::bitwise_not, {std::move(a)});
}

Expr operator<<(Expr a, Expr b) { return shift(std::move(a), std::move(b), "<<", intrinsic::shift_left); }
Expr operator>>(Expr a, Expr b) { return shift(std::move(a), std::move(b), ">>", intrinsic::shift_right); }
Expr operator<<(Expr a, int b) {
    require_integer(a, "<<");
    Expr amount = int_literal(a, b, "<<");
    return shift(std::move(a), std::move(amount), "<<", intrinsic::shift_left);
}
Expr operator>>(Expr a, int b) {
    require_integer(a, ">>");
    Expr amount = int_literal(a, b, ">>");
    return shift(std::move(a), std::move(amount), ">>", intrinsic::shift_right);
}

// ---------------------------------------------------------------- compound assignment

namespace {

// As in Halide, `a op= b` keeps a's type: b is converted to it. A constant
// that would change value in that conversion is reported instead.
Expr convert_to_type_of(const Expr &a, Expr b, const char *op) {
    require_defined(a, op);
    require_defined(b, op);
    require_not_handle(a, op);
    Type t = a.type().element_of();
    if (auto v = as_const_int(b); v && t.is_int_or_uint() && !t.can_represent(*v)) {
        throw CompileError("Integer constant " + std::to_string(*v) + " in '" + op + "' does not fit the type " +
                           t.to_string() + " of " + describe(a) + "; cast one side explicitly.");
    }
    if (b.type().lanes() > a.type().lanes()) {
        throw CompileError(std::string("'") + op + "' would change the lane count of " + describe(a) + " to " +
                           std::to_string(b.type().lanes()) + ".");
    }
    return convert(std::move(b), t, a.type().lanes());
}

}  // namespace

Expr &operator+=(Expr &a, Expr b) { return a = Add::make(a, convert_to_type_of(a, std::move(b), "+=")); }
Expr &operator-=(Expr &a, Expr b) { return a = Sub::make(a, convert_to_type_of(a, std::move(b), "-=")); }
Expr &operator*=(Expr &a, Expr b) { return a = Mul::make(a, convert_to_type_of(a, std::move(b), "*=")); }
Expr &operator/=(Expr &a, Expr b) { return a = Div::make(a, convert_to_type_of(a, std::move(b), "/=")); }
Expr &operator%=(Expr &a, Expr b) { return a = Mod::make(a, convert_to_type_of(a, std::move(b), "%=")); }

// ---------------------------------------------------------------- min / max

Expr min(Expr a, Expr b) {
    match_types(a, b, "min");
    return Min::make(std::move(a), std::move(b));
}
Expr min(Expr a, int b) {
    Expr lit = int_literal(a, b, "min");
    return Min::make(std::move(a), std::move(lit));
}
Expr min(int a, Expr b) {
    Expr lit = int_literal(b, a, "min");
    return Min::make(std::move(lit), std::move(b));
}
Expr min(Expr a, float b) {
    Expr lit;
    float_literal(a, b, 32, lit, "min");
    return Min::make(std::move(a), std::move(lit));
}
Expr min(float a, Expr b) {
    Expr lit;
    float_literal(b, a, 32, lit, "min");
    return Min::make(std::move(lit), std::move(b));
}

Expr max(Expr a, Expr b) {
    match_types(a, b, "max");
    return Max::make(std::move(a), std::move(b));
}
Expr max(Expr a, int b) {
    Expr lit = int_literal(a, b, "max");
    return Max::make(std::move(a), std::move(lit));
}
Expr max(int a, Expr b) {
    Expr lit = int_literal(b, a, "max");
    return Max::make(std::move(lit), std::move(b));
}
Expr max(Expr a, float b) {
    Expr lit;
    float_literal(a, b, 32, lit, "max");
    return Max::make(std::move(a), std::move(lit));
}
Expr max(float a, Expr b) {
    Expr lit;
    float_literal(b, a, 32, lit, "max");
    return Max::make(std::move(lit), std::move(b));
}

namespace {

// A bound of clamp() converted to the clamped value's type. A constant bound
// must be representable there; otherwise clamp would silently change meaning.
Expr clamp_bound(const Expr &a, Expr bound, const char *which) {
    if (!bound.defined()) {
        throw CompileError(std::string("clamp(): the ") + which + " bound is an undefined Expr.");
    }
    require_not_handle(bound, "clamp");
    Type t = a.type().element_of();
    if (bound.type().element_of() != t) {
        if (auto v = as_const_int(bound); v && !t.can_represent(*v)) {
            throw CompileError(std::string("clamp(): the ") + which + " bound " + std::to_string(*v) +
                               " does not fit the type " + t.to_string() + " of the clamped value " + describe(a) +
                               ".");
        }
        if (auto v = as_const_uint(bound); v && !t.can_represent(*v)) {
            throw CompileError(std::string("clamp(): the ") + which + " bound " + std::to_string(*v) +
                               " does not fit the type " + t.to_string() + " of the clamped value " + describe(a) +
                               ".");
        }
    }
    return convert(std::move(bound), t, a.type().lanes());
}

}  // namespace

Expr clamp(Expr a, Expr lo, Expr hi) {
    require_defined(a, "clamp");
    require_not_handle(a, "clamp");
    if (lo.defined() && lo.type().lanes() > a.type().lanes()) a = Broadcast::make(a, lo.type().lanes());
    if (hi.defined() && hi.type().lanes() > a.type().lanes()) a = Broadcast::make(a, hi.type().lanes());
    lo = clamp_bound(a, std::move(lo), "lower");
    hi = clamp_bound(a, std::move(hi), "upper");
    return Max::make(Min::make(std::move(a), std::move(hi)), std::move(lo));
}

// ---------------------------------------------------------------- select

namespace {

bool is_scalar_constant(const Expr &e) {
    return e.defined() && e.type().is_scalar() && (e.as<IntImm>() || e.as<UIntImm>() || e.as<FloatImm>());
}

// A constant value (e.g. a C++ literal) adopts the other value's type, as
// Halide does, so select(c, u8_value, 0) is uint8.
void adopt_constant_type(Expr &constant, const Expr &other) {
    if (!is_scalar_constant(constant) || is_scalar_constant(other)) return;
    if (constant.type() == other.type().element_of() || other.type().is_handle()) return;
    Type t = other.type().element_of();
    if (auto v = as_const_int(constant); v && t.is_int_or_uint() && !t.can_represent(*v)) {
        throw CompileError("select(): the constant " + std::to_string(*v) + " does not fit the type " +
                           t.to_string() + " of the other value " + describe(other) + "; cast one explicitly.");
    }
    constant = cast(t, constant);
}

}  // namespace

Expr select(Expr condition, Expr true_value, Expr false_value) {
    require_defined(condition, "select");
    require_defined(true_value, "select");
    require_defined(false_value, "select");
    if (!condition.type().is_bool()) {
        throw CompileError("select(): the condition " + describe(condition) +
                           " is not boolean; compare it with something first (e.g. x != 0).");
    }
    adopt_constant_type(true_value, false_value);
    adopt_constant_type(false_value, true_value);
    match_types(true_value, false_value, "select");
    int lanes = condition.type().lanes();
    int value_lanes = true_value.type().lanes();
    if (lanes > 1 && value_lanes == 1) {
        true_value = Broadcast::make(std::move(true_value), lanes);
        false_value = Broadcast::make(std::move(false_value), lanes);
    } else if (lanes > 1 && lanes != value_lanes) {
        throw CompileError("select(): the condition " + describe(condition) + " and the values " +
                           describe(true_value) + " have different lane counts.");
    }
    return Select::make(std::move(condition), std::move(true_value), std::move(false_value));
}

// ---------------------------------------------------------------- abs, absd

Expr abs(Expr a) {
    require_defined(a, "abs");
    require_not_handle(a, "abs");
    Type t = a.type();
    if (t.is_uint()) return a;  // already non-negative
    Type result = t.is_int() ? t.with_code(TypeCode::UInt) : t;
    return pure_intrinsic(result, intrinsic::abs, {std::move(a)});
}

Expr absd(Expr a, Expr b) {
    match_types(a, b, "absd");
    require_not_handle(a, "absd");
    if (a.type().is_float()) return select(a < b, b - a, a - b);
    // |a - b| fits the unsigned type of the same width, where wrapping
    // subtraction of the larger minus the smaller is exact.
    Type u = a.type().with_code(TypeCode::UInt);
    Expr ua = cast(u, a), ub = cast(u, b);
    return select(a < b, ub - ua, ua - ub);
}

// ---------------------------------------------------------------- casts

namespace {

// Folds a cast of a scalar constant, so cast<float>(2) prints as 2.0f.
Expr fold_constant_cast(Type t, const Expr &a) {
    if (!t.is_scalar() || t.is_handle()) return Expr();
    if (t.is_bool()) {
        if (auto v = as_const_int(a)) return make_bool(*v != 0);
        if (auto v = as_const_uint(a)) return make_bool(*v != 0);
        return Expr();
    }
    if (auto v = as_const_int(a); v && a.type().is_scalar()) return make_const(t, *v);
    if (auto v = as_const_uint(a); v && a.type().is_scalar()) return make_const(t, *v);
    if (auto v = as_const_float(a); v && a.type().is_scalar()) {
        if (t.is_float()) return make_const(t, *v);
        // Only in-range values truncate to a defined integer.
        double truncated = std::trunc(*v);
        if (t.can_represent(truncated)) return make_const(t, truncated);
    }
    return Expr();
}

}  // namespace

Expr cast(Type t, Expr a) {
    require_defined(a, "cast");
    if (!t.defined()) throw CompileError("cast(): the target type is undefined.");
    if (t.is_scalar() && a.type().is_vector()) t = t.with_lanes(a.type().lanes());
    if (t == a.type()) return a;
    if (t.lanes() != a.type().lanes()) {
        throw CompileError("cast(): cannot cast " + describe(a) + " to " + t.to_string() +
                           ": the lane counts differ.");
    }
    if (Expr folded = fold_constant_cast(t, a); folded.defined()) return folded;
    return Cast::make(t, std::move(a));
}

Expr reinterpret(Type t, Expr a) {
    require_defined(a, "reinterpret");
    if (t.is_scalar() && a.type().is_vector()) t = t.with_lanes(a.type().lanes());
    if (t == a.type()) return a;
    if (t.bits() * t.lanes() != a.type().bits() * a.type().lanes()) {
        throw CompileError("reinterpret(): " + describe(a) + " has " +
                           std::to_string(a.type().bits() * a.type().lanes()) + " bits but " + t.to_string() +
                           " has " + std::to_string(t.bits() * t.lanes()) + ".");
    }
    return Reinterpret::make(t, std::move(a));
}

// ---------------------------------------------------------------- float math

namespace {

// Integer arguments become Float(32); Float(16) is computed in Float(32).
Expr to_math_float(Expr x, const char *fn) {
    require_defined(x, fn);
    require_not_handle(x, fn);
    if (x.type().is_float() && x.type().bits() >= 32) return x;
    Type t = Float(32, x.type().lanes());
    return cast(t, x);
}

// Float(32) calls the C function with the "f" suffix, Float(64) the plain one.
std::string math_name(const char *base, Type t) {
    return t.bits() == 64 ? std::string(base) : std::string(base) + "f";
}

Expr math_call(const char *base, std::vector<Expr> args) {
    Type t = args[0].type();
    return Call::make(t, math_name(base, t), args, CallType::PureExtern);
}

Expr unary_math(const char *base, Expr x) {
    Type original = x.defined() ? x.type() : Type();
    Expr r = math_call(base, {to_math_float(std::move(x), base)});
    if (original.is_float() && original.bits() == 16) return cast(original, r);
    return r;
}

Expr binary_math(const char *base, Expr x, Expr y) {
    require_defined(x, base);
    require_defined(y, base);
    Type original = x.type();
    x = to_math_float(std::move(x), base);
    y = to_math_float(std::move(y), base);
    match_types(x, y, base);
    Expr r = math_call(base, {std::move(x), std::move(y)});
    if (original.is_float() && original.bits() == 16 && r.type().element_of() == Float(32)) {
        return cast(original.with_lanes(r.type().lanes()), r);
    }
    return r;
}

void require_float(const Expr &x, const char *fn) {
    require_defined(x, fn);
    if (!x.type().is_float()) {
        throw CompileError(std::string(fn) + "() needs a floating-point argument, but " + describe(x) +
                           " is not; cast it first.");
    }
}

}  // namespace

Expr sqrt(Expr x) { return unary_math("sqrt", std::move(x)); }
Expr exp(Expr x) { return unary_math("exp", std::move(x)); }
Expr log(Expr x) { return unary_math("log", std::move(x)); }
Expr pow(Expr x, Expr y) { return binary_math("pow", std::move(x), std::move(y)); }
Expr sin(Expr x) { return unary_math("sin", std::move(x)); }
Expr cos(Expr x) { return unary_math("cos", std::move(x)); }
Expr tan(Expr x) { return unary_math("tan", std::move(x)); }
Expr asin(Expr x) { return unary_math("asin", std::move(x)); }
Expr acos(Expr x) { return unary_math("acos", std::move(x)); }
Expr atan(Expr x) { return unary_math("atan", std::move(x)); }
Expr atan2(Expr y, Expr x) { return binary_math("atan2", std::move(y), std::move(x)); }
Expr sinh(Expr x) { return unary_math("sinh", std::move(x)); }
Expr cosh(Expr x) { return unary_math("cosh", std::move(x)); }
Expr tanh(Expr x) { return unary_math("tanh", std::move(x)); }
Expr acosh(Expr x) { return unary_math("acosh", std::move(x)); }
Expr asinh(Expr x) { return unary_math("asinh", std::move(x)); }
Expr atanh(Expr x) { return unary_math("atanh", std::move(x)); }
Expr floor(Expr x) { return unary_math("floor", std::move(x)); }
Expr ceil(Expr x) { return unary_math("ceil", std::move(x)); }
// nearbyint rounds half to even under the default rounding mode.
Expr round(Expr x) { return unary_math("nearbyint", std::move(x)); }
Expr trunc(Expr x) { return unary_math("trunc", std::move(x)); }

Expr fract(Expr x) {
    require_defined(x, "fract");
    x = to_math_float(std::move(x), "fract");
    // Same sign as x, like Halide.
    Expr whole = trunc(x);
    return std::move(x) - std::move(whole);
}

Expr is_nan(Expr x) {
    require_float(x, "is_nan");
    int lanes = x.type().lanes();
    return pure_intrinsic(Bool(lanes), intrinsic::is_nan, {std::move(x)});
}

Expr is_inf(Expr x) {
    require_float(x, "is_inf");
    Expr pos_inf = make_const(x.type(), (double)INFINITY);
    Expr neg_inf = make_const(x.type(), -(double)INFINITY);
    return Or::make(EQ::make(x, pos_inf), EQ::make(x, neg_inf));
}

Expr is_finite(Expr x) {
    require_float(x, "is_finite");
    return Not::make(Or::make(is_nan(x), is_inf(x)));
}

Expr lerp(Expr a, Expr b, Expr w) {
    require_defined(a, "lerp");
    require_defined(b, "lerp");
    require_defined(w, "lerp");
    require_not_handle(a, "lerp");
    require_not_handle(b, "lerp");
    require_not_handle(w, "lerp");
    if (a.type() != b.type()) {
        throw CompileError("lerp(): can't interpolate between " + describe(a) + " of type " + a.type().to_string() +
                           " and " + describe(b) + " of type " + b.type().to_string() +
                           ". Give both values the same type (cast<T>(...)).");
    }
    Type t = a.type();
    if (t.is_float()) {
        w = convert(std::move(w), t.element_of(), t.lanes());
        return a + (b - a) * w;
    }
    if (w.type().is_float()) {
        // A float weight of integer values: in [0, 1], result rounded.
        if (auto c = as_const_float(w); c && !(*c >= 0.0 && *c <= 1.0)) {
            throw CompileError("lerp(): the float weight " + describe(w) + " of integer values is outside [0, 1]. "
                               "Clamp it, or use an unsigned integer weight (0 .. its maximum).");
        }
        Type ft = Float(t.bits() > 16 ? 64 : 32, t.lanes());
        Expr af = cast(ft, a), bf = cast(ft, b), wf = convert(std::move(w), ft.element_of(), t.lanes());
        return cast(t, round(af + (bf - af) * wf));
    }
    if (!w.type().is_uint()) {
        throw CompileError("lerp(): the weight " + describe(w) +
                           " of integer values must be an unsigned integer or a float.");
    }
    // An unsigned weight w of B bits is w / (2^B - 1): the result is
    // (a * (max - w) + b * w) / max rounded to nearest (never a tie: max is
    // odd), exact in 64-bit integers up to 31-bit values and weights.
    const int wb = w.type().bits();
    if (t.bits() <= 32 && wb <= 30) {
        Type wide = Int(64, t.lanes());
        Expr max = make_const(wide, (double)((int64_t(1) << wb) - 1));
        Expr wi = cast(wide, w), num = cast(wide, a) * (max - wi) + cast(wide, b) * wi;
        Expr two = make_const(wide, 2.0);
        return cast(t, (num * two + max) / (max * two));  // floor division: rounds to nearest
    }
    Type ft = Float(64, t.lanes());
    Expr w_max = make_const(ft, (double)*as_const_uint(w.type().element_of().max()));
    Expr wf = convert(std::move(w), ft.element_of(), t.lanes()) / w_max;
    Expr af = cast(ft, a), bf = cast(ft, b);
    return cast(t, round(af + (bf - af) * wf));
}

// ---------------------------------------------------------------- print

PrintArg::PrintArg(int x) : expr(x) {}
PrintArg::PrintArg(float x) : expr(x) {}
PrintArg::PrintArg(double x) : expr(x) {}
PrintArg::PrintArg(const char *s) : expr(StringImm::make(s)) {}
PrintArg::PrintArg(const std::string &s) : expr(StringImm::make(s)) {}

namespace {

std::vector<Expr> print_pieces(const std::vector<PrintArg> &args, const char *fn) {
    std::vector<Expr> pieces;
    for (const PrintArg &a : args) {
        if (!a.expr.defined()) throw CompileError(std::string(fn) + "(): an argument is an undefined Expr.");
        pieces.push_back(a.expr);
    }
    return pieces;
}

}  // namespace

Expr print(const std::vector<PrintArg> &args) {
    if (args.empty()) throw CompileError("print(): needs at least one argument.");
    std::vector<Expr> pieces = print_pieces(args, "print");
    // With a string first there is no value to pass through: print the pieces.
    if (pieces[0].as<StringImm>()) return Call::make(Int(32), intrinsic::print, pieces, CallType::Intrinsic);
    Type t = pieces[0].type();
    return Call::make(t, intrinsic::print_value, pieces, CallType::Intrinsic);
}

Expr print_when(Expr condition, const std::vector<PrintArg> &args) {
    require_defined(condition, "print_when");
    if (!condition.type().is_bool() || !condition.type().is_scalar()) {
        throw CompileError("print_when(): the condition " + describe(condition) + " must be a scalar boolean.");
    }
    if (args.empty()) throw CompileError("print_when(): needs a value to print.");
    std::vector<Expr> pieces = print_pieces(args, "print_when");
    if (pieces[0].as<StringImm>()) {
        throw CompileError("print_when(): the first argument after the condition must be a value, not a string.");
    }
    Type t = pieces[0].type();
    pieces.insert(pieces.begin(), std::move(condition));
    return Call::make(t, intrinsic::print_value_when, pieces, CallType::Intrinsic);
}

Expr undef(Type t) { return pure_intrinsic(t, intrinsic::undef, {}); }

Expr likely(Expr e) {
    require_defined(e, "likely");
    Type t = e.type();
    return pure_intrinsic(t, intrinsic::likely, {std::move(e)});
}

// Loom partitions a loop on likely() wherever it is, so the innermost-only
// hint is the same hint.
Expr likely_if_innermost(Expr e) {
    require_defined(e, "likely_if_innermost");
    Type t = e.type();
    return pure_intrinsic(t, intrinsic::likely, {std::move(e)});
}

Expr unsafe_promise_clamped(const Expr &value, const Expr &min, const Expr &max) {
    require_defined(value, "unsafe_promise_clamped");
    require_defined(min, "unsafe_promise_clamped");
    require_defined(max, "unsafe_promise_clamped");
    require_not_handle(value, "unsafe_promise_clamped");
    Type t = value.type();
    Expr lo = convert(min, t.element_of(), t.lanes()), hi = convert(max, t.element_of(), t.lanes());
    return pure_intrinsic(t, intrinsic::promise_clamped, {value, std::move(lo), std::move(hi)});
}

}  // namespace loom
