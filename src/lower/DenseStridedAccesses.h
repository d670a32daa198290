#ifndef LOOM_LOWER_DENSE_STRIDED_ACCESSES_H
#define LOOM_LOWER_DENSE_STRIDED_ACCESSES_H

/** \file
 * Vector loads and stores of a small constant stride (2 to 4) as dense
 * ones, as Halide does for interleaved images (lesson 16):
 *  - a load of lanes base, base + s, ... becomes a dense load of the
 *    s * (lanes - 1) + 1 elements from base to the last lane (nothing
 *    outside the accessed span is read) and a shuffle picking every s-th;
 *  - s consecutive stores to base + 0, base + 1, ..., base + s - 1, each
 *    with stride s (an unrolled loop over interleaved channels), become one
 *    dense store of their values interleaved, when no value reads the
 *    buffer stored to;
 *  - a load whose index divides a dense ramp by a constant k (2 to 4), as
 *    an upsampling's x / 2 + x % 2 * 2 - 1 does, becomes k loads, one per
 *    class of lanes c, c + k, c + 2k, ..., interleaved by a shuffle: within
 *    a class, ramp / k and ramp % k are affine in the lane, so each class
 *    reads a dense ramp (or one element) when the simplifier proves that
 *    consecutive lanes of the class differ by 1 (or 0). The ramp's base need
 *    not be a multiple of k.
 * Without it a strided access is one scalar instruction per lane (a
 * scatter is scalarized), 20 to 40 times slower than the planar loop.
 * Loops on the GPU are left alone.
 */

#include "ir/IR.h"

namespace loom {
namespace internal {

Stmt dense_strided_accesses(const Stmt &s);

}  // namespace internal
}  // namespace loom

#endif
