#ifndef LOOM_AUTOSCHEDULE_GENERATOR_AUTOSCHEDULE_H
#define LOOM_AUTOSCHEDULE_GENERATOR_AUTOSCHEDULE_H

/** \file
 * A Generator's autoscheduler GeneratorParams, Halide 16's
 * `autoscheduler=NAME` and `autoscheduler.KEY=VALUE`, and Halide 14's
 * `auto_schedule=true` with `machine_params=P,C,B`, and running the chosen
 * autoscheduler after schedule() (docs/AUTOSCHEDULER.md).
 */

#include <memory>
#include <optional>
#include <string>

#include "loom/AutoSchedule.h"

namespace loom {
class Pipeline;
namespace internal {

struct GeneratorAutoscheduling {
    AutoschedulerParams params;          // autoscheduler=, autoscheduler.KEY=
    bool auto_schedule = false;          // Halide 14: auto_schedule=true
    std::optional<MachineParams> machine_params;  // Halide 14: machine_params=
    std::optional<AutoSchedulerResults> results;  // once run
};

/** Handles `name=value` if name is one of the autoscheduler GeneratorParams
 * (creating *state on first use); returns false otherwise.
 * \throws CompileError naming `who` for a value that does not parse. */
bool set_autoscheduler_generator_param(std::shared_ptr<GeneratorAutoscheduling> &state, const std::string &who,
                                       const std::string &name, const std::string &value);

/** Whether the params ask for an autoscheduler. */
bool wants_autoscheduler(const GeneratorAutoscheduling *state);

/** Runs the chosen autoscheduler on the generator's pipeline and keeps the
 * results in state. \throws CompileError as Pipeline::apply_autoscheduler,
 * or when both the Halide 14 and 16 forms are given, or autoscheduler.KEY
 * without autoscheduler=NAME. */
void run_generator_autoscheduler(GeneratorAutoscheduling &state, const Pipeline &pipeline, const Target &target);

}  // namespace internal
}  // namespace loom

#endif
