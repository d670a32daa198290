#include "loom/Type.h"

#include <cfloat>
#include <cmath>
#include <limits>

#include "ir/IR.h"
#include "ir/IRUtil.h"
#include "loom/Error.h"
#include "loom/runtime/bfloat16.h"

namespace loom {

namespace {

// Bits of integer precision a float type holds (including the implicit bit).
int mantissa_bits(const Type &t) {
    if (t.is_bfloat()) return 8;
    if (t.bits() == 16) return 11;
    if (t.bits() == 32) return 24;
    return 53;
}

double round_to(const Type &t, double x) {
    if (t.is_bfloat()) return (double)bfloat16_t::float_from_bits(bfloat16_t::bits_from_double(x));
    if (t.bits() == 64) return x;
#if defined(__FLT16_MAX__)
    if (t.bits() == 16) return (double)(_Float16)x;
#endif
    return (double)(float)x;
}

// The largest finite value of a float type.
double largest_float(const Type &t) {
    if (t.is_bfloat()) return (double)bfloat16_t::float_from_bits(0x7f7f);
    return t.bits() == 64 ? DBL_MAX : t.bits() == 32 ? (double)FLT_MAX : 65504.0;
}

}  // namespace

bool Type::can_represent(const Type &other) const {
    if (lanes() != other.lanes()) return false;
    if (*this == other) return true;
    if (is_handle() || other.is_handle()) return false;
    switch (code()) {
    case TypeCode::Int:
        if (other.is_int()) return bits() >= other.bits();
        if (other.is_uint()) return bits() > other.bits();
        return false;
    case TypeCode::UInt:
        return other.is_uint() && bits() >= other.bits();
    case TypeCode::Float:
    case TypeCode::BFloat:
        // BFloat(16) and Float(16) hold values the other does not.
        if (other.is_float()) return bits() > other.bits() || (bits() == other.bits() && code() == other.code());
        // An integer fits if all its bits fit the mantissa.
        return other.bits() < mantissa_bits(*this);
    default:
        return false;
    }
}

bool Type::can_represent(int64_t x) const {
    switch (code()) {
    case TypeCode::Int:
        return internal::wrap_int(*this, x) == x;
    case TypeCode::UInt:
        return x >= 0 && internal::wrap_uint(*this, (uint64_t)x) == (uint64_t)x;
    case TypeCode::Float:
    case TypeCode::BFloat:
        return (int64_t)round_to(*this, (double)x) == x && round_to(*this, (double)x) == (double)x;
    default:
        return false;
    }
}

bool Type::can_represent(uint64_t x) const {
    switch (code()) {
    case TypeCode::Int:
        return x <= (uint64_t)std::numeric_limits<int64_t>::max() && can_represent((int64_t)x);
    case TypeCode::UInt:
        return internal::wrap_uint(*this, x) == x;
    case TypeCode::Float:
    case TypeCode::BFloat: {
        double d = round_to(*this, (double)x);
        return d < 18446744073709551616.0 && (uint64_t)d == x;
    }
    default:
        return false;
    }
}

bool Type::can_represent(double x) const {
    switch (code()) {
    case TypeCode::Int:
        if (!(x >= -9223372036854775808.0 && x < 9223372036854775808.0)) return false;
        return (double)(int64_t)x == x && can_represent((int64_t)x);
    case TypeCode::UInt:
        if (!(x >= 0 && x < 18446744073709551616.0)) return false;
        return (double)(uint64_t)x == x && can_represent((uint64_t)x);
    case TypeCode::Float:
    case TypeCode::BFloat:
        return std::isnan(x) || round_to(*this, x) == x;
    default:
        return false;
    }
}

Expr Type::max() const {
    using namespace internal;
    Type s = element_of();
    Expr scalar;
    if (s.is_int()) {
        scalar = IntImm::make(s, (int64_t)((~uint64_t(0)) >> (65 - s.bits())));
    } else if (s.is_uint()) {
        scalar = UIntImm::make(s, s.bits() >= 64 ? ~uint64_t(0) : (uint64_t(1) << s.bits()) - 1);
    } else if (s.is_float()) {
        scalar = FloatImm::make(s, largest_float(s));
    } else {
        throw InternalError("Type::max of " + to_string());
    }
    return is_scalar() ? scalar : Broadcast::make(scalar, lanes());
}

Expr Type::min() const {
    using namespace internal;
    Type s = element_of();
    Expr scalar;
    if (s.is_int()) {
        scalar = IntImm::make(s, (int64_t)(~uint64_t(0) << (s.bits() - 1)));
    } else if (s.is_uint()) {
        scalar = UIntImm::make(s, 0);
    } else if (s.is_float()) {
        scalar = FloatImm::make(s, -largest_float(s));
    } else {
        throw InternalError("Type::min of " + to_string());
    }
    return is_scalar() ? scalar : Broadcast::make(scalar, lanes());
}

std::string Type::to_string() const {
    if (!defined()) return "void";
    std::string s;
    if (is_bool()) {
        s = "bool";
    } else if (is_handle()) {
        s = "handle";
    } else {
        s = is_int() ? "int" : is_uint() ? "uint" : is_bfloat() ? "bfloat" : "float";
        s += std::to_string(bits());
    }
    if (lanes() > 1) s += "x" + std::to_string(lanes());
    return s;
}

std::ostream &operator<<(std::ostream &os, const Type &t) { return os << t.to_string(); }

}  // namespace loom
