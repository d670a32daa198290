#ifndef LOOM_BUFFER_H
#define LOOM_BUFFER_H

/** \file
 * loom::Buffer<T>: a named loom::Runtime::Buffer<T> that can also be read by
 * pipelines.
 *
 *     Buffer<uint8_t> in(640, 480);          // zeroed, named "b<N>"
 *     in(3, 4) = 7;                          // element access with ints
 *     Func f;
 *     f(x, y) = in(x, y) * 2;                // an Expr that reads the buffer
 *     Buffer<uint8_t> out = f.realize({640, 480});
 *
 * Everything Runtime::Buffer offers works here too (dim(), min(), extent(),
 * set_min(), fill(), copy(), copy_from(), for_each_element(), raw_buffer()),
 * and its views and helpers (cropped(), sliced(), transposed(), embedded(),
 * translated(), make_interleaved(), for_each_value(), ...) return Buffers
 * with new names that pipelines can read and realize into; their misuse
 * throws RuntimeError naming the buffer.
 * Copies share storage, shape and name. Buffer<> (T = void) holds any element
 * type; converting between Buffer<> and Buffer<T> (or as<T>()) checks the
 * type and throws CompileError naming the buffer on a mismatch.
 *
 * Buffer<T, Dims> (Halide's second parameter) fixes the rank in the type:
 *
 *     Buffer<uint8_t, 2> gray(640, 480);     // only ever a 2-D buffer
 *     Buffer<uint8_t> any = gray;            // Dims = AnyDims (-1): any rank
 *     Buffer<uint8_t, 2> back = any;         // checked: any has 2 dimensions
 *     Buffer<uint8_t, 1> row = gray.sliced(1, 0);   // sliced: Dims - 1
 *
 * Constructing, converting or assigning a Buffer<T, Dims> from a buffer of
 * another rank throws RuntimeError naming the buffer and both dimension
 * counts (Buffer<T, 2> from Buffer<T, 3> does not compile); the in-place rank
 * changes (slice(), embed(), add_dimension()) need AnyDims.
 */

#include <functional>
#include <initializer_list>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "loom/DeviceAPI.h"
#include "loom/Error.h"
#include "loom/Expr.h"
#include "loom/Type.h"
#include "loom/internal/Parameter.h"
#include "loom/runtime/Buffer.h"

