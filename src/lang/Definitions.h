#ifndef LOOM_LANG_DEFINITIONS_H
#define LOOM_LANG_DEFINITIONS_H

/** \file
 * Adding definitions to a Function, with the checks Halide makes at
 * definition time. Every user mistake throws CompileError naming the Func
 * (and the Var or RDom involved):
 * - pure definitions: arguments must be distinct Vars; no RDom; no second
 *   pure definition;
 * - updates: the argument count and the Tuple size and element types match
 *   the pure definition; a pure Var used on the left stays at its position
 *   as a bare Var; recursive calls use the pure Vars where the left does;
 *   at most one RDom;
 * - both: every free variable on the right is bound on the left (a pure Var),
 *   by the RDom, or is a Param.
 * Calls of the Function from its own definition are weakened (see
 * FunctionPtr.h), the RDom is frozen, and the Function marked changed
 * (mark_changed in Backend.h).
 */

#include <string>
#include <vector>

#include "ir/Function.h"

namespace loom {
namespace internal {

/** f(args) = values, the first definition of f. args are Variables. */
void define_pure(const FunctionPtr &func, const std::vector<Expr> &args, const std::vector<Expr> &values);

/** f(args) = values, an update of a defined f. */
void define_update(const FunctionPtr &func, const std::vector<Expr> &args, const std::vector<Expr> &values);

/** The largest implicit variable index used in exprs, plus one (0 if none). */
int count_implicit_vars(const std::vector<Expr> &exprs);

}  // namespace internal
}  // namespace loom

#endif
