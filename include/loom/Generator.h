#ifndef LOOM_GENERATOR_H
#define LOOM_GENERATOR_H

/** \file
 * Generator: a pipeline packaged for ahead-of-time compilation, declared as a
 * class whose members are its compile-time parameters, its inputs and its
 * outputs (Halide's Generator, same spelling and meaning).
 *
 *     class Brighten : public loom::Generator<Brighten> {
 *     public:
 *         enum class Mode { Add, Scale };
 *         GeneratorParam<int> vector_width{"vector_width", 8, 1, 64};   // default, min, max
 *         GeneratorParam<Mode> mode{"mode", Mode::Add, {{"add", Mode::Add}, {"scale", Mode::Scale}}};
 *         Input<Buffer<uint8_t>> input{"input", 2};
 *         Input<float> amount{"amount", 1.0f, 0.0f, 100.0f};           // default, min, max
 *         Output<Buffer<uint8_t>> output{"output", 2};
 *
 *         void generate() {
 *             Expr v = mode == Mode::Add ? input(x, y) + amount : input(x, y) * amount;
 *             output(x, y) = cast<uint8_t>(clamp(v, 0, 255));
 *         }
 *         void schedule() { output.vectorize(x, vector_width); }       // optional
 *     private:
 *         Var x{"x"}, y{"y"};
 *     };
 *     LOOM_REGISTER_GENERATOR(Brighten, brighten)
 *
 * The generated C function takes the Inputs in declaration order, then the
 * Outputs in declaration order:
 *     int brighten(struct loom_buffer_t *input, float amount, struct loom_buffer_t *output);
 *
 * - `GeneratorParam<T>` (T = an integer type, float, double, bool, Type,
 *   std::string, or an enum given with a name map) is a compile-time constant
 *   set from its string form (`vector_width=16` on the driver's command line);
 *   it converts to T implicitly (use `Expr(p)` for an Expr).
 * - `Input<Buffer<T>>{"name", dims}` is an ImageParam (call it with Exprs,
 *   dim(d), width(), ...); `Input<Buffer<>>{"name", type, dims}` leaves the
 *   element type to a constructor argument. `Input<T>{"name"[, default[, min,
 *   max]]}` is a scalar Param<T>.
 * - `Output<Buffer<T>>{"name", dims}` is a Func of that name: define it in
 *   generate() and schedule it like any Func. `Output<Buffer<>>{"name",
 *   {types...}, dims}` is a Tuple-valued output (one buffer per element);
 *   `Output<T>{"name"}` is a zero-dimensional output.
 * - `get_target()` is the target compiled for (the driver's `target=`, else
 *   $LOOM_TARGET or the host) and `natural_vector_size<T>()` its vector width.
 * - `Input<Func>`, `Output<Func>`, arrays (`Input<Buffer<T>[]>`,
 *   `Input<int[2]>`, `Output<Func[]>`, ...) and shapes set from the command
 *   line (`in.type=uint8 in.dim=2 planes.size=3`) are in loom/GeneratorFuncIO.h
 *   (included here); `GeneratorParam<LoopLevel>` takes `root`, `inline` or
 *   `FUNC.VAR`; an optional `void configure()` runs before generate() and may
 *   call add_input<T>()/add_output<T>().
 *
 * Mistakes throw CompileError naming the generator and the member: an Output
 * generate() leaves undefined or defines with another dimensionality or type,
 * an Input read with the wrong number of coordinates, a GeneratorParam value
 * that does not parse or is out of range, an enum name that is not in the map
 * (the message lists the valid ones), an unknown GeneratorParam, two members
 * with one name, or an Input/Output/GeneratorParam outside a Generator.
 *
 * Generator executables are built with CMake's loom_add_generator() and run
 * at build time by loom_add_library(); see docs/GENERATORS.md.
 */

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "loom/Loom.h"
#include "loom/LoopLevel.h"

namespace loom {

class GeneratorBase;

namespace internal {

struct GeneratorAutoscheduling;

/** The generator whose object holds the member at `member` (its address lies
 * inside a Generator under construction or alive), or nullptr. */
GeneratorBase *owner_of_generator_member(const void *member);

/** Parses the string form of a GeneratorParam value; each throws CompileError
 * naming `who` when the text does not parse or does not fit. */
int64_t parse_generator_int(const std::string &who, const std::string &text);
uint64_t parse_generator_uint(const std::string &who, const std::string &text);
double parse_generator_float(const std::string &who, const std::string &text);
bool parse_generator_bool(const std::string &who, const std::string &text);
/** "int8".."int64", "uint1".."uint64", "bool", "float16", "float32", "float64". */
Type parse_generator_type(const std::string &who, const std::string &text);
std::string generator_type_name(const Type &t);
std::string format_generator_float(double value);
std::string format_generator_float(float value);
[[noreturn]] void throw_generator_param_out_of_range(const std::string &who, const std::string &value,
                                                    const std::string &lo, const std::string &hi);
[[noreturn]] void throw_unknown_generator_enum(const std::string &who, const std::string &text,
                                              const std::vector<std::string> &valid);

/** A GeneratorParam without its value type. */
class GeneratorParamBase {
public:
    explicit GeneratorParamBase(const std::string &name);
    virtual ~GeneratorParamBase() = default;
    GeneratorParamBase(const GeneratorParamBase &) = delete;
    GeneratorParamBase &operator=(const GeneratorParamBase &) = delete;