namespace loom {

/** Buffer<T, AnyDims> (= Buffer<T>) holds a buffer of any rank. */
constexpr int AnyDims = Runtime::AnyDims;

template<typename T = void, int Dims = AnyDims>
class Buffer;

namespace internal {

/** What every copy of a Buffer shares besides its storage: its name, and the
 * Parameter (created on first use in an Expr) that binds it to pipelines. */
struct BufferInfo {
    std::string name;
    Parameter param;
};

/** A BufferInfo named `name`, or "b<N>" when name is empty. */
std::shared_ptr<BufferInfo> make_buffer_info(const std::string &name);

/** The Parameter of a buffer, created and bound on first use. */
Parameter buffer_parameter(BufferInfo &info, const Runtime::Buffer<void> &storage);

/** The device interface a DeviceAPI names (Vulkan's for Default_GPU and
 * Vulkan). \throws CompileError naming the buffer for None and Host. */
const loom_device_interface_t *device_interface_for(DeviceAPI api, const std::string &buffer_name);

/** Runs call (a device function of the C runtime) and turns a nonzero
 * result into a RuntimeError naming the buffer and carrying the runtime's
 * messages. */
void run_device_call(const std::string &buffer_name, const char *what, const std::function<int()> &call);

/** \throws CompileError: buffer `name` of type `actual` used as Buffer<expected>. */
[[noreturn]] void throw_buffer_type_mismatch(const std::string &name, Type actual, Type expected);
/** \throws CompileError: an undefined Buffer used in an Expr. */
[[noreturn]] void throw_undefined_buffer();
/** \throws RuntimeError: buffer `name` of `actual` dimensions held by a
 * Buffer<T, expected>. */
[[noreturn]] void throw_buffer_dimensions_mismatch(const std::string &name, int actual, int expected);

/** Whether R is Runtime::Buffer<T, D, S> for some D and S. */
template<typename R, typename T>
struct is_runtime_buffer_of : std::false_type {};
template<typename T, int D, int S>
struct is_runtime_buffer_of<Runtime::Buffer<T, D, S>, T> : std::true_type {};

/** A read of an input buffer (an ImageParam or Buffer) at args: expands `_`,
 * checks the argument count and casts integer coordinates to Int(32).
 * \throws CompileError naming the buffer on a wrong count or a float
 * coordinate. */
Expr image_access(const Parameter &param, std::vector<Expr> args);

template<typename... Args>
constexpr bool all_ints() {
    return (std::is_convertible_v<Args, int> && ...);
}
template<typename Tuple, size_t... I>
constexpr bool leading_ints(std::index_sequence<I...>) {
    return (std::is_convertible_v<std::tuple_element_t<I, Tuple>, int> && ...);
}
/** Ints, optionally followed by one name: (640, 480) or (640, 480, "input"). */
template<typename... Args>
constexpr bool all_ints_and_optional_name() {
    if constexpr (sizeof...(Args) == 0) {
        return true;
    } else {
        using Last = std::tuple_element_t<sizeof...(Args) - 1, std::tuple<Args...>>;
        return all_ints<Args...>() ||
               (leading_ints<std::tuple<Args...>>(std::make_index_sequence<sizeof...(Args) - 1>()) &&
                std::is_convertible_v<Last, std::string>);
    }
}
/** Splits (first, rest...) into the sizes and the trailing name, if any. */
template<typename... Args>
std::pair<std::vector<int>, std::string> sizes_and_name(int first, const Args &...rest) {
    std::pair<std::vector<int>, std::string> result{{first}, ""};
    auto take = [&](const auto &arg) {
        if constexpr (std::is_convertible_v<decltype(arg), int>) {
            result.first.push_back(static_cast<int>(arg));
        } else {
            result.second = arg;
        }
    };
    (take(rest), ...);
    return result;
}

/** \throws RuntimeError naming the buffer: a misuse of a Buffer helper that
 * Runtime::Buffer reported as std::logic_error (message what). */
[[noreturn]] void throw_buffer_misuse(const std::string &buffer_name, const char *what);

template<typename... Args>
constexpr bool all_exprs_not_all_ints() {
    return sizeof...(Args) > 0 && !all_ints<Args...>() && (std::is_convertible_v<Args, Expr> && ...);
}

}  // namespace internal

template<typename T, int Dims>
class Buffer : public Runtime::Buffer<T, Dims> {
    using Base = Runtime::Buffer<T, Dims>;
    using MutableT = std::remove_const_t<T>;
    template<typename, int>
    friend class Buffer;

    static constexpr int kSlicedDims = Dims == AnyDims ? AnyDims : Dims - 1;
    static constexpr int kEmbeddedDims = Dims == AnyDims ? AnyDims : Dims + 1;

    std::shared_ptr<internal::BufferInfo> info_;

    template<typename U, int D2>
    static const Runtime::Buffer<U, D2> &checked(const Buffer<U, D2> &other) {
        if constexpr (!std::is_void_v<T>) {
            if (other.defined() && !Runtime::same_type(other.Base_type(), Runtime::loom_type_of<T>())) {
                internal::throw_buffer_type_mismatch(other.name(), Type(other.Base_type()),
                                                     Type(Runtime::loom_type_of<T>()));
            }
        }
        if (other.defined()) check_static_dimensions(other.name(), other.dimensions());
        return other;
    }

    // A static Dims holds only buffers of that rank.
    static void check_static_dimensions(const std::string &name, int rank) {
        if constexpr (Dims != AnyDims) {
            if (rank != Dims) {
                internal::throw_buffer_dimensions_mismatch(name.empty() ? "<unnamed>" : name, rank, Dims);
            }
        } else {
            (void)name;
            (void)rank;
        }
    }
    static const std::vector<int> &checked_sizes(const std::string &name, const std::vector<int> &sizes) {
        check_static_dimensions(name, static_cast<int>(sizes.size()));
        return sizes;
    }

    static void check_static_type(const std::string &name, Type t) {
        if constexpr (!std::is_void_v<T>) {
            if (t != Type(Runtime::loom_type_of<T>())) {
                internal::throw_buffer_type_mismatch(name.empty() ? "<unnamed>" : name, t,
                                                     Type(Runtime::loom_type_of<T>()));
            }
        }
    }

    loom_type_t Base_type() const { return Base::type(); }

