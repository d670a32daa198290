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
//  - Errors in use (bad extents, mismatched types, wrong rank) throw
//    std::invalid_argument or std::out_of_range. Element access does not check
//    bounds.
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

#include "float16.h"
#include "loom_runtime.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
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
 * unsigned integers of 8..64 bits, loom::float16_t, float, double and
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
// generated code, the dimension array it points into, and the allocation (if
// this buffer owns one). Its address never changes, which keeps raw_buffer()
// stable.
struct BufferContents {
    loom_buffer_t raw{};
    std::vector<loom_dimension_t> dims;
    void *allocation = nullptr;
    // What the last copy does with raw.device: free it (whoever allocated
    // it), detach it (a native handle the user wrapped), or leave it (it came
    // with a wrapped loom_buffer_t).
    enum class DeviceOwnership { Allocated, WrappedNative, Unmanaged };
    DeviceOwnership device_ownership = DeviceOwnership::Allocated;

    BufferContents() = default;
    BufferContents(const BufferContents &) = delete;
    BufferContents &operator=(const BufferContents &) = delete;
    ~BufferContents() {
        // Errors were reported through loom_error; a destructor cannot return them.
        if (raw.device && device_ownership == DeviceOwnership::Allocated && &loom_device_free) {
            loom_device_free(nullptr, &raw);
        } else if (raw.device && device_ownership == DeviceOwnership::WrappedNative && &loom_device_detach_native) {
            loom_device_detach_native(nullptr, &raw);
        }
        if (allocation) {
            ::operator delete(allocation, std::align_val_t{kBufferAlignment});
        }
    }

    // Points raw.dim at dims; call after dims is filled in.
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

}  // namespace detail

template<typename T = void>
class Buffer {
    template<typename>
    friend class Buffer;

    static constexpr bool kIsVoid = std::is_void_v<T>;
    using MutableT = std::remove_const_t<T>;
    using FillValue = std::conditional_t<kIsVoid, detail::no_value, MutableT>;

    std::shared_ptr<detail::BufferContents> contents_;

    // Buffer<U> converts to Buffer<T> unless that would drop const.
    template<typename U>
    static constexpr bool is_convertible_from() {
        return !std::is_same_v<U, T> && (std::is_const_v<T> || !std::is_const_v<U>);
    }

public:
    /** The element type (possibly const, possibly void). */
    using ElemType = T;

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
    explicit Buffer(int x) : Buffer(std::vector<int>{x}) {}
    /** Allocates a zeroed dense x-by-y buffer (x innermost). */
    explicit Buffer(int x, int y) : Buffer(std::vector<int>{x, y}) {}
    /** Allocates a zeroed dense x-by-y-by-c buffer. */
    explicit Buffer(int x, int y, int c) : Buffer(std::vector<int>{x, y, c}) {}
    /** Allocates a zeroed dense 4-D buffer. */
    explicit Buffer(int x, int y, int z, int w) : Buffer(std::vector<int>{x, y, z, w}) {}

    /** Allocates a zeroed dense buffer with these extents (any rank; an empty
     * vector makes a rank-0 buffer of one element). Throws
     * std::invalid_argument for a negative extent or a size whose strides do
     * not fit in 32 bits; std::bad_alloc when out of memory. */
    explicit Buffer(const std::vector<int> &sizes) {
        static_assert(!kIsVoid, "Buffer<void> needs an element type: use Buffer(loom_type_t, sizes)");
        allocate(static_type(), sizes);
    }

    /** Same as the vector form; makes `Buffer<float> b({640, 480})` and
     * `Buffer<float> b{640, 480}` unambiguous. */
    explicit Buffer(std::initializer_list<int> sizes) : Buffer(std::vector<int>(sizes)) {}

