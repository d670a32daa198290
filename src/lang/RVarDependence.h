#ifndef LOOM_LANG_RVAR_DEPENDENCE_H
#define LOOM_LANG_RVAR_DEPENDENCE_H

/** \file
 * Which loops of a stage may run their iterations in any order (vectorized,
 * in parallel, or reordered against each other).
 *
 * Pure Vars always may. An RVar r of an update definition of f may when the
 * update provably writes a different element of f in every iteration and
 * reads f only at the element the same iteration writes: some argument of
 * the left-hand side is r itself (a bare RVar), and every call of f in the
 * values and predicates has r bare in that same argument. That rule is
 * simple and conservative (f(r) = f(r) * 2 qualifies; f(x) += g(r),
 * f(r + 1) = f(r) and f(r) = f(r - 1) do not); Halide's own test, which
 * proves distinct stores with the simplifier, accepts more.
 */

#include <string>
#include <vector>

#include "ir/Function.h"

namespace loom {
namespace internal {

/** The Vars and RVars of the definition a loop of the stage comes from,
 * through the splits, fuses and renames of s: e.g. {"x"} for "xi" after
 * split(x, xo, xi, 8), {"x", "y"} after fuse(x, y, xy). */
std::vector<std::string> loop_origins(const StageSchedule &s, const std::string &loop);

/** Whether RVar rvar of definition def (of f) writes distinct elements in
 * distinct iterations, by the rule above. */
bool rvar_is_independent(const FunctionContents &f, const Definition &def, const std::string &rvar);

/** The first RVar a loop of def (with schedule s) comes from whose
 * iterations may depend on each other, or "" if there is none. */
std::string dependent_rvar_of_loop(const FunctionContents &f, const Definition &def, const StageSchedule &s,
                                   const std::string &loop);

}  // namespace internal
}  // namespace loom

#endif