    template<typename U, int D2>
    void check_as() const {
        static_assert(std::is_const_v<U> || !std::is_const_v<T>, "as<U>() cannot drop const");
        static_assert(D2 == AnyDims || Dims == AnyDims || D2 == Dims, "as<U, D2>(): the static ranks differ");
        if constexpr (!std::is_void_v<U>) {
            if (this->defined() && !Runtime::same_type(Base_type(), Runtime::loom_type_of<U>())) {
                internal::throw_buffer_type_mismatch(name(), type(), Type(Runtime::loom_type_of<U>()));
            }
        }
        if constexpr (D2 != AnyDims) {
            if (this->defined() && this->dimensions() != D2) {
                internal::throw_buffer_dimensions_mismatch(name(), this->dimensions(), D2);
            }
        }
    }

    explicit Buffer(const std::pair<std::vector<int>, std::string> &shape) : Buffer(shape.first, shape.second) {}
    Buffer(Type type, const std::pair<std::vector<int>, std::string> &shape) : Buffer(type, shape.first, shape.second) {}
    template<typename U = T, std::enable_if_t<!std::is_void_v<U>, int> = 0>
    Buffer(U *data, const std::pair<std::vector<int>, std::string> &shape) : Buffer(data, shape.first, shape.second) {}

    template<typename F>
    int device_call(const char *what, F &&call) {
        if (!this->defined()) internal::throw_undefined_buffer();
        internal::run_device_call(name(), what, std::function<int()>(std::forward<F>(call)));
        return 0;
    }

    // Runs f, turning a misuse Runtime::Buffer reports (std::logic_error and
    // its std::invalid_argument, std::out_of_range) into a RuntimeError
    // naming this buffer.
    template<typename F>
    decltype(auto) guarded(F &&f) const {
        try {
            return f();
        } catch (const std::logic_error &e) {
            internal::throw_buffer_misuse(name(), e.what());
        }
    }

    // A view or copy Runtime::Buffer made, under a new name.
    template<typename U, int D2, int S2>
    static Buffer<U, D2> named(Runtime::Buffer<U, D2, S2> &&storage) {
        return Buffer<U, D2>(storage);
    }

public:
    /** An undefined buffer. */
    Buffer() = default;

    /** A zeroed dense buffer with these extents and an optional name, e.g.
     * Buffer<float>(640, 480) or Buffer<uint8_t>(w, h, "input"). */
    template<typename... Args, typename = std::enable_if_t<internal::all_ints_and_optional_name<Args...>()>>
    explicit Buffer(int first, const Args &...rest)
        : Buffer(internal::sizes_and_name(first, rest...)) {}
    explicit Buffer(const std::vector<int> &sizes, const std::string &name = "")
        : Base(checked_sizes(name, sizes)), info_(internal::make_buffer_info(name)) {}
    explicit Buffer(std::initializer_list<int> sizes) : Buffer(std::vector<int>(sizes)) {}

    /** A zeroed dense buffer of a run-time element type. For Buffer<T> the
     * type must be T's (CompileError otherwise). */
    Buffer(Type type, const std::vector<int> &sizes, const std::string &name = "")
        : Base((check_static_type(name, type), type.to_runtime()), checked_sizes(name, sizes)),
          info_(internal::make_buffer_info(name)) {}
    template<typename... Args, typename = std::enable_if_t<internal::all_ints_and_optional_name<Args...>()>>
    Buffer(Type type, int first, const Args &...rest) : Buffer(type, internal::sizes_and_name(first, rest...)) {}

    /** A zeroed buffer storing dimension storage_order[0] innermost, then
     * storage_order[1], ...: Buffer<uint8_t>({w, h, 3}, {2, 0, 1}) is
     * interleaved. \throws RuntimeError unless storage_order is a
     * permutation of the dimensions. */
    Buffer(const std::vector<int> &sizes, const std::vector<int> &storage_order, const std::string &name = "")
        : info_(internal::make_buffer_info(name)) {
        check_static_dimensions(name, static_cast<int>(sizes.size()));
        guarded([&] { Base::operator=(Base(sizes, storage_order)); });
    }
    Buffer(std::initializer_list<int> sizes, std::initializer_list<int> storage_order, const std::string &name = "")
        : Buffer(std::vector<int>(sizes), std::vector<int>(storage_order), name) {}
    Buffer(Type type, const std::vector<int> &sizes, const std::vector<int> &storage_order,
           const std::string &name = "")
        : info_(internal::make_buffer_info(name)) {
        check_static_type(name, type);
        check_static_dimensions(name, static_cast<int>(sizes.size()));
        guarded([&] { Base::operator=(Base(type.to_runtime(), sizes, storage_order)); });
    }

