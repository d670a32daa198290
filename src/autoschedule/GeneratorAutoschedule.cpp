// A Generator's autoscheduler GeneratorParams (GeneratorAutoschedule.h).

#include "autoschedule/GeneratorAutoschedule.h"

#include "loom/Error.h"
#include "loom/Generator.h"

namespace loom {
namespace internal {

bool set_autoscheduler_generator_param(std::shared_ptr<GeneratorAutoscheduling> &state, const std::string &who,
                                       const std::string &name, const std::string &value) {
    const std::string extra_prefix = "autoscheduler.";
    const bool is_extra = name.rfind(extra_prefix, 0) == 0;
    if (name != "autoscheduler" && !is_extra && name != "auto_schedule" && name != "machine_params") return false;
    if (!state) state = std::make_shared<GeneratorAutoscheduling>();
    const std::string param = who + "GeneratorParam '" + name + "'";
    if (name == "autoscheduler") {
        state->params.name = value;
    } else if (is_extra) {
        const std::string key = name.substr(extra_prefix.size());
        if (key.empty()) throw CompileError(param + " names no parameter: write autoscheduler.KEY=VALUE.");
        state->params.extra[key] = value;
    } else if (name == "auto_schedule") {
        state->auto_schedule = parse_generator_bool(param, value);
    } else {
        state->machine_params = MachineParams(value);
    }
    return true;
}

bool wants_autoscheduler(const GeneratorAutoscheduling *state) {
    return state && (!state->params.name.empty() || state->auto_schedule);
}

void run_generator_autoscheduler(GeneratorAutoscheduling &state, const Pipeline &pipeline, const Target &target) {
    if (!state.params.name.empty() && state.auto_schedule) {
        throw CompileError("both autoscheduler=" + state.params.name +
                           " (Halide 16) and auto_schedule=true (Halide 14) are given; give one of them.");
    }
    if (state.auto_schedule && !state.params.extra.empty()) {
        throw CompileError("autoscheduler." + state.params.extra.begin()->first +
                           " goes with autoscheduler=NAME; with auto_schedule=true give machine_params=P,C,B.");
    }
    if (state.params.name.empty() && !state.params.extra.empty()) {
        throw CompileError("autoscheduler." + state.params.extra.begin()->first +
                           " is given, but no autoscheduler=NAME chooses the autoscheduler it is for.");
    }
    if (state.auto_schedule) {
        state.results = pipeline.auto_schedule(target, state.machine_params.value_or(MachineParams::generic()));
        return;
    }
    if (state.machine_params) {
        throw CompileError("machine_params goes with auto_schedule=true (Halide 14); with autoscheduler=" +
                           state.params.name + " give autoscheduler.parallelism=... and so on.");
    }
    state.results = pipeline.apply_autoscheduler(target, state.params);
}

}  // namespace internal

bool GeneratorBase::using_autoscheduler() const { return internal::wants_autoscheduler(autoscheduling_.get()); }

const AutoSchedulerResults *GeneratorBase::autoscheduler_results() const {
    return autoscheduling_ && autoscheduling_->results ? &*autoscheduling_->results : nullptr;
}

}  // namespace loom
