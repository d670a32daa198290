#include "lower/Specialize.h"

#include <map>

#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "loom/Error.h"
#include "loom/runtime/loom_runtime.h"
#include "lower/StageLoopNest.h"

namespace loom {
namespace internal {

namespace {

bool has_specializations(const FunctionContents &f) {
    for (int s = 0; s < f.stages(); s++) {
        if (!f.stage(s).specializations.empty()) return true;
    }
    return false;
}

Stmt failure(const Stage &stage, const std::string &message) {
    const std::string text = stage_description(stage.func, stage.index) + ": no specialization matched, and "
                             "specialize_fail says: " + message;
    Expr call = Call::make(Int(32), intrinsic::error,
                           {Expr((int)loom_error_code_user_assertion), StringImm::make(text)}, CallType::Intrinsic);
    return AssertStmt::make(const_false(), call);
}

Stmt build_chain(const Stage &base, const std::vector<Dim> &dims, const std::vector<Split> &splits,
                 DeviceAPI single_thread, const std::vector<StageSpecialization> &specializations,
                 bool fixed_storage, std::set<std::string> *coordinates);

Stmt build_branch(const Stage &base, const StageSpecialization &sp, bool fixed_storage,
                  std::set<std::string> *coordinates) {
    // A specialization copies the stage's whole schedule, so its dims are
    // empty only where the stage's are (the defaults Stages computed).
    const bool own_loops = !sp.dims.empty() || !sp.splits.empty();
    return build_chain(base, own_loops ? sp.dims : base.dims, own_loops ? sp.splits : base.splits,
                       sp.single_thread_device_api, sp.specializations, fixed_storage, coordinates);
}

Stmt build_chain(const Stage &base, const std::vector<Dim> &dims, const std::vector<Split> &splits,
                 DeviceAPI single_thread, const std::vector<StageSpecialization> &specializations,
                 bool fixed_storage, std::set<std::string> *coordinates) {
    // Which branches can run: up to the first condition that is always true.
    std::vector<const StageSpecialization *> live;
    const StageSpecialization *always = nullptr;
    for (const StageSpecialization &sp : specializations) {
        if (!sp.condition.defined()) {
            live.push_back(&sp);
            break;
        }
        Expr c = simplify(sp.condition);
        if (is_const_zero(c)) continue;
        if (is_const_one(c)) {
            always = &sp;
            break;
        }
        live.push_back(&sp);
    }
    Stmt otherwise;
    if (always) {
        otherwise = build_branch(base, *always, fixed_storage, coordinates);
    } else if (!live.empty() && !live.back()->condition.defined()) {
        otherwise = failure(base, live.back()->failure_message);
        live.pop_back();
    } else {
        Stage own = base;
        own.dims = dims;
        own.splits = splits;
        own.single_thread_device_api = single_thread;
        own.specializations.clear();
        otherwise = build_stage_loop_nest(own, fixed_storage, coordinates);
    }
    for (auto it = live.rbegin(); it != live.rend(); ++it) {
        otherwise = IfThenElse::make((*it)->condition, build_branch(base, **it, fixed_storage, coordinates),
                                     otherwise);
    }
    return otherwise;
}

/** The facts `v == c` a condition states (a conjunction of them). */
void collect_facts(const Expr &c, std::map<std::string, Expr> &facts) {
    if (const And *a = c.as<And>()) {
        collect_facts(a->a, facts);
        collect_facts(a->b, facts);
        return;
    }
    if (const Variable *v = c.as<Variable>()) {
        if (v->type == Bool() && v->param.defined()) facts[v->name] = const_true();
        return;
    }
    const EQ *eq = c.as<EQ>();
    if (!eq) return;
    const Variable *v = eq->a.as<Variable>();
    Expr value = eq->b;
    if (!v) {
        v = eq->b.as<Variable>();
        value = eq->a;
    }
    // Only Params and buffer fields: they are never redefined inside.
    if (v && v->param.defined() && is_const(value) && !v->type.is_vector()) facts[v->name] = value;
}

/** Inside each specialization, the facts its condition states: a Param or
 * buffer field `v == c` is c there. The lets around the branch that read such
 * a field (the bounds of the stage's loops, defined once outside the
 * specializations) are restated inside it with the fact applied, so a loop
 * over brighter.extent.2 is a loop of 3 where the condition says
 * brighter.extent.2 == 3 (Halide's lesson 16 unrolls that loop). */
class SubstituteFacts : public IRMutator {
protected:
    using IRMutator::visit;
    Stmt visit(const LetStmt *op) override {
        Expr value = mutate(op->value);
        enclosing_lets_.emplace_back(op->name, value);
        Stmt body = mutate(op->body);
        enclosing_lets_.pop_back();
        return LetStmt::make(op->name, value, body);
    }
    Stmt visit(const IfThenElse *op) override {
        Stmt then_case = mutate(op->then_case);
        Stmt else_case = op->else_case.defined() ? mutate(op->else_case) : Stmt();
        std::map<std::string, Expr> facts;
        collect_facts(op->condition, facts);
        if (!facts.empty()) {
            // Outermost first, so a let reading an earlier restated one is restated too.
            for (const auto &[name, value] : enclosing_lets_) {
                bool reads_a_fact = false;
                for (const auto &fact : facts) reads_a_fact = reads_a_fact || expr_uses_var(value, fact.first);
                if (reads_a_fact) facts[name] = substitute(facts, value);
            }
            then_case = substitute(facts, then_case);
        }
        return IfThenElse::make(op->condition, then_case, else_case);
    }

private:
    std::vector<std::pair<std::string, Expr>> enclosing_lets_;
};

void collect_dims(const std::vector<StageSpecialization> &list, std::vector<const std::vector<Dim> *> &out) {
    for (const StageSpecialization &sp : list) {
        out.push_back(&sp.dims);
        collect_dims(sp.specializations, out);
    }
}

}  // namespace

void check_specializations(const PipelineStages &pipeline) {
    std::set<std::string> realized(pipeline.order.begin(), pipeline.order.end());
    for (const auto &[name, func] : pipeline.env) {
        const FunctionContents &f = *func.get();
        if (has_specializations(f) && !realized.count(name)) {
            throw CompileError("Func '" + name + "' is specialized (specialize()), but it is computed inline, so it "
                               "has no loop nest of its own to specialize. Schedule it with compute_root() or "
                               "compute_at().");
        }
    }
    for (const auto &[name, stages] : pipeline.stages) {
        for (const Stage &s : stages) {
            if (s.compute_with.kind != LoopLevel::At) continue;
            const std::string parent = s.compute_with.func;
            bool parent_specialized = false;
            if (pipeline.env.count(parent)) {
                const FunctionContents &g = pipeline.func(parent);
                int k = s.compute_with.stage < 0 ? g.stages() - 1 : s.compute_with.stage;
                parent_specialized = k < g.stages() && !g.stage(k).specializations.empty();
            }
            if (!s.specializations.empty() || parent_specialized) {
                throw CompileError(stage_description(name, s.index) + " is fused with Func '" + parent +
                                   "' by compute_with, but " +
                                   (parent_specialized ? "that stage" : std::string("this stage")) +
                                   " is specialized: a specialization has loops of its own, which the other "
                                   "stage can't share. Remove the compute_with or the specialize().");
            }
        }
    }
}

Stmt build_specialized_loop_nest(const Stage &stage, bool fixed_storage, std::set<std::string> *coordinates) {
    if (stage.specializations.empty()) return build_stage_loop_nest(stage, fixed_storage, coordinates);
    return build_chain(stage, stage.dims, stage.splits, stage.single_thread_device_api, stage.specializations,
                       fixed_storage, coordinates);
}

Stmt substitute_specialization_facts(const Stmt &s) { return SubstituteFacts().mutate(s); }

std::vector<const std::vector<Dim> *> all_stage_dims(const Stage &stage) {
    std::vector<const std::vector<Dim> *> result = {&stage.dims};
    collect_dims(stage.specializations, result);
    return result;
}

}  // namespace internal
}  // namespace loom
