#include "lower/ScheduleChecks.h"
#include "lower/ScheduleFunctions.h"
#include "lower/Stages.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "ir/IRUtil.h"
#include "ir/IRVisitor.h"
#include "ir/Simplify.h"
#include "loom/Error.h"

namespace loom {
namespace internal {

namespace {

/** A use of a Func by one stage of another: inside the stage's loops (its
 * values, arguments, predicates) or outside them (its RDom's bounds). */
struct Use {
    std::string callee;
    bool in_loops = true;
};

/** A loop of the pipeline: loop `var` of stage `stage` of `func`. */
struct LoopId {
    std::string func;
    int stage;
    std::string var;
    bool operator==(const LoopId &o) const { return func == o.func && stage == o.stage && var == o.var; }
};

using LoopList = std::vector<LoopId>;  // outermost first
using SiteList = std::vector<LoopList>;

/** A use of a Func by a stage of another, with the loops around it. */
struct UseSite {
    std::string consumer;
    int stage;
    bool in_loops;
    LoopList loops;
};

std::string stage_text(const std::string &func, int stage) {
    return stage == 0 ? func + " (pure definition)" : func + ".update(" + std::to_string(stage - 1) + ")";
}

std::string level_text(const LoopLevel &l) {
    if (l.is_root()) return "root";
    if (l.is_inlined()) return "inlined";
    return l.func + "." + l.var + (l.stage < 0 ? "" : " (stage " + std::to_string(l.stage) + ")");
}

class Checker {
public:
    explicit Checker(const std::vector<FunctionPtr> &outputs) {
        for (const FunctionPtr &f : outputs) {
            if (!f.defined()) continue;
            outputs_.insert(f.get()->name);
            collect(f);
        }
    }

    void run() {
        for (const auto &[name, f] : env_) {
            check_store_without_compute(*f);
            if (!realized(name)) check_inlined_has_no_loop_schedule(*f);
        }
        check_loop_levels();
        check_realized_cycles();
        // Each specialization has loops of its own (Stage::specialize): the
        // same checks again with that branch's schedule in place of its
        // stage's, the other stages keeping theirs.
        for (const auto &[name, f] : env_) {
            if (!realized(name)) continue;
            for (int s = 0; s < f->stages(); s++) check_specializations(*f, s, f->stage(s).specializations);
        }
    }

private:
    /** The loop-level checks of every realized Func, with the schedules
     * chosen_ names. */
    void check_loop_levels() {
        for (const auto &[name, f] : env_) {
            if (!realized(name)) continue;
            check_compute_level(*f);
            check_store_level(*f);
            for (int s = 0; s < f->stages(); s++) check_compute_with(*f, s);
        }
    }

    void check_specializations(const FunctionContents &f, int stage, const std::vector<Specialization> &list) {
        for (const Specialization &sp : list) {
            if (!sp.condition.defined()) continue;  // specialize_fail: no loops
            if (is_const_zero(simplify(sp.condition))) continue;  // never runs (lower/Specialize.cpp drops it)
            chosen_[{f.name, stage}] = &sp.schedule;
            sites_.clear();
            try {
                check_loop_levels();
            } catch (const CompileError &e) {
                std::ostringstream condition;
                condition << sp.condition;
                chosen_.clear();
                throw CompileError(std::string(e.what()) + " (This is in the specialization of " +
                                   stage_text(f.name, stage) + " where " + condition.str() +
                                   ", whose schedule has loops of its own: a level must name a loop of every "
                                   "specialization.)");
            }
            check_specializations(f, stage, sp.specializations);
            chosen_.erase({f.name, stage});
            sites_.clear();
        }
    }

    /** The schedule of a stage in the branch being checked. */
    const StageSchedule &schedule_of(const FunctionContents &f, int stage) const {
        auto it = chosen_.find({f.name, stage});
        return it == chosen_.end() ? f.stage(stage).schedule : *it->second;
    }

    // ---- Recurrences through other Funcs ----------------------------------

    /** Whether a, which b reads, is computed inside a loop of b (directly,
     * inside a Func computed inside b, or at each use: a Func with updates
     * left inline). */
    bool computed_inside(const std::string &a, const std::string &b) const {
        std::string f = a;
        for (size_t depth = 0; depth <= env_.size(); depth++) {
            auto it = env_.find(f);
            if (it == env_.end() || outputs_.count(f)) return false;
            const LoopLevel &level = it->second->schedule.compute_level;
            if (level.kind == LoopLevel::Inlined) return true;
            if (level.kind != LoopLevel::At) return false;
            if (level.func == b) return true;
            f = level.func;
        }
        return false;
    }

