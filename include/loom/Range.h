#ifndef LOOM_RANGE_H
#define LOOM_RANGE_H

/** \file
 * Range and Region: a half-open interval of one dimension given by its min
 * and extent, and one Range per dimension, as Halide names them. The
 * boundary conditions (loom/BoundaryConditions.h) and propagate_adjoints
 * (loom/Derivative.h) take a Region; a brace list fills one:
 *
 *     Func clamped = BoundaryConditions::repeat_edge(input, {{0, w}, {0, h}});
 */

#include <utility>
#include <vector>

#include "loom/Expr.h"

namespace loom {

struct Range {
    Expr min, extent;
    Range() = default;
    Range(Expr min, Expr extent) : min(std::move(min)), extent(std::move(extent)) {}
};

/** One Range per dimension, dimension 0 first. */
using Region = std::vector<Range>;

}  // namespace loom

#endif
