#ifndef LOOM_AUTOSCHEDULE_H
#define LOOM_AUTOSCHEDULE_H

/** \file
 * Autoscheduling, with Halide's names (docs/AUTOSCHEDULER.md). Give every
 * output a typical size and every input buffer one, then let an
 * autoscheduler write the schedule:
 *
 *     out.set_estimates({{0, 1920}, {0, 1080}});
 *     in.dim(0).set_estimate(0, 1920);
 *     in.dim(1).set_estimate(0, 1080);
 *     Pipeline p(out);
 *     AutoSchedulerResults r = p.apply_autoscheduler(target, {"LoomHeuristic"});   // Halide 16
 *     AutoSchedulerResults r = p.auto_schedule(target, MachineParams::generic());  // Halide 14
 *     std::cout << r.schedule_source;   // the schedule as C++, to paste and edit
 *
 * Loom has one autoscheduler built in, "LoomHeuristic"; Halide's names
 * "Mullapudi2016", "Adams2019", "Li2018" and "Anderson2021" select it too.
 * Pipeline::add_autoscheduler registers more, and load_plugin() loads a
 * shared library that registers them when it is loaded.
 */

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "loom/Expr.h"
#include "loom/Range.h"
#include "loom/Target.h"

namespace loom {

class Pipeline;
namespace internal {
class Parameter;
}

/** Halide 14's description of the machine to schedule for: the number of
 * cores worth keeping busy, the last-level cache size in bytes, and the cost
 * of a load relative to arithmetic. Loom's autoscheduler reads all three. */
struct MachineParams {
    int parallelism = 16;
    uint64_t last_level_cache_size = 16 * 1024 * 1024;
    float balance = 40;

    MachineParams(int parallelism, uint64_t last_level_cache_size, float balance)
        : parallelism(parallelism), last_level_cache_size(last_level_cache_size), balance(balance) {}
    /** From to_string()'s form "parallelism,last_level_cache_size,balance".
     * \throws CompileError if text is not of that form. */
    explicit MachineParams(const std::string &text);
    /** 16 cores, 16 MiB, 40 (Halide's generic()). */
    static MachineParams generic() { return MachineParams(16, 16 * 1024 * 1024, 40); }
    /** "16,16777216,40". */
    std::string to_string() const;
};

/** Halide 16's choice of autoscheduler: its name, and its parameters by
 * name (for Loom's: "parallelism", "last_level_cache_size", "balance"). An
 * empty name means no autoscheduling. */
struct AutoschedulerParams {
    std::string name;
    std::map<std::string, std::string> extra;

    AutoschedulerParams() = default;
    AutoschedulerParams(const std::string &name) : name(name) {}
    AutoschedulerParams(const char *name) : name(name) {}
    AutoschedulerParams(const std::string &name, const std::map<std::string, std::string> &extra)
        : name(name), extra(extra) {}
    /** "autoscheduler=NAME autoscheduler.KEY=VALUE ...", as a generator's
     * command line gives them. */
    std::string to_string() const;
};

/** What an autoscheduler produced. The schedule itself is already applied
 * to the pipeline's Funcs; schedule_source is the same schedule as C++. */
struct AutoSchedulerResults {
    std::string scheduler_name;               // Halide 14's field
    Target target;
    std::string machine_params_string;        // Halide 14's field: MachineParams::to_string()
    AutoschedulerParams autoscheduler_params;  // Halide 16's field
    std::string schedule_source;
    /** A cost model's features; Loom's autoscheduler has no cost model, so
     * it leaves this empty. */
    std::vector<uint8_t> featurization;
};

/** An autoscheduler: schedules the pipeline's Funcs for target and fills
 * in *results (Halide 16's signature). */
using AutoSchedulerFn =
    std::function<void(const Pipeline &, const Target &, const AutoschedulerParams &, AutoSchedulerResults *)>;

/** Loads a shared library whose static initializers register
 * autoschedulers with Pipeline::add_autoscheduler. lib_name is a path, or a
 * name found as lib<name>.so on the library path. Halide's own plugin names
 * (autoschedule_mullapudi2016, autoschedule_adams2019, autoschedule_li2018,
 * autoschedule_anderson2021, with or without lib and .so) load nothing:
 * their schedulers' names are built in. \throws CompileError if the library
 * can't be loaded (with the loader's reason). */
void load_plugin(const std::string &lib_name);

namespace internal {
/** Input<Buffer>::set_estimates and friends: one {min, extent} per
 * dimension of the buffer parameter p, as p.dim(d).set_estimate(min,
 * extent). \throws CompileError naming `who` if p is undefined or the count
 * differs from its dimensions. */
void set_buffer_estimates(const Parameter &p, const Region &estimates,
                          const std::string &who);
}  // namespace internal

}  // namespace loom

#endif