    /** Allocates a zeroed dense buffer of a run-time element type. For
     * non-void T the type must be T's (else std::invalid_argument). */
    Buffer(loom_type_t type, const std::vector<int> &sizes) {
        check_type_is_static_type(type);
        allocate(type, sizes);
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

    /** Wraps the memory a loom_buffer_t describes: copies its type, shape,
     * host pointer, device fields and flags, but does not own the memory.
     * Throws std::invalid_argument if T is not void and the types differ. */
    explicit Buffer(const loom_buffer_t &raw) {
        check_type_is_static_type(raw.type);
        if (raw.dimensions < 0 || (raw.dimensions > 0 && raw.dim == nullptr)) {
            throw std::invalid_argument("loom::Runtime::Buffer: loom_buffer_t has no valid shape");
        }
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
    template<typename U, std::enable_if_t<is_convertible_from<U>(), int> = 0>
    Buffer(const Buffer<U> &other) : contents_(other.contents_) {
        if (other.defined()) {
            check_type_is_static_type(other.type());
        }
    }

    /** As above, taking over other's reference. */
    template<typename U, std::enable_if_t<is_convertible_from<U>(), int> = 0>
    Buffer(Buffer<U> &&other) {
        if (other.defined()) {
            check_type_is_static_type(other.type());
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

    /** Adds deltas to the min coordinate of the first deltas.size() dimensions. */
    void translate(const std::vector<int> &deltas) {
        check_coordinate_count(deltas.size(), "translate");
        for (size_t i = 0; i < deltas.size(); i++) {
            contents_->dims[i].min += deltas[i];
        }
    }
    /** translate(dx, dy, ...). */
    template<typename... Ints, typename = std::enable_if_t<(std::is_convertible_v<Ints, int> && ...)>>
    void translate(Ints... deltas) {
        translate(std::vector<int>{static_cast<int>(deltas)...});
    }

    // ---- Elements --------------------------------------------------------

    /** Address of the element at the min coordinates (the host pointer). */
    T *data() { return contents_ ? reinterpret_cast<T *>(contents_->raw.host) : nullptr; }
    const T *data() const { return contents_ ? reinterpret_cast<const T *>(contents_->raw.host) : nullptr; }

    /** The element at (x, y, ...); omitted trailing coordinates are the
     * dimension's min. Not available for T = void. Throws std::out_of_range
     * for more coordinates than dimensions; does not check bounds. The
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
    void fill(FillValue value) {
        static_assert(!kIsVoid, "fill needs a typed Buffer<T>");
        static_assert(!std::is_const_v<T>, "cannot fill a Buffer of const elements");
        if (!contents_) {
            return;
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

    /** A deep copy into a new dense allocation with the same type, mins and
     * extents. An undefined buffer copies to an undefined one. */
    Buffer<MutableT> copy() const {
        if (!contents_) {
            return Buffer<MutableT>();
        }
        std::vector<int> mins, extents;
        shape_of(mins, extents);
        Buffer<MutableT> result(type(), extents);
        result.set_min(mins);
        result.copy_from(*this);
        return result;
    }

    /** Copies the elements of src whose coordinates are also in this buffer.
     * Both must be defined with the same rank and element type (else
     * std::invalid_argument). */
    template<typename U>
    void copy_from(const Buffer<U> &src) {
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
        if (src.device_dirty()) {
            throw std::logic_error("loom::Runtime::Buffer::copy_from: the source is dirty on the device; call "
                                   "copy_to_host() on it first");
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

    static void check_element_type(loom_type_t type) {
        if (type.bits == 0 || type.lanes != 1) {
            throw std::invalid_argument("loom::Runtime::Buffer: invalid element type " + type_name(type));
        }
    }

    // Builds the shared state with dense strides (dimension 0 innermost).
    static std::shared_ptr<detail::BufferContents> make_dense(loom_type_t type, const std::vector<int> &sizes,
                                                              size_t &bytes) {
        check_element_type(type);
        auto contents = std::make_shared<detail::BufferContents>();
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

    void allocate(loom_type_t type, const std::vector<int> &sizes) {
        size_t bytes = 0;
        auto contents = make_dense(type, sizes, bytes);
        size_t rounded = (bytes + detail::kBufferAlignment - 1) / detail::kBufferAlignment * detail::kBufferAlignment;
        if (rounded == 0) {
            rounded = detail::kBufferAlignment;  // keep host non-null even when empty
        }
        contents->allocation = ::operator new(rounded, std::align_val_t{detail::kBufferAlignment});
        std::memset(contents->allocation, 0, rounded);
        contents->raw.host = static_cast<uint8_t *>(contents->allocation);
        contents_ = std::move(contents);
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

    // What a write through the host side does to the dirty bits.
    void mark_host_written() {
        if (contents_ && !(contents_->raw.flags & loom_buffer_flag_host_dirty)) {
            set_host_dirty(true);
        }
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
        if (count > static_cast<size_t>(contents_->raw.dimensions)) {
            throw std::out_of_range("loom::Runtime::Buffer: " + std::to_string(count) +
                                    " coordinates for a buffer of rank " +
                                    std::to_string(contents_->raw.dimensions));
        }
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
