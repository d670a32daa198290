#ifndef LOOM_LOWER_FUNCTION_VALUE_BOUNDS_H
#define LOOM_LOWER_FUNCTION_VALUE_BOUNDS_H

/** \file
 * The values each Func computed out of line may hold (Halide's function
 * value bounds), so that an index read from such a Func (a histogram bin
 * hist(f(r.x)), a lookup table lut(idx(x))) is bounded by what f computes,
 * as it is when f is inlined into the index.
 *
 * Each value of a Func (each Tuple element) gets the union of the bounds
 * of that value over its definitions, pure and update, with its own pure
 * Vars unbounded and its RVars over their RDom (a where() is ignored, which
 * only widens). Funcs are visited producers first, and a call of an earlier
 * Func in a value uses that Func's bounds. An update that reads the value
 * itself is assumed to read values in the bounds of the definitions before
 * it; a side of the bounds (min or max) is kept only where the update then
 * provably stays on its side (after widening them by the update's value
 * once): `f(x) = f(x) + 1` keeps its lower bound. A side that is unbounded
 * is left open, and the other one is still used (a clamp's or a min's
 * other end then bounds the index).
 *
 * Endpoints may read constants, Params and buffer fields (an input's
 * `dim(d).min()`, `extent()`), which are defined before the pipeline runs;
 * an endpoint that reads anything else (a loop variable, memory) is left
 * open. Extern stages are left out (their calls keep the range of their
 * type).
 */

#include "ir/Bounds.h"
#include "lower/Stages.h"

namespace loom {
namespace internal {

FuncValueBounds compute_function_value_bounds(const PipelineStages &pipeline);

}  // namespace internal
}  // namespace loom

#endif
