// loom::Runtime::Buffer<T>: a reference-counted, header-only C++17 handle to a
// loom_buffer_t, for programs that call Loom pipelines (JIT or AOT) and for
// Loom itself.
//
// It depends only on loom_runtime.h and the standard library, so an
// application linking an AOT-compiled pipeline needs neither LLVM nor libLoom.
//
//     loom::Runtime::Buffer<float> image(640, 480);   // zeroed, x innermost
//     image.set_min(-1, -1);                          // coordinates start at -1
//     image(-1, -1) = 1.0f;
//     pipeline(image.raw_buffer());                   // pass to generated code
//
// Semantics:
//  - Copies of a Buffer share one allocation *and* one shape (one
//    loom_buffer_t): set_min() through any copy is seen by all of them, and
//    raw_buffer() returns the same address for all of them. Use copy() for an
//    independent deep copy.
//  - Allocating constructors make dense storage with dimension 0 innermost
//    (stride 1), every min 0, every element zero, aligned to 64 bytes.
//  - Wrapping constructors describe memory owned by someone else; that memory
//    must outlive every copy of the Buffer.
//  - T is the element type, optionally const; T = void means the element type
//    is known only at run time (see type()).
//  - Views (Halide's cropped(), translated(), transposed(), sliced(),
//    embedded()) are new Buffers with their own shape over the same host
//    memory, which lives as long as any of them; see "Views" below.
//  - Errors in use (bad extents, mismatched types, wrong rank, a crop outside
//    the buffer) throw std::invalid_argument or std::out_of_range, misuse of
//    dirty state std::logic_error. Element access does not check bounds.
//  - Device memory (Halide's semantics): device_malloc(), copy_to_device(),
//    copy_to_host(), device_sync(), device_free(), device_wrap_native() and
//    device_detach_native() call the C runtime (loom_runtime.h) and return its
//    error code. A device allocation is freed when the last copy of the
//    Buffer goes away, whoever made it (the Buffer or a pipeline, as in
//    Halide); a wrapped native handle is detached instead, and one that came
//    with a wrapped loom_buffer_t is left alone. Call loom_device_release()
//    before exit, after the Buffers holding device memory are gone.
//  - Dirty bits: writing through a non-const element accessor, fill() and
//    copy_from() mark the host side dirty; doing so while the device side is
//    dirty throws std::logic_error (call copy_to_host() first), as
//    set_host_dirty() and set_device_dirty() do when the other side is dirty.
//    Writes through data() or raw_buffer() are not tracked: call
//    set_host_dirty() after them.
#ifndef LOOM_RUNTIME_BUFFER_H
#define LOOM_RUNTIME_BUFFER_H

#include "bfloat16.h"
#include "float16.h"
#include "loom_runtime.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

// Weak references: the destructor of a Buffer with a device allocation calls
// them, but a program that never uses devices must link without them (an AOT
// library for a target without vulkan carries no device runtime).
extern "C" int loom_device_free(void *user_context, loom_buffer_t *buf) __attribute__((weak));
extern "C" int loom_device_detach_native(void *user_context, loom_buffer_t *buf) __attribute__((weak));

namespace loom {
namespace Runtime {

/** The loom_type_t of a C++ element type (cv-qualifiers ignored). bool is
 * {uint, 1 bit}, but bool elements occupy one byte in a buffer. Signed and
 * unsigned integers of 8..64 bits, loom::float16_t, loom::bfloat16_t, float, double and
 * pointers (as 64-bit handles) are supported; anything else fails to
 * compile. */
template<typename T>
constexpr loom_type_t loom_type_of() {
    using U = std::remove_cv_t<T>;
    if constexpr (std::is_same_v<U, bool>) {
        return loom_type_t{loom_type_uint, 1, 1};
    } else if constexpr (std::is_integral_v<U>) {
        static_assert(sizeof(U) <= 8, "integer element types are 8 to 64 bits");
        return loom_type_t{static_cast<uint8_t>(std::is_signed_v<U> ? loom_type_int : loom_type_uint),
                           static_cast<uint8_t>(sizeof(U) * 8), 1};
    } else if constexpr (std::is_same_v<U, float> || std::is_same_v<U, double>) {
        return loom_type_t{loom_type_float, static_cast<uint8_t>(sizeof(U) * 8), 1};
    } else if constexpr (std::is_same_v<U, float16_t>) {
        return loom_type_t{loom_type_float, 16, 1};
    } else if constexpr (std::is_same_v<U, bfloat16_t>) {
        return loom_type_t{loom_type_bfloat, 16, 1};
    } else if constexpr (std::is_pointer_v<U>) {
        return loom_type_t{loom_type_handle, 64, 1};
    } else {
        static_assert(!sizeof(U *), "Loom has no loom_type_t for this element type");
        return loom_type_t{};
    }
}

/** Whether two element types are identical (code, bits and lanes). */
constexpr bool same_type(loom_type_t a, loom_type_t b) {
    return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}

/** Bytes one element of a buffer of this type occupies: (bits + 7) / 8. */
constexpr size_t type_bytes(loom_type_t t) { return (static_cast<size_t>(t.bits) + 7) / 8; }

/** A readable name such as "int32", "uint8", "float64", "bool" or "handle". */
inline std::string type_name(loom_type_t t) {
    if (t.code == loom_type_uint && t.bits == 1) {
        return "bool";
    }
    std::string name;
    switch (t.code) {
    case loom_type_int: name = "int"; break;
    case loom_type_uint: name = "uint"; break;
    case loom_type_float: name = "float"; break;
    case loom_type_bfloat: name = "bfloat"; break;
    case loom_type_handle: return "handle";
    default: name = "type" + std::to_string(t.code) + "_"; break;
    }
    name += std::to_string(t.bits);
    if (t.lanes != 1) {
        name += "x" + std::to_string(t.lanes);
    }
    return name;
}

namespace detail {

constexpr size_t kBufferAlignment = 64;

// The state every copy of a Buffer shares: the loom_buffer_t handed to
// generated code, the dimension array it points into, and the host memory
// (if this buffer or the buffer it views owns some). Its address never
// changes, which keeps raw_buffer() stable.
struct BufferContents {
    loom_buffer_t raw{};
    std::vector<loom_dimension_t> dims;
    // The host memory this buffer owns or shares with views of it; null for
    // wrapped memory. Views hold it too, so it lives as long as any of them.
    std::shared_ptr<void> allocation;
    // For a view (cropped(), sliced(), ...): the buffer it was made from.
    // Host writes through the view mark it host-dirty as well, so its
    // device copy is refreshed on the next copy_to_device().
    std::shared_ptr<BufferContents> parent;
    // What the last copy does with raw.device: free it (whoever allocated
    // it), detach it (a native handle the user wrapped), or leave it (it came
    // with a wrapped loom_buffer_t).
    enum class DeviceOwnership { Allocated, WrappedNative, Unmanaged };
    DeviceOwnership device_ownership = DeviceOwnership::Allocated;

    BufferContents() = default;
    BufferContents(const BufferContents &) = delete;
    BufferContents &operator=(const BufferContents &) = delete;
    ~BufferContents() { release_device(); }

    // Gives up the device side as the last copy must: frees it, detaches it
    // or leaves it according to device_ownership. Errors were reported
    // through loom_error; a destructor cannot return them.
    void release_device() {
        if (raw.device && device_ownership == DeviceOwnership::Allocated && &loom_device_free) {
            loom_device_free(nullptr, &raw);
        } else if (raw.device && device_ownership == DeviceOwnership::WrappedNative && &loom_device_detach_native) {
            loom_device_detach_native(nullptr, &raw);
        }
        raw.device = 0;
        raw.device_interface = nullptr;
        raw.flags &= ~uint64_t(loom_buffer_flag_device_dirty);
        device_ownership = DeviceOwnership::Allocated;
    }

    // Points raw.dim at dims; call after dims changes size.
    void attach_dims() {
        raw.dimensions = static_cast<int32_t>(dims.size());
        raw.dim = dims.empty() ? nullptr : dims.data();
    }
};

template<typename X>
struct identity {
    using type = X;
};

// Stand-in parameter type for members that make no sense for Buffer<void>.
struct no_value {};

// Calls fn(rows, count, inner_stride_bytes) once per row along dimension 0
// of the region [region_min, region_min + region_extent) in each of the N
// buffers, which must all contain that region. rows[k] is the address of the
// row's first element in buffer k. A rank-0 region is one row of one element.
template<size_t N, typename Fn>
void for_each_row(const std::vector<int> &region_min, const std::vector<int> &region_extent,
                  const std::array<const loom_buffer_t *, N> &bufs, Fn &&fn) {
    const size_t rank = region_min.size();
    for (size_t d = 0; d < rank; d++) {
        if (region_extent[d] <= 0) {
            return;
        }
    }
    std::array<ptrdiff_t, N> inner_stride_bytes{};
    for (size_t k = 0; k < N; k++) {
        ptrdiff_t elem_bytes = static_cast<ptrdiff_t>(type_bytes(bufs[k]->type));
        inner_stride_bytes[k] = rank > 0 ? bufs[k]->dim[0].stride * elem_bytes : elem_bytes;
    }
    const int count = rank > 0 ? region_extent[0] : 1;
    std::vector<int> coord(region_min);
    while (true) {
        std::array<uint8_t *, N> rows{};
        for (size_t k = 0; k < N; k++) {
            ptrdiff_t offset = 0;
            for (size_t d = 0; d < rank; d++) {
                offset += static_cast<ptrdiff_t>(coord[d] - bufs[k]->dim[d].min) * bufs[k]->dim[d].stride;
            }
            rows[k] = bufs[k]->host + offset * static_cast<ptrdiff_t>(type_bytes(bufs[k]->type));
        }
        fn(rows, count, inner_stride_bytes);
        // Advance the odometer over dimensions 1 and up.
        size_t d = 1;
        for (; d < rank; d++) {
            if (++coord[d] < region_min[d] + region_extent[d]) {
                break;
            }
            coord[d] = region_min[d];
        }
        if (d >= rank) {
            return;
        }
    }
}

template<typename F, size_t... I>
constexpr bool invocable_with_ints(std::index_sequence<I...>) {
    return std::is_invocable_v<F, decltype(static_cast<void>(I), int())...>;
}

// The number of int arguments F takes (0..16), or -1 if none fits.
template<typename F, size_t N = 0>
constexpr int int_arity() {
    if constexpr (N > 16) {
        return -1;
    } else if constexpr (invocable_with_ints<F>(std::make_index_sequence<N>())) {
        return static_cast<int>(N);
    } else {
        return int_arity<F, N + 1>();
    }
}

template<typename F, size_t... I>
void call_with_ints(F &f, const std::vector<int> &coords, std::index_sequence<I...>) {
    f(coords[I]...);
}

template<typename F, size_t... I>
decltype(auto) call_with_ints_result(F &f, const std::vector<int> &coords, std::index_sequence<I...>) {
    return f(coords[I]...);
}

}  // namespace detail

/** The Dims of a Buffer whose rank is known only at run time (Halide's
 * AnyDims): Buffer<T> is Buffer<T, AnyDims>. */
constexpr int AnyDims = -1;

/** Buffer<T, Dims, InClassDimStorage> (Halide's template parameters):
 *  - T: the element type (see above);
 *  - Dims: the rank when known at compile time (Buffer<uint8_t, 2>), or
 *    AnyDims. A Buffer with static Dims holds only buffers of that rank:
 *    constructing or converting one from a buffer of another rank throws
 *    std::invalid_argument naming both ranks (Buffer<T, 2> from Buffer<T, 3>
 *    does not compile), and the views that change the rank return the new
 *    static rank (sliced(): Dims - 1, embedded(): Dims + 1); the in-place
 *    rank changes (slice(), embed(), add_dimension()) need AnyDims;
 *  - InClassDimStorage: how many dimensions Halide keeps inside the object;
 *    Loom reserves room for that many in the shared shape (its dimension
 *    array lives there, not in the handle), so it changes no behaviour. Its
 *    default is 4 up to 4 dimensions, so that as<T, 2>() of a Buffer<T> is
 *    a Buffer<T, 2>. */
template<typename T = void, int Dims = AnyDims, int InClassDimStorage = (Dims == AnyDims || Dims <= 4 ? 4 : Dims)>
class Buffer {
    template<typename, int, int>
    friend class Buffer;