    const std::string &name() const { return name_; }
    /** Sets the value from its string form. \throws CompileError naming the
     * generator and this parameter if the text does not parse or fit, or the
     * generator's pipeline was already built. */
    void set_from_string(const std::string &text);
    /** The current value and the default in string form (parsable back). */
    virtual std::string value_string() const = 0;
    virtual std::string default_string() const = 0;
    /** "int32", "float32", "bool", "Type", "string", or "enum {a, b}". */
    virtual std::string type_description() const = 0;

protected:
    virtual void parse_and_set(const std::string &who, const std::string &text) = 0;
    /** "Generator 'g': GeneratorParam 'name'" for error messages. */
    std::string describe() const;
    void check_settable() const;

private:
    std::string name_;
    GeneratorBase *owner_;
};

/** The shape of an Input or Output that the command line may set
 * (`name.type=`, `name.dim=`, `name.size=`), as Halide's generators do for
 * the fields a declaration leaves open. */
struct GeneratorIOShape {
    std::vector<Type> types;  // empty: not known yet
    int dimensions = -1;      // -1: not known yet
    bool is_array = false;
    int array_size = -1;  // arrays only; -1: not known yet
    bool types_fixed = false, dimensions_fixed = false, size_fixed = false;
};

/** An Input without its C++ type: what the generated function's arguments are. */
class GeneratorInputBase {
public:
    GeneratorInputBase();
    virtual ~GeneratorInputBase() = default;
    GeneratorInputBase(const GeneratorInputBase &) = delete;
    GeneratorInputBase &operator=(const GeneratorInputBase &) = delete;
    /** The one argument of a single Input (arrays override arguments()). */
    virtual Argument argument() const;
    virtual std::vector<Argument> arguments() const { return {argument()}; }
    virtual std::string member_name() const { return argument().name; }
    /** The command line's `name.type`/`name.dim`/`name.size` (key "type",
     * "dim", "size"); false when this kind of Input has none. */
    virtual bool set_shape_param(const std::string &key, const std::string &value);
    /** Names of the shape params still open ("in.type", ...). */
    virtual std::vector<std::string> open_shape_params() const { return {}; }
    /** Before generate(): the type, dimensions and size must be known. */
    virtual void finalize() {}

protected:
    GeneratorBase *owner_;
};

/** An Output without its C++ type: its Funcs and what they were declared as. */
class GeneratorOutputBase {
public:
    GeneratorOutputBase(std::vector<Type> types, int dimensions);
    virtual ~GeneratorOutputBase() = default;
    GeneratorOutputBase(const GeneratorOutputBase &) = delete;
    GeneratorOutputBase &operator=(const GeneratorOutputBase &) = delete;
    /** The Func of a single Output (arrays override funcs()). */
    virtual const Func &func() const;
    virtual std::vector<Func> funcs() const { return {func()}; }
    virtual std::string member_name() const { return func().name(); }
    /** Declared element types; empty means "any" (Output<Buffer<>> without types). */
    const std::vector<Type> &declared_types() const { return shape_.types; }
    /** -1: not declared (Output<Func> without dimensions): any. */
    int declared_dimensions() const { return shape_.dimensions; }
    bool set_shape_param(const std::string &key, const std::string &value);
    std::vector<std::string> open_shape_params() const;
    bool array_size_open() const { return shape_.is_array && shape_.array_size < 0; }

protected:
    /** Called when `name.size=` sets an array's size. */
    virtual void on_resize(int) {}
    GeneratorBase *owner_;
    GeneratorIOShape shape_;
};

/** Sets shape.types/dimensions/array_size from `key` = "type", "dim" or
 * "size"; \throws CompileError naming `who` for a fixed field, a value that
 * does not parse, or "size" on a non-array. Returns false for another key. */
bool set_generator_io_shape(GeneratorIOShape &shape, const std::string &who, const std::string &key,
                            const std::string &value, bool allow_tuple);
std::vector<std::string> open_generator_io_shape_params(const GeneratorIOShape &shape, const std::string &name);
/** \throws CompileError naming `who` unless shape's type and dimensions are known. */
void require_generator_io_shape(const GeneratorIOShape &shape, const std::string &who, const std::string &name);
/** What is known of an input buffer whose ImageParam does not exist yet. */
Argument generator_input_buffer_argument(const GeneratorIOShape &shape, const std::string &name);
/** "Generator 'g': Input 'in'" */
std::string describe_generator_member(const GeneratorBase *owner, const std::string &kind, const std::string &name);
/** \throws CompileError: Input/Output<Buffer<T, D>> `name` declared with
 * another dimension count than its static D. */
inline void check_generator_buffer_dimensions(const std::string &name, int dimensions, int static_dimensions) {
    if (static_dimensions != AnyDims && dimensions != static_dimensions) {
        throw CompileError("The generator buffer '" + name + "' is a Buffer<T, " + std::to_string(static_dimensions) +
                           "> but is declared with " + std::to_string(dimensions) +
                           " dimensions; give it " + std::to_string(static_dimensions) + " or use Buffer<T>.");
    }
}
/** Parses "root", "inline"/"inlined" or "FUNC.VAR". */
loom::LoopLevel parse_generator_loop_level(const std::string &who, const std::string &text);

/** While alive, Inputs and Outputs constructed outside the generator's
 * object (add_input/add_output in configure()) belong to `g`. */
class GeneratorMemberOwnerScope {
public:
    explicit GeneratorMemberOwnerScope(GeneratorBase *g);
    ~GeneratorMemberOwnerScope();
    GeneratorMemberOwnerScope(const GeneratorMemberOwnerScope &) = delete;
    GeneratorMemberOwnerScope &operator=(const GeneratorMemberOwnerScope &) = delete;

private:
    GeneratorBase *previous_;
};

}  // namespace internal

/** A compile-time parameter of a Generator, settable by name from a string.
 *     GeneratorParam<int> tile{"tile", 32, 8, 256};           // default 32, in [8, 256]
 *     GeneratorParam<bool> parallel{"parallel", true};          // "true"/"false"/"1"/"0"
 *     GeneratorParam<Type> type{"type", UInt(8)};               // "uint8", "float32", ...
 *     GeneratorParam<Mode> mode{"mode", Mode::A, {{"a", Mode::A}, {"b", Mode::B}}};
 */
template<typename T, typename Enable = void>
class GeneratorParam : public internal::GeneratorParamBase {
    static constexpr bool is_number = std::is_arithmetic_v<T> && !std::is_same_v<T, bool>;

public:
    GeneratorParam(const std::string &name, const T &value)
        : GeneratorParamBase(name), value_(value), default_(value) {
        static_assert(is_number || std::is_same_v<T, bool> || std::is_same_v<T, Type> ||
                          std::is_same_v<T, std::string>,
                      "GeneratorParam<T> needs an arithmetic T, Type, std::string, or an enum with a name map");
        if constexpr (is_number) {
            min_ = std::numeric_limits<T>::lowest();
            max_ = std::numeric_limits<T>::max();
        }
    }
    /** A number with a range: values outside [min, max] are refused. */
    template<typename U = T, typename = std::enable_if_t<std::is_arithmetic_v<U> && !std::is_same_v<U, bool>>>
    GeneratorParam(const std::string &name, const T &value, const T &min, const T &max)
        : GeneratorParamBase(name), value_(value), default_(value), min_(min), max_(max) {
        if (value < min || value > max) {
            internal::throw_generator_param_out_of_range(describe(), to_text(value), to_text(min), to_text(max));
        }
    }