    /** Wraps dense memory owned by the caller (every min 0). */
    template<typename U = T, std::enable_if_t<!std::is_void_v<U>, int> = 0>
    Buffer(U *data, const std::vector<int> &sizes, const std::string &name = "")
        : Base(data, checked_sizes(name, sizes)), info_(internal::make_buffer_info(name)) {}
    Buffer(Type type, T *data, const std::vector<int> &sizes, const std::string &name = "")
        : Base((check_static_type(name, type), type.to_runtime()), data, checked_sizes(name, sizes)),
          info_(internal::make_buffer_info(name)) {}
    /** Wraps dense memory owned by the caller: Buffer<float>(data, w, h),
     * optionally followed by a name. */
    template<typename... Args, typename U = T,
             std::enable_if_t<std::is_same_v<U, T> && !std::is_void_v<U> &&
                                  internal::all_ints_and_optional_name<Args...>(),
                              int> = 0>
    Buffer(U *data, int first, const Args &...rest) : Buffer(data, internal::sizes_and_name(first, rest...)) {}

    /** Wraps memory owned by the caller with any strides: rank dimensions
     * {min, extent, stride, flags}, data pointing at the element at the
     * mins. A pipeline reading or writing it needs stride 1 in dimension 0.
     * \throws RuntimeError for a negative extent or a missing shape. */
    template<typename U = T, std::enable_if_t<std::is_same_v<U, T> && !std::is_void_v<U>, int> = 0>
    Buffer(U *data, int rank, const loom_dimension_t *shape, const std::string &name = "")
        : info_(internal::make_buffer_info(name)) {
        check_static_dimensions(name, rank);
        guarded([&] { Base::operator=(Base(data, rank, shape)); });
    }
    template<typename Dim, typename U = T,
             std::enable_if_t<std::is_same_v<U, T> && std::is_same_v<Dim, loom_dimension_t>, int> = 0>
    Buffer(U *data, const std::vector<Dim> &shape, const std::string &name = "")
        : Buffer(data, static_cast<int>(shape.size()), shape.data(), name) {}
    Buffer(Type type, T *data, int rank, const loom_dimension_t *shape, const std::string &name = "")
        : info_(internal::make_buffer_info(name)) {
        check_static_type(name, type);
        check_static_dimensions(name, rank);
        guarded([&] { Base::operator=(Base(type.to_runtime(), data, rank, shape)); });
    }
    template<typename Dim, std::enable_if_t<std::is_same_v<Dim, loom_dimension_t>, int> = 0>
    Buffer(Type type, T *data, const std::vector<Dim> &shape, const std::string &name = "")
        : Buffer(type, data, static_cast<int>(shape.size()), shape.data(), name) {}

    // The next two are templates so that a braced list of sizes, as in
    // Buffer<float>({640, 480}, "name"), never converts to their arguments.

    /** Shares the storage of a Runtime::Buffer<T, D> (any D), under a new
     * name. \throws RuntimeError for a rank other than a static Dims. */
    template<typename R, typename = std::enable_if_t<internal::is_runtime_buffer_of<R, T>::value>>
    explicit Buffer(const R &storage, const std::string &name = "")
        : Base(((storage.defined() ? check_static_dimensions(name, storage.dimensions()) : void()), storage)),
          info_(storage.defined() ? internal::make_buffer_info(name) : nullptr) {}
    /** Wraps the memory a loom_buffer_t describes (not owned). */
    template<typename R, typename = std::enable_if_t<std::is_same_v<R, loom_buffer_t>>, typename = void>
    explicit Buffer(const R &raw, const std::string &name = "")
        : Base((check_static_type(name, Type(raw.type)), check_static_dimensions(name, raw.dimensions), raw)),
          info_(internal::make_buffer_info(name)) {}

    Buffer(const Buffer &) = default;
    Buffer(Buffer &&) noexcept = default;
    Buffer &operator=(const Buffer &) = default;
    Buffer &operator=(Buffer &&) noexcept = default;

