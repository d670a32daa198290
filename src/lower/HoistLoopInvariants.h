#ifndef LOOM_LOWER_HOIST_LOOP_INVARIANTS_H
#define LOOM_LOWER_HOIST_LOOP_INVARIANTS_H

/** \file
 * Moves work that does not change from one iteration to the next out of
 * CPU loops:
 *
 *     for (x, 0, n) { let a = y * w + c; let b = a + x; body }
 *       -> let a = y * w + c; for (x, 0, n) { let b = a + x; body }
 *     for (x, 0, n) { if (p > 0) { A } else { B } }
 *       -> if (p > 0) { for (x, 0, n) { A } } else { for (x, 0, n) { B } }
 *
 * A let at the top of a loop's body is invariant when its value reads
 * neither the loop variable nor a let the loop still defines, loads no
 * memory and calls nothing with side effects. An if that is the whole body
 * (after the invariant lets) and whose condition is invariant in that sense
 * is hoisted around the loop (unswitching). GPU loops keep their bodies: a
 * kernel's values are computed on the device. The interpreter and the
 * SPIR-V back end profit most; LLVM would find most of this itself.
 */

#include "ir/IR.h"

namespace loom {
namespace internal {

Stmt hoist_loop_invariants(const Stmt &s);

}  // namespace internal
}  // namespace loom

#endif