    const T &value() const { return value_; }
    operator const T &() const { return value_; }
    /** A number converts to an Expr too, so it can be passed where the API
     * takes one: `out.vectorize(x, vector_width)`. */
    template<typename U = T, typename = std::enable_if_t<std::is_arithmetic_v<U> && !std::is_same_v<U, bool>>>
    operator Expr() const {
        return Expr(value_);
    }
    /** Sets the value in C++ (before the pipeline is built). */
    GeneratorParam &operator=(const T &value) {
        check_settable();
        check_range(value);
        value_ = value;
        return *this;
    }

    std::string value_string() const override { return to_text(value_); }
    std::string default_string() const override { return to_text(default_); }
    std::string type_description() const override {
        if constexpr (std::is_same_v<T, bool>) return "bool";
        else if constexpr (std::is_same_v<T, Type>) return "Type";
        else if constexpr (std::is_same_v<T, std::string>) return "string";
        else return internal::generator_type_name(type_of<T>());
    }

protected:
    void parse_and_set(const std::string &who, const std::string &text) override {
        if constexpr (std::is_same_v<T, bool>) {
            value_ = internal::parse_generator_bool(who, text);
        } else if constexpr (std::is_same_v<T, Type>) {
            value_ = internal::parse_generator_type(who, text);
        } else if constexpr (std::is_same_v<T, std::string>) {
            value_ = text;
        } else if constexpr (std::is_floating_point_v<T>) {
            double v = internal::parse_generator_float(who, text);
            if (v < (double)min_ || v > (double)max_) out_of_range(who, text);
            value_ = (T)v;
        } else if constexpr (std::is_signed_v<T>) {
            int64_t v = internal::parse_generator_int(who, text);
            if (v < (int64_t)min_ || v > (int64_t)max_) out_of_range(who, text);
            value_ = (T)v;
        } else {
            uint64_t v = internal::parse_generator_uint(who, text);
            if (v < (uint64_t)min_ || v > (uint64_t)max_) out_of_range(who, text);
            value_ = (T)v;
        }
    }

private:
    [[noreturn]] void out_of_range(const std::string &who, const std::string &text) const {
        internal::throw_generator_param_out_of_range(who, text, to_text(min_), to_text(max_));
    }
    void check_range(const T &value) const {
        if constexpr (is_number) {
            if (value < min_ || value > max_) {
                internal::throw_generator_param_out_of_range(describe(), to_text(value), to_text(min_), to_text(max_));
            }
        }
    }
    static std::string to_text(const T &v) {
        if constexpr (std::is_same_v<T, bool>) return v ? "true" : "false";
        else if constexpr (std::is_same_v<T, Type>) return internal::generator_type_name(v);
        else if constexpr (std::is_same_v<T, std::string>) return v;
        else if constexpr (std::is_floating_point_v<T>) return internal::format_generator_float(v);
        else return std::to_string(v);
    }

