// The autoscheduler's view of a pipeline: call graph, order and estimated
// regions. See CallGraph.h.

#include "autoschedule/CallGraph.h"

#include <algorithm>
#include <functional>
#include <set>

#include "ir/Bounds.h"
#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/IRVisitor.h"
#include "ir/Simplify.h"
#include "lower/ExternStages.h"
#include "lower/TopologicalOrder.h"
#include "loom/Error.h"

namespace loom {
namespace internal {

namespace {

/** Every Func call and input-buffer read in an Expr (with repeats), and a
 * rough count of its operations. */
struct CallCollector : IRVisitor {
    std::vector<const Call *> calls;
    int operations = 0;
    using IRVisitor::visit;
    void visit(const Call *op) override {
        operations++;
        if (op->call_type == CallType::Func || op->call_type == CallType::Image) calls.push_back(op);
        IRVisitor::visit(op);
    }
    void visit(const Add *op) override { operations++, IRVisitor::visit(op); }
    void visit(const Sub *op) override { operations++, IRVisitor::visit(op); }
    void visit(const Mul *op) override { operations++, IRVisitor::visit(op); }
    void visit(const Div *op) override { operations++, IRVisitor::visit(op); }
    void visit(const Mod *op) override { operations++, IRVisitor::visit(op); }
    void visit(const Min *op) override { operations++, IRVisitor::visit(op); }
    void visit(const Max *op) override { operations++, IRVisitor::visit(op); }
    void visit(const Select *op) override { operations++, IRVisitor::visit(op); }
    void visit(const Cast *op) override { operations++, IRVisitor::visit(op); }
};

/** The Exprs of a definition that are evaluated per point (not the RDom bounds). */
std::vector<Expr> point_exprs(const Definition &d, bool with_args) {
    std::vector<Expr> exprs;
    if (with_args) exprs.insert(exprs.end(), d.args.begin(), d.args.end());
    exprs.insert(exprs.end(), d.values.begin(), d.values.end());
    if (d.predicate.defined()) exprs.push_back(d.predicate);
    if (d.rdom.defined() && d.rdom.predicate().defined()) exprs.push_back(d.rdom.predicate());
    return exprs;
}

std::vector<Expr> all_exprs(const Definition &d) {
    std::vector<Expr> exprs = point_exprs(d, true);
    if (d.rdom.defined()) {
        for (const ReductionVariable &rv : d.rdom.domain()) {
            exprs.push_back(rv.min);
            exprs.push_back(rv.extent);
        }
    }
    return exprs;
}

std::vector<const Call *> calls_in(const std::vector<Expr> &exprs, int *operations = nullptr) {
    CallCollector collector;
    for (const Expr &e : exprs) {
        if (e.defined()) e.accept(&collector);
    }
    if (operations) *operations = collector.operations;
    return collector.calls;
}

/** Replaces each scalar Param that has an estimate (Param::set_estimate) by
 * it, so regions that depend on Params get a typical size. */
class SubstituteParamEstimates : public IRMutator {
protected:
    using IRMutator::visit;
    Expr visit(const Variable *op) override {
        if (op->param.defined() && !op->param.is_buffer() && op->param.get()->scalar_estimate.defined()) {
            return op->param.get()->scalar_estimate;
        }
        return Expr(op);
    }
};

std::optional<int64_t> constant(const Expr &e) {
    if (!e.defined()) return std::nullopt;
    return as_const_int(simplify(SubstituteParamEstimates().mutate(e)));
}

}  // namespace

CallGraph build_call_graph(const std::vector<FunctionPtr> &outputs) {
    CallGraph graph;
    graph.outputs = outputs;
    // Only who calls whom: lowering's build_pipeline_stages would also
    // inline every unscheduled Func into its callers, which grows with the
    // product of a chain's stencil sizes (minutes for 30 stencils).
    std::set<std::string> output_names;
    for (const FunctionPtr &out : outputs) {
        if (out.defined()) output_names.insert(out.get()->name);
    }
    for (const FunctionPtr &func : topological_order(outputs)) {  // checks that every Func is defined
        FuncNode node;
        node.func = func;
        node.name = func.get()->name;
        node.is_output = output_names.count(node.name) > 0;
        node.is_extern = is_extern_function(*func.get());
        graph.nodes.emplace(node.name, std::move(node));
    }
    // Call sites, and each Func's callees in the order they are first called.
    std::map<std::string, std::vector<std::string>> callees;
    for (auto &[name, node] : graph.nodes) {
        const FunctionContents &f = *node.func.get();
        for (int s = 0; s < f.stages(); s++) {
            for (const Call *call : calls_in(all_exprs(f.stage(s)))) {
                if (call->call_type != CallType::Func || call->name == name) continue;
                auto it = graph.nodes.find(call->name);
                if (it == graph.nodes.end()) continue;
                it->second.uses.push_back({name, s, call->args});
                std::vector<std::string> &list = callees[name];
                if (std::find(list.begin(), list.end(), call->name) == list.end()) list.push_back(call->name);
            }
        }
        const std::vector<const Call *> pure_calls = calls_in(point_exprs(f.init, false), &node.value_size);
        node.calls_funcs = std::any_of(pure_calls.begin(), pure_calls.end(),
                                       [](const Call *c) { return c->call_type == CallType::Func; });
    }
    // Producers first, by a depth-first walk from the outputs in order; a
    // call back to a Func on the walk's stack closes a cycle.
    std::set<std::string> done;
    std::vector<std::string> stack;
    std::function<void(const std::string &)> walk = [&](const std::string &name) {
        if (done.count(name)) return;
        auto on_stack = std::find(stack.begin(), stack.end(), name);
        if (on_stack != stack.end()) {
            for (auto it = on_stack; it != stack.end(); ++it) graph.nodes.at(*it).in_cycle = true;
            return;
        }
        stack.push_back(name);
        for (const std::string &callee : callees[name]) walk(callee);
        stack.pop_back();
        done.insert(name);
        graph.order.push_back(name);
    };
    for (const FunctionPtr &out : outputs) walk(out.get()->name);
    return graph;
}

namespace {

void require_output_estimates(const FuncNode &node) {
    const FunctionContents &f = *node.func.get();
    for (int d = 0; d < f.dimensions(); d++) {
        bool found = !f.output_buffers.empty();
        for (const Parameter &p : f.output_buffers) {
            const BufferConstraint &c = p.constraint(d);
            found = found && constant(c.min_estimate) && constant(c.extent_estimate);
        }
        if (!found) {
            throw CompileError("Func " + f.name + " is an output of the pipeline to autoschedule, but dimension " +
                               std::to_string(d) + " ('" + f.args[d] + "') has no estimate: call " + f.name +
                               ".set_estimate(" + f.args[d] + ", min, extent) (or set_estimates({{min, extent}, "
                               "...}) for all dimensions) first, with a typical size (an estimate that reads a "
                               "Param needs that Param's set_estimate too).");
        }
    }
}

void require_input_estimates(const Parameter &p) {
    if (p.buffer()) return;  // a Buffer, or an ImageParam bound to one: its shape is known
    for (int d = 0; d < p.dimensions(); d++) {
        const BufferConstraint &c = p.constraint(d);
        if (constant(c.min_estimate) && constant(c.extent_estimate)) continue;
        throw CompileError("ImageParam " + p.name() + " is read by the pipeline to autoschedule, but dimension " +
                           std::to_string(d) + " has no estimate: call " + p.name() + ".dim(" + std::to_string(d) +
                           ").set_estimate(min, extent) (or set_estimates on a generator Input) first, with a "
                           "typical size (an estimate that reads a Param needs that Param's set_estimate too).");
    }
}

}  // namespace

void estimate_regions(CallGraph &graph) {
    std::map<std::string, Box> required;
    for (const FunctionPtr &out : graph.outputs) {
        FuncNode &node = graph.nodes.at(out.get()->name);
        require_output_estimates(node);
        const FunctionContents &f = *node.func.get();
        for (int d = 0; d < f.dimensions(); d++) {
            const BufferConstraint &c = f.output_buffers[0].constraint(d);
            node.region.push_back({*constant(c.min_estimate), *constant(c.extent_estimate), true});
        }
    }
    for (const auto &[name, node] : graph.nodes) {
        const FunctionContents &f = *node.func.get();
        for (int s = 0; s < f.stages(); s++) {
            for (const Call *call : calls_in(all_exprs(f.stage(s)))) {
                if (call->call_type == CallType::Image && call->param.defined()) require_input_estimates(call->param);
            }
        }
    }
    // Consumers before producers: each Func's region is final when reached.
    for (auto it = graph.order.rbegin(); it != graph.order.rend(); ++it) {
        FuncNode &node = graph.nodes.at(*it);
        const FunctionContents &f = *node.func.get();
        if (!node.is_output) {
            const Box &box = required[node.name];
            for (int d = 0; d < f.dimensions(); d++) {
                EstimatedRange range;
                if (d < (int)box.size()) {
                    std::optional<int64_t> lo = constant(box[d].min), hi = constant(box[d].max);
                    if (lo && hi && *hi >= *lo) range = {*lo, *hi - *lo + 1, true};
                }
                node.region.push_back(range);
            }
        }
        for (int s = 0; s < f.stages(); s++) {
            const Definition &def = f.stage(s);
            Scope<Interval> scope;
            for (int d = 0; d < f.dimensions(); d++) {
                const EstimatedRange &r = node.region[d];
                if (r.known) scope.push(f.args[d], Interval(Expr(int(r.min)), Expr(int(r.min + r.extent - 1))));
            }
            if (def.rdom.defined()) {
                for (const ReductionVariable &rv : def.rdom.domain()) {
                    std::optional<int64_t> lo = constant(rv.min), n = constant(rv.extent);
                    if (lo && n && *n > 0) scope.push(rv.var, Interval(Expr(int(*lo)), Expr(int(*lo + *n - 1))));
                }
            }
            auto is_func = [&](const std::string &callee) {
                return callee != node.name && graph.nodes.count(callee) > 0;
            };
            for (const Expr &e : point_exprs(def, s > 0)) {
                for (const auto &[callee, box] : boxes_required(e, scope, is_func)) {
                    auto found = required.find(callee);
                    if (found == required.end()) {
                        required.emplace(callee, box);
                    } else {
                        merge_boxes(found->second, box);
                    }
                }
            }
        }
    }
}

}  // namespace internal
}  // namespace loom
