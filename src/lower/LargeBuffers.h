#ifndef LOOM_LOWER_LARGE_BUFFERS_H
#define LOOM_LOWER_LARGE_BUFFERS_H

/** \file
 * The 2^31-byte limit of targets without the large_buffers feature, as in
 * Halide: without it, generated code indexes memory with 32-bit arithmetic,
 * so every buffer argument (the bytes each dimension spans, and the product
 * of its extents) and every allocation of the pipeline outside GPU loops
 * must stay under 2^31 bytes. A larger one is an error code
 * (loom_error_code_buffer_too_large, a RuntimeError in the JIT) naming the
 * buffer or Func and saying to add large_buffers; nothing has been read,
 * written or allocated then. A buffer argument whose host pointer is NULL
 * (a bounds query) is not checked.
 *
 * With large_buffers there are no such checks: the LLVM back end computes
 * every index in 64 bits (codegen_wide_index), the strides of allocations
 * too. Coordinates, extents and strides themselves stay 32-bit values, as in
 * Halide (loom_dimension_t).
 */

#include <vector>

#include "ir/LoweredFunc.h"
#include "loom/Target.h"

namespace loom {
namespace internal {

/** s as add_buffer_arguments left it (its buffer field lets at the top),
 * with the size checks of the buffer arguments and the allocations. */
Stmt add_buffer_size_checks(const Stmt &s, const std::vector<LoweredArgument> &args, const Target &target);

}  // namespace internal
}  // namespace loom

#endif