    T value_;
    T default_;
    T min_{}, max_{};
};

/** An enum GeneratorParam: the map gives every value its name. */
template<typename T>
class GeneratorParam<T, std::enable_if_t<std::is_enum_v<T>>> : public internal::GeneratorParamBase {
public:
    GeneratorParam(const std::string &name, const T &value, const std::map<std::string, T> &names)
        : GeneratorParamBase(name), value_(value), default_(value), names_(names) {
        name_of(value);  // the default must be in the map
    }
    const T &value() const { return value_; }
    operator const T &() const { return value_; }
    GeneratorParam &operator=(const T &value) {
        check_settable();
        name_of(value);
        value_ = value;
        return *this;
    }
    std::string value_string() const override { return name_of(value_); }
    std::string default_string() const override { return name_of(default_); }
    std::string type_description() const override {
        std::string s = "enum {";
        for (auto it = names_.begin(); it != names_.end(); ++it) s += (it == names_.begin() ? "" : ", ") + it->first;
        return s + "}";
    }

protected:
    void parse_and_set(const std::string &who, const std::string &text) override {
        auto it = names_.find(text);
        if (it == names_.end()) internal::throw_unknown_generator_enum(who, text, valid_names());
        value_ = it->second;
    }

private:
    std::vector<std::string> valid_names() const {
        std::vector<std::string> v;
        for (const auto &[n, _] : names_) v.push_back(n);
        return v;
    }
    std::string name_of(const T &value) const {
        for (const auto &[n, v] : names_) {
            if (v == value) return n;
        }
        internal::throw_unknown_generator_enum(describe(), "<value " + std::to_string((long long)value) + ">",
                                               valid_names());
    }

