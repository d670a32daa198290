#include "lower/FunctionValueBounds.h"

#include <optional>
#include <set>

#include "ir/IRVisitor.h"
#include "ir/Simplify.h"
#include "lower/ExternStages.h"

namespace loom {
namespace internal {

namespace {

/** Whether e means the same everywhere in the pipeline: it reads only
 * constants, Params and names it binds itself (no loop variable, no Func,
 * buffer or memory). */
bool is_pipeline_constant(const Expr &e) {
    struct Check : IRGraphVisitor {
        bool ok = true;
        std::set<std::string> bound;
        using IRGraphVisitor::visit;
        void visit(const Let *op) override {
            bound.insert(op->name);
            IRGraphVisitor::visit(op);
        }
        void visit(const Variable *op) override { ok = ok && (op->param.defined() || bound.count(op->name)); }
        void visit(const Call *op) override {
            // A trip count is what a loop of the pipeline wrote.
            ok = ok && (op->call_type == CallType::PureExtern || op->call_type == CallType::PureIntrinsic) &&
                 !op->is_intrinsic(intrinsic::trip_count);
            IRGraphVisitor::visit(op);
        }
        void visit(const Load *) override { ok = false; }
    } check;
    check.include(e);
    return check.ok;
}

/** The interval with each endpoint that is not a pipeline constant dropped. */
Interval pipeline_constant_part(const Interval &i) {
    return Interval(i.min.defined() && is_pipeline_constant(i.min) ? i.min : Expr(),
                    i.max.defined() && is_pipeline_constant(i.max) ? i.max : Expr());
}

bool calls_func(const Expr &e, const std::string &name) {
    struct Find : IRGraphVisitor {
        explicit Find(const std::string &n) : name(n) {}
        const std::string &name;
        bool found = false;
        using IRGraphVisitor::visit;
        void visit(const Call *op) override {
            found = found || (op->call_type == CallType::Func && op->name == name);
            IRGraphVisitor::visit(op);
        }
    } find(name);
    find.include(e);
    return find.found;
}

bool is_extern_stage(const Expr &value) {
    const Call *c = value.as<Call>();
    return c && c->is_intrinsic(intrinsic::extern_stage);
}

/** Whether `inner` lies inside `outer` (an undefined endpoint of outer
 * holds everything on its side). */
bool provably_inside(const Interval &inner, const Interval &outer) {
    auto le = [](const Expr &a, const Expr &b) { return a.defined() && b.defined() && can_prove(LE::make(a, b)); };
    const bool lo = !outer.min.defined() || le(outer.min, inner.min);
    const bool hi = !outer.max.defined() || le(inner.max, outer.max);
    return lo && hi;
}

/** The stage's pure Vars unbounded, its RVars over their RDom. */
Scope<Interval> value_scope(const Stage &s) {
    Scope<Interval> scope;
    for (const std::string &v : s.pure_vars) scope.push(v, Interval::everything());
    for (const ReductionVariable &rv : s.rvars) {
        scope.push(rv.var, Interval(rv.min, simplify(Sub::make(Add::make(rv.min, rv.extent), Expr(1)))));
    }
    return scope;
}

/** The bounds of value `index` of one stage, where calls of that value of
 * the Func itself read values in `self` (its other values anything of their
 * type) and other Funcs their bounds in `known`. */
Interval stage_value_bounds(const Stage &s, int index, const FuncValueBounds &known, const Interval &self) {
    FuncValueBounds with_self = known;
    with_self[{s.func, index}] = self;
    const WithFuncValueBounds values(with_self);
    return pipeline_constant_part(bounds_of_expr_in_scope(s.values[index], value_scope(s)));
}

/** The sides of `widened` that a self-reading update keeps: both when it
 * maps values inside them inside them; else each side on its own, the
 * other side open (an update that only adds keeps its lower bound). */
Interval sides_kept_by_self_read(const Stage &s, int index, const FuncValueBounds &known, const Interval &widened) {
    if (provably_inside(stage_value_bounds(s, index, known, widened), widened)) return widened;
    Interval kept;
    if (widened.min.defined()) {
        const Interval lower(widened.min, Expr());
        if (provably_inside(stage_value_bounds(s, index, known, lower), lower)) kept.min = widened.min;
    }
    if (widened.max.defined()) {
        const Interval upper(Expr(), widened.max);
        if (provably_inside(stage_value_bounds(s, index, known, upper), upper)) kept.max = widened.max;
    }
    return kept;
}

/** The bounds of every value of Tuple element `index` that f's stages
 * write, or nothing when they are unbounded on both sides. */
std::optional<Interval> element_value_bounds(const std::vector<Stage> &stages, int index,
                                             const FuncValueBounds &known) {
    Interval all = stage_value_bounds(stages[0], index, known, Interval::everything());
    for (size_t k = 1; k < stages.size(); k++) {
        const Stage &s = stages[k];
        if ((int)s.values.size() <= index) return std::nullopt;
        Interval update = stage_value_bounds(s, index, known, all);
        if (provably_inside(update, all)) continue;
        Interval widened = Interval::make_union(all, update);
        all = calls_func(s.values[index], s.func) ? sides_kept_by_self_read(s, index, known, widened) : widened;
        if (!all.min.defined() && !all.max.defined()) return std::nullopt;
    }
    if (!all.min.defined() && !all.max.defined()) return std::nullopt;
    return all;
}

}  // namespace

FuncValueBounds compute_function_value_bounds(const PipelineStages &pipeline) {
    FuncValueBounds result;
    for (const std::string &name : pipeline.order) {
        auto it = pipeline.stages.find(name);
        if (it == pipeline.stages.end() || it->second.empty()) continue;
        const std::vector<Stage> &stages = it->second;
        if (is_extern_stage(stages[0].values[0])) continue;
        for (int v = 0; v < (int)stages[0].values.size(); v++) {
            if (auto bounds = element_value_bounds(stages, v, result)) result[{name, v}] = *bounds;
        }
    }
    return result;
}

}  // namespace internal
}  // namespace loom
