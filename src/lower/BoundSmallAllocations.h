#ifndef LOOM_LOWER_BOUND_SMALL_ALLOCATIONS_H
#define LOOM_LOWER_BOUND_SMALL_ALLOCATIONS_H

/** \file
 * bound_small_allocations (Halide's): an allocation whose size varies but
 * has a small constant upper bound gets that constant size, so the code
 * generator puts it on the stack (and LLVM may keep it in registers) instead
 * of calling loom_malloc each time. A producer computed per tile of a
 * GuardWithIf tiling is the case: its extent is the tile's, smaller in the
 * tail (min(8, x_max - x + 1)). Only the allocation grows; the storage's
 * extents and strides, and so every access, stay as they were. Limits: 16
 * KiB for Auto memory, 64 KiB for Stack and Register (the code generator's
 * stack limits). Runs on Allocate nodes, after storage flattening.
 */

#include "ir/IR.h"

namespace loom {
namespace internal {

Stmt bound_small_allocations(const Stmt &s);

}  // namespace internal
}  // namespace loom

#endif
