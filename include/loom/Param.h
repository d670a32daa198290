#ifndef LOOM_PARAM_H
#define LOOM_PARAM_H

/** \file
 * Param<T>: a scalar input of a pipeline. Its value is read each time the
 * pipeline runs, so changing it never recompiles.
 *
 *     Param<float> gain("gain", 1.5f);
 *     f(x) = in(x) * gain;
 *     gain.set(2.0f);                   // the next realize() uses 2.0
 *
 * Param<> (T = void) has a type chosen at run time: Param<> p(Int(16), "p").
 *
 * T may be float16_t or bfloat16_t (loom/Float16.h), as in Halide: the Param
 * has type Float(16) or BFloat(16), set() takes a value of its type or any
 * number (rounded to nearest, ties to even, as float16_t(x) does), and an
 * ahead-of-time function takes it as a loom::float16_t / loom::bfloat16_t
 * argument (docs/AOT.md).
 *
 *     Param<float16_t> scale("scale", float16_t(0.5f));
 *     f(x) = in(x) * scale;             // Float(16) arithmetic
 *     scale.set(1.1);                   // stored as float16_t(1.1)
 * set()/get() check the value's type and throw CompileError naming the
 * Param when it does not fit (for an integer Param<T>, a value that does not
 * convert to T and back unchanged; for Param<>, a value of another type).
 */

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "loom/Error.h"
#include "loom/Expr.h"
#include "loom/Float16.h"
#include "loom/Type.h"
#include "loom/internal/Parameter.h"

namespace loom {

namespace internal {
/** A unique Param name "p<N>". */
std::string make_param_name();
/** The Variable an Expr use of a scalar Parameter becomes. */
Expr param_expr(const Parameter &param);
[[noreturn]] void throw_param_type_mismatch(const std::string &name, Type param_type, Type value_type);
[[noreturn]] void throw_param_value_not_representable(const std::string &name, Type param_type,
                                                      const std::string &value);
void set_param_range(Parameter &param, const Expr &min, const Expr &max);
/** \throws CompileError naming the Param unless value is a constant. */
void set_param_estimate(Parameter &param, const Expr &value);
/** CompileError: the Param `name` was read (get(), or by a realized
 * pipeline) before it was given a value. */
[[noreturn]] void throw_param_without_value(const std::string &name);

/** The C++ types a Param<T> can hold. */
template<typename T>
inline constexpr bool is_param_scalar_v = std::is_arithmetic_v<T> || std::is_pointer_v<T> || is_half_float_v<T>;

/** value as T for a Param<T>: a 16-bit float rounds once from the value
 * (through double, which holds every float and half exactly); other types
 * as static_cast does. */
template<typename T, typename U>
T param_value_as(const U &value) {
    if constexpr (std::is_same_v<T, U>) {
        return value;
    } else if constexpr (is_half_float_v<T> && is_half_float_v<U>) {
        return T(static_cast<double>(static_cast<float>(value)));
    } else if constexpr (is_half_float_v<T>) {
        return T(static_cast<double>(value));
    } else {
        return static_cast<T>(value);
    }
}

/** Whether a Param<T> can hold value: floats take any number (rounding is
 * expected), integers only values they hold exactly. */
template<typename T, typename U>
bool representable_as(const U &value) {
    if constexpr (std::is_same_v<T, U> || std::is_floating_point_v<T> || !std::is_arithmetic_v<T>) {
        return true;
    } else if constexpr (std::is_floating_point_v<U>) {
        if (!(value >= (long double)std::numeric_limits<T>::min() && value <= (long double)std::numeric_limits<T>::max())) {
            return false;
        }
        return static_cast<U>(static_cast<T>(value)) == value;
    } else if constexpr (std::is_same_v<T, bool>) {
        return value == U(0) || value == U(1);
    } else if constexpr (std::is_signed_v<U>) {
        if (value < 0) return std::is_signed_v<T> && (intmax_t)value >= (intmax_t)std::numeric_limits<T>::min();
        return (uintmax_t)value <= (uintmax_t)std::numeric_limits<T>::max();
    } else {
        return (uintmax_t)value <= (uintmax_t)std::numeric_limits<T>::max();
    }
}
}  // namespace internal

template<typename T = void>
class Param {
    static_assert(internal::is_param_scalar_v<T>,
                  "Param<T> needs a scalar type T (arithmetic, a pointer, float16_t or bfloat16_t)");

public:
    Param() : Param(internal::make_param_name()) {}
    /** A Param without a value, as in Halide: realizing a pipeline that reads
     * it before set() is a CompileError naming it, and so is get(). */
    explicit Param(const std::string &name) : param_(type_of<T>(), false, 0, name) {}
    explicit Param(const char *name) : Param(std::string(name)) {}
    explicit Param(T value) : Param() { set(value); }
    Param(const std::string &name, T value) : Param(name) { set(value); }
    Param(const std::string &name, T value, const Expr &min, const Expr &max) : Param(name, value) {
        set_range(min, max);
    }