    static_assert(Dims == AnyDims || Dims >= 0, "Buffer<T, Dims>: Dims is AnyDims (-1) or a rank >= 0");

    static constexpr bool kIsVoid = std::is_void_v<T>;
    using MutableT = std::remove_const_t<T>;
    using FillValue = std::conditional_t<kIsVoid, detail::no_value, MutableT>;

    std::shared_ptr<detail::BufferContents> contents_;

    // Buffer<U, D2, S2> converts to this Buffer unless that would drop const
    // or the ranks are both static and differ.
    template<typename U, int D2, int S2>
    static constexpr bool is_convertible_from() {
        return !(std::is_same_v<U, T> && D2 == Dims && S2 == InClassDimStorage) &&
               (std::is_const_v<T> || !std::is_const_v<U>) && (D2 == AnyDims || Dims == AnyDims || D2 == Dims);
    }

public:
    /** The element type (possibly const, possibly void). */
    using ElemType = T;

    /** Whether the rank is part of the type (Dims != AnyDims), and that rank. */
    static constexpr bool has_static_dimensions = Dims != AnyDims;
    static constexpr int static_dimensions() { return Dims; }
    /** Whether the element type is part of the type (T is not void). */
    static constexpr bool has_static_type = !std::is_void_v<T>;

    /** Whether other's rank fits this Buffer's Dims (always for AnyDims). */
    template<typename U, int D2, int S2>
    static bool can_convert_from(const Buffer<U, D2, S2> &other) {
        if (!other.defined()) return true;
        if constexpr (!std::is_void_v<T>) {
            if (!same_type(other.type(), loom_type_of<T>())) return false;
        }
        return Dims == AnyDims || other.dimensions() == Dims;
    }

    /** A snapshot of one dimension: min, extent, stride, max. Iterating it
     * yields the coordinates min..max: `for (int x : b.dim(0)) ...`. */
    class Dimension {
        loom_dimension_t d_;

    public:
        explicit Dimension(const loom_dimension_t &d) : d_(d) {}
        /** The first coordinate. */
        int min() const { return d_.min; }
        /** How many coordinates there are. */
        int extent() const { return d_.extent; }
        /** Elements between neighbours along this dimension. */
        int stride() const { return d_.stride; }
        /** The last coordinate: min() + extent() - 1. */
        int max() const { return d_.min + d_.extent - 1; }

        class iterator {
            int value_;

        public:
            explicit iterator(int value) : value_(value) {}
            int operator*() const { return value_; }
            iterator &operator++() {
                ++value_;
                return *this;
            }
            bool operator==(const iterator &other) const { return value_ == other.value_; }
            bool operator!=(const iterator &other) const { return value_ != other.value_; }
        };
        iterator begin() const { return iterator(d_.min); }
        iterator end() const { return iterator(d_.min + (d_.extent > 0 ? d_.extent : 0)); }
    };

    // ---- Construction ----------------------------------------------------

    /** An undefined buffer: defined() is false and it holds no memory. */
    Buffer() = default;

    /** Allocates a zeroed dense 1-D buffer of x elements. */
    explicit Buffer(int x) : Buffer(std::vector<int>{x}) {
        static_assert(Dims == AnyDims || Dims == 1, "Buffer<T, Dims>: Dims sizes are needed");
    }
    /** Allocates a zeroed dense x-by-y buffer (x innermost). */
    explicit Buffer(int x, int y) : Buffer(std::vector<int>{x, y}) {
        static_assert(Dims == AnyDims || Dims == 2, "Buffer<T, Dims>: Dims sizes are needed");
    }
    /** Allocates a zeroed dense x-by-y-by-c buffer. */
    explicit Buffer(int x, int y, int c) : Buffer(std::vector<int>{x, y, c}) {
        static_assert(Dims == AnyDims || Dims == 3, "Buffer<T, Dims>: Dims sizes are needed");
    }
    /** Allocates a zeroed dense 4-D buffer. */
    explicit Buffer(int x, int y, int z, int w) : Buffer(std::vector<int>{x, y, z, w}) {
        static_assert(Dims == AnyDims || Dims == 4, "Buffer<T, Dims>: Dims sizes are needed");
    }

    /** Allocates a zeroed dense buffer with these extents (any rank; an empty
     * vector makes a rank-0 buffer of one element). Throws
     * std::invalid_argument for a negative extent or a size whose strides do
     * not fit in 32 bits; std::bad_alloc when out of memory. */
    explicit Buffer(const std::vector<int> &sizes) {
        static_assert(!kIsVoid, "Buffer<void> needs an element type: use Buffer(loom_type_t, sizes)");
        allocate_dense(static_type(), sizes);
    }

    /** Same as the vector form; makes `Buffer<float> b({640, 480})` and
     * `Buffer<float> b{640, 480}` unambiguous. */
    explicit Buffer(std::initializer_list<int> sizes) : Buffer(std::vector<int>(sizes)) {}

    /** Allocates a zeroed dense buffer of a run-time element type. For
     * non-void T the type must be T's (else std::invalid_argument). */
    Buffer(loom_type_t type, const std::vector<int> &sizes) {
        check_type_is_static_type(type);
        allocate_dense(type, sizes);
    }

    /** Wraps dense memory owned by the caller (dimension 0 innermost, every
     * min 0). Not available for T = void; use the loom_type_t overload. */
    template<typename U = T, std::enable_if_t<!std::is_void_v<U>, int> = 0>
    Buffer(typename detail::identity<U>::type *data, const std::vector<int> &sizes) {
        wrap_dense(static_type(), const_cast<MutableT *>(data), sizes);
    }

    /** Wraps dense memory owned by the caller, with a run-time element type. */
    Buffer(loom_type_t type, T *data, const std::vector<int> &sizes) {
        check_type_is_static_type(type);
        wrap_dense(type, const_cast<MutableT *>(data), sizes);
    }

    /** Wraps dense memory owned by the caller: Buffer<float>(data, w, h). */
    template<typename... Ints, typename U = T,
             std::enable_if_t<!std::is_void_v<U> && (std::is_convertible_v<Ints, int> && ...), int> = 0>
    Buffer(typename detail::identity<U>::type *data, int first, Ints... rest)
        : Buffer(data, std::vector<int>{first, static_cast<int>(rest)...}) {}

    /** Wraps memory owned by the caller with any layout: rank dimensions
     * (min, extent, stride in elements, flags), data pointing at the element
     * at the mins. Strides may be anything, negative or with holes; a
     * pipeline still needs stride 1 in dimension 0. Throws
     * std::invalid_argument for a negative extent or a missing shape. */
    template<typename U = T, std::enable_if_t<!std::is_void_v<U>, int> = 0>
    Buffer(typename detail::identity<U>::type *data, int rank, const loom_dimension_t *shape) {
        wrap_shape(static_type(), const_cast<MutableT *>(data), rank, shape);
    }
    // (Templates, so that a braced list of sizes never reads as a shape.)
    template<typename Dim, typename U = T,
             std::enable_if_t<!std::is_void_v<U> && std::is_same_v<Dim, loom_dimension_t>, int> = 0>
    Buffer(typename detail::identity<U>::type *data, const std::vector<Dim> &shape) {
        wrap_shape(static_type(), const_cast<MutableT *>(data), static_cast<int>(shape.size()), shape.data());
    }
    /** The same with a run-time element type. */
    Buffer(loom_type_t type, T *data, int rank, const loom_dimension_t *shape) {
        check_type_is_static_type(type);
        wrap_shape(type, const_cast<MutableT *>(data), rank, shape);
    }
    template<typename Dim, std::enable_if_t<std::is_same_v<Dim, loom_dimension_t>, int> = 0>
    Buffer(loom_type_t type, T *data, const std::vector<Dim> &shape) {
        check_type_is_static_type(type);
        wrap_shape(type, const_cast<MutableT *>(data), static_cast<int>(shape.size()), shape.data());
    }

    /** Allocates a zeroed buffer with these extents, storing dimension
     * storage_order[0] innermost, then storage_order[1], ... (a permutation
     * of 0..rank-1): {2, 0, 1} makes an interleaved x, y, c image. Throws
     * std::invalid_argument when storage_order is not such a permutation. */
    Buffer(const std::vector<int> &sizes, const std::vector<int> &storage_order) {
        static_assert(!kIsVoid, "Buffer<void> needs an element type: use Buffer(loom_type_t, sizes, storage_order)");
        allocate_in_order(static_type(), sizes, storage_order);
    }
    /** Same; makes Buffer<int>({w, h, c}, {2, 0, 1}) unambiguous. */
    Buffer(std::initializer_list<int> sizes, std::initializer_list<int> storage_order)
        : Buffer(std::vector<int>(sizes), std::vector<int>(storage_order)) {}
    Buffer(loom_type_t type, const std::vector<int> &sizes, const std::vector<int> &storage_order) {
        check_type_is_static_type(type);
        allocate_in_order(type, sizes, storage_order);
    }

