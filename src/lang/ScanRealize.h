#ifndef LOOM_LANG_SCAN_REALIZE_H
#define LOOM_LANG_SCAN_REALIZE_H

/** \file
 * realize() without sizes: every dimension of every output has a bound(),
 * and the buffers are allocated at those bounds. A dimension bounded by a
 * trip count (a scan output, lower/ScanOutputs.h) is allocated at the
 * loop's bound when its extent is known before the run and small enough,
 * else at 16 rows; while the loop stops at the rows allocated and could have
 * gone on, the pipeline runs again with twice the rows. So the rows
 * allocated stay within twice the rows that ran, and the result is cropped
 * to them.
 */

#include <vector>

#include "lang/JITPipeline.h"

namespace loom {
namespace internal {

/** Whether realize(sizes) means "at the bounds": no sizes, and an output
 * with dimensions. */
bool realizes_at_bounds(const std::vector<FunctionPtr> &outputs, const std::vector<int> &sizes);

/** \throws CompileError naming the Func and dimension for a dimension
 * without a bound, or a bound whose value is not known before the run (it
 * reads a Func or a buffer); RuntimeError if a scan output outgrows 2^30
 * rows. A run that fails into context's custom_error handler is not run
 * again: its buffers come back as they are. */
Realization realize_at_bounds(const JITSlot &p, const Target &target, JITUserContext *context = nullptr);

}  // namespace internal
}  // namespace loom

#endif
