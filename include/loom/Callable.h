#ifndef LOOM_CALLABLE_H
#define LOOM_CALLABLE_H

/** \file
 * Callable: a JIT-compiled pipeline called like a C function, with its
 * arguments in an order the caller chose (Halide's Callable).
 *
 *     Param<int> offset("offset");
 *     ImageParam in(UInt(8), 2, "in");
 *     Func f("f");
 *     f(x, y) = in(x, y) + cast<uint8_t>(offset);
 *     Callable c = f.compile_to_callable({in, offset});
 *     Buffer<uint8_t> out(10, 10);
 *     int err = c(input, 3, out);            // 0 on success
 *     err = c(&context, input, 4, out);      // a JITUserContext first, optionally
 *     auto fn = c.make_std_function<Buffer<uint8_t>, int, Buffer<uint8_t>>();
 *     err = fn(input, 5, out);
 *
 * The arguments are the compile_to_callable list in order (Params, ImageParams,
 * Buffers), then one output buffer per output Func and Tuple element.
 * Lowering and compilation happen once, in compile_to_callable; a call binds
 * the given values and runs, never recompiles, and is unaffected by later
 * changes to the Funcs or to their jit_handlers() (the handlers are taken
 * when the Callable is made). Callables are cheap to copy (they share the
 * code) and may be called from several threads at once.
 *
 * Each call checks the arguments' count, and each one's kind (scalar or
 * buffer), scalar type (exactly: pass 1.0f, not 1.0, to a Param<float>),
 * element type and dimensions. A mismatch, like an error of the running
 * pipeline, goes to the context's custom_error handler if there is one and
 * the call returns a negative loom_error_code_t; without a handler it throws
 * loom::RuntimeError naming the argument. An input buffer without host memory
 * (Buffer<T>(nullptr, ...) / a NULL host pointer) is a bounds query: the call
 * fills in the region the pipeline needs of it, as with AOT pipelines.
 */

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "loom/Argument.h"
#include "loom/Float16.h"
#include "loom/JITUserContext.h"
#include "loom/Type.h"
#include "loom/runtime/loom_runtime.h"

namespace loom {

namespace internal {
struct CallableContents;
}

class Callable {
public:
    /** An undefined Callable: calling it throws CompileError. */
    Callable() = default;
    explicit Callable(std::shared_ptr<internal::CallableContents> contents) : contents_(std::move(contents)) {}

    bool defined() const { return contents_ != nullptr; }
    /** The pipeline's name (the first output Func's). */
    const std::string &name() const;
    /** What a call takes after the optional JITUserContext: the
     * compile_to_callable arguments, then the outputs (kind OutputBuffer). */
    const std::vector<Argument> &arguments() const;

    /** One argument of a call as Loom sees it (built by operator()). */
    struct CallArgument {
        enum Kind : uint8_t { Scalar, Buffer, Context } kind = Scalar;
        Type type;                          // a scalar's type; a buffer's element type
        int dimensions = 0;                 // buffers
        const void *scalar = nullptr;       // address of the scalar's value
        loom_buffer_t *buffer = nullptr;    // buffers (may be NULL: an error)
        JITUserContext *context = nullptr;  // Context
    };

    template<typename... Args>
    int operator()(Args &&...args) const {
        if constexpr (sizeof...(Args) == 0) {
            return call(nullptr, 0);
        } else {
            const CallArgument list[] = {argument_of(args)...};
            return call(list, sizeof...(Args));
        }
    }

    /** A std::function taking exactly these types (JITUserContext * allowed
     * first), checked once against the arguments here instead of at each
     * call. \throws CompileError if the types do not fit the arguments. */
    template<typename First, typename... Rest>
    std::function<int(First, Rest...)> make_std_function() const {
        check_signature({signature_of<First>(), signature_of<Rest>()...});
        Callable self = *this;
        return [self](First first, Rest... rest) -> int {
            const CallArgument list[] = {argument_of(first), argument_of(rest)...};
            return self.call(list, 1 + sizeof...(Rest));
        };
    }

    /** Runs with the arguments in list (the optional context first). */
    int call(const CallArgument *list, size_t count) const;

private:
    template<typename A>
    static CallArgument argument_of(A &a) {
        using D = std::remove_cv_t<std::remove_reference_t<A>>;
        CallArgument c;
        if constexpr (std::is_convertible_v<D, JITUserContext *> && !std::is_same_v<D, std::nullptr_t>) {
            c.kind = CallArgument::Context;
            c.context = a;
        } else if constexpr (std::is_convertible_v<D, loom_buffer_t *> && !std::is_pointer_v<D> &&
                             !std::is_same_v<D, std::nullptr_t>) {
            // Buffer<T> and Runtime::Buffer<T> (they convert to their raw buffer).
            c.kind = CallArgument::Buffer;
            c.buffer = static_cast<loom_buffer_t *>(a);
            if (c.buffer) {
                c.type = Type(c.buffer->type);
                c.dimensions = c.buffer->dimensions;
            }
        } else if constexpr (std::is_same_v<D, loom_buffer_t *> || std::is_same_v<D, const loom_buffer_t *>) {
            c.kind = CallArgument::Buffer;
            c.buffer = const_cast<loom_buffer_t *>(a);
            if (c.buffer) {
                c.type = Type(c.buffer->type);
                c.dimensions = c.buffer->dimensions;
            }
        } else if constexpr (std::is_arithmetic_v<D> || internal::is_half_float_v<D>) {
            c.type = type_of<D>();
            c.scalar = &a;
        } else if constexpr (std::is_pointer_v<D> || std::is_same_v<D, std::nullptr_t>) {
            c.type = Handle();
            c.scalar = &a;
        } else {
            static_assert(std::is_arithmetic_v<D>, "A Callable takes Buffers, loom_buffer_t pointers, scalars, "
                                                   "pointers (Param<void *>) and a JITUserContext pointer.");
        }
        return c;
    }

    /** For make_std_function: what a parameter of type A will be. */
    template<typename A>
    static CallArgument signature_of() {
        using D = std::remove_cv_t<std::remove_reference_t<A>>;
        CallArgument c;
        if constexpr (std::is_convertible_v<D, JITUserContext *> && !std::is_same_v<D, std::nullptr_t>) {
            c.kind = CallArgument::Context;
        } else if constexpr (std::is_convertible_v<D, loom_buffer_t *> && !std::is_pointer_v<D>) {
            c.kind = CallArgument::Buffer;
            if constexpr (has_static_type<D>::value) c.type = type_of<typename D::ElemType>();
            c.dimensions = -1;  // known at the call only
        } else if constexpr (std::is_convertible_v<D, const loom_buffer_t *>) {
            c.kind = CallArgument::Buffer;
            c.dimensions = -1;
        } else if constexpr (std::is_arithmetic_v<D> || internal::is_half_float_v<D>) {
            c.type = type_of<D>();
        } else {
            static_assert(std::is_pointer_v<D>, "A Callable takes Buffers, loom_buffer_t pointers, scalars, "
                                                "pointers (Param<void *>) and a JITUserContext pointer.");
            c.type = Handle();
        }
        return c;
    }

    template<typename B, typename = void>
    struct has_static_type : std::false_type {};
    template<typename B>
    struct has_static_type<B, std::void_t<typename B::ElemType>>
        : std::bool_constant<!std::is_void_v<typename B::ElemType>> {};

    void check_signature(const std::vector<CallArgument> &signature) const;

    std::shared_ptr<internal::CallableContents> contents_;
};

}  // namespace loom

#endif
