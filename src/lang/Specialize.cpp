// Stage::specialize / specialize_fail (loom/Stage.h) and Func::output_buffer
// (loom/Func.h): the front end records a Specialization per call; lowering
// duplicates the stage's loop nest under its condition (lower/Specialize.h).

#include "ir/Function.h"
#include "ir/IREquality.h"
#include "ir/IRUtil.h"
#include "lang/Backend.h"
#include "lang/PointDependence.h"
#include "loom/Error.h"
#include "loom/Func.h"
#include "loom/Stage.h"

namespace loom {

using namespace internal;

namespace {

/** The list of specializations that `path` (a Stage's specialization path)
 * adds to: the stage's own, or those of the specialization it names. Also
 * the schedule a new specialization starts from. */
struct SpecializationSite {
    std::vector<Specialization> *list;
    const StageSchedule *schedule;
};

SpecializationSite site(FunctionContents &f, int stage, const std::vector<int> &path) {
    Definition &def = f.stage(stage);
    SpecializationSite s{&def.specializations, &def.schedule};
    for (int i : path) {
        if (i < 0 || i >= (int)s.list->size()) throw InternalError("Specialization index out of range for " + f.name);
        Specialization &sp = (*s.list)[i];
        s = {&sp.specializations, &sp.schedule};
    }
    return s;
}

std::string stage_words(const FunctionContents &f, int stage) {
    return stage == 0 ? "Func '" + f.name + "'" : "update " + std::to_string(stage - 1) + " of Func '" + f.name + "'";
}

FunctionContents &defined_function(const FunctionPtr &func, const char *call) {
    FunctionContents &f = *func.get();
    if (!f.defined()) {
        throw CompileError("Func '" + f.name + "' has no definition yet; define it before calling " + call + ".");
    }
    return f;
}

bool ends_in_failure(const std::vector<Specialization> &list) {
    return !list.empty() && !list.back().condition.defined();
}

}  // namespace

Stage Stage::specialize(const Expr &condition) {
    FunctionContents &f = defined_function(func_, "specialize()");
    const std::string who = stage_words(f, stage_);
    if (!condition.defined()) throw CompileError("specialize() of " + who + " is given an undefined condition.");
    if (condition.type() != Bool()) {
        throw CompileError("specialize() of " + who + " needs a boolean condition, not an Expr of type " +
                           condition.type().to_string() + ". Compare it: specialize(w >= 16), specialize(p != 0).");
    }
    std::string dependence = point_dependence(condition);
    if (!dependence.empty()) {
        throw CompileError("The condition of specialize() of " + who + " reads " + dependence +
                           ", so it is not the same for the whole stage. A specialization condition may use only "
                           "constants, Params and buffer fields (dim(i).min(), .extent(), .stride()).");
    }
    SpecializationSite s = site(f, stage_, specialization_);
    for (size_t i = 0; i < s.list->size(); i++) {
        const Expr &c = (*s.list)[i].condition;
        if (c.defined() && equal(c, condition)) {
            std::vector<int> path = specialization_;
            path.push_back((int)i);
            return Stage(func_, stage_, path);
        }
    }
    if (ends_in_failure(*s.list)) {
        throw CompileError("specialize() of " + who + " comes after specialize_fail(), which must be the last "
                           "specialization. Make every specialize() call first.");
    }
    Specialization sp;
    sp.condition = condition;
    sp.schedule = *s.schedule;
    s.list->push_back(sp);
    mark_changed(f);
    std::vector<int> path = specialization_;
    path.push_back((int)s.list->size() - 1);
    return Stage(func_, stage_, path);
}

void Stage::specialize_fail(const std::string &message) {
    FunctionContents &f = defined_function(func_, "specialize_fail()");
    SpecializationSite s = site(f, stage_, specialization_);
    if (ends_in_failure(*s.list)) {
        throw CompileError("specialize_fail() of " + stage_words(f, stage_) +
                           " is called twice; a stage has at most one failure case, after its specializations.");
    }
    Specialization sp;
    sp.failure_message = message;
    sp.schedule = *s.schedule;
    s.list->push_back(sp);
    mark_changed(f);
}

Stage Func::specialize(const Expr &condition) { return Stage(func_, 0).specialize(condition); }

void Func::specialize_fail(const std::string &message) { Stage(func_, 0).specialize_fail(message); }

std::vector<OutputImageParam> Func::output_buffers() const {
    FunctionContents &f = defined_function(func_, "output_buffers()");
    if (f.output_buffers.size() != f.output_types.size()) {
        f.output_buffers.clear();
        for (int v = 0; v < f.outputs(); v++) {
            const std::string name = f.outputs() == 1 ? f.name : f.name + "." + std::to_string(v);
            Parameter p(f.output_types[v], true, f.dimensions(), name);
            p.get()->is_output_buffer = true;
            f.output_buffers.push_back(p);
        }
    }
    std::vector<OutputImageParam> result;
    for (const Parameter &p : f.output_buffers) result.emplace_back(p, func_);
    return result;
}

OutputImageParam Func::output_buffer() const {
    FunctionContents &f = defined_function(func_, "output_buffer()");
    if (f.outputs() != 1) {
        throw CompileError("Func '" + f.name + "' returns a Tuple of " + std::to_string(f.outputs()) +
                           " values, so it has one output buffer per value: use output_buffers().");
    }
    return output_buffers()[0];
}

}  // namespace loom
