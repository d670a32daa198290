#ifndef LOOM_LOWER_BOUNDS_INFERENCE_H
#define LOOM_LOWER_BOUNDS_INFERENCE_H

/** \file
 * Bounds inference: from the regions of the output buffers back to the
 * inputs, the region each stage of each Func must compute, the region each
 * Func must store, and the region of each input buffer that is read.
 *
 * The result is a list of symbol definitions, outputs first, each referring
 * only to earlier ones and to the buffer fields "<buf>.min.<d>" and
 * "<buf>.extent.<d>":
 *   f.s<k>.<x>.min, f.s<k>.<x>.max      the pure-var loop bounds of stage k
 *   f.<x>.min_realized, .extent_realized the storage of a non-output Func
 * For a Func with update definitions, stage k computes what consumers need
 * plus what later stages of the same Func read; the storage also covers what
 * scatter updates write.
 */

#include <map>
#include <string>
#include <vector>

#include "ir/Bounds.h"
#include "lower/Stages.h"

namespace loom {
namespace internal {

struct InferredBounds {
    /** Definitions to wrap around the pipeline, outermost first. */
    std::vector<std::pair<std::string, Expr>> lets;
    /** Region of each input buffer that the pipeline reads (by name), in
     * terms of the symbols above. */
    std::map<std::string, Box> input_regions;
    /** Region of each output storage (buffer name) that the pipeline reads
     * or writes, which must lie inside the buffer. */
    std::map<std::string, Box> output_regions;
    /** Assertions to check before computing anything (e.g. that a Func's
     * bound() covers what its consumers read). */
    std::vector<Stmt> checks;
};

/** \throws CompileError naming the Func or buffer when a region cannot be
 * bounded (e.g. an index computed from unbounded data). */
InferredBounds infer_bounds(const PipelineStages &pipeline);

}  // namespace internal
}  // namespace loom

#endif