    /** A zeroed rank-0 buffer of one element (Halide's make_scalar). */
    static Buffer make_scalar() {
        static_assert(!kIsVoid, "Buffer<void>::make_scalar needs an element type: use make_scalar(loom_type_t)");
        static_assert(Dims == AnyDims || Dims == 0, "make_scalar makes a rank-0 buffer: Dims must be 0 or AnyDims");
        return Buffer(std::vector<int>{});
    }
    static Buffer make_scalar(loom_type_t type) {
        static_assert(Dims == AnyDims || Dims == 0, "make_scalar makes a rank-0 buffer: Dims must be 0 or AnyDims");
        return Buffer(type, std::vector<int>{});
    }
    /** A rank-0 buffer wrapping one element owned by the caller. */
    template<typename U = T, std::enable_if_t<!std::is_void_v<U>, int> = 0>
    static Buffer make_scalar(typename detail::identity<U>::type *data) {
        static_assert(Dims == AnyDims || Dims == 0, "make_scalar makes a rank-0 buffer: Dims must be 0 or AnyDims");
        return Buffer(data, std::vector<int>{});
    }

    /** A zeroed width x height x channels buffer indexed (x, y, c) but stored
     * interleaved: channels innermost (dimension 2 has stride 1, dimension 0
     * stride channels, dimension 1 stride width * channels). */
    static Buffer make_interleaved(int width, int height, int channels) {
        static_assert(Dims == AnyDims || Dims == 3, "make_interleaved makes a rank-3 buffer: Dims must be 3 or AnyDims");
        return Buffer(std::vector<int>{width, height, channels}, std::vector<int>{2, 0, 1});
    }
    static Buffer make_interleaved(loom_type_t type, int width, int height, int channels) {
        static_assert(Dims == AnyDims || Dims == 3, "make_interleaved makes a rank-3 buffer: Dims must be 3 or AnyDims");
        return Buffer(type, std::vector<int>{width, height, channels}, std::vector<int>{2, 0, 1});
    }
    /** Wraps an interleaved image owned by the caller (as above). */
    template<typename U = T, std::enable_if_t<!std::is_void_v<U>, int> = 0>
    static Buffer make_interleaved(typename detail::identity<U>::type *data, int width, int height, int channels) {
        static_assert(Dims == AnyDims || Dims == 3, "make_interleaved makes a rank-3 buffer: Dims must be 3 or AnyDims");
        return Buffer(data, interleaved_shape(width, height, channels));
    }
    static Buffer make_interleaved(loom_type_t type, T *data, int width, int height, int channels) {
        static_assert(Dims == AnyDims || Dims == 3, "make_interleaved makes a rank-3 buffer: Dims must be 3 or AnyDims");
        return Buffer(type, data, interleaved_shape(width, height, channels));
    }

    /** A buffer with src's mins and extents and the same nesting of
     * dimensions in memory (the one with the smallest stride innermost), but
     * dense. The element type is T's, or src's for Buffer<void>. Memory comes
     * from allocate_fn/deallocate_fn when given, as allocate_fn leaves it;
     * else it is zeroed (see allocate()). Throws
     * std::invalid_argument for an undefined src. */
    template<typename T2, int D2, int S2>
    static Buffer make_with_shape_of(const Buffer<T2, D2, S2> &src, void *(*allocate_fn)(size_t) = nullptr,
                                     void (*deallocate_fn)(void *) = nullptr) {
        src.check_defined("make_with_shape_of");
        loom_type_t type = kIsVoid ? src.type() : static_type();
        std::vector<loom_dimension_t> shape = dense_shape_like(src.contents_->dims);
        Buffer result;
        result.contents_ = make_with_dims(type, shape.data(), static_cast<int>(shape.size()));
        allocate_host(*result.contents_, allocate_fn, deallocate_fn);
        return result;
    }

    /** Wraps the memory a loom_buffer_t describes: copies its type, shape,
     * host pointer, device fields and flags, but does not own the memory.
     * Throws std::invalid_argument if T is not void and the types differ. */
    explicit Buffer(const loom_buffer_t &raw) {
        check_type_is_static_type(raw.type);
        if (raw.dimensions < 0 || (raw.dimensions > 0 && raw.dim == nullptr)) {
            throw std::invalid_argument("loom::Runtime::Buffer: loom_buffer_t has no valid shape");
        }
        check_static_dimensions(raw.dimensions);
        auto contents = std::make_shared<detail::BufferContents>();
        contents->raw = raw;
        if (raw.device) {
            contents->device_ownership = detail::BufferContents::DeviceOwnership::Unmanaged;
        }
        contents->dims.assign(raw.dim, raw.dim + raw.dimensions);
        contents->attach_dims();
        contents->raw.padding = nullptr;
        contents_ = std::move(contents);
    }

    /** Copies share memory and shape. */
    Buffer(const Buffer &) = default;
    Buffer(Buffer &&) noexcept = default;
    Buffer &operator=(const Buffer &) = default;
    Buffer &operator=(Buffer &&) noexcept = default;

    /** Views another Buffer's memory and shape under this element type.
     * Throws std::invalid_argument when other is defined and its element type
     * is not T's (checked at run time when either side is void). Converting
     * from const elements to non-const ones does not compile. */
    template<typename U, int D2, int S2, std::enable_if_t<is_convertible_from<U, D2, S2>(), int> = 0>
    Buffer(const Buffer<U, D2, S2> &other) : contents_(other.contents_) {
        if (other.defined()) {
            check_type_is_static_type(other.type());
            check_static_dimensions(other.dimensions());
        }
    }

    /** As above, taking over other's reference. */
    template<typename U, int D2, int S2, std::enable_if_t<is_convertible_from<U, D2, S2>(), int> = 0>
    Buffer(Buffer<U, D2, S2> &&other) {
        if (other.defined()) {
            check_type_is_static_type(other.type());
            check_static_dimensions(other.dimensions());
        }
        contents_ = std::move(other.contents_);
    }

    // ---- Shape -----------------------------------------------------------

    /** Whether this handle refers to a buffer. */
    bool defined() const { return contents_ != nullptr; }

    /** The rank; 0 for an undefined buffer. */
    int dimensions() const { return contents_ ? contents_->raw.dimensions : 0; }

    /** Dimension i. Throws std::out_of_range unless 0 <= i < dimensions(). */
    Dimension dim(int i) const {
        if (i < 0 || i >= dimensions()) {
            throw std::out_of_range("loom::Runtime::Buffer::dim: no dimension " + std::to_string(i) +
                                    " in a buffer of rank " + std::to_string(dimensions()));
        }
        return Dimension(contents_->dims[static_cast<size_t>(i)]);
    }

    /** dim(i).min(), dim(i).extent(), dim(i).stride(). */
    int min(int i) const { return dim(i).min(); }
    int extent(int i) const { return dim(i).extent(); }
    int stride(int i) const { return dim(i).stride(); }

    /** Extent of dimension 0, 1 or 2; 1 when the buffer has no such dimension. */
    int width() const { return extent_or_one(0); }
    int height() const { return extent_or_one(1); }
    int channels() const { return extent_or_one(2); }

    /** The product of all extents (1 for rank 0, 0 when undefined). */
    size_t number_of_elements() const {
        if (!contents_) {
            return 0;
        }
        size_t count = 1;
        for (const loom_dimension_t &d : contents_->dims) {
            if (d.extent <= 0) {
                return 0;
            }
            count *= static_cast<size_t>(d.extent);
        }
        return count;
    }

    /** Bytes spanned from the lowest-addressed element to the end of the
     * highest-addressed one; for a dense buffer, elements * element size. */
    size_t size_in_bytes() const {
        if (!contents_ || number_of_elements() == 0) {
            return 0;
        }
        ptrdiff_t lowest = 0, highest = 0;
        for (const loom_dimension_t &d : contents_->dims) {
            ptrdiff_t span = static_cast<ptrdiff_t>(d.extent - 1) * d.stride;
            (span < 0 ? lowest : highest) += span;
        }
        return static_cast<size_t>(highest - lowest + 1) * type_bytes(type());
    }

    /** The element type: T's for non-void T, the run-time one for void
     * ({0, 0, 0} when undefined). */
    loom_type_t type() const {
        if constexpr (!kIsVoid) {
            return static_type();
        } else {
            return contents_ ? contents_->raw.type : loom_type_t{};
        }
    }

    /** Sets the min coordinate of the first mins.size() dimensions. Throws
     * std::invalid_argument if there are more mins than dimensions. */
    void set_min(const std::vector<int> &mins) {
        check_coordinate_count(mins.size(), "set_min");
        for (size_t i = 0; i < mins.size(); i++) {
            contents_->dims[i].min = mins[i];
        }
    }
    /** set_min(x, y, ...). */
    template<typename... Ints, typename = std::enable_if_t<(std::is_convertible_v<Ints, int> && ...)>>
    void set_min(Ints... mins) {
        set_min(std::vector<int>{static_cast<int>(mins)...});
    }

    /** Adds deltas to the min coordinate of the first deltas.size() dimensions
     * (the data then sits at coordinates shifted by deltas). */
    void translate(const std::vector<int> &deltas) {
        check_coordinate_count(deltas.size(), "translate");
        for (size_t i = 0; i < deltas.size(); i++) {
            contents_->dims[i].min += deltas[i];
        }
    }
    /** Adds delta to the min coordinate of dimension d (Halide's form:
     * translate(1, 5) moves dimension 1 only). Throws std::out_of_range for
     * a dimension the buffer lacks. */
    void translate(int d, int delta) {
        check_dimension(d, "translate");
        contents_->dims[static_cast<size_t>(d)].min += delta;
    }

    /** The first and last coordinates of dimensions 0 and 1. */
    int left() const { return dim(0).min(); }
    int right() const { return dim(0).max(); }
    int top() const { return dim(1).min(); }
    int bottom() const { return dim(1).max(); }