    const std::string &name() const { return param_.name(); }
    Type type() const { return param_.type(); }

    /** \throws CompileError naming the Param if it has no value yet. */
    T get() const {
        if (!param_.scalar_set()) internal::throw_param_without_value(name());
        return param_.scalar<T>();
    }
    /** Sets the value used by the next run.
     * \throws CompileError for an integer T if value does not convert to T
     * and back unchanged. */
    template<typename U>
    void set(const U &value) {
        static_assert(internal::is_param_scalar_v<U>, "Param::set needs a scalar value");
        if constexpr (internal::is_half_float_v<U> && !internal::is_half_float_v<T>) {
            set(static_cast<float>(value));  // exact: every 16-bit float is a float
        } else {
            if constexpr (std::is_arithmetic_v<U>) {
                if (!internal::representable_as<T>(value)) {
                    internal::throw_param_value_not_representable(name(), type(), std::to_string(value));
                }
            }
            param_.set_scalar<T>(internal::param_value_as<T>(value));
        }
    }

    /** A range the value is promised to lie in (used by bounds inference). */
    void set_range(const Expr &min, const Expr &max) { internal::set_param_range(param_, min, max); }
    void set_min_value(const Expr &min) { internal::set_param_range(param_, min, max_value()); }
    void set_max_value(const Expr &max) { internal::set_param_range(param_, min_value(), max); }
    Expr min_value() const { return param_.get()->scalar_min; }
    Expr max_value() const { return param_.get()->scalar_max; }
    /** A typical value, for autoschedulers (loom/AutoSchedule.h): where a
     * region depends on the Param, they size it with this value. It
     * constrains nothing at run time.
     * \throws CompileError unless value is a constant. */
    void set_estimate(const Expr &value) { internal::set_param_estimate(param_, value); }
    /** The value given to set_estimate, or an undefined Expr. */
    Expr estimate() const { return param_.get()->scalar_estimate; }

    operator Expr() const { return internal::param_expr(param_); }
    const internal::Parameter &parameter() const { return param_; }

private:
    internal::Parameter param_;
};

/** A scalar Param whose type is chosen at run time. */
template<>
class Param<void> {
public:
    Param(Type type) : Param(type, internal::make_param_name()) {}
    Param(Type type, const std::string &name) : param_(type, false, 0, name) {}

    const std::string &name() const { return param_.name(); }
    Type type() const { return param_.type(); }

    /** \throws CompileError naming the Param unless U is its type. */
    template<typename U>
    void set(const U &value) {
        check_type<U>();
        param_.set_scalar<U>(value);
    }
    template<typename U>
    U get() const {
        check_type<U>();
        if (!param_.scalar_set()) internal::throw_param_without_value(name());
        return param_.scalar<U>();
    }

    void set_range(const Expr &min, const Expr &max) { internal::set_param_range(param_, min, max); }
    Expr min_value() const { return param_.get()->scalar_min; }
    Expr max_value() const { return param_.get()->scalar_max; }
    void set_estimate(const Expr &value) { internal::set_param_estimate(param_, value); }
    Expr estimate() const { return param_.get()->scalar_estimate; }

    operator Expr() const { return internal::param_expr(param_); }
    const internal::Parameter &parameter() const { return param_; }

private:
    template<typename U>
    void check_type() const {
        if (type_of<U>() != type()) internal::throw_param_type_mismatch(name(), type(), type_of<U>());
    }
    internal::Parameter param_;
};

}  // namespace loom

#endif