    /** Views a Buffer<U, D2> as Buffer<T, Dims> (sharing storage and name).
     * \throws CompileError naming the buffer if the element types differ,
     * RuntimeError naming it and both dimension counts if Dims is static and
     * not its rank. Static ranks that differ do not compile. */
    template<typename U, int D2,
             typename = std::enable_if_t<!(std::is_same_v<U, T> && D2 == Dims) &&
                                         (std::is_const_v<T> || !std::is_const_v<U>) &&
                                         (D2 == AnyDims || Dims == AnyDims || D2 == Dims)>>
    Buffer(const Buffer<U, D2> &other) : Base(checked(other)), info_(other.info_) {}
    template<typename U, int D2,
             typename = std::enable_if_t<!(std::is_same_v<U, T> && D2 == Dims) &&
                                         (std::is_const_v<T> || !std::is_const_v<U>) &&
                                         (D2 == AnyDims || Dims == AnyDims || D2 == Dims)>>
    Buffer &operator=(const Buffer<U, D2> &other) {
        return *this = Buffer(other);
    }

    /** The name pipelines know this buffer by ("" when undefined). */
    std::string name() const { return info_ ? info_->name : std::string(); }
    void set_name(const std::string &name) {
        if (info_) info_->name = name;
    }

    /** The element type. */
    Type type() const { return Type(Base::type()); }

    /** The Runtime::Buffer this wraps. */
    Base *get() { return this; }
    const Base *get() const { return this; }

    /** A zeroed rank-0 buffer of one element. */
    static Buffer make_scalar(const std::string &name = "") { return Buffer(Base::make_scalar(), name); }
    static Buffer make_scalar(Type type, const std::string &name = "") {
        check_static_type(name, type);
        return Buffer(Base::make_scalar(type.to_runtime()), name);
    }
    /** A rank-0 buffer wrapping one element owned by the caller. */
    template<typename U = T, std::enable_if_t<std::is_same_v<U, T> && !std::is_void_v<U>, int> = 0>
    static Buffer make_scalar(U *data, const std::string &name = "") {
        return Buffer(Base::make_scalar(data), name);
    }

    /** A zeroed width x height x channels image indexed (x, y, c) and stored
     * interleaved: channels innermost (dim(2).stride() == 1). */
    static Buffer make_interleaved(int width, int height, int channels, const std::string &name = "") {
        static_assert(Dims == AnyDims || Dims == 3, "make_interleaved makes a rank-3 buffer: Dims must be 3 or AnyDims");
        return Buffer(std::vector<int>{width, height, channels}, std::vector<int>{2, 0, 1}, name);
    }
    static Buffer make_interleaved(Type type, int width, int height, int channels, const std::string &name = "") {
        static_assert(Dims == AnyDims || Dims == 3, "make_interleaved makes a rank-3 buffer: Dims must be 3 or AnyDims");
        return Buffer(type, std::vector<int>{width, height, channels}, std::vector<int>{2, 0, 1}, name);
    }
    /** Wraps an interleaved image owned by the caller. */
    template<typename U = T, std::enable_if_t<std::is_same_v<U, T> && !std::is_void_v<U>, int> = 0>
    static Buffer make_interleaved(U *data, int width, int height, int channels, const std::string &name = "") {
        return Buffer(Base::make_interleaved(data, width, height, channels), name);
    }

    /** A zeroed dense buffer with src's mins, extents and nesting of
     * dimensions in memory; T's element type (src's for Buffer<>).
     * \throws RuntimeError for an undefined src. */
    template<typename T2, int D2, int S2>
    static Buffer make_with_shape_of(const Runtime::Buffer<T2, D2, S2> &src, const std::string &name = "") {
        if (src.defined()) check_static_dimensions(name, src.dimensions());
        Buffer result;
        result.guarded([&] { result = Buffer(Base::make_with_shape_of(src), name); });
        return result;
    }

    /** A deep copy with the same mins, extents and nesting of dimensions in
     * memory (dense), under a new name. */
    Buffer<MutableT, Dims> copy() const {
        if (!this->defined()) return Buffer<MutableT, Dims>();
        return Buffer<MutableT, Dims>(Base::copy());
    }
    /** A deep copy stored interleaved (3 dimensions only), under a new name. */
    Buffer<MutableT, Dims> copy_to_interleaved() const {
        return guarded([&] { return Buffer<MutableT, Dims>(Base::copy_to_interleaved()); });
    }
    /** A deep copy stored planar (dimension 0 innermost), under a new name. */
    Buffer<MutableT, Dims> copy_to_planar() const {
        return guarded([&] { return Buffer<MutableT, Dims>(Base::copy_to_planar()); });
    }

