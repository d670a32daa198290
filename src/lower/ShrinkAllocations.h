#ifndef LOOM_LOWER_SHRINK_ALLOCATIONS_H
#define LOOM_LOWER_SHRINK_ALLOCATIONS_H

/** \file
 * Allocations that live no longer than they are used:
 *
 * - an allocation that nothing reads (no Load of it, its pointer never
 *   passed on) is removed with the stores into it, unless a value stored
 *   has side effects (a print, a trace);
 * - a heap (or Auto) allocation is freed right after the last statement that uses
 *   it, instead of at the end of its scope: in
 *   `allocate f { produce f {..}; consume f { g = f..; h = g.. } }` a Free
 *   of f goes between g and h, so f's memory is back before h runs. The
 *   scope's end frees only what is still allocated (a Free leaves null).
 *
 * Allocations whose body runs a GPU loop keep their scope: the device copy
 * is released with it.
 */

#include "ir/IR.h"

namespace loom {
namespace internal {

Stmt shrink_allocations(const Stmt &s);

/** body (an allocation's) with `s` run where the allocation `name` is
 * released: just before the Free shrink_allocations put in it (in
 * straight-line code of the body, so run once), else at the body's end.
 * Passes that report an allocation's release (profile, debug) put it here. */
Stmt at_release(const Stmt &body, const std::string &name, const Stmt &s);

}  // namespace internal
}  // namespace loom

#endif
