#ifndef LOOM_LOWER_EMULATE_BFLOAT16_H
#define LOOM_LOWER_EMULATE_BFLOAT16_H

/** \file
 * BFloat(16) arithmetic in Float(32), as Halide does it. Every BFloat(16)
 * value becomes its UInt(16) bits (loads, stores, allocations, lets,
 * selects, constants); each operation widens its operands to Float(32)
 * (the bits shifted into the top half of a float: exact), computes there,
 * and rounds the result back to the nearest BFloat(16), ties to even, with
 * integer operations. Casts go through Float(32): from Float(64) and from
 * integers with round-to-odd to Float(32) first, so that they round once.
 * The back ends then never see BFloat(16), except as the element type of
 * buffer arguments and the type of scalar arguments (whose bits they pass).
 *
 * \throws CompileError naming the loop for a BFloat(16) value inside a GPU
 * loop: the Vulkan back end has no bfloat16 support.
 */

#include "ir/IR.h"

namespace loom {
namespace internal {

Stmt emulate_bfloat16(const Stmt &s);

}  // namespace internal
}  // namespace loom

#endif
