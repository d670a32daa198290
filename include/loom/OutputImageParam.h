#ifndef LOOM_OUTPUT_IMAGE_PARAM_H
#define LOOM_OUTPUT_IMAGE_PARAM_H

/** \file
 * OutputImageParam: a buffer argument of a pipeline seen through its shape,
 * the base of ImageParam (an input) and what Func::output_buffer() returns
 * (an output), as in Halide. Its dim(d) reads the buffer's run-time shape
 * and sets the constraints a buffer passed there must meet (see
 * loom/Dimension.h).
 *
 *     Func f("f");
 *     f(x, y) = ...;
 *     f.output_buffer().dim(0).set_bounds(0, 640);   // outputs are 640 wide
 */

#include <string>

#include "loom/Dimension.h"
#include "loom/Expr.h"
#include "loom/Type.h"
#include "loom/internal/FunctionPtr.h"
#include "loom/internal/Parameter.h"

namespace loom {

class OutputImageParam {
public:
    /** An undefined OutputImageParam. */
    OutputImageParam() = default;
    explicit OutputImageParam(const internal::Parameter &param) : param_(param) {}
    /** The output buffer `param` of Func func (Func::output_buffer()). */
    OutputImageParam(const internal::Parameter &param, const internal::FunctionPtr &func)
        : param_(param), func_(func) {}

    bool defined() const { return param_.defined(); }
    /** \throws CompileError if undefined. */
    const std::string &name() const;
    Type type() const;
    int dimensions() const;

    /** Dimension d. \throws CompileError if d is not a dimension. */
    internal::Dimension dim(int d) const;
    /** Extents of dimensions 0, 1, 2 and the bounds of dimensions 0, 1. */
    Expr width() const { return dim(0).extent(); }
    Expr height() const { return dim(1).extent(); }
    Expr channels() const { return dim(2).extent(); }
    Expr left() const { return dim(0).min(); }
    Expr right() const { return dim(0).max(); }
    Expr top() const { return dim(1).min(); }
    Expr bottom() const { return dim(1).max(); }

    const internal::Parameter &parameter() const { return param_; }

protected:
    internal::Parameter param_;
    internal::FunctionPtr func_;  // the Func of an output buffer
};

}  // namespace loom

#endif