    T value_;
    T default_;
    std::map<std::string, T> names_;
};

/** A LoopLevel GeneratorParam, set from `root`, `inline` (or `inlined`) or
 * `FUNC.VAR` (loop VAR of the Func named FUNC):
 *     GeneratorParam<LoopLevel> level{"level", LoopLevel::root()};
 *     void schedule() { helper.compute_at(level); }     // level=out.y on the command line
 */
template<>
class GeneratorParam<LoopLevel, void> : public internal::GeneratorParamBase {
public:
    GeneratorParam(const std::string &name, const LoopLevel &value)
        : GeneratorParamBase(name), value_(value), default_(value) {}
    const LoopLevel &value() const { return value_; }
    operator const LoopLevel &() const { return value_; }
    GeneratorParam &operator=(const LoopLevel &value) {
        check_settable();
        value_ = value;
        return *this;
    }
    std::string value_string() const override { return value_.to_string(); }
    std::string default_string() const override { return default_.to_string(); }
    std::string type_description() const override { return "LoopLevel"; }

protected:
    void parse_and_set(const std::string &who, const std::string &text) override {
        value_ = internal::parse_generator_loop_level(who, text);
    }

private:
    LoopLevel value_;
    LoopLevel default_;
};

/** Arithmetic and comparisons with a numeric GeneratorParam use its value, so
 * `vw * 2` is an int and `gain * in(x, y)` an Expr, without ambiguity between
 * the conversions to T and to Expr. */
#define LOOM_GENERATOR_PARAM_OPERATOR(op)                                                              \
    template<typename T, typename Other, typename = std::enable_if_t<std::is_arithmetic_v<T>>>       \
    auto operator op(const GeneratorParam<T> &a, const Other &b)->decltype(a.value() op b) {       \
        return a.value() op b;                                                                    \
    }                                                                                             \
    template<typename Other, typename T, typename = std::enable_if_t<std::is_arithmetic_v<T>>>       \
    auto operator op(const Other &a, const GeneratorParam<T> &b)->decltype(a op b.value()) {       \
        return a op b.value();                                                                    \
    }
LOOM_GENERATOR_PARAM_OPERATOR(+)
LOOM_GENERATOR_PARAM_OPERATOR(-)
LOOM_GENERATOR_PARAM_OPERATOR(*)
LOOM_GENERATOR_PARAM_OPERATOR(/)
LOOM_GENERATOR_PARAM_OPERATOR(%)
LOOM_GENERATOR_PARAM_OPERATOR(<)
LOOM_GENERATOR_PARAM_OPERATOR(<=)
LOOM_GENERATOR_PARAM_OPERATOR(>)
LOOM_GENERATOR_PARAM_OPERATOR(>=)
LOOM_GENERATOR_PARAM_OPERATOR(==)
LOOM_GENERATOR_PARAM_OPERATOR(!=)
#undef LOOM_GENERATOR_PARAM_OPERATOR

/** A scalar input of a Generator: a Param<T> that is an argument of the
 * generated function (in declaration order among the Inputs). */
template<typename T>
class Input : public internal::GeneratorInputBase, public Param<T> {
public:
    /** As in Halide, a scalar Input without a default value has T(). */
    explicit Input(const std::string &name) : Param<T>(name, T()) {}
    Input(const std::string &name, const T &value) : Param<T>(name, value) {}
    Input(const std::string &name, const T &value, const Expr &min, const Expr &max) : Param<T>(name, value, min, max) {}
    Argument argument() const override { return Argument(this->parameter()); }
};

/** A buffer input of a Generator: an ImageParam of element type T (given to
 * the constructor for Input<Buffer<>>) and fixed dimensions. */
template<typename T, int D>
class Input<Buffer<T, D>> : public internal::GeneratorInputBase, public ImageParam {
public:
    Input(const std::string &name, int dimensions) : ImageParam(element_type(), dimensions, name), name_(name) {
        static_assert(!std::is_void_v<T>, "Input<Buffer<>> needs its element type: Input<Buffer<>>{\"name\", type, dims}");
        internal::check_generator_buffer_dimensions(name, dimensions, D);
        fix_shape(element_type(), dimensions);
    }
    /** Input<Buffer<>> only: the element type is given here. */
    Input(const std::string &name, Type type, int dimensions) : ImageParam(type, dimensions, name), name_(name) {
        static_assert(std::is_void_v<T>, "Input<Buffer<T>> has element type T; give a type only to Input<Buffer<>>");
        fix_shape(type, dimensions);
    }
    /** The shape from the command line: Input<Buffer<T>>{"name"} takes
     * `name.dim=`, Input<Buffer<>>{"name"} also `name.type=`. The ImageParam
     * exists once generate() runs (or set() is called). */
    explicit Input(const std::string &name) : name_(name), open_(true) {
        if constexpr (!std::is_void_v<T>) {
            shape_.types = {type_of<T>()};
            shape_.types_fixed = true;
        }
        if constexpr (D != AnyDims) {  // Input<Buffer<T, D>>: D dimensions
            shape_.dimensions = D;
            shape_.dimensions_fixed = true;
        }
    }

    Argument argument() const override {
        if (open_) return internal::generator_input_buffer_argument(shape_, name_);
        return Argument(parameter());
    }
    std::string member_name() const override { return name_; }
    bool set_shape_param(const std::string &key, const std::string &value) override {
        if (open_ && !open_created_) {
            return internal::set_generator_io_shape(shape_, who(), key, value, /*allow_tuple=*/false);
        }
        if (open_) throw CompileError(who() + ": '" + name_ + "." + key + "' can't be set after the Input was used.");
        return internal::set_generator_io_shape(shape_, who(), key, value, /*allow_tuple=*/false);
    }
    std::vector<std::string> open_shape_params() const override {
        return internal::open_generator_io_shape_params(shape_, name_);
    }
    void finalize() override {
        if (!open_ || open_created_) return;
        internal::require_generator_io_shape(shape_, who(), name_);
        static_cast<ImageParam &>(*this) = ImageParam(shape_.types[0], shape_.dimensions, name_);
        open_created_ = true;
        open_ = false;
    }
    /** JIT only: the buffer realize() reads. */
    template<typename U, int D2>
    void set(const Buffer<U, D2> &buffer) {
        finalize();
        ImageParam::set(buffer);
    }
    /** A typical size for the autoscheduler: one {min, extent} per
     * dimension, as dim(d).set_estimate(min, extent) (loom/AutoSchedule.h). */
    Input &set_estimates(const Region &estimates) {
        internal::set_buffer_estimates(parameter(), estimates, who());
        return *this;
    }

private:
    static Type element_type() {
        if constexpr (std::is_void_v<T>) {
            return Type();
        } else {
            return type_of<T>();
        }
    }
    void fix_shape(Type type, int dimensions) {
        shape_.types = {type};
        shape_.types_fixed = shape_.dimensions_fixed = true;
        shape_.dimensions = dimensions;
    }
    std::string who() const { return internal::describe_generator_member(owner_, "Input", name_); }

