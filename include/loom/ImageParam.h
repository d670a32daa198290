#ifndef LOOM_IMAGE_PARAM_H
#define LOOM_IMAGE_PARAM_H

/** \file
 * ImageParam: an input buffer of a pipeline whose contents (and shape) are
 * supplied when it runs, so a new input never recompiles.
 *
 *     ImageParam input(UInt(8), 2, "input");
 *     Func f;
 *     f(x, y) = input(x, y) + input.width();
 *     input.set(Buffer<uint8_t>(640, 480));
 *     Buffer<uint8_t> out = f.realize({640, 480});
 *
 * The shape is read at run time: input.dim(d).min(), .extent(), .stride()
 * are Int(32) Exprs (Variables named "input.min.<d>", "input.extent.<d>",
 * "input.stride.<d>"); input.dim(d).set_min/set_extent/set_stride constrain
 * the buffers it accepts (loom/Dimension.h). As in Halide, dimension 0 must
 * have stride 1 unless dim(0).set_stride(Expr()) lifts that constraint. set() throws CompileError naming the ImageParam when
 * the buffer's type or dimensions differ from the declared ones; realizing a
 * pipeline that reads an ImageParam without a buffer throws CompileError.
 */

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "loom/Buffer.h"
#include "loom/Expr.h"
#include "loom/OutputImageParam.h"
#include "loom/Type.h"
#include "loom/internal/FunctionPtr.h"
#include "loom/internal/Parameter.h"

namespace loom {

class Func;

namespace internal {
/** Binds a buffer to a buffer Parameter (what ImageParam::set does, without
 * the checks). */
void bind_buffer(const Parameter &param, const Buffer<> &buffer);
/** The buffer bound to a buffer Parameter, or an undefined Buffer. */
Buffer<> bound_buffer(const Parameter &param);
}  // namespace internal

class ImageParam : public OutputImageParam {
public:
    /** One dimension: its run-time shape and its constraints (see
     * loom/Dimension.h). */
    using Dimension = internal::Dimension;

    /** An undefined ImageParam. */
    ImageParam() = default;
    /** An ImageParam with a unique name "p<N>". */
    ImageParam(Type type, int dimensions);
    ImageParam(Type type, int dimensions, const std::string &name);

    /** Binds the buffer the pipeline reads. \throws CompileError naming this
     * ImageParam if the buffer is undefined or its type or rank differ. */
    void set(const Buffer<> &buffer);
    template<typename T, int D, typename = std::enable_if_t<!std::is_void_v<T> || D != AnyDims>>
    void set(const Buffer<T, D> &buffer) {
        set(Buffer<>(buffer));
    }
    /** The bound buffer (undefined if none). */
    Buffer<> get() const;
    /** Unbinds the buffer. */
    void reset();

    /** An Expr reading the input at these coordinates; `_` stands for the
     * remaining dimensions. */
    template<typename... Args, typename = std::enable_if_t<(std::is_convertible_v<Args, Expr> && ...)>>
    Expr operator()(Args &&...args) const {
        return (*this)(std::vector<Expr>{Expr(std::forward<Args>(args))...});
    }
    Expr operator()(const std::vector<Expr> &args) const;

    /** Traces every load from this input (Halide's): `Load <name>.0(x, ...)
     * = value` through the trace handler, as Func::trace_loads() does for a
     * Func (docs/LANGUAGE.md, Tracing). */
    ImageParam &trace_loads();
    /** A tag reported once at the start of each run that traces anything
     * (`Tag <name>.0() tag = "text"`), as Func::add_trace_tag(). */
    ImageParam &add_trace_tag(const std::string &tag);

    /** A Func that reads this input: f(_) = input(_). The same Func every
     * time for copies of this ImageParam. */
    operator Func() const;

    /** Halide's wrappers of an input (as Func::in): a Func w(_) = input(_)
     * that consumer g reads instead of the input, to be scheduled on its own
     * (e.g. w.compute_at(g, x) to copy a tile of the input before g reads
     * it). in(g) wraps the reads of g, in({g, h}) one wrapper shared by g and
     * h, in() the reads of every consumer without a wrapper of its own,
     * including consumers defined later. Asking again returns the same
     * wrapper; later definitions of g read it too.
     * \throws CompileError if g is undefined or does not read this input,
     * or if g and h already read different wrappers. */
    Func in(const Func &g);
    Func in(const std::vector<Func> &gs);
    Func in();

private:
    std::shared_ptr<internal::FunctionPtr> wrapper_;  // the Func made by operator Func()
};

}  // namespace loom

#endif
