#include "lower/BoundsInference.h"

#include "ir/IRPrinter.h"
#include "ir/IRUtil.h"
#include "ir/Simplify.h"
#include "loom/Error.h"

namespace loom {
namespace internal {

namespace {

Expr var(const std::string &name) { return Variable::make(Int(32), name); }

/** The stage's loop variables, each bounded by its loop range. */
Scope<Interval> stage_scope(const Stage &s) {
    Scope<Interval> scope;
    for (const std::string &v : s.pure_vars) scope.push(v, Interval(var(v + ".min"), var(v + ".max")));
    for (const ReductionVariable &rv : s.rvars) {
        scope.push(rv.var, Interval(rv.min, simplify(Sub::make(Add::make(rv.min, rv.extent), Expr(1)))));
    }
    return scope;
}

/** The region of each Func and input buffer that one stage reads. */
std::map<std::string, Box> stage_requirements(const Stage &s) {
    Scope<Interval> scope = stage_scope(s);
    std::map<std::string, Box> result;
    auto add = [&](const Expr &e) {
        for (const auto &[name, box] : boxes_required(e, scope)) {
            auto it = result.find(name);
            if (it == result.end()) {
                result[name] = box;
            } else {
                merge_boxes(it->second, box);
            }
        }
    };
    for (const Expr &e : s.args) add(e);
    for (const Expr &e : s.values) add(e);
    if (s.predicate.defined()) add(s.predicate);
    return result;
}

std::string stage_description(const Stage &s) {
    if (s.index == 0) return "the definition of Func '" + s.func + "'";
    return "update " + std::to_string(s.index - 1) + " of Func '" + s.func + "'";
}

void require_bounded(const Box &box, const std::string &what, const std::string &where, const std::string &advice) {
    for (size_t d = 0; d < box.size(); d++) {
        if (box[d].is_bounded()) continue;
        throw CompileError(what + " is accessed at an index that bounds inference cannot bound in dimension " +
                           std::to_string(d) + " (" + where + "). " + advice);
    }
}

void merge_into(std::map<std::string, Box> &into, const std::string &name, const Box &box) {
    auto it = into.find(name);
    if (it == into.end()) {
        into[name] = box;
    } else {
        merge_boxes(it->second, box);
    }
}

class BoundsInference {
public:
    explicit BoundsInference(const PipelineStages &p) : p_(p) {}

    InferredBounds run() {
        for (auto it = p_.order.rbegin(); it != p_.order.rend(); ++it) infer_func(*it);
        return std::move(result_);
    }

private:
    /** Defines name = value and returns a Variable referring to it. */
    Expr define(const std::string &name, const Expr &value) {
        result_.lets.emplace_back(name, simplify(value));
        return var(name);
    }

    Box output_buffer_region(const FunctionContents &f) {
        const std::string buf = storage_name(f, 0);
        Box box;
        for (int d = 0; d < f.dimensions(); d++) {
            Expr min = var(buf + ".min." + std::to_string(d));
            Expr extent = var(buf + ".extent." + std::to_string(d));
            box.emplace_back(min, Sub::make(Add::make(min, extent), Expr(1)));
        }
        return box;
    }

    /** Applies Func::bound / bound_extent, and checks they cover the need. */
    Box apply_user_bounds(const FunctionContents &f, Box required) {
        for (const Bound &b : f.schedule.bounds) {
            int dim = -1;
            for (int i = 0; i < f.dimensions(); i++) {
                if (f.args[i] == b.var) dim = i;
            }
            if (dim < 0) {
                throw CompileError("Func '" + f.name + "' has a bound on '" + b.var + "', which is not one of its pure variables.");
            }
            const Interval &need = required[dim];
            Expr min = b.min.defined() ? b.min : need.min;
            Expr max = simplify(Sub::make(Add::make(min, b.extent), Expr(1)));
            if (need.is_bounded()) {
                std::string what = "Func " + f.name + " is bounded in dimension " + b.var + " to [";
                Expr ok = And::make(LE::make(min, need.min), GE::make(max, need.max));
                Expr msg = Call::make(Int(32), intrinsic::error,
                                      {Expr(loom_error_code_buffer_too_small), StringImm::make(what), min,
                                       StringImm::make(", "), max, StringImm::make("], but its consumers read [") ,
                                       need.min, StringImm::make(", "), need.max,
                                       StringImm::make("]. Widen the bound or drop it.")},
                                      CallType::Intrinsic);
                result_.checks.push_back(AssertStmt::make(ok, msg));
            }
            required[dim] = Interval(min, max);
        }
        return required;
    }