    /** Realized Funcs that read each other (a state whose update reads a
     * step Func that reads the state) read each other's values as they are
     * during an iteration of one of them, so a Func of their cycle must
     * enclose both: be one of them, the other computed inside its loops,
     * or have both computed inside its loops (two step Funcs of one state).
     * Two Funcs computed apart would each need the other finished first. */
    void check_realized_cycles() const {
        std::map<std::string, std::set<std::string>> reads;  // realized -> realized callees
        for (const auto &[callee, f] : env_) {
            if (!realized(callee)) continue;
            for (const auto &[consumer, stage, in_loops] : consumers_of(callee)) {
                if (consumer != callee) reads[consumer].insert(callee);
            }
        }
        auto reaches = [&](const std::string &from, const std::string &to) {
            std::set<std::string> seen{from};
            std::vector<std::string> pending{from};
            while (!pending.empty()) {
                const std::string f = pending.back();
                pending.pop_back();
                for (const std::string &g : reads[f]) {
                    if (g == to) return true;
                    if (seen.insert(g).second) pending.push_back(g);
                }
            }
            return false;
        };
        auto at_or_inside = [&](const std::string &f, const std::string &enclosing) {
            return f == enclosing || computed_inside(f, enclosing);
        };
        for (const auto &[consumer, callees] : reads) {
            for (const std::string &callee : callees) {
                if (!reaches(callee, consumer)) continue;
                bool enclosed = false;
                for (const auto &[name, f] : env_) {
                    const bool on_cycle = name == consumer || (reaches(consumer, name) && reaches(name, consumer));
                    if (on_cycle && realized(name) && at_or_inside(consumer, name) && at_or_inside(callee, name)) {
                        enclosed = true;
                        break;
                    }
                }
                if (enclosed) continue;
                throw CompileError("Funcs " + consumer + " and " + callee + " read each other (" + consumer +
                                   " reads " + callee + ", which reads " + consumer +
                                   ", as in a recurrence through a step Func), but each is computed outside the "
                                   "other, so each would need the other finished first. Compute one inside the "
                                   "other's loops, e.g. " + callee + ".compute_at(" + consumer +
                                   ", <its RVar>) to compute it once per iteration of " + consumer +
                                   "'s update, or leave it inline.");
            }
        }
    }

    // ---- Directives that need a compute level ------------------------------

    /** store_root() / store_at() place storage for a computation; without
     * compute_root() / compute_at() the Func is inlined and has none. */
    void check_store_without_compute(const FunctionContents &f) const {
        if (!f.schedule.compute_level.is_inlined()) return;
        if (!f.schedule.hoist_storage_level.is_inlined()) {
            throw CompileError("Func '" + f.name + "' is scheduled hoist_storage() but computed inline (no "
                               "compute_root() or compute_at()), so it has no storage to hoist. Add compute_at() "
                               "(or compute_root()) inside the hoist level, or remove hoist_storage().");
        }
        if (f.schedule.store_level.is_inlined()) return;
        throw CompileError("Func '" + f.name + "' is stored at " + level_text(f.schedule.store_level) +
                           " but computed inline (no compute_root() or compute_at()), so it has no storage. "
                           "Add compute_at() (or compute_root()) at or inside the store level, or remove the "
                           "store directive.");
    }

