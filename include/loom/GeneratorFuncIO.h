#ifndef LOOM_GENERATOR_FUNC_IO_H
#define LOOM_GENERATOR_FUNC_IO_H

/** \file
 * Generator Inputs and Outputs beyond single buffers and scalars (Halide's
 * spelling and meaning); included by loom/Generator.h, include that.
 *
 *     Input<Func> in{"in", UInt(8), 2};          // a buffer argument, used as a Func
 *     Input<Func> any{"any"};                    // type and dimensions from any.type=, any.dim=
 *     Input<Buffer<uint8_t>[]> planes{"planes", 2};   // planes.size=3 on the command line
 *     Input<Func[2]> pair{"pair", Float(32), 1};      // a fixed-size array
 *     Input<float[]> gains{"gains", 1.0f};           // scalars: gains_0, gains_1, ...
 *     Output<Func> out{"out", Int(32), 2};       // like Output<Buffer<int32_t>>{"out", 2}
 *     Output<Func[]> outs{"outs", Int(32), 1};   // outs.size=N, or outs.resize(n) in generate()
 *
 * Array elements are named NAME_0, NAME_1, ... (in the generated function's
 * arguments too, in index order). A type, dimension count or array size the
 * declaration leaves open is set by the command line's `NAME.type=uint8`,
 * `NAME.dim=2`, `NAME.size=3` (set_generator_param() in C++); one the
 * declaration gives can't be set. An Output<Func> whose type or dimensions
 * stay open takes them from its definition. Mistakes (an Input whose type,
 * dimensions or size is still unknown when generate() runs, an index out of
 * range, setting a declared field) throw CompileError naming the member.
 */

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace loom {

namespace internal {

/** Which element types an Input/Output array or Func may hold. */
template<typename T>
struct GeneratorImageKind {
    static constexpr bool valid = false;
};
template<>
struct GeneratorImageKind<Func> {
    static constexpr bool valid = true;
    static std::optional<Type> type() { return std::nullopt; }
};
template<typename U, int D>
struct GeneratorImageKind<Buffer<U, D>> {
    static constexpr bool valid = true;
    static std::optional<Type> type() {
        if constexpr (std::is_void_v<U>) {
            return std::nullopt;
        } else {
            return type_of<U>();
        }
    }
};

/** One buffer argument or an array of them, each an ImageParam, created once
 * the type and dimensions are known. */
class GeneratorImageInputs : public GeneratorInputBase {
public:
    /** fixed_type: what the C++ type says; type: what the constructor says.
     * array_size: -1 for a single Input, 0 for [] (size open), N for [N]. */
    GeneratorImageInputs(const std::string &name, std::optional<Type> fixed_type, std::optional<Type> type,
                         std::optional<int> dimensions, int array_size);

    std::vector<Argument> arguments() const override;
    std::string member_name() const override { return name_; }
    bool set_shape_param(const std::string &key, const std::string &value) override;
    std::vector<std::string> open_shape_params() const override;
    void finalize() override { create(); }
    /** What a generator stub gives each element, as in Halide's stubs: a
     * Func or a Buffer (true: Input<Buffer<T>[]>, a StubInputBuffers), or a
     * Func only (false: Input<Func>, Input<Func[]>, a std::vector<Func>). */
    virtual bool stub_takes_buffers() const { return false; }

    /** Number of elements (1 for a single Input). \throws CompileError when
     * an array's size is still open. */
    size_t size() const;
    /** Resizes an array declared with [] (configure() or before building). */
    void resize(size_t n);
    Type type() const;
    int dimensions() const;

protected:
    /** Element i's ImageParam, created on first use. \throws CompileError
     * for an out-of-range index or an open type/dimension count/size. */
    ImageParam &image(size_t i) const;
    std::string describe() const;

private:
    void create() const;

    std::string name_;
    GeneratorIOShape shape_;
    mutable std::vector<ImageParam> images_;
    mutable bool created_ = false;
};

}  // namespace internal

/** A buffer input used as a Func: Input<Func>{"name"[, type][, dims]}. The
 * type and dimensions the constructor leaves out come from `name.type=` and
 * `name.dim=`. Call it with Exprs, convert it to a Func, or set() a buffer
 * for the JIT. */
template<>
class Input<Func> : public internal::GeneratorImageInputs {
public:
    explicit Input(const std::string &name) : GeneratorImageInputs(name, std::nullopt, std::nullopt, std::nullopt, -1) {}
    Input(const std::string &name, Type type) : GeneratorImageInputs(name, std::nullopt, type, std::nullopt, -1) {}
    Input(const std::string &name, int dimensions)
        : GeneratorImageInputs(name, std::nullopt, std::nullopt, dimensions, -1) {}
    Input(const std::string &name, Type type, int dimensions)
        : GeneratorImageInputs(name, std::nullopt, type, dimensions, -1) {}

    template<typename... Args>
    Expr operator()(Args &&...args) const {
        return image(0)(std::forward<Args>(args)...);
    }
    Expr operator()(const std::vector<Expr> &args) const { return image(0)(args); }
    operator Func() const { return Func(image(0)); }
    Func func() const { return Func(image(0)); }
    const ImageParam &param() const { return image(0); }
    /** JIT only: the buffer realize() reads. */
    template<typename T>
    void set(const Buffer<T> &buffer) {
        image(0).set(buffer);
    }
    /** A typical size for the autoscheduler: one {min, extent} per
     * dimension, as dim(d).set_estimate(min, extent) (loom/AutoSchedule.h). */
    Input &set_estimates(const Region &estimates) {
        internal::set_buffer_estimates(image(0).parameter(), estimates, "Input '" + member_name() + "'");
        return *this;
    }
};

namespace internal {

[[noreturn]] void throw_generator_array_unsized(const std::string &who, const std::string &name);
[[noreturn]] void throw_generator_array_index(const std::string &who, size_t index, size_t size);

/** An array of scalar inputs (Param<T> named name_0, name_1, ...). */
template<typename T>
class GeneratorScalarInputs : public GeneratorInputBase {
public:
    /** array_size: 0 for [] (size open), N for [N]. */
    GeneratorScalarInputs(const std::string &name, int array_size, std::optional<T> value = std::nullopt,
                          const Expr &min = Expr(), const Expr &max = Expr())
        : name_(name), value_(value), min_(min), max_(max) {
        shape_.types = {type_of<T>()};
        shape_.types_fixed = shape_.dimensions_fixed = true;
        shape_.dimensions = 0;
        shape_.is_array = true;
        if (array_size > 0) {
            shape_.array_size = array_size;
            shape_.size_fixed = true;
        }
    }

    std::vector<Argument> arguments() const override {
        std::vector<Argument> args;
        if (created_) {
            for (const Param<T> &p : params_) args.emplace_back(p.parameter());
            return args;
        }
        for (int i = 0; i < std::max(shape_.array_size, 0); i++) {
            Argument a;
            a.name = name_ + "_" + std::to_string(i);
            a.type = type_of<T>();
            args.push_back(a);
        }
        return args;
    }
    std::string member_name() const override { return name_; }
    bool set_shape_param(const std::string &key, const std::string &value) override {
        if (created_) throw CompileError(who() + ": '" + name_ + "." + key + "' can't be set after the Input was used.");
        return set_generator_io_shape(shape_, who(), key, value, /*allow_tuple=*/false);
    }
    std::vector<std::string> open_shape_params() const override {
        return open_generator_io_shape_params(shape_, name_);
    }
    void finalize() override { create(); }

    size_t size() const {
        if (shape_.array_size < 0) throw_generator_array_unsized(who(), name_);
        return size_t(shape_.array_size);
    }
    /** Resizes an array declared with [] (configure() or before building). */
    void resize(size_t n) {
        if (shape_.size_fixed) throw CompileError(who() + " can't be resized; only Input arrays declared with [] can.");
        if (created_) throw CompileError(who() + " can't be resized after it was used.");
        shape_.array_size = int(n);
    }

protected:
    Param<T> &element(size_t i) const {
        create();
        if (i >= params_.size()) throw_generator_array_index(who(), i, params_.size());
        return params_[i];
    }

private:
    std::string who() const { return describe_generator_member(owner_, "Input", name_); }
    void create() const {
        if (created_) return;
        size_t n = size();
        params_.reserve(n);
        for (size_t i = 0; i < n; i++) {
            std::string element_name = name_ + "_" + std::to_string(i);
            if (value_ && min_.defined()) {
                params_.emplace_back(element_name, *value_, min_, max_);
            } else if (value_) {
                params_.emplace_back(element_name, *value_);
            } else {
                params_.emplace_back(element_name);
            }
        }
        created_ = true;
    }

    std::string name_;
    GeneratorIOShape shape_;
    std::optional<T> value_;
    Expr min_, max_;
    mutable std::vector<Param<T>> params_;
    mutable bool created_ = false;
};

}  // namespace internal

namespace internal {

/** Input<Buffer<T>[N]>, Input<Func[N]> (N = 0: []): element i is the
 * ImageParam `name_i`. */
template<typename T, int N>
class GeneratorImageArray : public GeneratorImageInputs {
    static_assert(GeneratorImageKind<T>::valid, "Input arrays hold Buffer<T>, Func or arithmetic elements");

public:
    explicit GeneratorImageArray(const std::string &name)
        : GeneratorImageInputs(name, GeneratorImageKind<T>::type(), std::nullopt, std::nullopt, N) {}
    GeneratorImageArray(const std::string &name, int dimensions)
        : GeneratorImageInputs(name, GeneratorImageKind<T>::type(), std::nullopt, dimensions, N) {}
    GeneratorImageArray(const std::string &name, Type type)
        : GeneratorImageInputs(name, GeneratorImageKind<T>::type(), type, std::nullopt, N) {}
    GeneratorImageArray(const std::string &name, Type type, int dimensions)
        : GeneratorImageInputs(name, GeneratorImageKind<T>::type(), type, dimensions, N) {}

    const ImageParam &operator[](size_t i) const { return image(i); }
    ImageParam &operator[](size_t i) { return image(i); }
    bool stub_takes_buffers() const override { return !std::is_same_v<T, Func>; }
};

/** Input<T[N]> for arithmetic T, float16_t or bfloat16_t (N = 0: []):
 * element i is the Param<T> `name_i`. */
template<typename T, int N>
class GeneratorScalarArray : public GeneratorScalarInputs<T> {
public:
    explicit GeneratorScalarArray(const std::string &name) : GeneratorScalarInputs<T>(name, N) {}
    GeneratorScalarArray(const std::string &name, const T &value) : GeneratorScalarInputs<T>(name, N, value) {}
    GeneratorScalarArray(const std::string &name, const T &value, const Expr &min, const Expr &max)
        : GeneratorScalarInputs<T>(name, N, value, min, max) {}
    Param<T> &operator[](size_t i) const { return this->element(i); }
};

template<typename T, int N>
using GeneratorArrayInput =
    std::conditional_t<std::is_arithmetic_v<T> || is_half_float_v<T>, GeneratorScalarArray<T, N>,
                       GeneratorImageArray<T, N>>;

}  // namespace internal

/** Arrays of inputs: Input<Buffer<T>[]>, Input<Func[]> and Input<T[]> for a
 * scalar T (size from `name.size=` or resize() in configure()), and the
 * fixed-size Input<Buffer<T>[N]>, Input<Func[N]>, Input<T[N]>. Buffer and
 * Func elements are ImageParams, scalar ones Param<T>s, named name_0, ...
 *     Input<Buffer<uint8_t>[]> planes{"planes", 2};
 *     Input<Func[2]> pair{"pair", Float(32), 1};
 *     Input<int32_t[]> coeffs{"coeffs", 0, -100, 100};   // default, min, max
 */
template<typename T>
class Input<T[]> : public internal::GeneratorArrayInput<T, 0> {
    using Base = internal::GeneratorArrayInput<T, 0>;

public:
    using Base::Base;
};

template<typename T, size_t N>
class Input<T[N]> : public internal::GeneratorArrayInput<T, int(N)> {
    using Base = internal::GeneratorArrayInput<T, int(N)>;

public:
    using Base::Base;
};

/** An output Func: Output<Func>{"name"[, type or {types}][, dims]}. What the
 * constructor leaves out comes from `name.type=`/`name.dim=`, or else from
 * the definition. */
template<>
class Output<Func> : public internal::GeneratorOutputBase, public Func {
public:
    explicit Output(const std::string &name) : Output(name, std::vector<Type>{}, -1) {}
    Output(const std::string &name, int dimensions) : Output(name, std::vector<Type>{}, dimensions) {}
    Output(const std::string &name, Type type) : Output(name, std::vector<Type>{type}, -1) {}
    Output(const std::string &name, Type type, int dimensions) : Output(name, std::vector<Type>{type}, dimensions) {}
    Output(const std::string &name, const std::vector<Type> &types, int dimensions = -1)
        : GeneratorOutputBase(types, dimensions), Func(internal::ExactFuncName{name}) {}

    Output &operator=(const Func &f) {
        (*this)(_) = f(_);
        return *this;
    }
    const Func &func() const override { return *this; }
    /** A typical size for the autoscheduler (Func::set_estimates). */
    Output &set_estimates(const Region &estimates) {
        Func::set_estimates(estimates);
        return *this;
    }
};

namespace internal {

/** An array of output Funcs named name_0, name_1, ... */
class GeneratorFuncOutputs : public GeneratorOutputBase {
public:
    GeneratorFuncOutputs(const std::string &name, std::vector<Type> types, int dimensions, int array_size);
    std::vector<Func> funcs() const override { return funcs_; }
    std::string member_name() const override { return name_; }

    size_t size() const { return funcs_.size(); }
    /** Resizes an Output declared with [] (configure() or generate()). */
    void resize(size_t n);
    Func &operator[](size_t i);
    const Func &operator[](size_t i) const;

protected:
    void on_resize(int n) override;

private:
    std::string name_;
    std::vector<Func> funcs_;
};

}  // namespace internal

/** Output<Func[]>, Output<Buffer<T>[]> (size from `name.size=` or resize()),
 * Output<Func[N]>, Output<Buffer<T>[N]>: element i is the Func `name_i`. */
template<typename T>
class Output<T[]> : public internal::GeneratorFuncOutputs {
    static_assert(internal::GeneratorImageKind<T>::valid, "Output arrays hold Buffer<T> or Func elements");

public:
    explicit Output(const std::string &name) : Output(name, -1) {}
    Output(const std::string &name, int dimensions) : GeneratorFuncOutputs(name, fixed_types(), dimensions, 0) {}
    Output(const std::string &name, Type type, int dimensions = -1)
        : GeneratorFuncOutputs(name, {type}, dimensions, 0) {}

private:
    static std::vector<Type> fixed_types() {
        auto t = internal::GeneratorImageKind<T>::type();
        return t ? std::vector<Type>{*t} : std::vector<Type>{};
    }
};

template<typename T, size_t N>
class Output<T[N]> : public internal::GeneratorFuncOutputs {
    static_assert(internal::GeneratorImageKind<T>::valid, "Output arrays hold Buffer<T> or Func elements");

public:
    explicit Output(const std::string &name) : Output(name, -1) {}
    Output(const std::string &name, int dimensions) : GeneratorFuncOutputs(name, fixed_types(), dimensions, int(N)) {}
    Output(const std::string &name, Type type, int dimensions = -1)
        : GeneratorFuncOutputs(name, {type}, dimensions, int(N)) {}

private:
    static std::vector<Type> fixed_types() {
        auto t = internal::GeneratorImageKind<T>::type();
        return t ? std::vector<Type>{*t} : std::vector<Type>{};
    }
};

}  // namespace loom

#endif