    // ---- Views ----------------------------------------------------------
    //
    // As Runtime::Buffer's (see there), but each view is a Buffer under a
    // new name, usable in Exprs and as a realize() output, and every misuse
    // (a crop outside the buffer, a dimension it lacks, a device-dirty
    // source, a shape mismatch) throws RuntimeError naming this buffer.
    //
    //     Buffer<int> im(8, 6, "im");
    //     f.realize(im.cropped({{2, 4}, {1, 3}}));   // fills im's x 2..5, y 1..3
    //     ImageParam row(Int(32), 1, "row");
    //     row.set(im.sliced(1, 3));                  // a pipeline reads im's row 3

    Buffer cropped(int d, int min, int extent) const {
        return guarded([&] { return named(Base::cropped(d, min, extent)); });
    }
    Buffer cropped(const std::vector<std::pair<int, int>> &rect) const {
        return guarded([&] { return named(Base::cropped(rect)); });
    }
    void crop(int d, int min, int extent) {
        guarded([&] { Base::crop(d, min, extent); });
    }
    void crop(const std::vector<std::pair<int, int>> &rect) {
        guarded([&] { Base::crop(rect); });
    }
    Buffer translated(int d, int dx) const {
        return guarded([&] { return named(Base::translated(d, dx)); });
    }
    Buffer translated(const std::vector<int> &deltas) const {
        return guarded([&] { return named(Base::translated(deltas)); });
    }
    void translate(int d, int delta) {
        guarded([&] { Base::translate(d, delta); });
    }
    void translate(const std::vector<int> &deltas) {
        guarded([&] { Base::translate(deltas); });
    }
    Buffer transposed(int d1, int d2) const {
        return guarded([&] { return named(Base::transposed(d1, d2)); });
    }
    Buffer transposed(const std::vector<int> &order) const {
        return guarded([&] { return named(Base::transposed(order)); });
    }
    void transpose(int d1, int d2) {
        guarded([&] { Base::transpose(d1, d2); });
    }
    void transpose(const std::vector<int> &order) {
        guarded([&] { Base::transpose(order); });
    }
    Buffer<T, kSlicedDims> sliced(int d, int pos) const {
        return guarded([&] { return named(Base::sliced(d, pos)); });
    }
    Buffer<T, kSlicedDims> sliced(int d) const {
        return guarded([&] { return named(Base::sliced(d)); });
    }
    void slice(int d, int pos) {
        guarded([&] { Base::slice(d, pos); });
    }
    void slice(int d) {
        guarded([&] { Base::slice(d); });
    }
    Buffer<T, kEmbeddedDims> embedded(int d, int pos = 0) const {
        return guarded([&] { return named(Base::embedded(d, pos)); });
    }
    void embed(int d, int pos = 0) {
        guarded([&] { Base::embed(d, pos); });
    }
    void add_dimension() {
        guarded([&] { Base::add_dimension(); });
    }
    void add_dimension_with_stride(int stride) {
        guarded([&] { Base::add_dimension_with_stride(stride); });
    }

    /** New host memory for the current shape: zeroed, or as allocate_fn
     * returns it when given (see Runtime::Buffer::allocate). */
    void allocate(void *(*allocate_fn)(size_t) = nullptr, void (*deallocate_fn)(void *) = nullptr) {
        guarded([&] { Base::allocate(allocate_fn, deallocate_fn); });
    }
    using Base::deallocate;

    /** Whether (x, y, ...) lies inside the buffer. */
    bool contains(const std::vector<int> &coords) const {
        return guarded([&] { return Base::contains(coords); });
    }
    template<typename... Ints, typename = std::enable_if_t<internal::all_ints<Ints...>()>>
    bool contains(Ints... coords) const {
        return contains(std::vector<int>{static_cast<int>(coords)...});
    }

    // ---- Elements -------------------------------------------------------

