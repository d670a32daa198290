#ifndef LOOM_AUTOSCHEDULE_CALL_GRAPH_H
#define LOOM_AUTOSCHEDULE_CALL_GRAPH_H

/** \file
 * What the autoscheduler knows of a pipeline: every Func the outputs reach,
 * producers first, who calls whom with which coordinates, and the region of
 * each Func a typical run computes, inferred from the estimates on the
 * outputs (Func::set_estimate) and inputs (dim(d).set_estimate).
 */

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/Function.h"

namespace loom {
namespace internal {

/** One call of a Func (or read of an input buffer) in stage `stage` of
 * Func `consumer`, at these coordinates (in the consumer's own Var names). */
struct CallSite {
    std::string consumer;
    int stage = 0;
    std::vector<Expr> args;
};

/** An estimated range of one dimension; known = false when the bounds of
 * the coordinates could not be made constant. */
struct EstimatedRange {
    int64_t min = 0, extent = 0;
    bool known = false;
};

struct FuncNode {
    FunctionPtr func;
    std::string name;
    bool is_output = false;
    bool is_extern = false;
    /** Part of a cycle of calls through another Func (a recurrence such as
     * state(r + 1) = step(r) with step reading state): left as it is. */
    bool in_cycle = false;
    /** Calls of this Func from the other Funcs of the pipeline. */
    std::vector<CallSite> uses;
    /** Number of IR nodes in the values of the pure definition (a cost). */
    int value_size = 0;
    /** Whether the pure definition calls a Func (not only input buffers). */
    bool calls_funcs = false;
    std::vector<EstimatedRange> region;
};

struct CallGraph {
    std::vector<FunctionPtr> outputs;
    std::map<std::string, FuncNode> nodes;
    /** Every Func, producers first (outputs last, in a deterministic order). */
    std::vector<std::string> order;
};

/** \throws CompileError as lowering does for a Func called without a definition. */
CallGraph build_call_graph(const std::vector<FunctionPtr> &outputs);

/** Fills in FuncNode::region from the outputs' estimates.
 * \throws CompileError naming the output and dimension without an
 * estimate, or the input buffer (ImageParam) and dimension without one;
 * an input with a buffer bound to it uses the buffer's shape. */
void estimate_regions(CallGraph &graph);

}  // namespace internal
}  // namespace loom

#endif
