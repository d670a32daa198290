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

/** body (an allocation's) with `s` run where shrink_allocations frees `name`
 * early, just before its Free; `freed_early` tells whether there was one.
 * That Free is in straight-line code of the body, so `s` runs once when the
 * body completes. Passes that report an allocation's release (profile,
 * debug) put it here, or at the body's end when this finds no Free. */
Stmt before_early_free(const Stmt &body, const std::string &name, const Stmt &s, bool &freed_early);

}  // namespace internal
}  // namespace loom

#endif
