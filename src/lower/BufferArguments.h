#ifndef LOOM_LOWER_BUFFER_ARGUMENTS_H
#define LOOM_LOWER_BUFFER_ARGUMENTS_H

/** \file
 * The boundary between the pipeline and its caller: finds the arguments
 * (scalar Params, input buffers, output buffers), reads each buffer's fields
 * into the symbols other passes use ("<b>.min.<d>", "<b>.extent.<d>",
 * "<b>.stride.<d>", and the host pointer "<b>"), and checks every buffer
 * before anything is read or written: not null, the right type and rank, a
 * host pointer, meeting its layout constraints (lower/BufferConstraints.h;
 * by default stride 1 in dimension 0, as in Halide: the indices use the
 * constant 1 there, so affine vector accesses are dense vector loads and
 * stores), and large enough for the region bounds inference found.
 * A failed check returns an error code and names the buffer; nothing is
 * accessed out of bounds.
 *
 * Bounds queries: when an input buffer's host pointer is NULL, the pipeline
 * computes nothing; it writes the region it would read into that buffer's
 * dims (min, extent, dense strides) and returns 0. infer_input_bounds uses
 * this.
 */

#include "ir/LoweredFunc.h"
#include "lower/BoundsInference.h"
#include "lower/Stages.h"

namespace loom {
namespace internal {

/** The arguments of the lowered pipeline, in the order Lower.h documents. */
std::vector<LoweredArgument> find_arguments(const Stmt &s, const PipelineStages &pipeline);

/** Wraps s (already flattened) in the bounds definitions, the buffer field
 * reads and the checks; constraints: each buffer argument's Parameter that
 * holds its layout constraints (lower/BufferConstraints.h; a buffer absent
 * there has the default, stride 1 in dimension 0). */
Stmt add_buffer_arguments(const Stmt &s, const std::vector<LoweredArgument> &args, const InferredBounds &bounds,
                          bool bounds_query = true, const std::map<std::string, Parameter> &constraints = {});

/** The check that coordinate `endpoint` of dimension d lies in buffer's
 * bounds (its <buffer>.min.d / .extent.d symbols): at or after the min, or at
 * or before the max. who names the buffer in the message. */
Stmt buffer_region_check(const std::string &who, const std::string &buffer, int d, const Expr &endpoint, bool is_min);

/** The statement without its AssertStmts (the no_asserts target feature:
 * the caller promises valid buffers, and Loom checks nothing). */
Stmt remove_asserts(const Stmt &s);

}  // namespace internal
}  // namespace loom

#endif
