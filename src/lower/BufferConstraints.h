#ifndef LOOM_LOWER_BUFFER_CONSTRAINTS_H
#define LOOM_LOWER_BUFFER_CONSTRAINTS_H

/** \file
 * Buffer layout constraints (loom/Dimension.h: ImageParam::dim(d).set_min,
 * set_extent, set_stride, and the same on Func::output_buffer()). Every
 * buffer argument starts with stride 1 in dimension 0, as in Halide, unless
 * dim(0).set_stride(Expr()) lifts it.
 *
 * After storage flattening each constrained field symbol of an input or
 * output buffer ("in.stride.0", "f.extent.1", ...) is replaced by its
 * constraint in the pipeline's body, so a constant stride 1 gives dense
 * vector accesses and a constant min or extent folds into loop bounds. The
 * buffer-argument pass checks on entry, before anything is read or
 * written, that each buffer meets its constraints, and fails naming the
 * buffer, the dimension, the required and the actual value.
 */

#include <map>
#include <string>
#include <vector>

#include "ir/LoweredFunc.h"
#include "lower/Stages.h"

namespace loom {
namespace internal {

/** The Parameter that holds the constraints of each buffer argument, by
 * argument name: an input's own, an output's from Func::output_buffers()
 * (absent if never asked for: then only the default applies). */
std::map<std::string, Parameter> constraint_parameters(const std::vector<LoweredArgument> &args,
                                                       const PipelineStages &pipeline);

/** Replaces the constrained field symbols of every input and output buffer
 * by their constraints (outputs without a Parameter: stride 1 in dimension
 * 0). Runs right after storage flattening. */
Stmt apply_buffer_constraints(const Stmt &s, const PipelineStages &pipeline);

/** The checks that argument a (a buffer) meets its constraints; param may
 * be undefined (an output without output_buffer(): the default only). */
std::vector<Stmt> constraint_checks(const LoweredArgument &a, const Parameter &param);

/** The constraint of dimension d of buffer argument a (min, extent or
 * stride), or undefined; param as above. */
Expr constraint_of(const LoweredArgument &a, const Parameter &param, int d, const std::string &field);

}  // namespace internal
}  // namespace loom

#endif
