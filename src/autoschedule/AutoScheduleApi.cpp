// The public face of autoscheduling (loom/AutoSchedule.h): MachineParams and
// AutoschedulerParams in their string forms, the registry of autoschedulers,
// load_plugin, estimates on Funcs and buffer parameters, and the Pipeline
// methods that run an autoscheduler.

#include "loom/AutoSchedule.h"

#include <dlfcn.h>

#include <algorithm>
#include <charconv>
#include <mutex>
#include <sstream>

#include "autoschedule/Heuristic.h"
#include "ir/IRUtil.h"
#include "loom/Dimension.h"
#include "loom/Error.h"
#include "loom/Func.h"
#include "loom/Pipeline.h"

namespace loom {

using namespace internal;

namespace {

std::string join(const std::vector<std::string> &items) {
    std::string s;
    for (size_t i = 0; i < items.size(); i++) s += (i ? ", " : "") + items[i];
    return s;
}

// Halide's names for its bundled autoschedulers: each selects Loom's heuristic
// (docs/AUTOSCHEDULER.md says why).
const std::vector<std::string> &halide_scheduler_names() {
    static const std::vector<std::string> names = {"Mullapudi2016", "Adams2019", "Li2018", "Anderson2021"};
    return names;
}

struct Registry {
    std::mutex mutex;
    std::map<std::string, AutoSchedulerFn> schedulers;
    std::string default_name = heuristic_autoscheduler_name();
};

Registry &registry() {
    static Registry *r = [] {
        auto *reg = new Registry;  // never destroyed: plugins may register from static initializers
        reg->schedulers[heuristic_autoscheduler_name()] = run_heuristic_autoscheduler;
        for (const std::string &n : halide_scheduler_names()) reg->schedulers[n] = run_heuristic_autoscheduler;
        return reg;
    }();
    return *r;
}

std::vector<std::string> known_names_locked(const Registry &r) {
    std::vector<std::string> names;
    for (const auto &entry : r.schedulers) names.push_back(entry.first);
    return names;
}

AutoSchedulerFn find_autoscheduler(const std::string &name, const char *who) {
    Registry &r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.schedulers.find(name);
    if (it != r.schedulers.end()) return it->second;
    if (name.empty()) {
        throw CompileError(std::string(who) + " needs the name of an autoscheduler; the known ones are " +
                           join(known_names_locked(r)) + ".");
    }
    throw CompileError(std::string(who) + ": there is no autoscheduler named '" + name + "'; the known ones are " +
                       join(known_names_locked(r)) + " (load_plugin() adds more).");
}

bool parse_number(const std::string &text, uint64_t &value) {
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    return ec == std::errc() && ptr == text.data() + text.size() && !text.empty();
}

}  // namespace

// ---- MachineParams and AutoschedulerParams ----------------------------------------

MachineParams::MachineParams(const std::string &text) {
    std::vector<std::string> parts;
    std::stringstream ss(text);
    std::string part;
    while (std::getline(ss, part, ',')) parts.push_back(part);
    uint64_t cores = 0, cache = 0;
    float cost = 0;
    bool ok = parts.size() == 3 && parse_number(parts[0], cores) && parse_number(parts[1], cache) && cores > 0 &&
              cores <= 1u << 20;
    if (ok) {
        std::istringstream in(parts[2]);
        ok = bool(in >> cost) && in.eof() && cost > 0;
    }
    if (!ok) {
        throw CompileError("MachineParams: '" + text +
                           "' is not of the form parallelism,last_level_cache_size,balance (e.g. 16,16777216,40) "
                           "with positive numbers.");
    }
    parallelism = int(cores);
    last_level_cache_size = cache;
    balance = cost;
}

std::string MachineParams::to_string() const {
    std::ostringstream out;
    out << parallelism << "," << last_level_cache_size << "," << balance;
    return out.str();
}

std::string AutoschedulerParams::to_string() const {
    std::string s = "autoscheduler=" + name;
    for (const auto &[key, value] : extra) s += " autoscheduler." + key + "=" + value;
    return s;
}

// ---- Registry and plugins -----------------------------------------------------------

void Pipeline::add_autoscheduler(const std::string &name, const AutoSchedulerFn &autoscheduler) {
    if (name.empty()) throw CompileError("Pipeline::add_autoscheduler needs a non-empty name.");
    if (!autoscheduler) throw CompileError("Pipeline::add_autoscheduler('" + name + "') is given an empty function.");
    Registry &r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    if (!r.schedulers.emplace(name, autoscheduler).second) {
        throw CompileError("Pipeline::add_autoscheduler: an autoscheduler named '" + name +
                           "' is already registered; choose another name.");
    }
}

void Pipeline::set_default_autoscheduler_name(const std::string &name) {
    find_autoscheduler(name, "Pipeline::set_default_autoscheduler_name");
    Registry &r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.default_name = name;
}

void load_plugin(const std::string &lib_name) {
    // Halide's plugins link libHalide, so they can't load into Loom; the
    // schedulers they provide are registered under their names already.
    std::string base = lib_name.substr(lib_name.find_last_of('/') + 1);
    if (base.rfind("lib", 0) == 0) base = base.substr(3);
    if (base.size() > 3 && base.compare(base.size() - 3, 3, ".so") == 0) base = base.substr(0, base.size() - 3);
    static const std::vector<std::string> halide_plugins = {"autoschedule_mullapudi2016", "autoschedule_adams2019",
                                                            "autoschedule_li2018", "autoschedule_anderson2021"};
    if (std::find(halide_plugins.begin(), halide_plugins.end(), base) != halide_plugins.end()) return;

    std::vector<std::string> candidates = {lib_name};
    if (lib_name.find('/') == std::string::npos && lib_name.find(".so") == std::string::npos) {
        candidates.push_back("lib" + lib_name + ".so");
    }
    std::string reasons;
    for (const std::string &path : candidates) {
        if (dlopen(path.c_str(), RTLD_LAZY | RTLD_GLOBAL)) return;
        const char *why = dlerror();
        reasons += std::string(reasons.empty() ? "" : "; ") + (why ? why : path + ": unknown error");
    }
    throw CompileError("load_plugin: can't load '" + lib_name + "': " + reasons +
                       ". A plugin is a shared library that calls Pipeline::add_autoscheduler when loaded; "
                       "Halide's own plugins (libautoschedule_*.so) need libHalide and can't be loaded into Loom, "
                       "but their autoschedulers' names are built in.");
}

// ---- Estimates ----------------------------------------------------------------------

namespace internal {

void set_buffer_estimates(const Parameter &p, const Region &estimates,
                          const std::string &who) {
    if (!p.defined()) {
        throw CompileError(who + ".set_estimates: the buffer is not made yet (its type or dimensions come from the "
                                 "command line); call set_estimates in generate() or schedule().");
    }
    if ((int)estimates.size() != p.dimensions()) {
        throw CompileError(who + ".set_estimates is given " + std::to_string(estimates.size()) +
                           " {min, extent} pairs, but the buffer has " + std::to_string(p.dimensions()) +
                           " dimensions: give one per dimension.");
    }
    for (int d = 0; d < p.dimensions(); d++) Dimension(p, d).set_estimate(estimates[d].min, estimates[d].extent);
}

}  // namespace internal

Func &Func::set_estimate(const Var &var, const Expr &min, const Expr &extent) {
    if (!defined()) {
        throw CompileError("Func " + name() + ".set_estimate(" + var.name() +
                           ", ...): the Func has no definition yet; define it first.");
    }
    const std::vector<Var> vars = args();
    int dim = -1;
    for (size_t d = 0; d < vars.size(); d++) {
        if (vars[d].name() == var.name()) dim = int(d);
    }
    if (dim < 0) {
        std::vector<std::string> names;
        for (const Var &v : vars) names.push_back(v.name());
        throw CompileError("Func " + name() + ".set_estimate: '" + var.name() +
                           "' is not a pure argument of the Func; its arguments are " + join(names) + ".");
    }
    const std::optional<int64_t> e = extent.defined() ? as_const_int(extent) : std::nullopt;
    if (e && *e <= 0) {
        throw CompileError("Func " + name() + ".set_estimate(" + var.name() + ", ...): the extent " +
                           std::to_string(*e) + " is not positive.");
    }
    for (const OutputImageParam &buffer : output_buffers()) buffer.dim(dim).set_estimate(min, extent);
    return *this;
}

Func &Func::set_estimates(const Region &estimates) {
    if (!defined()) throw CompileError("Func " + name() + ".set_estimates: the Func has no definition yet; define it first.");
    if ((int)estimates.size() != dimensions()) {
        throw CompileError("Func " + name() + ".set_estimates is given " + std::to_string(estimates.size()) +
                           " {min, extent} pairs, but the Func has " + std::to_string(dimensions()) +
                           " dimensions: give one per dimension.");
    }
    const std::vector<Var> vars = args();
    for (size_t d = 0; d < vars.size(); d++) set_estimate(vars[d], estimates[d].min, estimates[d].extent);
    return *this;
}

// ---- Running an autoscheduler -------------------------------------------------------

AutoSchedulerResults Pipeline::apply_autoscheduler(const Target &target, const AutoschedulerParams &params) const {
    if (!defined()) throw CompileError("apply_autoscheduler: this Pipeline is undefined (default-constructed).");
    AutoSchedulerFn fn = find_autoscheduler(params.name, "apply_autoscheduler");
    AutoSchedulerResults results;
    results.scheduler_name = params.name;
    results.target = target;
    results.autoscheduler_params = params;
    fn(*this, target, params, &results);
    return results;
}

AutoSchedulerResults Pipeline::auto_schedule(const std::string &autoscheduler_name, const Target &target,
                                             const MachineParams &arch_params) const {
    AutoschedulerParams params(autoscheduler_name,
                               {{"parallelism", std::to_string(arch_params.parallelism)},
                                {"last_level_cache_size", std::to_string(arch_params.last_level_cache_size)}});
    std::ostringstream balance;
    balance << arch_params.balance;
    params.extra["balance"] = balance.str();
    AutoSchedulerResults results = apply_autoscheduler(target, params);
    results.machine_params_string = arch_params.to_string();
    return results;
}

AutoSchedulerResults Pipeline::auto_schedule(const Target &target, const MachineParams &arch_params) const {
    std::string name;
    {
        Registry &r = registry();
        std::lock_guard<std::mutex> lock(r.mutex);
        name = r.default_name;
    }
    return auto_schedule(name, target, arch_params);
}

}  // namespace loom