    /** Whether (x, y, ...) lies inside the buffer; fewer coordinates than
     * dimensions test the first ones only. False for an undefined buffer.
     * Throws std::invalid_argument for more coordinates than dimensions. */
    bool contains(const std::vector<int> &coords) const {
        if (!contents_) {
            return false;
        }
        check_coordinate_count(coords.size(), "contains");
        for (size_t i = 0; i < coords.size(); i++) {
            const loom_dimension_t &d = contents_->dims[i];
            if (coords[i] < d.min || int64_t(coords[i]) >= int64_t(d.min) + d.extent) {
                return false;
            }
        }
        return true;
    }
    template<typename... Ints, typename = std::enable_if_t<(std::is_convertible_v<Ints, int> && ...)>>
    bool contains(Ints... coords) const {
        return contains(std::vector<int>{static_cast<int>(coords)...});
    }

    // ---- Views -----------------------------------------------------------
    //
    // A view (cropped(), translated(), transposed(), sliced(), embedded())
    // is a new Buffer with its own shape over the same host memory; the
    // memory lives while the buffer or any view of it does. Views have no
    // device allocation: making one of a buffer whose device side is dirty
    // throws std::logic_error (copy_to_host() first), and host writes through
    // a view mark the buffer it views host-dirty too.
    //
    // The in-place forms (crop(), translate(), transpose(), slice(), embed(),
    // add_dimension()) change the one shape every copy of this handle
    // shares, like set_min(). crop() and slice() move the host pointer, so
    // they throw std::logic_error on a buffer with a device allocation.
    //
    //     Buffer<int> im(8, 6);
    //     Buffer<int> roi = im.cropped({{2, 4}, {1, 3}});   // x 2..5, y 1..3
    //     roi(2, 1) = 7;                                     // im(2, 1) == 7
    //     Buffer<int> row = im.sliced(1, 3);                 // 1-D: row(x) is im(x, 3)
    //     Buffer<int> t = im.transposed(0, 1);               // t(y, x) is im(x, y)

    /** A view of [min, min + extent) along dimension d. Throws
     * std::out_of_range for a dimension the buffer lacks or a range not
     * inside the buffer (crops cannot grow). */
    Buffer cropped(int d, int min, int extent) const {
        Buffer view = make_view("cropped");
        view.crop_host(d, min, extent, "cropped");
        return view;
    }
    /** A view cropped to {min, extent} pairs in the first rect.size() dimensions. */
    Buffer cropped(const std::vector<std::pair<int, int>> &rect) const {
        check_coordinate_count(rect.size(), "cropped");
        Buffer view = make_view("cropped");
        for (size_t i = 0; i < rect.size(); i++) {
            view.crop_host(static_cast<int>(i), rect[i].first, rect[i].second, "cropped");
        }
        return view;
    }
    /** Crops in place (see cropped()). */
    void crop(int d, int min, int extent) {
        check_dimension(d, "crop");
        check_no_device_allocation("crop", "cropped()");
        crop_host(d, min, extent, "crop");
    }
    void crop(const std::vector<std::pair<int, int>> &rect) {
        check_defined("crop");
        check_no_device_allocation("crop", "cropped()");
        const Buffer trial = cropped(rect);  // checks every range before anything changes
        contents_->dims = trial.contents_->dims;
        contents_->attach_dims();
        contents_->raw.host = trial.contents_->raw.host;
    }

    /** A view whose coordinates in dimension d are shifted by dx: the value
     * at x is then found at x + dx. */
    Buffer translated(int d, int dx) const {
        Buffer view = make_view("translated");
        view.translate(d, dx);
        return view;
    }
    /** A view translated by deltas in the first deltas.size() dimensions. */
    Buffer translated(const std::vector<int> &deltas) const {
        Buffer view = make_view("translated");
        view.translate(deltas);
        return view;
    }

    /** A view with dimensions d1 and d2 swapped: view(y, x) is (x, y). */
    Buffer transposed(int d1, int d2) const {
        Buffer view = make_view("transposed");
        view.transpose(d1, d2);
        return view;
    }
    /** A view whose dimension order[i] is this buffer's dimension i (Halide's
     * generalized transpose; order lists each dimension once). */
    Buffer transposed(const std::vector<int> &order) const {
        Buffer view = make_view("transposed");
        view.transpose(order);
        return view;
    }
    /** Transposes in place (no data moves). Throws std::out_of_range for a
     * dimension the buffer lacks, std::invalid_argument for an order that is
     * not a permutation of the dimensions. */
    void transpose(int d1, int d2) {
        check_dimension(d1, "transpose");
        check_dimension(d2, "transpose");
        std::swap(contents_->dims[static_cast<size_t>(d1)], contents_->dims[static_cast<size_t>(d2)]);
    }
    void transpose(const std::vector<int> &order) {
        check_defined("transpose");
        check_permutation(order, contents_->dims.size(), "transpose");
        permute_dims(order);
    }

    /** A view of one fewer dimension: the elements at coordinate pos of
     * dimension d (sliced(1, 3) of an image is its row 3, indexed by x).
     * Throws std::out_of_range for a dimension the buffer lacks or a pos
     * outside it. */
    Buffer<T, (Dims == AnyDims ? AnyDims : Dims - 1)> sliced(int d, int pos) const {
        static_assert(Dims == AnyDims || Dims > 0, "sliced() needs a dimension to remove");
        Buffer view = make_view("sliced");
        view.slice_host(d, pos, "sliced");
        return std::move(view).template with_static_dimensions<(Dims == AnyDims ? AnyDims : Dims - 1)>();
    }
    /** sliced(d, min(d)). */
    Buffer<T, (Dims == AnyDims ? AnyDims : Dims - 1)> sliced(int d) const {
        check_dimension(d, "sliced");
        return sliced(d, contents_->dims[static_cast<size_t>(d)].min);
    }
    /** Slices in place (see sliced()); needs a Buffer of AnyDims. */
    void slice(int d, int pos) {
        static_assert(Dims == AnyDims, "slice() changes the rank in place: use sliced() on a Buffer with static Dims");
        check_dimension(d, "slice");
        check_no_device_allocation("slice", "sliced()");
        slice_host(d, pos, "slice");
    }
    void slice(int d) {
        check_dimension(d, "slice");
        slice(d, contents_->dims[static_cast<size_t>(d)].min);
    }

    /** A view with one more dimension, inserted at index d, of extent 1 and
     * min pos: the opposite of sliced(), so that
     * &im.embedded(1, 17)(x, 17, y) == &im(x, y). Throws std::out_of_range
     * unless 0 <= d <= dimensions(). */
    Buffer<T, (Dims == AnyDims ? AnyDims : Dims + 1)> embedded(int d, int pos = 0) const {
        Buffer view = make_view("embedded");
        view.embed_dimension(d, pos);
        return std::move(view).template with_static_dimensions<(Dims == AnyDims ? AnyDims : Dims + 1)>();
    }
    /** Embeds in place (see embedded()); needs a Buffer of AnyDims. */
    void embed(int d, int pos = 0) {
        static_assert(Dims == AnyDims, "embed() changes the rank in place: use embedded() on a Buffer with static Dims");
        embed_dimension(d, pos);
    }

private:
    void embed_dimension(int d, int pos) {
        check_defined("embed");
        if (d < 0 || d > dimensions()) {
            throw std::out_of_range("loom::Runtime::Buffer::embed: can't insert dimension " + std::to_string(d) +
                                    " into a buffer of rank " + std::to_string(dimensions()) + " (0.." +
                                    std::to_string(dimensions()) + " are possible)");
        }
        append_dimension();
        const int last = dimensions() - 1;
        contents_->dims[static_cast<size_t>(last)].min = pos;
        for (int i = last; i > d; i--) {
            transpose(i, i - 1);
        }
    }
    void append_dimension() {
        check_defined("add_dimension");
        int64_t stride = 1;
        if (!contents_->dims.empty()) {
            const loom_dimension_t &outer = contents_->dims.back();
            stride = int64_t(outer.extent) * outer.stride;
        }
        if (stride > std::numeric_limits<int32_t>::max() || stride < std::numeric_limits<int32_t>::min()) {
            throw std::invalid_argument("loom::Runtime::Buffer::add_dimension: the new stride does not fit in 32 bits");
        }
        append_dimension_with_stride(static_cast<int>(stride));
    }
    void append_dimension_with_stride(int stride) {
        check_defined("add_dimension_with_stride");
        contents_->dims.push_back(loom_dimension_t{0, 1, stride, 0});
        contents_->attach_dims();
    }
    // This handle as a Buffer of another static rank (the caller made its
    // shape have that rank).
    template<int D2>
    Buffer<T, D2> with_static_dimensions() && {
        Buffer<T, D2> result;
        result.contents_ = std::move(contents_);
        return result;
    }

public:
    /** Adds an outermost dimension of min 0 and extent 1, whose stride is the
     * previous outermost dimension's extent times its stride (1 at rank 0).
     * Needs a Buffer of AnyDims. */
    void add_dimension() {
        static_assert(Dims == AnyDims, "add_dimension() changes the rank: it needs a Buffer of AnyDims");
        append_dimension();
    }
    /** Adds an outermost dimension of min 0, extent 1 and this stride. */
    void add_dimension_with_stride(int stride) {
        static_assert(Dims == AnyDims, "add_dimension_with_stride() changes the rank: it needs a Buffer of AnyDims");
        append_dimension_with_stride(stride);
    }

    // ---- Memory ----------------------------------------------------------

    /** Gives the buffer new host memory for its current shape (any
     * strides), dropping its reference to the old memory and any device
     * allocation. Every copy of this handle sees the new memory; views made
     * earlier keep the old. The default 64-byte-aligned operator new/delete
     * memory is zeroed; allocate_fn/deallocate_fn replace them, and that
     * memory is left as allocate_fn returns it, as in Halide (malloc: not
     * initialized, for a buffer the caller fills completely; calloc: zeros).
     * deallocate_fn defaults to free() then. Throws std::invalid_argument
     * for an undefined buffer. */
    void allocate(void *(*allocate_fn)(size_t) = nullptr, void (*deallocate_fn)(void *) = nullptr) {
        check_defined("allocate");
        contents_->release_device();
        contents_->parent.reset();
        contents_->allocation.reset();
        contents_->raw.flags = 0;
        allocate_host(*contents_, allocate_fn, deallocate_fn);
    }
    /** Drops the reference to the buffer's host memory (freeing it with the
     * last one) and frees its device allocation; the shape stays and data()
     * becomes null. Memory the buffer only wraps is left alone. */
    void deallocate() {
        if (!contents_) {
            return;
        }
        contents_->release_device();
        if (contents_->allocation) {
            contents_->allocation.reset();
            contents_->parent.reset();
            contents_->raw.host = nullptr;
        }
        contents_->raw.flags = 0;
    }

