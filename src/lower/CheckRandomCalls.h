#ifndef LOOM_LOWER_CHECK_RANDOM_CALLS_H
#define LOOM_LOWER_CHECK_RANDOM_CALLS_H

/** \file
 * random_float/int/uint are resolved when a Func's definition is made
 * (lang/Random.h): one value per point of the Func. Used anywhere else (an
 * RDom's bounds, a bound(), a buffer constraint, a specialize condition),
 * the call reaches lowering unresolved; this check reports it as a
 * CompileError instead of letting a back end fail on an unknown intrinsic.
 */

#include <vector>

#include "ir/GPUKernel.h"
#include "ir/IR.h"

namespace loom {
namespace internal {

/** \throws CompileError if s or a kernel still calls intrinsic::random. */
void check_random_calls_resolved(const Stmt &s, const std::vector<GPUKernel> &kernels);

}  // namespace internal
}  // namespace loom

#endif
