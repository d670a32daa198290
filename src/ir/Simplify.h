#ifndef LOOM_IR_SIMPLIFY_H
#define LOOM_IR_SIMPLIFY_H

/** \file
 * The simplifier: constant folding (with Loom's integer semantics), algebraic
 * identities, canonical ordering of commutative operands, min/max/select
 * rules, comparisons decided from known bounds, dead let elimination, and
 * removal of loops/branches that provably do nothing. The result always
 * evaluates to the same values as the input.
 */

#include "ir/IR.h"
#include "ir/Interval.h"
#include "ir/Scope.h"

namespace loom {
namespace internal {

/** bounds gives known ranges of free variables (e.g. loop variables). */
Expr simplify(const Expr &e, const Scope<Interval> &bounds = Scope<Interval>());
Stmt simplify(const Stmt &s, const Scope<Interval> &bounds = Scope<Interval>());

/** Whether e (a boolean) simplifies to true. False means "could not prove". */
bool can_prove(const Expr &e, const Scope<Interval> &bounds = Scope<Interval>());

}  // namespace internal
}  // namespace loom

#endif
