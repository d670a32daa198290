#ifndef LOOM_EXTERN_FUNC_ARGUMENT_H
#define LOOM_EXTERN_FUNC_ARGUMENT_H

/** \file
 * The arguments of an extern stage (Func::define_extern), as in Halide: a
 * C function computes a Func from other Funcs, buffers and scalars.
 *
 *     extern "C" int blur3(loom_buffer_t *in, int32_t scale, loom_buffer_t *out);
 *     Func blurred;
 *     blurred.define_extern("blur3", {input_func, scale_param}, Int(32), 1);
 *
 * Funcs, Buffers and ImageParams are passed as loom_buffer_t pointers,
 * Exprs (Params, constants) as scalars of their type, in the order given,
 * followed by the output buffer(s). See docs/LANGUAGE.md, "Extern stages".
 */

#include <type_traits>

#include "loom/Buffer.h"
#include "loom/Expr.h"
#include "loom/OutputImageParam.h"
#include "loom/internal/FunctionPtr.h"
#include "loom/internal/Parameter.h"

namespace loom {

class Func;

/** How the extern function's name is turned into a symbol. Loom calls
 * extern stages through the C ABI: Default and C use the name as is;
 * CPlusPlus (C++ name mangling) is refused with a CompileError. */
enum class NameMangling { Default, C, CPlusPlus };

struct ExternFuncArgument {
    enum ArgType { UndefinedArg = 0, FuncArg, BufferArg, ExprArg, ImageParamArg };
    ArgType arg_type = UndefinedArg;
    internal::FunctionPtr func;      // FuncArg
    internal::Parameter buffer;      // BufferArg: the Buffer's Parameter
    Expr expr;                       // ExprArg
    internal::Parameter image_param;  // ImageParamArg

    ExternFuncArgument() = default;
    ExternFuncArgument(const internal::FunctionPtr &f) : arg_type(FuncArg), func(f) {}
    /** \throws CompileError if f is undefined. */
    ExternFuncArgument(const Func &f);
    template<typename T, int D>
    ExternFuncArgument(const Buffer<T, D> &b) : arg_type(BufferArg), buffer(b.parameter()) {}
    ExternFuncArgument(const OutputImageParam &p) : arg_type(ImageParamArg), image_param(p.parameter()) {}
    ExternFuncArgument(const Expr &e) : arg_type(ExprArg), expr(e) {}
    /** Anything that converts to an Expr: Param<T>, int, float, ... */
    template<typename T, typename = std::enable_if_t<std::is_convertible_v<T, Expr> && !std::is_same_v<T, Expr>>>
    ExternFuncArgument(const T &e) : ExternFuncArgument(Expr(e)) {}

    bool is_func() const { return arg_type == FuncArg; }
    bool is_expr() const { return arg_type == ExprArg; }
    bool is_buffer() const { return arg_type == BufferArg; }
    bool is_image_param() const { return arg_type == ImageParamArg; }
    bool defined() const { return arg_type != UndefinedArg; }
};

}  // namespace loom

#endif
