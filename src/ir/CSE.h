#ifndef LOOM_IR_CSE_H
#define LOOM_IR_CSE_H

/** \file
 * Common-subexpression elimination: every subexpression that an expression
 * computes more than once is computed once, bound by a Let, and read by
 * name.
 *
 * Exprs are immutable and shared, so an expression built by substitution
 * (an inlined Func read three times per level of a chain) is a small graph
 * whose tree is exponentially big; every pass that walks it as a tree pays
 * for the tree. CSE works on the graph (each node once) and returns a tree
 * of the graph's size. It merges structurally equal subexpressions too.
 *
 * Left in place: leaves (variables, constants), calls with side effects and
 * everything that contains one (each is evaluated as often as written), and
 * subexpressions that read a name bound by a Let inside the expression
 * (they cannot move above their binding).
 */

#include "ir/IR.h"

namespace loom {
namespace internal {

Expr common_subexpression_elimination(const Expr &e);

/** The number of nodes of e as a tree, counting no further than `limit`,
 * in time proportional to e's graph: the size CSE would avoid. */
int64_t expr_tree_size(const Expr &e, int64_t limit);

}  // namespace internal
}  // namespace loom

#endif
