#ifndef LOOM_LOWER_TRIM_NO_OPS_H
#define LOOM_LOWER_TRIM_NO_OPS_H

/** \file
 * Removes statements that do nothing: an Evaluate of a constant, and every
 * loop, branch, let, allocation or produce/consume node left with nothing
 * to do, as well as loops that run no iteration (a constant extent <= 0)
 * and ifs whose condition is a constant. Earlier passes leave such husks
 * behind (a guard simplified to false, a trace with tracing off, a stage
 * whose region is empty for this schedule); back ends then do not emit
 * empty loops and allocations.
 */

#include "ir/IR.h"

namespace loom {
namespace internal {

Stmt trim_no_ops(const Stmt &s);

/** Whether s does nothing (an undefined Stmt included). */
bool is_no_op(const Stmt &s);

}  // namespace internal
}  // namespace loom

#endif
