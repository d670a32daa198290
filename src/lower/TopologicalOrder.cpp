#include "lower/TopologicalOrder.h"

#include <set>
#include <string>

#include "ir/DefinitionExprs.h"
#include "loom/Error.h"
#include "lower/Stages.h"

namespace loom {
namespace internal {

namespace {

/** The Funcs f's definitions call, in the order they are first called
 * (the Exprs of each definition in the order lowering walks them). */
std::vector<std::pair<std::string, FunctionPtr>> direct_calls(const FunctionContents &f) {
    FindFuncCalls finder;
    for_each_definition_expr(f, [&](const Expr &e) { finder.include(e); });
    return finder.calls;
}

void visit(const FunctionPtr &f, std::set<std::string> &visited, std::vector<FunctionPtr> &order) {
    const FunctionContents &contents = *f.get();
    if (!visited.insert(contents.name).second) return;  // done, or on the walk's stack (a recurrence)
    for (const auto &[name, callee] : direct_calls(contents)) {
        if (name == contents.name) continue;  // a recursive update
        if (!callee.defined() || !callee.get()->defined()) {
            throw CompileError("Func '" + name + "' is called by Func '" + contents.name +
                               "' but has no definition. Define it (" + name + "(x, ...) = ...) first.");
        }
        visit(callee, visited, order);
    }
    order.push_back(f.strengthened());
}

}  // namespace

std::vector<FunctionPtr> topological_order(const std::vector<FunctionPtr> &outputs) {
    std::set<std::string> visited;
    std::vector<FunctionPtr> order;
    for (const FunctionPtr &out : outputs) {
        if (!out.defined() || !out.get()->defined()) {
            const std::string name = out.defined() ? out.get()->name : "<null>";
            throw CompileError("Func '" + name + "' is a pipeline output but has no definition. Define it first.");
        }
        visit(out, visited, order);
    }
    return order;
}

}  // namespace internal
}  // namespace loom