    // ---- Elements --------------------------------------------------------

    /** Address of the element at the min coordinates (the host pointer). */
    T *data() { return contents_ ? reinterpret_cast<T *>(contents_->raw.host) : nullptr; }
    const T *data() const { return contents_ ? reinterpret_cast<const T *>(contents_->raw.host) : nullptr; }

    /** The element at (x, y, ...); omitted trailing coordinates are the
     * dimension's min, and coordinates past the rank must be 0 (a rank-0
     * buffer's value is r() or r(0), as in Halide). Not available for
     * T = void. Throws std::out_of_range for a nonzero coordinate past the
     * rank; does not check bounds otherwise. The
     * non-const form marks the host side dirty (std::logic_error while the
     * device side is dirty: copy_to_host() first). */
    template<typename... Ints, typename = std::enable_if_t<(std::is_convertible_v<Ints, int> && ...)>>
    std::add_lvalue_reference_t<T> operator()(Ints... coords) {
        static_assert(!kIsVoid, "element access needs a typed Buffer<T>");
        const int c[] = {static_cast<int>(coords)..., 0};
        if constexpr (!std::is_const_v<T>) {
            mark_host_written();
        }
        return *element_address(c, sizeof...(Ints));
    }
    template<typename... Ints, typename = std::enable_if_t<(std::is_convertible_v<Ints, int> && ...)>>
    std::add_lvalue_reference_t<const T> operator()(Ints... coords) const {
        static_assert(!kIsVoid, "element access needs a typed Buffer<T>");
        const int c[] = {static_cast<int>(coords)..., 0};
        return *element_address(c, sizeof...(Ints));
    }

    /** The element at these coordinates, as above. */
    std::add_lvalue_reference_t<T> operator()(const std::vector<int> &coords) {
        static_assert(!kIsVoid, "element access needs a typed Buffer<T>");
        if constexpr (!std::is_const_v<T>) {
            mark_host_written();
        }
        return *element_address(coords.data(), coords.size());
    }
    std::add_lvalue_reference_t<const T> operator()(const std::vector<int> &coords) const {
        static_assert(!kIsVoid, "element access needs a typed Buffer<T>");
        return *element_address(coords.data(), coords.size());
    }

    /** Sets every element to value. Not available for void or const T. */
    Buffer &fill(FillValue value) {
        static_assert(!kIsVoid, "fill needs a typed Buffer<T>");
        static_assert(!std::is_const_v<T>, "cannot fill a Buffer of const elements");
        if (!contents_) {
            return *this;
        }
        mark_host_written();
        std::vector<int> mins, extents;
        shape_of(mins, extents);
        detail::for_each_row<1>(mins, extents, {&contents_->raw},
                                [&](const std::array<uint8_t *, 1> &rows, int count,
                                    const std::array<ptrdiff_t, 1> &stride_bytes) {
                                    uint8_t *p = rows[0];
                                    for (int i = 0; i < count; i++, p += stride_bytes[0]) {
                                        *reinterpret_cast<MutableT *>(p) = value;
                                    }
                                });
        return *this;
    }

    /** Sets every element to f(coordinates): f takes the coordinates as
     * for_each_element() passes them (a `const std::vector<int> &`, or
     * dimensions() ints) and returns the value.
     *
     *     Buffer<int> ramp(4, 3);
     *     ramp.fill([](int x, int y) { return x + 10 * y; });   // ramp(3, 2) == 23
     */
    template<typename Fn, typename = std::enable_if_t<!std::is_arithmetic_v<std::decay_t<Fn>> &&
                                                      !std::is_convertible_v<Fn, FillValue>>>
    Buffer &fill(Fn &&f) {
        static_assert(!kIsVoid, "fill needs a typed Buffer<T>");
        static_assert(!std::is_const_v<T>, "cannot fill a Buffer of const elements");
        if (!contents_) {
            return *this;
        }
        mark_host_written();
        constexpr bool kTakesVector = std::is_invocable_v<Fn &, const std::vector<int> &>;
        if constexpr (kTakesVector) {
            for_each_element([&](const std::vector<int> &at) {
                *element_address(at.data(), at.size()) = static_cast<MutableT>(f(at));
            });
        } else {
            constexpr int kArity = detail::int_arity<Fn &>();
            static_assert(kArity >= 0, "fill(f) needs f(const std::vector<int> &) or f(int, int, ...)");
            check_arity(kArity, "fill");
            for_each_element([&](const std::vector<int> &at) {
                *element_address(at.data(), at.size()) = static_cast<MutableT>(
                    detail::call_with_ints_result(f, at, std::make_index_sequence<static_cast<size_t>(kArity)>()));
            });
        }
        return *this;
    }

    /** Calls f(value, other values...) for every element of this buffer and
     * the element at the same coordinates of each other buffer, which must
     * have the same rank, mins and extents. f takes each value by reference
     * (to change it), const reference or value. Throws std::invalid_argument
     * for a shape mismatch or an undefined buffer, std::logic_error when any
     * of them is dirty on the device (copy_to_host() first).
     *
     *     Buffer<float> a(4), b(4);
     *     a.for_each_value([](float &x, float y) { x += y; }, b);   // a += b
     */
    template<typename Fn, typename... Others>
    Buffer &for_each_value(Fn &&f, Others &&...others) {
        mark_host_written();
        (mark_others_written(others), ...);
        for_each_value_impl(f, others...);
        return *this;
    }
    template<typename Fn, typename... Others>
    const Buffer &for_each_value(Fn &&f, Others &&...others) const {
        for_each_value_impl(f, others...);
        return *this;
    }

    /** Whether every element equals value (true for an empty buffer). Throws
     * std::logic_error when the device side is dirty. */
    bool all_equal(FillValue value) const {
        static_assert(!kIsVoid, "all_equal needs a typed Buffer<T>");
        check_defined("all_equal");
        check_host_is_current("all_equal");
        bool equal = true;
        auto compare = [&](const MutableT &v) { equal = equal && v == value; };
        for_each_value_impl(compare);
        return equal;
    }

    /** This handle as a Buffer<U, D2> (sharing everything, no copy). U may
     * add const, or be void; otherwise its element type must be this
     * buffer's (std::invalid_argument naming both types). A static D2 must
     * be the rank (std::invalid_argument naming both). Dropping const does
     * not compile. */
    template<typename U, int D2 = Dims>
    Buffer<U, D2, InClassDimStorage> &as() & {
        check_as<U, D2>();
        return *reinterpret_cast<Buffer<U, D2, InClassDimStorage> *>(this);
    }
    template<typename U, int D2 = Dims>
    const Buffer<U, D2, InClassDimStorage> &as() const & {
        check_as<U, D2>();
        return *reinterpret_cast<const Buffer<U, D2, InClassDimStorage> *>(this);
    }
    template<typename U, int D2 = Dims>
    Buffer<U, D2, InClassDimStorage> as() && {
        check_as<U, D2>();
        return Buffer<U, D2, InClassDimStorage>(std::move(*reinterpret_cast<Buffer<U, D2, InClassDimStorage> *>(this)));
    }
    /** as<const T>(). */
    Buffer<std::add_const_t<T>, Dims, InClassDimStorage> &as_const() & { return as<std::add_const_t<T>>(); }
    const Buffer<std::add_const_t<T>, Dims, InClassDimStorage> &as_const() const & {
        return as<std::add_const_t<T>>();
    }

    /** Calls f once per element, dimension 0 varying fastest. f takes either
     * the coordinates as `const std::vector<int> &` (checked first, so
     * generic lambdas get this form) or exactly dimensions() ints
     * (`[](int x, int y) {...}`; std::invalid_argument on a rank mismatch). */
    template<typename F>
    void for_each_element(F f) const {
        if (!contents_) {
            return;
        }
        constexpr bool kTakesVector = std::is_invocable_v<F &, const std::vector<int> &>;
        constexpr int kArity = detail::int_arity<F &>();
        static_assert(kTakesVector || kArity >= 0,
                      "for_each_element needs f(const std::vector<int> &) or f(int, int, ...)");
        if constexpr (!kTakesVector) {
            if (kArity != dimensions()) {
                throw std::invalid_argument("loom::Runtime::Buffer::for_each_element: callback takes " +
                                            std::to_string(kArity) + " coordinates but the buffer has " +
                                            std::to_string(dimensions()) + " dimensions");
            }
        }
        const size_t rank = contents_->dims.size();
        std::vector<int> coord(rank);
        for (size_t d = 0; d < rank; d++) {
            if (contents_->dims[d].extent <= 0) {
                return;
            }
            coord[d] = contents_->dims[d].min;
        }
        while (true) {
            if constexpr (kTakesVector) {
                f(static_cast<const std::vector<int> &>(coord));
            } else {
                detail::call_with_ints(f, coord, std::make_index_sequence<static_cast<size_t>(kArity)>());
            }
            size_t d = 0;
            for (; d < rank; d++) {
                const loom_dimension_t &dim = contents_->dims[d];
                if (++coord[d] < dim.min + dim.extent) {
                    break;
                }
                coord[d] = dim.min;
            }
            if (d >= rank) {
                return;
            }
        }
    }

    // ---- Copies ----------------------------------------------------------

    /** A deep copy into new memory with the same type, mins, extents and
     * nesting of dimensions in memory (a planar buffer copies to a planar
     * one, an interleaved one to an interleaved one), dense. An undefined
     * buffer copies to an undefined one. */
    Buffer<MutableT, Dims, InClassDimStorage> copy(void *(*allocate_fn)(size_t) = nullptr,
                                                   void (*deallocate_fn)(void *) = nullptr) const {
        if (!contents_) {
            return Buffer<MutableT, Dims, InClassDimStorage>();
        }
        auto result = Buffer<MutableT, Dims, InClassDimStorage>::make_with_shape_of(*this, allocate_fn, deallocate_fn);
        result.copy_from(*this);
        return result;
    }

