#ifndef LOOM_IR_SIMPLIFY_H
#define LOOM_IR_SIMPLIFY_H

/** \file
 * The simplifier: constant folding (with Loom's integer semantics: Euclidean
 * division, x / 0 == 0), algebraic identities, canonical ordering of
 * commutative operands, min/max/select rules, comparisons decided from known
 * bounds, division and remainder decided by bounds and alignment (modulus
 * and remainder, ir/ModulusRemainder.h: ramp(x*16, 1, 8) % 16 ->
 * ramp(0, 1, 8)), let substitution, dead let elimination, and removal of
 * loops/branches that provably do nothing. The result always evaluates to
 * the same values as the input.
 *
 * Let substitution: a Let/LetStmt whose simplified value is cheap to
 * recompute is substituted into its body (and so into later lets) and
 * disappears: a constant, a variable, an integer affine form of at most
 * three variables with constant coefficients (x*32 + y*4 + 3), or a
 * Broadcast, or a Ramp with a constant stride, of one of those. That is what
 * makes `let min = x*16; let extent = x*16 - min + 16` fold to 16. Other values
 * stay bound (their bounds and alignment are known in the body), and a let
 * the body no longer uses is dropped. A value is not substituted where a
 * binder inside the body would capture its variable, or where it mentions
 * the let's own name.
 */

#include <vector>

#include "ir/IR.h"
#include "ir/Interval.h"
#include "ir/Scope.h"

namespace loom {
namespace internal {

/** bounds gives known ranges of free variables (e.g. loop variables). */
Expr simplify(const Expr &e, const Scope<Interval> &bounds = Scope<Interval>());
Stmt simplify(const Stmt &s, const Scope<Interval> &bounds = Scope<Interval>());

/** At most this many variables in an affine value the simplifier
 * substitutes for a let instead of binding it. */
constexpr int kMaxSubstitutedTerms = 3;

/** Whether e is an integer affine form c0 + c1*v1 + ... (each term a
 * variable times an optional constant) of at most max_vars variables, which
 * are appended to vars. Stops early on big expressions. */
bool affine_variables(const Expr &e, std::vector<const Variable *> &vars, int max_vars);

/** Whether e (a boolean) simplifies to true. False means "could not prove". */
bool can_prove(const Expr &e, const Scope<Interval> &bounds = Scope<Interval>());

}  // namespace internal
}  // namespace loom

#endif
