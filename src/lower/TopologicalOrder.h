#ifndef LOOM_LOWER_TOPOLOGICAL_ORDER_H
#define LOOM_LOWER_TOPOLOGICAL_ORDER_H

/** \file
 * The Funcs of a pipeline in an order that depends only on who calls whom:
 * producers before consumers, found by a depth-first walk from the outputs
 * in order, each Func's callees in the order its definitions first call
 * them. Neither the schedule nor the Funcs' names change it, so an index
 * into it names the same Func in a copy of the pipeline whose Funcs are
 * named differently (Pipeline::get_func, the autoscheduler's
 * schedule_source). Halide's topological_order.
 */

#include <vector>

#include "ir/Function.h"

namespace loom {
namespace internal {

/** Every Func the outputs reach, inlined ones too, producers first.
 * \throws CompileError when a Func is called without a definition. */
std::vector<FunctionPtr> topological_order(const std::vector<FunctionPtr> &outputs);

}  // namespace internal
}  // namespace loom

#endif