    /** Sets every element to value, or to f(x, y, ...) (see Runtime::Buffer). */
    template<typename V>
    Buffer &fill(V &&value_or_function) {
        guarded([&] { Base::fill(std::forward<V>(value_or_function)); });
        return *this;
    }
    /** f(value, other values...) over this and same-shaped other buffers. */
    template<typename Fn, typename... Others>
    Buffer &for_each_value(Fn &&f, Others &&...others) {
        guarded([&] { Base::for_each_value(f, others...); });
        return *this;
    }
    template<typename Fn, typename... Others>
    const Buffer &for_each_value(Fn &&f, Others &&...others) const {
        guarded([&] { Base::for_each_value(f, others...); });
        return *this;
    }
    /** Whether every element equals value. */
    template<typename V>
    bool all_equal(const V &value) const {
        return guarded([&] { return Base::all_equal(value); });
    }

    /** This handle as a Buffer<U> (same storage and name, no copy). U may
     * add const or be void. \throws CompileError naming the buffer when the
     * element types differ, as the converting constructor does. */
    template<typename U, int D2 = Dims>
    Buffer<U, D2> &as() & {
        check_as<U, D2>();
        return *reinterpret_cast<Buffer<U, D2> *>(this);
    }
    template<typename U, int D2 = Dims>
    const Buffer<U, D2> &as() const & {
        check_as<U, D2>();
        return *reinterpret_cast<const Buffer<U, D2> *>(this);
    }
    template<typename U, int D2 = Dims>
    Buffer<U, D2> as() && {
        check_as<U, D2>();
        return std::move(*reinterpret_cast<Buffer<U, D2> *>(this));
    }
    Buffer<std::add_const_t<T>, Dims> &as_const() & { return as<std::add_const_t<T>>(); }
    const Buffer<std::add_const_t<T>, Dims> &as_const() const & { return as<std::add_const_t<T>>(); }

    /** Device memory, as Runtime::Buffer's but naming the device by its
     * DeviceAPI (Default_GPU and Vulkan are Vulkan, the only GPU API) and
     * raising a RuntimeError naming the buffer when the runtime fails (they
     * return 0 otherwise, as Halide's do). Runtime::Buffer's forms, which take
     * a loom_device_interface_t and return error codes, are on get().
     *
     *     Buffer<float> b(256);
     *     b.copy_to_device();          // allocates on the GPU and copies
     *     f.realize(b);                // kernels may run on b's device copy
     *     b.copy_to_host();            // no-op unless the device side is newer
     *
     * \throws CompileError for DeviceAPI::None or Host. */
    int device_malloc(DeviceAPI api = DeviceAPI::Default_GPU) {
        const loom_device_interface_t *iface = internal::device_interface_for(api, name());
        return device_call("device_malloc", [&] { return Base::device_malloc(iface); });
    }
    int copy_to_device(DeviceAPI api = DeviceAPI::Default_GPU) {
        const loom_device_interface_t *iface = internal::device_interface_for(api, name());
        return device_call("copy_to_device", [&] { return Base::copy_to_device(iface); });
    }
    int copy_to_host() {
        return device_call("copy_to_host", [&] { return Base::copy_to_host(); });
    }
    int device_sync() {
        return device_call("device_sync", [&] { return Base::device_sync(); });
    }
    int device_free() {
        return device_call("device_free", [&] { return Base::device_free(); });
    }
    int device_wrap_native(DeviceAPI api, uint64_t handle) {
        const loom_device_interface_t *iface = internal::device_interface_for(api, name());
        return device_call("device_wrap_native", [&] { return Base::device_wrap_native(iface, handle); });
    }
    int device_detach_native() {
        return device_call("device_detach_native", [&] { return Base::device_detach_native(); });
    }

    // Element access with ints (from Runtime::Buffer).
    using Base::operator();

    /** An Expr reading this buffer at the given coordinates (Vars, Exprs,
     * RVars...; `_` stands for the remaining dimensions). */
    template<typename... Args, typename = std::enable_if_t<internal::all_exprs_not_all_ints<Args...>()>>
    Expr operator()(Args &&...args) const {
        return (*this)(std::vector<Expr>{Expr(std::forward<Args>(args))...});
    }
    Expr operator()(const std::vector<Expr> &args) const {
        return internal::image_access(parameter(), args);
    }

    /** The Parameter pipelines read this buffer through. */
    internal::Parameter parameter() const {
        if (!info_) internal::throw_undefined_buffer();
        return internal::buffer_parameter(*info_, Runtime::Buffer<void>(static_cast<const Base &>(*this)));
    }
};

}  // namespace loom

#endif