    std::string name_;
    internal::GeneratorIOShape shape_;
    bool open_ = false;
    bool open_created_ = false;
};

/** A buffer output of a Generator: a Func named after the output, to define
 * in generate() and schedule; an argument of the generated function after
 * all Inputs. Output<Buffer<>> may declare Tuple element types or none. */
template<typename T>
class Output : public internal::GeneratorOutputBase, public Func {
public:
    /** A zero-dimensional output of scalar type T: out() = ... */
    explicit Output(const std::string &name)
        : GeneratorOutputBase({type_of<T>()}, 0), Func(internal::ExactFuncName{name}) {}
    Output &operator=(const Func &f) {
        (*this)(_) = f(_);
        return *this;
    }
    const Func &func() const override { return *this; }
};

template<typename T, int D>
class Output<Buffer<T, D>> : public internal::GeneratorOutputBase, public Func {
public:
    /** Dimensions (and for Output<Buffer<>> the type) from the command line
     * (`name.dim=`, `name.type=`) or else from the definition; D of
     * Output<Buffer<T, D>> when static. */
    explicit Output(const std::string &name) : Output(name, D) {}
    /** For Output<Buffer<>>, any element type (and Tuple size) is accepted. */
    Output(const std::string &name, int dimensions)
        : GeneratorOutputBase(element_types(), dimensions), Func(internal::ExactFuncName{name}) {
        internal::check_generator_buffer_dimensions(name, dimensions, D);
    }
    /** Output<Buffer<>> only: one element type, or one per Tuple element. */
    Output(const std::string &name, Type type, int dimensions) : Output(name, std::vector<Type>{type}, dimensions) {}
    Output(const std::string &name, const std::vector<Type> &types, int dimensions)
        : GeneratorOutputBase(types, dimensions), Func(internal::ExactFuncName{name}) {
        static_assert(std::is_void_v<T>, "Output<Buffer<T>> has element type T; give types only to Output<Buffer<>>");
    }

    /** Defines the output as f: out(_) = f(_). */
    Output &operator=(const Func &f) {
        (*this)(_) = f(_);
        return *this;
    }
    const Func &func() const override { return *this; }
    /** The element type, as Halide's Output<Buffer<>>::type(): the declared
     * one (the template argument, the constructor's, or `name.type=` from the
     * driver), usable before the output is defined, e.g.
     * out(x) = cast(out.type(), e); else the definition's.
     * \throws CompileError as Func::type() when neither is known. */
    Type type() const {
        if (declared_types().size() == 1) return declared_types()[0];
        return Func::type();
    }
    /** The declared element types (one per Tuple element), else the definition's. */
    std::vector<Type> types() const {
        if (!declared_types().empty()) return declared_types();
        return Func::types();
    }
    /** A typical size for the autoscheduler (Func::set_estimates). */
    Output &set_estimates(const Region &estimates) {
        Func::set_estimates(estimates);
        return *this;
    }

    /** Dimension d of the output buffer, to read or constrain its shape
     * (Halide's Output<Buffer<>>::dim; loom/Dimension.h), e.g.
     * out.dim(0).set_stride(Expr()) for an interleaved output. The same as
     * output_buffer().dim(d): call it once the output is defined. */
    internal::Dimension dim(int d) const { return output_buffer().dim(d); }

private:
    static std::vector<Type> element_types() {
        if constexpr (std::is_void_v<T>) {
            return {};
        } else {
            return {type_of<T>()};
        }
    }
};

}  // namespace loom

#include "loom/GeneratorFuncIO.h"

namespace loom {

/** What the driver's -l lists about one GeneratorParam. */
struct GeneratorParamInfo {
    std::string name;
    std::string type;
    std::string default_value;
    std::string value;
};

/** The part of a Generator that does not depend on the subclass. */
class GeneratorBase {
public:
    virtual ~GeneratorBase();
    GeneratorBase(const GeneratorBase &) = delete;
    GeneratorBase &operator=(const GeneratorBase &) = delete;

    /** The registered name (LOOM_REGISTER_GENERATOR), else the class name. */
    const std::string &name() const { return name_; }

    /** The target the pipeline is compiled for: set_target()'s, else
     * $LOOM_TARGET or the host. */
    Target get_target() const;
    void set_target(const Target &target);
    template<typename T>
    int natural_vector_size() const {
        return get_target().natural_vector_size<T>();
    }
    int natural_vector_size(const Type &t) const { return get_target().natural_vector_size(t); }
    /** Whether the GeneratorParam autoscheduler (or Halide 14's
     * auto_schedule) asks for an autoscheduler, which runs after schedule()
     * (docs/AUTOSCHEDULER.md). */
    bool using_autoscheduler() const;
    /** What the autoscheduler produced, once build_pipeline() ran one; else null. */
    const AutoSchedulerResults *autoscheduler_results() const;

