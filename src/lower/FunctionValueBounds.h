#ifndef LOOM_LOWER_FUNCTION_VALUE_BOUNDS_H
#define LOOM_LOWER_FUNCTION_VALUE_BOUNDS_H

/** \file
 * The values each Func computed out of line may hold (Halide's function
 * value bounds), so that an index read from such a Func (a histogram bin
 * hist(f(r.x)), a lookup table lut(idx(x))) is bounded by what f computes,
 * as it is when f is inlined into the index.
 *
 * A Func's bounds are the union of the bounds of the value of each of its
 * definitions, pure and update, with its own pure Vars unbounded and its
 * RVars over their RDom (a where() is ignored, which only widens). Funcs are
 * visited producers first, and a call of an earlier Func in a value uses
 * that Func's bounds. An update that reads the Func itself is assumed to
 * read values in the bounds of the definitions before it; it is kept only
 * where its value then provably stays inside them (after widening them by
 * the update's value once), otherwise the Func is left unbounded.
 *
 * Left out (their calls keep the range of their type): Tuples, extern
 * stages, and endpoints that read anything but constants and Params.
 */

#include "ir/Bounds.h"
#include "lower/Stages.h"

namespace loom {
namespace internal {

FuncValueBounds compute_function_value_bounds(const PipelineStages &pipeline);

}  // namespace internal
}  // namespace loom

#endif