    /** A deep copy stored interleaved (see make_interleaved()), same mins.
     * Throws std::invalid_argument unless the buffer has 3 dimensions. */
    Buffer<MutableT, Dims, InClassDimStorage> copy_to_interleaved() const {
        check_defined("copy_to_interleaved");
        if (dimensions() != 3) {
            throw std::invalid_argument("loom::Runtime::Buffer::copy_to_interleaved: needs a buffer of 3 dimensions "
                                        "(x, y, c), not " + std::to_string(dimensions()));
        }
        auto result = Buffer<MutableT, Dims, InClassDimStorage>::make_interleaved(type(), width(), height(), channels());
        result.set_min(min(0), min(1), min(2));
        result.copy_from(*this);
        return result;
    }

    /** A deep copy stored planar (dimension 0 innermost, then 1, ...), same
     * mins: the layout of Loom's allocating constructors. */
    Buffer<MutableT, Dims, InClassDimStorage> copy_to_planar() const {
        check_defined("copy_to_planar");
        std::vector<int> mins, extents;
        shape_of(mins, extents);
        Buffer<MutableT, Dims, InClassDimStorage> result(type(), extents);
        result.set_min(mins);
        result.copy_from(*this);
        return result;
    }

    /** Copies the elements of src whose coordinates are also in this buffer.
     * Both must be defined with the same rank and element type (else
     * std::invalid_argument). */
    template<typename U, int D2, int S2>
    void copy_from(const Buffer<U, D2, S2> &src) {
        static_assert(!std::is_const_v<T>, "cannot copy into a Buffer of const elements");
        if (!defined() || !src.defined()) {
            throw std::invalid_argument("loom::Runtime::Buffer::copy_from: undefined buffer");
        }
        if (dimensions() != src.dimensions()) {
            throw std::invalid_argument("loom::Runtime::Buffer::copy_from: rank " + std::to_string(src.dimensions()) +
                                        " source into rank " + std::to_string(dimensions()) + " destination");
        }
        if (!same_type(type(), src.type())) {
            throw std::invalid_argument("loom::Runtime::Buffer::copy_from: " + type_name(src.type()) +
                                        " source into " + type_name(type()) + " destination");
        }
        if (src.device_dirty_here_or_above()) {
            throw std::logic_error("loom::Runtime::Buffer::copy_from: the source (or the buffer it views) is dirty "
                                   "on the device; call copy_to_host() on it first");
        }
        mark_host_written();
        const size_t rank = contents_->dims.size();
        std::vector<int> mins(rank), extents(rank);
        for (size_t d = 0; d < rank; d++) {
            const loom_dimension_t &a = contents_->dims[d];
            const loom_dimension_t &b = src.contents_->dims[d];
            int64_t lo = std::max<int64_t>(a.min, b.min);
            int64_t hi = std::min<int64_t>(int64_t(a.min) + a.extent, int64_t(b.min) + b.extent);
            if (hi <= lo) {
                return;
            }
            mins[d] = static_cast<int>(lo);
            extents[d] = static_cast<int>(hi - lo);
        }
        const size_t elem_bytes = type_bytes(type());
        detail::for_each_row<2>(mins, extents, {&contents_->raw, &src.contents_->raw},
                                [&](const std::array<uint8_t *, 2> &rows, int count,
                                    const std::array<ptrdiff_t, 2> &stride_bytes) {
                                    const ptrdiff_t dense = static_cast<ptrdiff_t>(elem_bytes);
                                    if (stride_bytes[0] == dense && stride_bytes[1] == dense) {
                                        std::memmove(rows[0], rows[1], static_cast<size_t>(count) * elem_bytes);
                                        return;
                                    }
                                    uint8_t *dst = rows[0];
                                    const uint8_t *from = rows[1];
                                    for (int i = 0; i < count; i++) {
                                        std::memmove(dst, from, elem_bytes);
                                        dst += stride_bytes[0];
                                        from += stride_bytes[1];
                                    }
                                });
    }

    // ---- The C view ------------------------------------------------------

    /** The loom_buffer_t shared by every copy of this handle (null when
     * undefined); valid while any copy lives. Pass it to generated code. */
    loom_buffer_t *raw_buffer() const { return contents_ ? &contents_->raw : nullptr; }

    /** Same as raw_buffer(). */
    operator loom_buffer_t *() const { return raw_buffer(); }

    // ---- Device memory ---------------------------------------------------
    //
    // Each returns 0 or the negative loom_error_code_t of the C runtime,
    // which has reported the message through loom_error. A null interface
    // means the buffer's own, else Vulkan's (the only one there is).
    //
    //     loom::Runtime::Buffer<float> b(1024);
    //     b.copy_to_device();        // allocates, copies (b was never on the device)
    //     kernel(b.raw_buffer());    // generated code sets device_dirty
    //     b.copy_to_host();          // waits for the kernel, copies back

    /** Marks host memory as newer than the device copy (or clears that).
     * Throws std::logic_error when setting it while the device is dirty. */
    void set_host_dirty(bool dirty = true) {
        if (dirty && device_dirty()) {
            throw std::logic_error("loom::Runtime::Buffer: cannot set host dirty while the device is dirty; call "
                                   "copy_to_host() first");
        }
        set_flag(loom_buffer_flag_host_dirty, dirty);
    }
    /** Marks the device copy as newer than host memory (or clears that).
     * Throws std::logic_error when setting it while the host is dirty. */
    void set_device_dirty(bool dirty = true) {
        if (dirty && host_dirty()) {
            throw std::logic_error("loom::Runtime::Buffer: cannot set device dirty while the host is dirty; call "
                                   "copy_to_device() first");
        }
        set_flag(loom_buffer_flag_device_dirty, dirty);
    }
    /** Whether host memory is newer than the device copy. */
    bool host_dirty() const { return contents_ && (contents_->raw.flags & loom_buffer_flag_host_dirty); }
    /** Whether the device copy is newer than host memory. */
    bool device_dirty() const { return contents_ && (contents_->raw.flags & loom_buffer_flag_device_dirty); }
    /** Whether the buffer has a device allocation. */
    bool has_device_allocation() const { return contents_ && contents_->raw.device != 0; }

    /** Gives the buffer a device allocation covering its host span (no copy);
     * nothing happens if it has one. Freed with the last copy of the Buffer. */
    int device_malloc(const loom_device_interface_t *iface = nullptr, void *user_context = nullptr) {
        if (!contents_) return undefined_device_call("device_malloc");
        return loom_device_malloc(user_context, &contents_->raw, interface_or_default(iface));
    }
    /** Allocates if needed, then copies host to device when the buffer was
     * not on the device yet or host_dirty() is set; clears host_dirty. */
    int copy_to_device(const loom_device_interface_t *iface = nullptr, void *user_context = nullptr) {
        if (!contents_) return undefined_device_call("copy_to_device");
        return loom_copy_to_device(user_context, &contents_->raw, interface_or_default(iface));
    }
    /** When device_dirty() is set: waits for the device work writing the
     * buffer, copies device to host and clears device_dirty. */
    int copy_to_host(void *user_context = nullptr) {
        if (!contents_) return undefined_device_call("copy_to_host");
        return loom_copy_to_host(user_context, &contents_->raw);
    }
    /** Waits until the device work submitted so far has finished. */
    int device_sync(void *user_context = nullptr) {
        return loom_device_sync(user_context, contents_ ? &contents_->raw : nullptr);
    }
    /** Frees the device allocation (the host side stays; device_dirty is
     * cleared, so what only the device held is lost). Throws
     * std::logic_error for a wrapped native handle: detach it instead. */
    int device_free(void *user_context = nullptr) {
        if (!contents_ || !contents_->raw.device) return 0;
        if (contents_->device_ownership == detail::BufferContents::DeviceOwnership::WrappedNative) {
            throw std::logic_error("loom::Runtime::Buffer::device_free: the device allocation is a wrapped native "
                                   "handle; call device_detach_native() instead");
        }
        int result = loom_device_free(user_context, &contents_->raw);
        if (!contents_->raw.device) contents_->device_ownership = detail::BufferContents::DeviceOwnership::Allocated;
        return result;
    }
    /** Uses a native handle (a VkBuffer for Vulkan) as the device allocation;
     * the Buffer never frees it, and detaches it with its last copy. */
    int device_wrap_native(const loom_device_interface_t *iface, uint64_t handle, void *user_context = nullptr) {
        if (!contents_) return undefined_device_call("device_wrap_native");
        int result = loom_device_wrap_native(user_context, &contents_->raw, interface_or_default(iface), handle);
        if (result == 0) contents_->device_ownership = detail::BufferContents::DeviceOwnership::WrappedNative;
        return result;
    }
    /** Gives a wrapped native handle back (after the work using it) and
     * clears the device side. */
    int device_detach_native(void *user_context = nullptr) {
        if (!contents_ || !contents_->raw.device) return 0;
        int result = loom_device_detach_native(user_context, &contents_->raw);
        if (!contents_->raw.device) contents_->device_ownership = detail::BufferContents::DeviceOwnership::Allocated;
        return result;
    }
    /** The native handle of the device allocation (a VkBuffer), 0 if none. */
    uint64_t device_native_handle(void *user_context = nullptr) const {
        return contents_ ? loom_device_native_handle(user_context, &contents_->raw) : 0;
    }
    /** The interface that owns the device allocation, null if none. */
    const loom_device_interface_t *device_interface() const {
        return contents_ ? contents_->raw.device_interface : nullptr;
    }

private:
    static constexpr loom_type_t static_type() {
        if constexpr (kIsVoid) {
            return loom_type_t{};
        } else {
            return loom_type_of<T>();
        }
    }

    static void check_type_is_static_type(loom_type_t type) {
        if constexpr (!kIsVoid) {
            if (!same_type(type, static_type())) {
                throw std::invalid_argument("loom::Runtime::Buffer: element type " + type_name(type) +
                                            " does not match Buffer<" + type_name(static_type()) + ">");
            }
        } else {
            (void)type;
        }
    }

    // A static Dims holds only buffers of that rank.
    static void check_static_dimensions(int rank) {
        if constexpr (Dims != AnyDims) {
            if (rank != Dims) {
                throw std::invalid_argument("loom::Runtime::Buffer: a buffer of " + std::to_string(rank) +
                                            " dimensions cannot be held by a Buffer with " + std::to_string(Dims) +
                                            " static dimensions (Buffer<T, " + std::to_string(Dims) +
                                            ">); use Buffer<T> (AnyDims) or give it " + std::to_string(Dims) +
                                            " dimensions");
            }
        } else {
            (void)rank;
        }
    }

