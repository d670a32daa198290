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
 *    buffer stored to.
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
