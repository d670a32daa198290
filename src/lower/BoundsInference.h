#ifndef LOOM_LOWER_BOUNDS_INFERENCE_H
#define LOOM_LOWER_BOUNDS_INFERENCE_H

/** \file
 * Bounds inference: from the regions of the output buffers back to the
 * inputs, the region each stage of each Func must compute, the region each
 * Func must store, and the region of each input buffer that is read.
 *
 * It works on the loop nest that schedule_functions built, innermost
 * realizations first. At each place a Func f is computed (a produce node
 * followed by its consume node) the region of f that the consume part reads
 * is found by walking it (its loops, lets and calls), so it is written in
 * terms of the loop variables that enclose the site: a Func computed inside
 * a consumer's loop computes only what one iteration needs. The symbols
 *   f.s<k>.<x>.min, f.s<k>.<x>.max       pure-var bounds of stage k of f
 * are defined just outside that produce node. Stage k computes what the
 * consumers need plus what later stages of f read (a recursive update reads
 * earlier values). At each Realize of f the storage is sized to everything
 * written or read of f inside it, over all iterations of the loops between
 * the storage and the computation:
 *   f.<x>.min_realized, f.<x>.extent_realized
 *
 * The regions are what the consumers need; the passes after it shrink
 * them: lower/SlidingWindow.h (compute only what earlier iterations did
 * not) and lower/StorageFolding.h (circular buffers). The checks of a
 * user's promises are made here: bound() and fold_storage() must cover what
 * the consumers need (asserted at run time).
 */

#include <map>
#include <string>
#include <vector>

#include "ir/Bounds.h"
#include "lower/Stages.h"

namespace loom {
namespace internal {

struct InferredBounds {
    /** The loop nest with the bounds definitions and checks inserted. */
    Stmt stmt;
    /** The definitions at the top of stmt (bounds of the Funcs computed at
     * the root level, in order); the regions below may name them. */
    std::vector<std::pair<std::string, Expr>> top_lets;
    /** Region of each input buffer that the pipeline reads (by name), in
     * terms of buffer fields, Params and top_lets. */
    std::map<std::string, Box> input_regions;
    /** Region of each output storage (buffer name) that the pipeline reads
     * or writes, which must lie inside the buffer (same terms). */
    std::map<std::string, Box> output_regions;
};

/** \throws CompileError naming the Func or buffer when a region cannot be
 * bounded (e.g. an index computed from unbounded data). */
InferredBounds bounds_inference(const Stmt &s, const PipelineStages &pipeline);

}  // namespace internal
}  // namespace loom

#endif