    /** Loop directives on a Func that is inlined have no loops to act on. */
    void check_inlined_has_no_loop_schedule(const FunctionContents &f) const {
        if (!f.schedule.storage_dims.empty() || !f.schedule.bound_alignments.empty()) {
            const std::string what = !f.schedule.bound_alignments.empty() ? "align_bounds()/align_extent()"
                                                                          : "align_storage()/bound_storage()";
            throw CompileError("Func '" + f.name + "' is scheduled " + what +
                               " but computed inline, so it has no region or storage of its own to align or bound. "
                               "Schedule it with compute_root() or compute_at(), or remove the directive.");
        }
        const StageSchedule &s = f.init.schedule;
        std::string what;
        if (!s.splits.empty()) {
            what = s.splits.front().kind == Split::FuseVars ? "fuse()" : "a split (split(), tile(), or vectorize()/unroll() with a factor)";
        }
        for (const Dim &d : s.dims) {
            if (!what.empty()) break;
            switch (d.for_type) {
            case ForType::Serial: break;
            case ForType::Parallel: what = "parallel(" + d.var + ")"; break;
            case ForType::Vectorized: what = "vectorize(" + d.var + ")"; break;
            case ForType::Unrolled: what = "unroll(" + d.var + ")"; break;
            default: what = "a GPU loop on " + d.var; break;
            }
        }
        for (size_t i = 0; i < s.dims.size() && what.empty() && s.dims.size() == f.args.size(); i++) {
            if (s.dims[i].var != f.args[i]) what = "reorder()";
        }
        if (what.empty() && s.compute_with.kind == LoopLevel::At) {
            what = "compute_with(" + s.compute_with.func + ", " + s.compute_with.var + ")";
        }
        if (what.empty()) return;
        throw CompileError("Func '" + f.name + "' is computed inline (the default), so it has no loops, but its "
                           "schedule has " + what + ". Compute it at a loop (compute_root() or compute_at()) to "
                           "give it loops, or remove the directive.");
    }

    // ---- The pipeline -----------------------------------------------------

    void collect(const FunctionPtr &ptr) {
        const FunctionContents &f = *ptr.get();
        if (env_.count(f.name) || !f.defined()) return;
        env_[f.name] = &f;
        holders_.push_back(ptr.strengthened());
        for (int s = 0; s < f.stages(); s++) {
            const Definition &d = f.stage(s);
            FindFuncCalls in_loops, outside;
            for (const Expr &e : d.args) in_loops.include(e);
            for (const Expr &e : d.values) in_loops.include(e);
            if (d.predicate.defined()) in_loops.include(d.predicate);
            if (d.rdom.defined()) {
                if (d.rdom.predicate().defined()) in_loops.include(d.rdom.predicate());
                if (d.rdom.loop_condition().defined()) in_loops.include(d.rdom.loop_condition());
                for (const ReductionVariable &rv : d.rdom.domain()) {
                    outside.include(rv.min);
                    outside.include(rv.extent);
                }
            }
            std::vector<Use> &uses = uses_[{f.name, s}];
            for (auto *finder : {&in_loops, &outside}) {
                for (const auto &[name, callee] : finder->calls) {
                    if (name == f.name) continue;  // a recursive update
                    uses.push_back(Use{name, finder == &in_loops});
                    if (callee.defined()) collect(callee);
                }
            }
        }
    }

    bool realized(const std::string &name) const {
        auto it = env_.find(name);
        return it != env_.end() && (outputs_.count(name) || !it->second->can_be_inlined());
    }

    /** Every (consumer, stage, inside its loops) that uses callee, looking
     * through inlined Funcs. */
    std::vector<std::tuple<std::string, int, bool>> consumers_of(const std::string &callee) const {
        std::vector<std::tuple<std::string, int, bool>> result;
        for (const auto &[name, f] : env_) {
            if (!realized(name)) continue;
            for (int s = 0; s < f->stages(); s++) {
                std::set<std::string> seen;
                bool in = false, out = false;
                find_uses(name, s, callee, true, seen, in, out);
                if (in) result.emplace_back(name, s, true);
                if (out) result.emplace_back(name, s, false);
            }
        }
        return result;
    }

    void find_uses(const std::string &func, int stage, const std::string &callee, bool in_loops,
                   std::set<std::string> &seen, bool &in, bool &out) const {
        auto it = uses_.find({func, stage});
        if (it == uses_.end()) return;
        for (const Use &u : it->second) {
            bool inside = in_loops && u.in_loops;
            if (u.callee == callee) (inside ? in : out) = true;
            if (realized(u.callee) || !seen.insert(u.callee + (inside ? "+" : "-")).second) continue;
            find_uses(u.callee, 0, callee, inside, seen, in, out);  // an inlined Func has one stage
        }
    }

    // ---- Loop levels --------------------------------------------------------

    [[noreturn]] static void fail(const std::string &message) { throw CompileError(message); }

    std::string loop_list(const FunctionContents &g, int stage) const {
        std::string s;
        for (const Dim &d : schedule_of(g, stage).dims) s += (s.empty() ? "" : ", ") + d.var;
        return s.empty() ? "none" : s;
    }

