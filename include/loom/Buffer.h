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
 * set_min(), fill(), copy(), copy_from(), for_each_element(), raw_buffer()).
 * Copies share storage, shape and name. Buffer<> (T = void) holds any element
 * type; converting between Buffer<> and Buffer<T> checks the type and throws
 * CompileError naming the buffer on a mismatch.
 */

#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
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

template<typename T = void>
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

/** A read of an input buffer (an ImageParam or Buffer) at args: expands `_`,
 * checks the argument count and casts integer coordinates to Int(32).
 * \throws CompileError naming the buffer on a wrong count or a float
 * coordinate. */
Expr image_access(const Parameter &param, std::vector<Expr> args);

template<typename... Args>
constexpr bool all_ints() {
    return (std::is_convertible_v<Args, int> && ...);
}
template<typename... Args>
constexpr bool all_exprs_not_all_ints() {
    return sizeof...(Args) > 0 && !all_ints<Args...>() && (std::is_convertible_v<Args, Expr> && ...);
}

}  // namespace internal

template<typename T>
class Buffer : public Runtime::Buffer<T> {
    using Base = Runtime::Buffer<T>;
    using MutableT = std::remove_const_t<T>;
    template<typename>
    friend class Buffer;

    std::shared_ptr<internal::BufferInfo> info_;

    template<typename U>
    static const Runtime::Buffer<U> &checked(const Buffer<U> &other) {
        if constexpr (!std::is_void_v<T>) {
            if (other.defined() && !Runtime::same_type(other.Base_type(), Runtime::loom_type_of<T>())) {
                internal::throw_buffer_type_mismatch(other.name(), Type(other.Base_type()),
                                                     Type(Runtime::loom_type_of<T>()));
            }
        }
        return other;
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

    template<typename F>
    int device_call(const char *what, F &&call) {
        if (!this->defined()) internal::throw_undefined_buffer();
        internal::run_device_call(name(), what, std::function<int()>(std::forward<F>(call)));
        return 0;
    }

public:
    /** An undefined buffer. */
    Buffer() = default;

    /** A zeroed dense buffer with these extents, e.g. Buffer<float>(640, 480). */
    template<typename... Ints, typename = std::enable_if_t<internal::all_ints<Ints...>()>>
    explicit Buffer(int first, Ints... rest)
        : Base(std::vector<int>{first, static_cast<int>(rest)...}), info_(internal::make_buffer_info("")) {}
    explicit Buffer(const std::vector<int> &sizes, const std::string &name = "")
        : Base(sizes), info_(internal::make_buffer_info(name)) {}
    explicit Buffer(std::initializer_list<int> sizes) : Buffer(std::vector<int>(sizes)) {}

    /** A zeroed dense buffer of a run-time element type. For Buffer<T> the
     * type must be T's (CompileError otherwise). */
    Buffer(Type type, const std::vector<int> &sizes, const std::string &name = "")
        : Base((check_static_type(name, type), type.to_runtime()), sizes), info_(internal::make_buffer_info(name)) {}
    template<typename... Ints, typename = std::enable_if_t<internal::all_ints<Ints...>()>>
    Buffer(Type type, int first, Ints... rest) : Buffer(type, std::vector<int>{first, static_cast<int>(rest)...}) {}

    /** Wraps dense memory owned by the caller (every min 0). */
    template<typename U = T, std::enable_if_t<!std::is_void_v<U>, int> = 0>
    Buffer(U *data, const std::vector<int> &sizes, const std::string &name = "")
        : Base(data, sizes), info_(internal::make_buffer_info(name)) {}
    Buffer(Type type, T *data, const std::vector<int> &sizes, const std::string &name = "")
        : Base((check_static_type(name, type), type.to_runtime()), data, sizes),
          info_(internal::make_buffer_info(name)) {}

    // The next two are templates so that a braced list of sizes, as in
    // Buffer<float>({640, 480}, "name"), never converts to their arguments.

    /** Shares the storage of a Runtime::Buffer, under a new name. */
    template<typename R, typename = std::enable_if_t<std::is_same_v<R, Base>>>
    explicit Buffer(const R &storage, const std::string &name = "")
        : Base(storage), info_(storage.defined() ? internal::make_buffer_info(name) : nullptr) {}
    /** Wraps the memory a loom_buffer_t describes (not owned). */
    template<typename R, typename = std::enable_if_t<std::is_same_v<R, loom_buffer_t>>, typename = void>
    explicit Buffer(const R &raw, const std::string &name = "")
        : Base((check_static_type(name, Type(raw.type)), raw)), info_(internal::make_buffer_info(name)) {}

    Buffer(const Buffer &) = default;
    Buffer(Buffer &&) noexcept = default;
    Buffer &operator=(const Buffer &) = default;
    Buffer &operator=(Buffer &&) noexcept = default;

    /** Views a Buffer<U> as Buffer<T> (sharing storage and name).
     * \throws CompileError naming the buffer if the element types differ. */
    template<typename U, typename = std::enable_if_t<!std::is_same_v<U, T> &&
                                                     (std::is_const_v<T> || !std::is_const_v<U>)>>
    Buffer(const Buffer<U> &other) : Base(checked(other)), info_(other.info_) {}
    template<typename U, typename = std::enable_if_t<!std::is_same_v<U, T> &&
                                                     (std::is_const_v<T> || !std::is_const_v<U>)>>
    Buffer &operator=(const Buffer<U> &other) {
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

    /** A deep copy into new dense storage, with a new name. */
    Buffer<MutableT> copy() const {
        if (!this->defined()) return Buffer<MutableT>();
        return Buffer<MutableT>(Base::copy());
    }

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
