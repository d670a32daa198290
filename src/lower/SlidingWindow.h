#ifndef LOOM_LOWER_SLIDING_WINDOW_H
#define LOOM_LOWER_SLIDING_WINDOW_H

/** \file
 * Sliding window: a Func stored outside a serial loop that encloses its
 * computation, whose needed region grows monotonically with that loop,
 * computes at each iteration after the first only what earlier iterations
 * did not. The pass rewrites the stage bounds bounds inference defined at
 * the compute site (f.s0.<x>.min becomes the row after the previous
 * iteration's max), in the innermost such loop and one dimension.
 *
 * A Func slides when it has one stage, one compute site, no bound() or
 * align_bounds(), and only serial loops lie between its storage and its
 * computation. A split of the sliding dimension is allowed when its factors
 * are constants and its tails GuardWithIf (exactly the window),
 * ShiftInwards (up to factor - 1 earlier rows recomputed, which the window's
 * size counts) or RoundUp on each outer piece (whole blocks of the product
 * of the factors on one grid, up to block - 1 rows computed ahead; the last
 * block shifted back so that no row past the loop's last unslid block, which
 * bounds inference sized, is computed or read); not a fuse of it. A
 * dimension split once by a constant factor with GuardWithIf and vectorized
 * slides in whole vectors the same way (its stage max set to the vector's
 * end, the last vector shifted back), so the steady state computes full
 * vectors, not one guarded scalar column per iteration.
 */

#include <map>
#include <string>

#include "ir/IR.h"
#include "lower/Stages.h"

namespace loom {
namespace internal {

/** The dimensions that slid: (Func, dimension) -> the most coordinates of
 * that dimension one iteration keeps live or writes (the footprint of the
 * consumers plus what a ShiftInwards split recomputes before it, or what a
 * RoundUp split or a vector window computes ahead). A
 * circular buffer of that many slots, or more, holds the window. */
using SlidWindows = std::map<std::pair<std::string, int>, Expr>;

Stmt sliding_window(const Stmt &s, const PipelineStages &pipeline, SlidWindows *windows);

}  // namespace internal
}  // namespace loom

#endif