    /** The Func, stage and loop index (innermost first) a level names.
     * `what` says who asks, e.g. "Func f is computed at". */
    std::tuple<const FunctionContents *, int, int> resolve(const LoopLevel &level, const std::string &what) const {
        auto it = env_.find(level.func);
        if (it == env_.end()) {
            fail(what + " " + level_text(level) + ", but Func " + level.func + " is not part of this pipeline (the "
                 "outputs do not depend on it). Use a loop of a Func that uses it.");
        }
        const FunctionContents &g = *it->second;
        if (!realized(g.name)) {
            fail(what + " " + level_text(level) + ", but Func " + g.name + " is computed inline, so it has no "
                 "loops. Schedule " + g.name + " with compute_root() or compute_at() first.");
        }
        if (level.stage < -1 || level.stage >= g.stages()) {
            fail(what + " " + level_text(level) + ", but Func " + g.name + " has " + std::to_string(g.stages()) +
                 " stages (stage index -1 means the last).");
        }
        int stage = level.stage < 0 ? g.stages() - 1 : level.stage;
        const std::vector<Dim> &dims = schedule_of(g, stage).dims;
        if (level.var == kOutermostLoop) return {&g, stage, (int)dims.size()};  // outside all of them
        for (size_t i = 0; i < dims.size(); i++) {
            if (dims[i].var == level.var) return {&g, stage, (int)i};
        }
        fail(what + " " + level_text(level) + ", but stage " + stage_text(g.name, stage) + " of Func " + g.name +
             " has no loop " + level.var + " (its loops, innermost first: " + loop_list(g, stage) +
             "). Use one of those loops (see print_loop_nest()).");
    }

    /** The Func a compute_at/store_at level names and, for each stage it
     * names, (stage, loop index innermost first). A level without a stage
     * index names loop `var` of every stage that has it, as in Halide. */
    using StageLoops = std::vector<std::pair<int, int>>;  // (stage, loop index innermost first)
    std::pair<const FunctionContents *, StageLoops> resolve_stages(const LoopLevel &level,
                                                                   const std::string &what) const {
        if (level.stage >= 0) {
            auto [g, stage, index] = resolve(level, what);
            return {g, {{stage, index}}};
        }
        const FunctionContents *g = func_with_loop(level, what);
        StageLoops stages;
        for (int s = 0; s < g->stages(); s++) {
            const std::vector<Dim> &dims = schedule_of(*g, s).dims;
            if (level.var == kOutermostLoop) stages.emplace_back(s, (int)dims.size());
            for (size_t i = 0; i < dims.size(); i++) {
                if (dims[i].var == level.var) stages.emplace_back(s, (int)i);
            }
        }
        return {g, stages};
    }

    /** The Func a level without a stage index names. \throws CompileError
     * unless it is a realized Func of the pipeline and some stage of it has
     * the loop. */
    const FunctionContents *func_with_loop(const LoopLevel &level, const std::string &what) const {
        auto it = env_.find(level.func);
        if (it == env_.end() || !realized(level.func)) return std::get<0>(resolve(level, what));  // reports it
        const FunctionContents &g = *it->second;
        if (level.var == kOutermostLoop) return &g;  // every stage has it
        for (int s = 0; s < g.stages(); s++) {
            for (const Dim &d : schedule_of(g, s).dims) {
                if (d.var == level.var) return &g;
            }
        }
        std::string loops;
        for (int s = 0; s < g.stages(); s++) loops += (s ? "; " : "") + stage_text(g.name, s) + ": " + loop_list(g, s);
        fail(what + " " + level_text(level) + ", but Func " + g.name + " has no loop " + level.var +
             " in any stage (the loops of its stages, innermost first: " + loops + "). Use one of those loops (see "
             "print_loop_nest()).");
    }

    /** The loops of a stage, outermost first, where loops fused by
     * compute_with take the identity of the loops they are fused with. */
    LoopList stage_loops(const FunctionContents &f, int stage, int depth = 0) const {
        const std::vector<Dim> &dims = schedule_of(f, stage).dims;
        LoopList loops;
        for (auto it = dims.rbegin(); it != dims.rend(); ++it) loops.push_back(LoopId{f.name, stage, it->var});
        const LoopLevel &with = schedule_of(f, stage).compute_with;
        if (with.kind != LoopLevel::At || depth > 16) return loops;
        auto target = env_.find(with.func);
        if (target == env_.end() || with.stage < -1 || with.stage >= target->second->stages()) return loops;
        const FunctionContents &g = *target->second;
        int g_stage = with.stage < 0 ? g.stages() - 1 : with.stage;
        LoopList g_loops = stage_loops(g, g_stage, depth + 1);
        size_t fused = 0;
        while (fused < g_loops.size() && !(g_loops[fused].func == g.name && g_loops[fused].var == with.var)) fused++;
        for (size_t k = 0; k <= fused && k < g_loops.size() && k < loops.size(); k++) loops[k] = g_loops[k];
        return loops;
    }

