#include "lower/Stages.h"

#include <functional>
#include <set>
#include <sstream>

#include "ir/CSE.h"
#include "ir/DefinitionExprs.h"
#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/IRVisitor.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "loom/Error.h"
#include "lower/ScanOutputs.h"

namespace loom {
namespace internal {

const FunctionContents &PipelineStages::func(const std::string &name) const {
    auto it = env.find(name);
    if (it == env.end()) throw InternalError("lowering: Func '" + name + "' is not in the pipeline's environment");
    return *it->second.get();
}

void FindFuncCalls::visit(const Call *op) {
    if (op->call_type == CallType::Func) calls.emplace_back(op->name, op->func);
    // RDom::trip_count() reads what the loop's Func writes: it depends on
    // that Func as if it called it.
    if (op->is_intrinsic(intrinsic::trip_count) && op->func.defined()) {
        calls.emplace_back(op->func.get()->name, op->func);
    }
    IRGraphVisitor::visit(op);
}

namespace {

std::vector<std::pair<std::string, FunctionPtr>> direct_calls(const FunctionContents &f) {
    FindFuncCalls finder;
    for_each_definition_expr(f, [&](const Expr &e) { finder.include(e); });
    return finder.calls;
}

void build_environment(const FunctionPtr &f, std::map<std::string, FunctionPtr> &env) {
    const FunctionContents &contents = *f.get();
    if (env.count(contents.name)) return;
    env[contents.name] = f.strengthened();
    for (const auto &[name, callee] : direct_calls(contents)) {
        if (name == contents.name) continue;  // a recursive update
        if (!callee.defined() || !callee.get()->defined()) {
            throw CompileError("Func '" + name + "' is called by Func '" + contents.name +
                               "' but has no definition. Define it (" + name + "(x, ...) = ...) before realizing.");
        }
        build_environment(callee, env);
    }
}

/** Producers before consumers, found by depth-first search from the outputs. */
void visit_in_order(const std::string &name, const std::map<std::string, FunctionPtr> &env,
                    std::set<std::string> &visited, std::vector<std::string> &order) {
    if (!visited.insert(name).second) return;
    for (const auto &[callee, ptr] : direct_calls(*env.at(name).get())) {
        if (callee != name) visit_in_order(callee, env, visited, order);
    }
    order.push_back(name);
}

/** e, with the subexpressions it computes more than once bound by Lets when
 * e is big as a tree. An inlined Func read k times is k copies of its value,
 * so a chain of such Funcs grows k-fold per Func as a tree (as a graph of
 * shared Exprs it stays small), and every later pass walks trees. Small
 * values stay as written. */
Expr share_repeats(const Expr &e) {
    constexpr int64_t kMaxTreeNodes = 1024;
    if (!e.defined() || expr_tree_size(e, kMaxTreeNodes + 1) <= kMaxTreeNodes) return e;
    return common_subexpression_elimination(e);
}

/** Replaces calls to Funcs scheduled inline by their (recursively inlined)
 * values.
 *
 * A call whose arguments are all small affine forms (f(x - 1, y); those the
 * simplifier substitutes for a let, ir/Simplify.h affine_variables) becomes
 * f's value at those arguments, simplified (f(x - 1 + 1) is f(x)), and each
 * distinct call is instantiated once: the same call reached along several
 * paths is one shared Expr. A chain of Funcs each reading its predecessor
 * at x - 1, x and x + 1 is so a graph of n^2 values, not a tree of 3^n, and
 * CSE (share_repeats) binds each value once. Other arguments are bound by
 * Lets around f's value with its variables renamed "f.x", computed once per
 * Func, so they are evaluated once. */
class InlineCalls : public IRMutator {
public:
    InlineCalls(const std::map<std::string, FunctionPtr> &env, const std::set<std::string> &inlined)
        : env_(env), inlined_(inlined) {}

    using IRMutator::mutate;

protected:
    using IRMutator::visit;
    Expr visit(const Call *op) override {
        Expr call = IRMutator::visit(op);
        op = call.as<Call>();
        if (!op || op->call_type != CallType::Func || !inlined_.count(op->name)) return call;
        const FunctionContents &f = *env_.at(op->name).get();
        if (Expr instance = instantiate(f, op); instance.defined()) return instance;
        Expr body = inlined_body(f, op->value_index);
        std::map<std::string, Expr> direct;
        std::vector<std::pair<std::string, Expr>> lets;
        for (size_t i = 0; i < f.args.size(); i++) {
            const std::string name = f.name + "." + f.args[i];
            const Expr &arg = op->args[i];
            if (arg.as<Variable>() || arg.as<IntImm>() || arg.as<UIntImm>()) {
                direct[name] = arg;
            } else {
                lets.emplace_back(name, arg);
            }
        }
        body = substitute(direct, body);
        for (auto it = lets.rbegin(); it != lets.rend(); ++it) body = Let::make(it->first, it->second, body);
        return body;
    }

private:
    /** f's value at the call's arguments, inner inlines done, if every
     * argument is a small affine form; undefined otherwise. */
    Expr instantiate(const FunctionContents &f, const Call *op) {
        std::map<std::string, Expr> at;
        std::ostringstream key;
        key << f.name << '#' << op->value_index;
        for (size_t i = 0; i < f.args.size(); i++) {
            // The affine forms the simplifier substitutes for a let anyway.
            std::vector<const Variable *> vars;
            if (!op->args[i].type().is_int() || !affine_variables(op->args[i], vars, kMaxSubstitutedTerms)) {
                return Expr();
            }
            Expr arg = simplify(op->args[i]);
            key << '|' << arg;
            at[f.args[i]] = arg;
        }
        auto it = instances_.find(key.str());
        if (it != instances_.end()) return it->second;
        Expr value = mutate(substitute(at, f.init.values.at(op->value_index)));
        instances_.emplace(key.str(), value);
        return value;
    }