    /** Sets a GeneratorParam from its string form ("target" sets the target).
     * \throws CompileError naming the generator for an unknown name (listing
     * the valid ones), a value that does not parse, or a built pipeline. */
    void set_generator_param(const std::string &name, const std::string &value);
    void set_generator_param_values(const std::map<std::string, std::string> &values);
    /** The GeneratorParams in declaration order. */
    std::vector<GeneratorParamInfo> generator_params() const;
    /** The Input/Output shape params still settable ("in.type", "in.dim",
     * "planes.size", ...), in declaration order. */
    std::vector<std::string> shape_params() const;

    /** The generated function's arguments: the Inputs in declaration order,
     * then one OutputBuffer per Output (per Tuple element: "name.0", ...). */
    std::vector<Argument> arguments() const;
    /** The Inputs only, as compile_to() takes them. */
    std::vector<Argument> input_arguments() const;
    /** The Input and Output members in order (declared, then added by
     * configure()); generator stubs (loom/GeneratorStub.h) bind them. */
    const std::vector<internal::GeneratorInputBase *> &input_members() const { return inputs_; }
    const std::vector<internal::GeneratorOutputBase *> &output_members() const { return outputs_; }

    /** Runs generate() and schedule() (once) and checks the outputs.
     * \throws CompileError naming the generator and the Output that is
     * undefined or has another dimensionality or type than declared; any
     * CompileError from generate()/schedule() gets the generator's name. */
    Pipeline build_pipeline();

    /** Builds the pipeline and writes the requested files for fn_name. */
    void compile_to(const std::map<OutputFileType, std::string> &output_files, const std::string &fn_name);
    /** Builds the pipeline and lowers it once for the target into a Module
     * (loom/Module.h) for fn_name (default: the generator's name), whose
     * compile() writes the files later (Halide's build_module). */
    Module build_module(const std::string &fn_name = "");

    /** JIT: builds the pipeline and computes its outputs over sizes (bind
     * Input buffers with set() and scalars with set() first). */
    Realization realize(const std::vector<int> &sizes);
    void realize(Realization &outputs);

protected:
    GeneratorBase(const std::type_info &type, size_t size);
    virtual void call_configure() = 0;
    virtual void call_generate() = 0;
    virtual void call_schedule() = 0;

    /** Halide 14's auto_schedule, read as a member: `if (auto_schedule) {
     * ...set estimates... }`. True when an autoscheduler will run
     * (using_autoscheduler()). */
    struct AutoScheduleFlag {
        const GeneratorBase *generator;
        operator bool() const { return generator->using_autoscheduler(); }
    };
    const AutoScheduleFlag auto_schedule{this};

    /** In configure() only: a new Input (or Output) after the declared ones,
     * built from the same arguments as a member; the generator owns it.
     *     Input<Buffer<uint8_t>> *extra = add_input<Buffer<uint8_t>>("extra", 2);
     * \throws CompileError outside configure(). */
    template<typename T, typename... Args>
    loom::Input<T> *add_input(const std::string &name, Args &&...args) {
        check_configuring("add_input", name);
        internal::GeneratorMemberOwnerScope scope(this);
        auto member = std::make_shared<loom::Input<T>>(name, std::forward<Args>(args)...);
        added_members_.push_back(member);
        return member.get();
    }
    template<typename T, typename... Args>
    loom::Output<T> *add_output(const std::string &name, Args &&...args) {
        check_configuring("add_output", name);
        internal::GeneratorMemberOwnerScope scope(this);
        auto member = std::make_shared<loom::Output<T>>(name, std::forward<Args>(args)...);
        added_members_.push_back(member);
        return member.get();
    }

    // Let subclasses write the member types without loom:: (as in Halide).
    template<typename T>
    using Input = loom::Input<T>;
    template<typename T>
    using Output = loom::Output<T>;
    template<typename T>
    using GeneratorParam = loom::GeneratorParam<T>;
    template<typename T = void, int D = AnyDims>
    using Buffer = loom::Buffer<T, D>;
    using Expr = loom::Expr;
    using Func = loom::Func;
    using Var = loom::Var;
    using RDom = loom::RDom;
    using Type = loom::Type;
    using LoopLevel = loom::LoopLevel;

private:
    friend class internal::GeneratorParamBase;
    friend class internal::GeneratorInputBase;
    friend class internal::GeneratorOutputBase;
    friend class GeneratorRegistry;

    void check_configuring(const char *what, const std::string &name) const;
    void check_members() const;
    bool set_shape_param(const std::string &name, const std::string &value);
    void check_outputs() const;
    void check_output(const internal::GeneratorOutputBase *out, const Func &f) const;
    [[noreturn]] void rethrow_with_name(const CompileError &e) const;

