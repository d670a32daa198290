#ifndef LOOM_TYPE_H
#define LOOM_TYPE_H

/** \file
 * Scalar and vector element types: Int(8..64), UInt(1..64), Float(16|32|64),
 * BFloat(16), Bool() (= UInt(1)) and Handle() (an opaque pointer).
 *
 * BFloat(16) is a floating-point type as in Halide: is_float() holds for it
 * (is_bfloat() tells it from Float(16)), it mixes with other types by the
 * float rules, and pipelines compute its arithmetic in Float(32), rounding
 * each result back (see loom/Float16.h).
 *
 *     Type t = UInt(8);       // uint8_t
 *     t.with_lanes(8);        // a vector of eight uint8_t
 *     type_of<float>();       // Float(32)
 */

#include <cstdint>
#include <ostream>
#include <string>

#include "loom/runtime/loom_runtime.h"

namespace loom {

struct Expr;

enum class TypeCode : uint8_t { Int = 0, UInt = 1, Float = 2, Handle = 3, BFloat = 4 };

struct Type {
    /** A default-constructed Type has zero lanes and means "no type". */
    Type() = default;
    Type(TypeCode code, int bits, int lanes = 1)
        : code_(code), bits_((uint8_t)bits), lanes_((uint16_t)lanes) {}
    /** From the runtime's type descriptor. */
    explicit Type(const loom_type_t &t) : code_((TypeCode)t.code), bits_(t.bits), lanes_(t.lanes) {}

    TypeCode code() const { return code_; }
    int bits() const { return bits_; }
    int lanes() const { return lanes_; }
    /** Bytes one lane occupies in memory (bool takes a byte). */
    int bytes() const { return (bits_ + 7) / 8; }

    bool is_bool() const { return code_ == TypeCode::UInt && bits_ == 1; }
    bool is_int() const { return code_ == TypeCode::Int; }
    bool is_uint() const { return code_ == TypeCode::UInt; }
    bool is_int_or_uint() const { return is_int() || is_uint(); }
    /** Float(16|32|64) or BFloat(16). */
    bool is_float() const { return code_ == TypeCode::Float || code_ == TypeCode::BFloat; }
    bool is_bfloat() const { return code_ == TypeCode::BFloat; }
    bool is_handle() const { return code_ == TypeCode::Handle; }
    bool is_scalar() const { return lanes_ == 1; }
    bool is_vector() const { return lanes_ > 1; }
    bool defined() const { return lanes_ != 0; }

    Type with_code(TypeCode c) const { return Type(c, bits_, lanes_); }
    Type with_bits(int b) const { return Type(code_, b, lanes_); }
    Type with_lanes(int l) const { return Type(code_, bits_, l); }
    Type element_of() const { return with_lanes(1); }

    bool operator==(const Type &o) const { return code_ == o.code_ && bits_ == o.bits_ && lanes_ == o.lanes_; }
    bool operator!=(const Type &o) const { return !(*this == o); }

    /** Whether every value of `other` is exactly representable in this type. */
    bool can_represent(const Type &other) const;
    bool can_represent(int64_t x) const;
    bool can_represent(uint64_t x) const;
    bool can_represent(double x) const;

    /** The largest and smallest values of this type, as constant Exprs. */
    Expr max() const;
    Expr min() const;

    /** The runtime's descriptor of this type. */
    loom_type_t to_runtime() const { return loom_type_t{(uint8_t)code_, bits_, lanes_}; }

    /** E.g. "int32", "uint8x8", "float32", "bool", "handle". */
    std::string to_string() const;

private:
    TypeCode code_ = TypeCode::Int;
    uint8_t bits_ = 0;
    uint16_t lanes_ = 0;
};

inline Type Int(int bits, int lanes = 1) { return Type(TypeCode::Int, bits, lanes); }
inline Type UInt(int bits, int lanes = 1) { return Type(TypeCode::UInt, bits, lanes); }
inline Type Float(int bits, int lanes = 1) { return Type(TypeCode::Float, bits, lanes); }
/** Brain floating point: BFloat(16) has float's exponent and 7 mantissa bits. */
inline Type BFloat(int bits, int lanes = 1) { return Type(TypeCode::BFloat, bits, lanes); }
inline Type Bool(int lanes = 1) { return UInt(1, lanes); }
inline Type Handle(int lanes = 1) { return Type(TypeCode::Handle, 64, lanes); }

std::ostream &operator<<(std::ostream &os, const Type &t);

namespace internal {
template<typename T>
struct TypeOf;
template<> struct TypeOf<bool> { static Type get() { return Bool(); } };
template<> struct TypeOf<int8_t> { static Type get() { return Int(8); } };
template<> struct TypeOf<int16_t> { static Type get() { return Int(16); } };
template<> struct TypeOf<int32_t> { static Type get() { return Int(32); } };
template<> struct TypeOf<int64_t> { static Type get() { return Int(64); } };
template<> struct TypeOf<uint8_t> { static Type get() { return UInt(8); } };
template<> struct TypeOf<uint16_t> { static Type get() { return UInt(16); } };
template<> struct TypeOf<uint32_t> { static Type get() { return UInt(32); } };
template<> struct TypeOf<uint64_t> { static Type get() { return UInt(64); } };
template<> struct TypeOf<float> { static Type get() { return Float(32); } };
template<> struct TypeOf<double> { static Type get() { return Float(64); } };
template<typename T> struct TypeOf<T *> { static Type get() { return Handle(); } };
}  // namespace internal

/** The Loom type of a C++ scalar type, e.g. type_of<uint8_t>() == UInt(8). */
template<typename T>
Type type_of() {
    return internal::TypeOf<T>::get();
}

}  // namespace loom

#endif