    static void check_element_type(loom_type_t type) {
        if (type.bits == 0 || type.lanes != 1) {
            throw std::invalid_argument("loom::Runtime::Buffer: invalid element type " + type_name(type));
        }
    }

    // Builds the shared state with dense strides (dimension 0 innermost).
    static std::shared_ptr<detail::BufferContents> make_dense(loom_type_t type, const std::vector<int> &sizes,
                                                              size_t &bytes) {
        check_element_type(type);
        check_static_dimensions(static_cast<int>(sizes.size()));
        auto contents = std::make_shared<detail::BufferContents>();
        contents->dims.reserve(InClassDimStorage);
        contents->dims.resize(sizes.size());
        int64_t stride = 1;
        for (size_t d = 0; d < sizes.size(); d++) {
            if (sizes[d] < 0) {
                throw std::invalid_argument("loom::Runtime::Buffer: negative extent " + std::to_string(sizes[d]) +
                                            " in dimension " + std::to_string(d));
            }
            if (stride > std::numeric_limits<int32_t>::max()) {
                throw std::invalid_argument("loom::Runtime::Buffer: too large for 32-bit strides");
            }
            contents->dims[d] = loom_dimension_t{0, sizes[d], static_cast<int32_t>(stride), 0};
            stride *= sizes[d] > 0 ? sizes[d] : 1;
        }
        bool empty = false;
        for (int s : sizes) {
            empty = empty || s == 0;
        }
        // stride now holds the element count (ignoring zero extents).
        const int64_t max_elements = std::numeric_limits<ptrdiff_t>::max() / static_cast<int64_t>(type_bytes(type));
        if (stride > max_elements) {
            throw std::invalid_argument("loom::Runtime::Buffer: too many elements to address");
        }
        bytes = empty ? 0 : static_cast<size_t>(stride) * type_bytes(type);
        contents->raw.type = type;
        contents->attach_dims();
        return contents;
    }

    void allocate_dense(loom_type_t type, const std::vector<int> &sizes) {
        size_t bytes = 0;
        auto contents = make_dense(type, sizes, bytes);
        allocate_host(*contents, nullptr, nullptr);
        contents_ = std::move(contents);
    }

    // Allocates zeroed host memory for the shape in contents (any strides,
    // even negative ones) and points raw.host at the element at the mins.
    static void allocate_host(detail::BufferContents &contents, void *(*allocate_fn)(size_t),
                              void (*deallocate_fn)(void *)) {
        const int64_t elem_bytes = static_cast<int64_t>(type_bytes(contents.raw.type));
        int64_t lowest = 0, highest = 0;
        bool empty = false;
        for (const loom_dimension_t &d : contents.dims) {
            empty = empty || d.extent <= 0;
            const int64_t span = int64_t(d.extent - 1) * d.stride;
            (span < 0 ? lowest : highest) += span;
        }
        const int64_t elements = empty ? 0 : highest - lowest + 1;
        if (elements > std::numeric_limits<ptrdiff_t>::max() / elem_bytes / 2) {
            throw std::invalid_argument("loom::Runtime::Buffer::allocate: too many elements to address");
        }
        const size_t align = detail::kBufferAlignment;
        size_t bytes = (static_cast<size_t>(elements * elem_bytes) + align - 1) / align * align;
        if (bytes == 0) {
            bytes = align;  // keep host non-null even when empty
        }
        uint8_t *base = nullptr;
        if (allocate_fn) {
            if (!deallocate_fn) {
                deallocate_fn = std::free;
            }
            void *block = allocate_fn(bytes + align - 1);
            if (!block) {
                throw std::bad_alloc();
            }
            base = reinterpret_cast<uint8_t *>((reinterpret_cast<uintptr_t>(block) + align - 1) & ~uintptr_t(align - 1));
            contents.allocation = std::shared_ptr<void>(block, deallocate_fn);
        } else {
            void *block = ::operator new(bytes, std::align_val_t{align});
            base = static_cast<uint8_t *>(block);
            contents.allocation =
                std::shared_ptr<void>(block, [](void *p) { ::operator delete(p, std::align_val_t{detail::kBufferAlignment}); });
            // Loom's own allocations are zeroed; a caller's allocate_fn
            // decides for its memory (Halide zeroes neither).
            std::memset(base, 0, bytes);
        }
        contents.raw.host = base + (-lowest) * elem_bytes;
    }

    // Builds the shared state for an explicit shape (any strides).
    static std::shared_ptr<detail::BufferContents> make_with_dims(loom_type_t type, const loom_dimension_t *shape,
                                                                  int rank) {
        check_element_type(type);
        if (rank < 0 || (rank > 0 && shape == nullptr)) {
            throw std::invalid_argument("loom::Runtime::Buffer: a shape needs rank >= 0 and, above 0, a dimension "
                                        "array");
        }
        check_static_dimensions(rank);
        auto contents = std::make_shared<detail::BufferContents>();
        contents->dims.reserve(InClassDimStorage);
        contents->dims.assign(shape, shape + rank);
        for (int d = 0; d < rank; d++) {
            if (shape[d].extent < 0) {
                throw std::invalid_argument("loom::Runtime::Buffer: negative extent " +
                                            std::to_string(shape[d].extent) + " in dimension " + std::to_string(d));
            }
        }
        contents->raw.type = type;
        contents->attach_dims();
        return contents;
    }

    // Allocates sizes with storage_order[0] innermost (a permutation of the
    // dimension indices), as Halide's storage-order constructors do.
    void allocate_in_order(loom_type_t type, const std::vector<int> &sizes, const std::vector<int> &storage_order) {
        check_permutation(storage_order, sizes.size(), "Buffer(sizes, storage_order)");
        std::vector<int> stored(sizes.size());
        for (size_t i = 0; i < sizes.size(); i++) {
            stored[i] = sizes[static_cast<size_t>(storage_order[i])];
        }
        allocate_dense(type, stored);
        permute_dims(storage_order);
    }

    static void check_permutation(const std::vector<int> &order, size_t rank, const char *what) {
        std::vector<bool> seen(rank, false);
        bool ok = order.size() == rank;
        for (int d : order) {
            ok = ok && d >= 0 && static_cast<size_t>(d) < rank && !seen[static_cast<size_t>(d)];
            if (ok) {
                seen[static_cast<size_t>(d)] = true;
            }
        }
        if (!ok) {
            throw std::invalid_argument(std::string("loom::Runtime::Buffer::") + what +
                                        ": the order must list each of the " + std::to_string(rank) +
                                        " dimension indices exactly once");
        }
    }

    // Old dimension i becomes dimension order[i] (Halide's transpose(order)).
    void permute_dims(const std::vector<int> &order) {
        std::vector<loom_dimension_t> permuted(contents_->dims.size());
        for (size_t i = 0; i < order.size(); i++) {
            permuted[static_cast<size_t>(order[i])] = contents_->dims[i];
        }
        contents_->dims = std::move(permuted);
        contents_->attach_dims();
    }

    // ---- Views -----------------------------------------------------------

    void check_defined(const char *what) const {
        if (!contents_) {
            throw std::invalid_argument(std::string("loom::Runtime::Buffer::") + what + ": undefined buffer");
        }
    }

    void check_dimension(int d, const char *what) const {
        check_defined(what);
        if (d < 0 || d >= dimensions()) {
            throw std::out_of_range(std::string("loom::Runtime::Buffer::") + what + ": no dimension " +
                                    std::to_string(d) + " in a buffer of rank " + std::to_string(dimensions()));
        }
    }

    // Whether this buffer or a buffer it views holds newer data on the device.
    bool device_dirty_here_or_above() const {
        for (const detail::BufferContents *c = contents_.get(); c; c = c->parent.get()) {
            if (c->raw.flags & loom_buffer_flag_device_dirty) {
                return true;
            }
        }
        return false;
    }

    void check_host_is_current(const char *what) const {
        if (device_dirty_here_or_above()) {
            throw std::logic_error(std::string("loom::Runtime::Buffer::") + what +
                                   ": the buffer (or the buffer it views) is dirty on the device, so its host "
                                   "memory is stale; call copy_to_host() on it first");
        }
    }

    // In-place shape changes that move the host pointer would leave the
    // device allocation describing other memory.
    void check_no_device_allocation(const char *what, const char *view_form) const {
        if (contents_->raw.device) {
            throw std::logic_error(std::string("loom::Runtime::Buffer::") + what +
                                   ": the buffer has a device allocation, which would no longer match its host "
                                   "memory; use " + view_form + " for a view, or device_free() first");
        }
    }

    // A new handle with its own shape sharing this buffer's host memory. It
    // has no device allocation: Loom's device runtime cannot view part of
    // one (Halide's device_crop), so the view's host memory must be current.
    Buffer make_view(const char *what) const {
        check_defined(what);
        check_host_is_current(what);
        auto view = std::make_shared<detail::BufferContents>();
        view->raw = contents_->raw;
        view->raw.device = 0;
        view->raw.device_interface = nullptr;
        view->raw.flags &= ~uint64_t(loom_buffer_flag_device_dirty);
        view->dims = contents_->dims;
        view->attach_dims();
        view->allocation = contents_->allocation;
        view->parent = contents_;
        Buffer result;
        result.contents_ = std::move(view);
        return result;
    }

    void crop_host(int d, int min, int extent, const char *what) {
        check_dimension(d, what);
        loom_dimension_t &dim = contents_->dims[static_cast<size_t>(d)];
        const int64_t last = int64_t(min) + extent - 1;
        if (extent < 0 || min < dim.min || last > int64_t(dim.min) + dim.extent - 1) {
            throw std::out_of_range(std::string("loom::Runtime::Buffer::") + what + ": [" + std::to_string(min) +
                                    ", " + std::to_string(last) + "] (min " + std::to_string(min) + ", extent " +
                                    std::to_string(extent) + ") in dimension " + std::to_string(d) +
                                    " is not inside the buffer's [" + std::to_string(dim.min) + ", " +
                                    std::to_string(int64_t(dim.min) + dim.extent - 1) +
                                    "]; crop to a region inside it");
        }
        move_host(int64_t(min - dim.min) * dim.stride);
        dim.min = min;
        dim.extent = extent;
    }