    /** f's value with its pure vars renamed "f.x" and inner inlines done. */
    Expr inlined_body(const FunctionContents &f, int value_index) {
        auto key = std::make_pair(f.name, value_index);
        auto it = cache_.find(key);
        if (it != cache_.end()) return it->second;
        std::map<std::string, Expr> rename;
        for (const std::string &a : f.args) rename[a] = Variable::make(Int(32), f.name + "." + a);
        Expr body = share_repeats(mutate(substitute(rename, f.init.values.at(value_index))));
        cache_[key] = body;
        return body;
    }

    const std::map<std::string, FunctionPtr> &env_;
    const std::set<std::string> &inlined_;
    std::map<std::pair<std::string, int>, Expr> cache_;
    /** Instances by Func, value index and printed arguments. */
    std::map<std::string, Expr> instances_;
};

/** The default loop order when the schedule lists splits but no loops: each
 * split var gives way to its inner var with its outer var just outside; a
 * fused pair gives way to the fused var where the outer var was. */
void apply_splits_to_dims(const std::vector<Split> &splits, std::vector<Dim> &dims) {
    auto find = [&](const std::string &name) {
        for (size_t i = 0; i < dims.size(); i++) {
            if (dims[i].var == name) return (int)i;
        }
        return -1;
    };
    for (const Split &sp : splits) {
        if (sp.kind == Split::RenameVar) {
            if (int i = find(sp.old_var); i >= 0) dims[i].var = sp.outer;
        } else if (sp.kind == Split::SplitVar) {
            int i = find(sp.old_var);
            if (i < 0) continue;
            Dim outer = dims[i];
            outer.var = sp.outer;
            dims[i].var = sp.inner;
            dims.insert(dims.begin() + i + 1, outer);
        } else {
            int inner = find(sp.inner);
            if (inner < 0 || find(sp.outer) < 0) continue;
            dims.erase(dims.begin() + inner);
            dims[find(sp.outer)].var = sp.old_var;
        }
    }
}

/** A specialization's schedule with loop names. Its dims are never empty:
 * the front end copies the stage's schedule, default loops included. */
StageSpecialization make_specialization(const Specialization &sp, const std::string &prefix) {
    StageSpecialization result;
    result.condition = sp.condition;
    result.failure_message = sp.failure_message;
    result.single_thread_device_api = sp.schedule.single_thread_device_api;
    for (Split split : sp.schedule.splits) {
        split.old_var = prefix + split.old_var;
        split.outer = prefix + split.outer;
        split.inner = prefix + split.inner;
        result.splits.push_back(split);
    }
    for (Dim d : sp.schedule.dims) {
        d.var = prefix + d.var;
        result.dims.push_back(d);
    }
    for (const Specialization &nested : sp.specializations) {
        result.specializations.push_back(make_specialization(nested, prefix));
    }
    return result;
}

/** capacities: the scan outputs' capacity of a loop, by trip-count buffer
 * (lower/ScanOutputs.h). */
Stage make_stage(const FunctionContents &f, int index, InlineCalls &inliner,
                 const std::map<std::string, Expr> &capacities) {
    const Definition &def = f.stage(index);
    Stage stage;
    stage.compute_with = def.schedule.compute_with;
    stage.compute_with_align_default = def.schedule.compute_with_align_default;
    stage.func = f.name;
    stage.index = index;
    stage.prefix = f.name + ".s" + std::to_string(index) + ".";
    for (const auto &[var, strategy] : def.schedule.compute_with_align) {
        stage.compute_with_align[stage.prefix + var] = strategy;
    }

    std::map<std::string, Expr> rename;
    for (const std::string &a : f.args) {
        stage.pure_vars.push_back(stage.prefix + a);
        rename[a] = Variable::make(Int(32), stage.prefix + a);
    }
    if (def.rdom.defined()) {
        for (const ReductionVariable &rv : def.rdom.domain()) {
            rename[rv.var] = Variable::make(Int(32), stage.prefix + rv.var);
            stage.rvars.push_back({stage.prefix + rv.var, inliner.mutate(rv.min), inliner.mutate(rv.extent)});
        }
    }
    auto rewrite = [&](const Expr &e) { return share_repeats(inliner.mutate(substitute(rename, e))); };
    for (const Expr &a : def.args) stage.args.push_back(rewrite(a));
    for (const Expr &v : def.values) stage.values.push_back(rewrite(v));
    Expr predicate = def.predicate;
    if (def.rdom.defined() && def.rdom.predicate().defined()) {
        predicate = predicate.defined() ? And::make(predicate, def.rdom.predicate()) : def.rdom.predicate();
    }
    if (predicate.defined()) stage.predicate = rewrite(predicate);
    if (def.rdom.defined()) {
        stage.exit_loop = stage.rvars.back().var;
        if (def.rdom.loop_condition().defined()) stage.loop_condition = rewrite(def.rdom.loop_condition());
        stage.trip_count_buffer = def.rdom.get()->trip_count_buffer;
        auto capacity = capacities.find(stage.trip_count_buffer);
        if (capacity != capacities.end()) {
            Expr &extent = stage.rvars.back().extent;
            extent = Min::make(extent, capacity->second);
        }
    }

    stage.single_thread_device_api = def.schedule.single_thread_device_api;
    for (Split sp : def.schedule.splits) {
        sp.old_var = stage.prefix + sp.old_var;
        sp.outer = stage.prefix + sp.outer;
        sp.inner = stage.prefix + sp.inner;
        stage.splits.push_back(sp);
    }
    for (const Specialization &sp : def.specializations) {
        stage.specializations.push_back(make_specialization(sp, stage.prefix));
    }
    if (!def.schedule.dims.empty()) {
        for (Dim d : def.schedule.dims) {
            d.var = stage.prefix + d.var;
            stage.dims.push_back(d);
        }
        return stage;
    }
    // Default loop order: reduction variables innermost (first RVar innermost),
    // then the pure vars that the left-hand side keeps (first innermost).
    for (const ReductionVariable &rv : stage.rvars) {
        Dim d;
        d.var = rv.var;
        d.is_rvar = true;
        stage.dims.push_back(d);
    }
    for (size_t i = 0; i < f.args.size(); i++) {
        const Variable *v = stage.args[i].as<Variable>();
        if (index > 0 && !(v && v->name == stage.pure_vars[i])) continue;
        Dim d;
        d.var = stage.pure_vars[i];
        stage.dims.push_back(d);
    }
    apply_splits_to_dims(stage.splits, stage.dims);
    return stage;
}

}  // namespace

bool PipelineStages::is_output(const std::string &name) const {
    for (const FunctionPtr &o : outputs) {
        if (o.get()->name == name) return true;
    }
    return false;
}

std::string stage_description(const std::string &func, int index) {
    if (index == 0) return "the definition of Func '" + func + "'";
    return "update " + std::to_string(index - 1) + " of Func '" + func + "'";
}

std::string storage_name(const FunctionContents &f, int value_index) {
    if (f.outputs() == 1) return f.name;
    return f.name + "." + std::to_string(value_index);
}

std::vector<FunctionPtr> pipeline_functions(const std::vector<FunctionPtr> &outputs) {
    std::map<std::string, FunctionPtr> env;
    for (const FunctionPtr &o : outputs) {
        if (o.defined() && o.get()->defined()) build_environment(o, env);
    }
    std::vector<FunctionPtr> functions;
    for (const auto &[name, f] : env) functions.push_back(f.weakened());
    return functions;
}

PipelineStages build_pipeline_stages(const std::vector<FunctionPtr> &outputs) {
    PipelineStages p;
    for (const FunctionPtr &o : outputs) {
        if (!o.defined() || !o.get()->defined()) {
            std::string name = o.defined() ? o.get()->name : "<null>";
            throw CompileError("Func '" + name + "' is a pipeline output but has no definition. Define it before realizing.");
        }
        p.outputs.push_back(o.strengthened());
        build_environment(o, p.env);
    }
    std::set<std::string> visited;
    std::vector<std::string> all_in_order;
    for (const FunctionPtr &o : outputs) visit_in_order(o.get()->name, p.env, visited, all_in_order);

    std::set<std::string> inlined;
    for (const std::string &name : all_in_order) {
        if (!p.is_output(name) && p.func(name).can_be_inlined()) inlined.insert(name);
    }
    InlineCalls inliner(p.env, inlined);
    const std::map<std::string, Expr> capacities = scan_loop_capacities(p.outputs);
    for (const std::string &name : all_in_order) {
        const FunctionContents &f = p.func(name);
        if (f.updates.empty() && is_undef(f.init.values.at(0))) {
            throw CompileError("Func '" + name + "' is defined as undef() and has no update definition, so it "
                               "has no values. Give it an update definition, or a value.");
        }
        if (inlined.count(name)) continue;
        p.order.push_back(name);
        for (int s = 0; s < f.stages(); s++) p.stages[name].push_back(make_stage(f, s, inliner, capacities));
    }
    return p;
}

}  // namespace internal
}  // namespace loom
