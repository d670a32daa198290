#ifndef LOOM_IR_IR_EQUALITY_H
#define LOOM_IR_IR_EQUALITY_H

/** \file
 * Structural comparison of IR trees: same node kinds, types, names, constants
 * and children. Also a total order, so Exprs can key std::map by structure.
 */

#include "ir/IR.h"

namespace loom {
namespace internal {

bool equal(const Expr &a, const Expr &b);
bool equal(const Stmt &a, const Stmt &b);

/** -1, 0 or 1: a total order consistent with equal(). */
int compare(const Expr &a, const Expr &b);

struct ExprDeepCompare {
    bool operator()(const Expr &a, const Expr &b) const { return compare(a, b) < 0; }
};

}  // namespace internal
}  // namespace loom

#endif