    std::string name_;
    std::unique_ptr<Target> target_;
    std::vector<internal::GeneratorParamBase *> params_;
    std::vector<internal::GeneratorInputBase *> inputs_;
    std::vector<internal::GeneratorOutputBase *> outputs_;
    Pipeline pipeline_;
    bool built_ = false;
    bool configuring_ = false;
    std::vector<std::shared_ptr<void>> added_members_;  // add_input/add_output
    std::string build_error_;  // why build_pipeline() failed, if it did
    /** The autoscheduler GeneratorParams and results (src/autoschedule/GeneratorAutoschedule.cpp). */
    std::shared_ptr<internal::GeneratorAutoscheduling> autoscheduling_;
};

/** Base class of every generator: class G : public loom::Generator<G>. G
 * declares void generate() and may declare void schedule(). */
template<typename T>
class Generator : public GeneratorBase {
protected:
    Generator() : GeneratorBase(typeid(T), sizeof(T)) {}

private:
    template<typename U, typename = void>
    struct has_configure : std::false_type {};
    template<typename U>
    struct has_configure<U, std::void_t<decltype(std::declval<U &>().configure())>> : std::true_type {};
    template<typename U, typename = void>
    struct has_schedule : std::false_type {};
    template<typename U>
    struct has_schedule<U, std::void_t<decltype(std::declval<U &>().schedule())>> : std::true_type {};

    void call_configure() override {
        if constexpr (has_configure<T>::value) static_cast<T *>(this)->configure();
    }
    void call_generate() override { static_cast<T *>(this)->generate(); }
    void call_schedule() override {
        if constexpr (has_schedule<T>::value) static_cast<T *>(this)->schedule();
    }
};

/** The table of generators the executable was linked with. */
class GeneratorRegistry {
public:
    using Factory = std::function<std::unique_ptr<GeneratorBase>()>;
    static void register_factory(const std::string &name, const std::type_info &type, Factory factory,
                                 const std::string &stub_name = "");
    /** The stub class name given to HALIDE_REGISTER_GENERATOR's third
     * argument ("ns::Name"), or "loom_stub::NAME" (-e cpp_stub).
     * \throws CompileError for an unknown name. */
    static std::string stub_name_of(const std::string &name);
    /** Registered names, sorted. */
    static std::vector<std::string> enumerate();
    /** A new instance. \throws CompileError for an unknown name, listing the
     * registered ones. */
    static std::unique_ptr<GeneratorBase> create(const std::string &name);
    /** The name G was registered under, or "" (used by Generator's constructor). */
    static std::string name_of(const std::type_info &type);
};

namespace internal {
struct RegisterGenerator {
    RegisterGenerator(const char *name, const std::type_info &type, GeneratorRegistry::Factory factory,
                      const char *stub_name = "") {
        GeneratorRegistry::register_factory(name, type, std::move(factory), stub_name);
    }
};

/** The generator driver (what Loom::generator_main's main() runs): parses
 * argv, creates and runs the generator, reports errors on stderr. Returns
 * the process exit code (0, or 1 on any error); never throws. */
int generate_filter_main(int argc, char **argv);
}  // namespace internal

}  // namespace loom

/** Registers generator class GEN under NAME (a C identifier) for the driver;
 * an optional third argument names the class of its stub (-e cpp_stub,
 * loom/GeneratorStub.h), e.g. ns::BrightenStub (default loom_stub::NAME). */
#define LOOM_REGISTER_GENERATOR_WITH_STUB_(GEN, NAME, STUB)                                                 \
    namespace loom_generator_registration_##NAME {                                                          \
    static const ::loom::internal::RegisterGenerator registered_generator(                                  \
        #NAME, typeid(GEN), []() -> std::unique_ptr<::loom::GeneratorBase> { return std::make_unique<GEN>(); }, \
        STUB);                                                                                              \
    }
#define LOOM_REGISTER_GENERATOR_2_(GEN, NAME) LOOM_REGISTER_GENERATOR_WITH_STUB_(GEN, NAME, "")
#define LOOM_REGISTER_GENERATOR_3_(GEN, NAME, STUB) LOOM_REGISTER_GENERATOR_WITH_STUB_(GEN, NAME, #STUB)
#define LOOM_REGISTER_GENERATOR_PICK_(_1, _2, _3, MACRO, ...) MACRO
#define LOOM_REGISTER_GENERATOR(...) \
    LOOM_REGISTER_GENERATOR_PICK_(__VA_ARGS__, LOOM_REGISTER_GENERATOR_3_, LOOM_REGISTER_GENERATOR_2_, )(__VA_ARGS__)

/** Halide's name for LOOM_REGISTER_GENERATOR, so a Halide generator ports
 * unchanged, with its optional stub name. */
#ifndef HALIDE_REGISTER_GENERATOR
#define HALIDE_REGISTER_GENERATOR(...) LOOM_REGISTER_GENERATOR(__VA_ARGS__)
#endif

#endif