    /** The places f is computed at, each as the loops around it, outermost
     * first. An output or a Func computed at root has one place, outside all
     * loops. A level without a stage index names its loop in every stage of
     * its Func; f is computed in each of those loops that encloses a use. */
    SiteList compute_sites(const FunctionContents &f) {
        auto memo = sites_.find(f.name);
        if (memo != sites_.end()) return memo->second;
        if (!visiting_.insert(f.name).second) {
            fail("Func " + f.name + " is computed inside a loop of a Func that is itself computed inside " + f.name +
                 " (compute_at forms a cycle). Compute one of them at root.");
        }
        SiteList sites{LoopList{}};
        const LoopLevel &level = f.schedule.compute_level;
        if (level.kind == LoopLevel::At && !outputs_.count(f.name)) {
            sites = sites_of(level, "Func " + f.name + " is computed at");
            if (level.stage < 0) sites = enclosing_a_use(sites, use_sites(f.name));
        } else if (level.kind == LoopLevel::Inlined && realized(f.name) && !outputs_.count(f.name)) {
            // A Func with updates left inline is computed around each use,
            // as in Halide; at root when a use is in an RDom's bounds
            // (lower/ScheduleFunctions.cpp).
            std::vector<UseSite> uses = use_sites(f.name);
            const bool all_in_loops =
                !uses.empty() && std::all_of(uses.begin(), uses.end(), [](const UseSite &u) { return u.in_loops; });
            if (all_in_loops) {
                sites.clear();
                for (const UseSite &use : uses) sites.push_back(use.loops);
            }
        }
        visiting_.erase(f.name);
        sites_[f.name] = sites;
        return sites;
    }

    /** The sites that enclose at least one use; all of them if none does
     * (the checks then report the uses left outside). */
    static SiteList enclosing_a_use(const SiteList &sites, const std::vector<UseSite> &uses) {
        SiteList kept;
        for (const LoopList &site : sites) {
            for (const UseSite &use : uses) {
                if (!contains(use.loops, site)) continue;
                kept.push_back(site);
                break;
            }
        }
        return kept.empty() ? sites : kept;
    }

    /** Every use of callee: the consumer's stage and the loops around the use. */
    std::vector<UseSite> use_sites(const std::string &callee) {
        std::vector<UseSite> result;
        for (const auto &[consumer, stage, in_loops] : consumers_of(callee)) {
            for (LoopList around : compute_sites(*env_.at(consumer))) {
                if (in_loops) {
                    LoopList loops = stage_loops(*env_.at(consumer), stage);
                    around.insert(around.end(), loops.begin(), loops.end());
                }
                result.push_back(UseSite{consumer, stage, in_loops, around});
            }
        }
        return result;
    }

    /** For each place the level's Func is computed and each stage the level
     * names, the loops down to and including the named loop. */
    SiteList sites_of(const LoopLevel &level, const std::string &what) {
        auto [g, stages] = resolve_stages(level, what);
        SiteList result;
        for (const LoopList &outer : compute_sites(*g)) {
            for (const auto &[stage, index] : stages) {
                LoopList site = outer;
                LoopList loops = stage_loops(*g, stage);
                size_t count = schedule_of(*g, stage).dims.size() - index;  // outermost down to the named loop
                site.insert(site.end(), loops.begin(), loops.begin() + count);
                result.push_back(site);
            }
        }
        return result;
    }

    static bool any_contained(const LoopList &outer, const SiteList &sites) {
        return std::any_of(sites.begin(), sites.end(), [&](const LoopList &s) { return contains(outer, s); });
    }

    static bool contains(const LoopList &outer, const LoopList &inner) {
        for (const LoopId &l : inner) {
            if (std::find(outer.begin(), outer.end(), l) == outer.end()) return false;
        }
        return true;
    }