    void slice_host(int d, int pos, const char *what) {
        check_dimension(d, what);
        const loom_dimension_t dim = contents_->dims[static_cast<size_t>(d)];
        if (pos < dim.min || int64_t(pos) > int64_t(dim.min) + dim.extent - 1) {
            throw std::out_of_range(std::string("loom::Runtime::Buffer::") + what + ": position " +
                                    std::to_string(pos) + " is not inside dimension " + std::to_string(d) + " [" +
                                    std::to_string(dim.min) + ", " + std::to_string(int64_t(dim.min) + dim.extent - 1) +
                                    "]");
        }
        move_host(int64_t(pos - dim.min) * dim.stride);
        contents_->dims.erase(contents_->dims.begin() + d);
        contents_->attach_dims();
    }

    void move_host(int64_t elements) {
        if (contents_->raw.host) {
            contents_->raw.host += elements * static_cast<int64_t>(type_bytes(contents_->raw.type));
        }
    }

    // Dimension-by-dimension shape of a buffer for make_with_shape_of():
    // the same mins and extents, dense strides nested in the order of the
    // source's strides (holes compacted away).
    static std::vector<loom_dimension_t> dense_shape_like(const std::vector<loom_dimension_t> &src) {
        std::vector<size_t> order(src.size());
        for (size_t i = 0; i < order.size(); i++) {
            order[i] = i;
        }
        std::stable_sort(order.begin(), order.end(),
                         [&](size_t a, size_t b) { return src[a].stride < src[b].stride; });
        std::vector<loom_dimension_t> shape(src);
        int64_t stride = 1;
        for (size_t i : order) {
            if (stride > std::numeric_limits<int32_t>::max()) {
                throw std::invalid_argument("loom::Runtime::Buffer: too large for 32-bit strides");
            }
            shape[i].stride = static_cast<int32_t>(stride);
            shape[i].flags = 0;
            stride *= src[i].extent > 0 ? src[i].extent : 1;
        }
        return shape;
    }

    void wrap_shape(loom_type_t type, MutableT *data, int rank, const loom_dimension_t *shape) {
        auto contents = make_with_dims(type, shape, rank);
        contents->raw.host = reinterpret_cast<uint8_t *>(data);
        contents_ = std::move(contents);
    }

    static std::vector<loom_dimension_t> interleaved_shape(int width, int height, int channels) {
        return {loom_dimension_t{0, width, channels, 0}, loom_dimension_t{0, height, width * channels, 0},
                loom_dimension_t{0, channels, 1, 0}};
    }

    void wrap_dense(loom_type_t type, MutableT *data, const std::vector<int> &sizes) {
        size_t bytes = 0;
        auto contents = make_dense(type, sizes, bytes);
        contents->raw.host = reinterpret_cast<uint8_t *>(data);
        contents_ = std::move(contents);
    }

    int extent_or_one(int i) const { return i < dimensions() ? contents_->dims[static_cast<size_t>(i)].extent : 1; }

    void shape_of(std::vector<int> &mins, std::vector<int> &extents) const {
        mins.clear();
        extents.clear();
        for (const loom_dimension_t &d : contents_->dims) {
            mins.push_back(d.min);
            extents.push_back(d.extent);
        }
    }

    void check_coordinate_count(size_t count, const char *what) const {
        if (count > static_cast<size_t>(dimensions())) {
            throw std::invalid_argument(std::string("loom::Runtime::Buffer::") + what + ": " + std::to_string(count) +
                                        " coordinates for a buffer of rank " + std::to_string(dimensions()));
        }
    }

    // What a write through the host side does to the dirty bits, here and
    // in the buffers this one views.
    void mark_host_written() {
        if (!contents_) {
            return;
        }
        if (!(contents_->raw.flags & loom_buffer_flag_host_dirty)) {
            set_host_dirty(true);
        }
        for (detail::BufferContents *c = contents_->parent.get(); c; c = c->parent.get()) {
            if (c->raw.flags & loom_buffer_flag_device_dirty) {
                throw std::logic_error("loom::Runtime::Buffer: cannot write through a view while the buffer it "
                                       "views is dirty on the device; call copy_to_host() on that buffer first");
            }
            c->raw.flags |= loom_buffer_flag_host_dirty;
        }
    }

    template<typename B>
    static void mark_others_written(B &other) {
        using Elem = typename std::remove_reference_t<B>::ElemType;
        if constexpr (!std::is_const_v<std::remove_reference_t<B>> && !std::is_const_v<Elem>) {
            runtime_of(other).mark_host_written();
        }
    }

    // The Runtime::Buffer inside a Buffer or a class derived from one.
    template<typename U, int D2, int S2>
    static Buffer<U, D2, S2> &runtime_of(Buffer<U, D2, S2> &b) {
        return b;
    }
    template<typename U, int D2, int S2>
    static const Buffer<U, D2, S2> &runtime_of(const Buffer<U, D2, S2> &b) {
        return b;
    }

    void check_arity(int arity, const char *what) const {
        if (arity != dimensions()) {
            throw std::invalid_argument(std::string("loom::Runtime::Buffer::") + what + ": callback takes " +
                                        std::to_string(arity) + " coordinates but the buffer has " +
                                        std::to_string(dimensions()) + " dimensions");
        }
    }

    template<typename U, int D2>
    void check_as() const {
        static_assert(std::is_const_v<U> || !std::is_const_v<T>,
                      "as<U>() cannot drop const: use a const element type");
        static_assert(D2 == AnyDims || Dims == AnyDims || D2 == Dims, "as<U, D2>(): the static ranks differ");
        if constexpr (D2 != AnyDims) {
            if (contents_ && dimensions() != D2) {
                throw std::invalid_argument("loom::Runtime::Buffer::as: the buffer has " +
                                            std::to_string(dimensions()) + " dimensions, not the " +
                                            std::to_string(D2) + " of the requested Buffer type");
            }
        }
        if constexpr (!std::is_void_v<U>) {
            if (contents_ && !same_type(type(), loom_type_of<U>())) {
                throw std::invalid_argument("loom::Runtime::Buffer::as: the element type is " + type_name(type()) +
                                            ", not " + type_name(loom_type_of<U>()) +
                                            "; as<U>() does not convert elements (copy them instead)");
            }
        }
    }

    template<typename Fn, typename... Others>
    void for_each_value_impl(Fn &f, Others &...others) const {
        static_assert(!kIsVoid, "for_each_value needs a typed Buffer<T>");
        constexpr size_t N = sizeof...(Others) + 1;
        check_defined("for_each_value");
        std::array<const loom_buffer_t *, N> bufs{raw_buffer(), runtime_of(others).raw_buffer()...};
        const bool current[] = {!device_dirty_here_or_above(), !runtime_of(others).device_dirty_here_or_above()...};
        for (size_t k = 0; k < N; k++) {
            if (!bufs[k]) {
                throw std::invalid_argument("loom::Runtime::Buffer::for_each_value: buffer " + std::to_string(k) +
                                            " is undefined");
            }
            if (!current[k]) {
                throw std::logic_error("loom::Runtime::Buffer::for_each_value: buffer " + std::to_string(k) +
                                       " is dirty on the device; call copy_to_host() on it first");
            }
            bool same = bufs[k]->dimensions == bufs[0]->dimensions;
            for (int d = 0; same && d < bufs[0]->dimensions; d++) {
                same = bufs[k]->dim[d].min == bufs[0]->dim[d].min && bufs[k]->dim[d].extent == bufs[0]->dim[d].extent;
            }
            if (!same) {
                throw std::invalid_argument("loom::Runtime::Buffer::for_each_value: buffer " + std::to_string(k) +
                                            " has another shape than buffer 0 (each needs the same rank, mins and "
                                            "extents; crop or translate it to match)");
            }
        }
        std::vector<int> mins, extents;
        shape_of(mins, extents);
        detail::for_each_row<N>(mins, extents, bufs,
                                [&](const std::array<uint8_t *, N> &rows, int count,
                                    const std::array<ptrdiff_t, N> &stride_bytes) {
                                    for (int i = 0; i < count; i++) {
                                        call_on_values(f, rows, stride_bytes, i, std::index_sequence_for<Others...>(),
                                                       others...);
                                    }
                                });
    }

    template<typename Fn, size_t N, size_t... I, typename... Others>
    static void call_on_values(Fn &f, const std::array<uint8_t *, N> &rows, const std::array<ptrdiff_t, N> &strides,
                               int i, std::index_sequence<I...>, Others &...) {
        f(*reinterpret_cast<T *>(rows[0] + i * strides[0]),
          *reinterpret_cast<typename std::remove_reference_t<Others>::ElemType *>(rows[I + 1] + i * strides[I + 1])...);
    }

    const loom_device_interface_t *interface_or_default(const loom_device_interface_t *iface) const {
        if (iface) return iface;
        if (contents_->raw.device_interface) return contents_->raw.device_interface;
        return loom_vulkan_device_interface();
    }

    static int undefined_device_call(const char *what) {
        throw std::invalid_argument(std::string("loom::Runtime::Buffer::") + what + ": undefined buffer");
    }

    void set_flag(uint64_t flag, bool on) {
        if (!contents_) {
            return;
        }
        contents_->raw.flags = on ? (contents_->raw.flags | flag) : (contents_->raw.flags & ~flag);
    }

    T *element_address(const int *coords, size_t count) const {
        const size_t rank = static_cast<size_t>(contents_->raw.dimensions);
        // Coordinates past the rank address dimensions of extent 1 at 0 (so
        // that r(0) reads a rank-0 buffer, as in Halide); any other value
        // is outside the buffer.
        for (size_t i = rank; i < count; i++) {
            if (coords[i] != 0) {
                throw std::out_of_range("loom::Runtime::Buffer: coordinate " + std::to_string(coords[i]) +
                                        " in dimension " + std::to_string(i) + " of a buffer of rank " +
                                        std::to_string(rank) + " (dimensions past the rank exist only at 0)");
            }
        }
        count = std::min(count, rank);
        ptrdiff_t offset = 0;
        const loom_dimension_t *dims = contents_->raw.dim;
        for (size_t i = 0; i < count; i++) {
            offset += static_cast<ptrdiff_t>(coords[i] - dims[i].min) * dims[i].stride;
        }
        return reinterpret_cast<T *>(contents_->raw.host) + offset;
    }
};

}  // namespace Runtime
}  // namespace loom

#endif  // LOOM_RUNTIME_BUFFER_H
