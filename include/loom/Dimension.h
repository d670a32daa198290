#ifndef LOOM_DIMENSION_H
#define LOOM_DIMENSION_H

/** \file
 * One dimension of an input buffer (ImageParam::dim(d)) or of a Func's
 * output buffer (Func::output_buffer().dim(d)): its run-time shape as Exprs,
 * and the constraints a buffer passed there must meet (Halide's Dimension).
 *
 *     ImageParam in(UInt(8), 3, "in");
 *     in.dim(0).set_stride(3);                  // interleaved RGB...
 *     in.dim(2).set_bounds(0, 3).set_stride(1); // ...of exactly 3 channels
 *     f.output_buffer().dim(0).set_min(0);
 *
 * A constraint is an Int(32) Expr of Params and buffer fields (a constant
 * is the common case). When the pipeline runs it checks every constraint
 * before touching memory and fails naming the buffer, the dimension, the
 * required and the actual value (RuntimeError in the JIT, an error code
 * from AOT code). The compiler uses the constraint in place of the field:
 * a constant stride 1 makes the innermost accesses dense vector loads and
 * stores, a constant min or extent folds into loop bounds.
 *
 * As in Halide, every buffer starts with the constraint stride 1 in
 * dimension 0; dim(0).set_stride(Expr()) removes it (an interleaved image
 * then works, its accesses along x being strided). Setting an undefined
 * Expr removes any constraint.
 *
 * \throws CompileError naming the buffer for a dimension index out of
 * range, a constraint that is not an integer scalar, that reads a Func or
 * a Var (only Params and buffer fields are known before the pipeline runs),
 * a negative constant extent, or a min/extent constraint on the dimension
 * of a buffer that another constraint already fixes differently.
 */

#include "loom/Expr.h"
#include "loom/internal/FunctionPtr.h"
#include "loom/internal/Parameter.h"

namespace loom {
namespace internal {

class Dimension {
public:
    /** \throws CompileError if param is undefined, not a buffer, or d is
     * not one of its dimensions. */
    Dimension(const Parameter &param, int d);
    /** A dimension of func's output buffer: setting a constraint changes
     * func (a compiled pipeline of it is recompiled). */
    Dimension(const Parameter &param, int d, const FunctionPtr &func);

    /** The buffer's min, extent and stride in this dimension, as Int(32)
     * Exprs read when the pipeline runs ("<buffer>.min.<d>", ...). */
    Expr min() const;
    Expr extent() const;
    /** min() + extent() - 1 */
    Expr max() const;
    Expr stride() const;
    /** The estimates given by set_estimate (undefined if none). */
    Expr min_estimate() const;
    Expr extent_estimate() const;

    /** Requires the buffer's min (extent, stride) in this dimension to
     * equal the Expr; an undefined Expr removes the constraint. */
    Dimension set_min(const Expr &min);
    Dimension set_extent(const Expr &extent);
    Dimension set_stride(const Expr &stride);
    /** set_min(min) and set_extent(extent). */
    Dimension set_bounds(const Expr &min, const Expr &extent);
    /** Records the typical min and extent (constants) for tools that plan
     * schedules; it constrains nothing. */
    Dimension set_estimate(const Expr &min, const Expr &extent);
    Dimension set_bounds_estimate(const Expr &min, const Expr &extent) { return set_estimate(min, extent); }

    /** Dimension i of the same buffer. */
    Dimension dim(int i) const { return Dimension(param_, i, func_); }

    int index() const { return d_; }
    const Parameter &parameter() const { return param_; }

private:
    Dimension &changed();

    Parameter param_;
    int d_;
    FunctionPtr func_;  // the output Func, undefined for inputs
};

}  // namespace internal
}  // namespace loom

#endif