    // ---- The checks --------------------------------------------------------

    void check_compute_level(const FunctionContents &f) {
        const LoopLevel &level = f.schedule.compute_level;
        if (level.kind != LoopLevel::At) return;
        if (outputs_.count(f.name)) {
            fail("Func " + f.name + " is an output of the pipeline, so it can't be computed at " + level_text(level) +
                 ": outputs are computed at root. Remove the compute_at, or realize a Func that uses " + f.name +
                 ".");
        }
        SiteList sites = compute_sites(f);
        for (const UseSite &use : use_sites(f.name)) {
            if (any_contained(use.loops, sites)) continue;
            std::string which = level.stage < 0 ? "no stage of " + level.func + " has that loop around the use in "
                                                : "that loop is not in the loop nest of ";
            fail("Func " + f.name + " is computed at " + level_text(level) + ", but " + which +
                 stage_text(use.consumer, use.stage) + ", which uses " + f.name +
                 (use.in_loops ? "" : " in its RDom's bounds") + ". Compute " + f.name +
                 " at a loop that encloses every use of it (a loop of " + use.consumer + " or of a Func " +
                 use.consumer + " is computed in, or compute_root()).");
        }
    }

    void check_store_level(const FunctionContents &f) {
        const LoopLevel &store = f.schedule.store_level;
        if (store.kind != LoopLevel::At) return;
        SiteList store_sites = sites_of(store, "Func " + f.name + " is stored at");
        for (const LoopList &site : compute_sites(f)) {
            if (any_contained(site, store_sites)) continue;
            fail("Func " + f.name + " is stored at " + level_text(store) + " but computed at " +
                 level_text(f.schedule.compute_level.kind == LoopLevel::Inlined ? LoopLevel::root()
                                                                                 : f.schedule.compute_level) +
                 ", which is outside that loop. store_at must name the compute_at loop or a loop that encloses it.");
        }
    }

    void check_compute_with(const FunctionContents &f, int stage) {
        const LoopLevel &with = schedule_of(f, stage).compute_with;
        if (with.kind != LoopLevel::At) return;
        const std::string who = "Stage " + stage_text(f.name, stage) + " of Func " + f.name + " is computed with";
        auto [g, g_stage, index] = resolve(with, who);
        if (g == &f && g_stage >= stage) {
            fail(who + " " + level_text(with) + ", which is not an earlier stage of " + f.name + ".");
        }
        if (g != &f && !same_level(f.schedule.compute_level, g->schedule.compute_level)) {
            fail(who + " " + level_text(with) + ", but " + f.name + " is computed at " +
                 level_text(f.schedule.compute_level) + " and " + g->name + " at " +
                 level_text(g->schedule.compute_level) + ". Fused stages need Funcs computed at the same level.");
        }
        size_t fused = schedule_of(*g, g_stage).dims.size() - index;
        size_t own = schedule_of(f, stage).dims.size();
        if (own < fused) {
            fail(who + " " + level_text(with) + ", which fuses " + std::to_string(fused) + " loops, but " +
                 stage_text(f.name, stage) + " has only " + std::to_string(own) + " (" + loop_list(f, stage) + ").");
        }
    }

    bool same_level(const LoopLevel &a, const LoopLevel &b) const {
        auto normal = [&](LoopLevel l) {
            if (l.kind == LoopLevel::Inlined) l = LoopLevel::root();  // realized Funcs left inline run at root
            if (l.kind == LoopLevel::At && l.stage < 0 && env_.count(l.func)) l.stage = env_.at(l.func)->stages() - 1;
            return l;
        };
        LoopLevel x = normal(a), y = normal(b);
        return x.kind == y.kind && x.func == y.func && x.var == y.var && x.stage == y.stage;
    }

    std::map<std::string, const FunctionContents *> env_;
    std::vector<FunctionPtr> holders_;
    std::set<std::string> outputs_;
    std::map<std::pair<std::string, int>, std::vector<Use>> uses_;
    std::map<std::string, SiteList> sites_;
    std::set<std::string> visiting_;
    /** Stages checked with one of their specializations' schedules. */
    std::map<std::pair<std::string, int>, const StageSchedule *> chosen_;
};

}  // namespace

void check_schedules(const std::vector<FunctionPtr> &outputs) { Checker(outputs).run(); }

}  // namespace internal
}  // namespace loom