    void infer_func(const std::string &name) {
        const FunctionContents &f = p_.func(name);
        const std::vector<Stage> &stages = p_.stages.at(name);
        const bool output = p_.is_output(name);

        Box need;
        auto consumers = consumer_needs_.find(name);
        if (output) {
            need = output_buffer_region(f);
        } else if (consumers != consumer_needs_.end()) {
            need = consumers->second;
            require_bounded(need, "Func '" + name + "'", "called by " + consumer_names_[name],
                            "Clamp the index (clamp(), a BoundaryConditions function) or give '" + name +
                                "' an explicit size with bound().");
        } else {
            throw InternalError("Func " + name + " is realized but nothing calls it");
        }
        need = apply_user_bounds(f, need);

        // Stage k computes what later stages and the consumers need.
        Box computed = need;
        Box realized;
        for (int k = (int)stages.size() - 1; k >= 0; k--) {
            const Stage &s = stages[k];
            for (int i = 0; i < f.dimensions(); i++) {
                Expr min = define(s.pure_vars[i] + ".min", computed[i].min);
                Expr max = define(s.pure_vars[i] + ".max", computed[i].max);
                computed[i] = Interval(min, max);
            }
            if (k == 0) break;
            auto reqs = stage_requirements(s);
            auto self = reqs.find(name);
            if (self != reqs.end()) {
                require_bounded(self->second, "Func '" + name + "'", "it reads itself in " + stage_description(s),
                                "Clamp the index so it stays in a known range.");
                merge_boxes(computed, self->second);
            }
        }
        realized = computed;
        for (size_t k = 1; k < stages.size(); k++) {
            Scope<Interval> scope = stage_scope(stages[k]);
            Box written;
            for (const Expr &a : stages[k].args) written.push_back(bounds_of_expr_in_scope(a, scope));
            require_bounded(written, "Func '" + name + "'", "written by " + stage_description(stages[k]),
                            "Clamp the index of the update's left-hand side so it stays in a known range.");
            merge_boxes(realized, written);
        }

        if (output) {
            if (consumers != consumer_needs_.end()) merge_boxes(realized, consumers->second);
            for (int v = 0; v < f.outputs(); v++) result_.output_regions[storage_name(f, v)] = realized;
        } else {
            for (int i = 0; i < f.dimensions(); i++) {
                const std::string base = name + "." + f.args[i];
                Expr min = define(base + ".min_realized", realized[i].min);
                define(base + ".extent_realized", Add::make(Sub::make(realized[i].max, min), Expr(1)));
            }
        }

        // What this Func's stages need of their producers and inputs.
        for (const Stage &s : stages) {
            for (const auto &[callee, box] : stage_requirements(s)) {
                if (callee == name) continue;
                if (p_.env.count(callee)) {
                    merge_into(consumer_needs_, callee, box);
                    add_consumer_name(callee, s);
                    continue;
                }
                require_bounded(box, "Input buffer '" + callee + "'", "read by " + stage_description(s),
                                "Clamp the index (clamp() or a BoundaryConditions function) so Loom can size the "
                                "region it reads.");
                merge_into(result_.input_regions, callee, box);
            }
        }
    }

    void add_consumer_name(const std::string &callee, const Stage &s) {
        std::string &names = consumer_names_[callee];
        std::string desc = stage_description(s);
        if (names.find(desc) != std::string::npos) return;
        names += names.empty() ? desc : " and " + desc;
    }

    const PipelineStages &p_;
    InferredBounds result_;
    std::map<std::string, Box> consumer_needs_;
    std::map<std::string, std::string> consumer_names_;
};

}  // namespace

InferredBounds infer_bounds(const PipelineStages &pipeline) { return BoundsInference(pipeline).run(); }

}  // namespace internal
}  // namespace loom
