#include "lower/StageLoopNest.h"

#include <algorithm>
#include <map>
#include <set>

#include "ir/IRUtil.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "loom/Error.h"

namespace loom {
namespace internal {

namespace {

Expr var(const std::string &name) { return Variable::make(Int(32), name); }
Expr loop_min(const std::string &v) { return var(v + ".loop_min"); }
Expr loop_max(const std::string &v) { return var(v + ".loop_max"); }
Expr loop_extent(const std::string &v) { return var(v + ".loop_extent"); }
/** The inner extent of a fuse, as a divisor: max(e, 1) changes nothing
 * where the fused loop runs (e >= 1), and lets interval arithmetic see the
 * divisor is positive, so bounds inference finds the outer var's range. */
Expr divisor(const std::string &inner) { return Max::make(loop_extent(inner), Expr(1)); }

std::string describe(const Stage &s) { return stage_description(s.func, s.index); }

/** "f.s1.x" -> "x". */
std::string user_name(const Stage &s, const std::string &loop) {
    return loop.compare(0, s.prefix.size(), s.prefix) == 0 ? loop.substr(s.prefix.size()) : loop;
}

/** x at outer = 0, inner = 0 of a split of x: x's loop min, or an aligned
 * split's alignment (its outer loop then starts where its blocks meet x). */
Expr split_start(const std::string &x, const Expr &align) { return align.defined() ? align : loop_min(x); }

/** A split after its tail strategy has been resolved for this stage. */
struct ResolvedSplit {
    Split split;
    bool guarded = false;  // GuardWithIf (and what maps to it)
    bool shifted = false;  // ShiftInwards
};

/** What the splits of a stage make of its variables. Variables have
 * internal names: a split may reuse the old var's name for one of its new
 * loops (split(x, x, xi, 8)), so every earlier version of a reused name is
 * called "<name>.prev<k>"; the last version keeps the name (loops are named
 * as the schedule says, so compute_at finds them). */
struct SplitPlan {
    /** v.loop_min / v.loop_max / v.loop_extent, in definition order. */
    std::vector<std::pair<std::string, Expr>> bounds;
    /** old var = f(new vars), in the order of the splits. */
    std::vector<std::pair<std::string, Expr>> definitions;
    /** Conditions the Provide needs (GuardWithIf, ShiftInwards), by the
     * variable they test. */
    std::map<std::string, Expr> guards;
    /** The variables that remain loops, and which of them are RVars. */
    std::set<std::string> leaves, rvar_leaves;
    /** The splits with internal names and resolved tails. */
    std::vector<ResolvedSplit> splits;
    /** The internal name of each pure var and RVar of the definition. */
    std::map<std::string, std::string> original;
};

class SplitPlanner {
public:
    SplitPlanner(const Stage &s, bool fixed_storage) : stage_(s), fixed_storage_(fixed_storage) {}

    SplitPlan run() {
        count_versions();
        for (const std::string &x : stage_.pure_vars) {
            std::string v = introduce(x);
            plan_.original[x] = v;
            add_var(v, var(x + ".min"), var(x + ".max"), Expr(), false);
        }
        for (const ReductionVariable &rv : stage_.rvars) {
            std::string v = introduce(rv.var);
            plan_.original[rv.var] = v;
            add_var(v, rv.min, Expr(), rv.extent, true);
        }
        for (const Split &s : stage_.splits) apply(s);
        promise_fused_ranges();
        return std::move(plan_);
    }

private:
    void count_versions() {
        for (const std::string &x : stage_.pure_vars) versions_[x]++;
        for (const ReductionVariable &rv : stage_.rvars) versions_[rv.var]++;
        for (const Split &s : stage_.splits) {
            if (s.kind == Split::SplitVar) {
                versions_[s.outer]++;
                versions_[s.inner]++;
            } else if (s.kind == Split::FuseVars) {
                versions_[s.old_var]++;
            } else {
                versions_[s.outer]++;
            }
        }
    }

    /** A new version of a name: its internal name, now the current one. */
    std::string introduce(const std::string &name) {
        int k = introduced_[name]++;
        std::string v = k + 1 == versions_[name] ? name : name + ".prev" + std::to_string(k);
        current_[name] = v;
        return v;
    }

    /** Defines the loop symbols of v; exactly one of max/extent may be undefined. */
    void add_var(const std::string &v, const Expr &min, const Expr &max, const Expr &extent, bool is_rvar) {
        plan_.bounds.emplace_back(v + ".loop_min", min);
        if (max.defined()) {
            plan_.bounds.emplace_back(v + ".loop_max", max);
            plan_.bounds.emplace_back(v + ".loop_extent", Add::make(Sub::make(loop_max(v), loop_min(v)), Expr(1)));
        } else {
            plan_.bounds.emplace_back(v + ".loop_extent", extent);
            plan_.bounds.emplace_back(v + ".loop_max", Sub::make(Add::make(loop_min(v), loop_extent(v)), Expr(1)));
        }
        plan_.leaves.insert(v);
        if (is_rvar) plan_.rvar_leaves.insert(v);
    }

    [[noreturn]] void fail(const std::string &what) {
        throw CompileError("In the schedule of " + describe(stage_) + ": " + what);
    }

    /** Removes the current version of name from the loops: its internal
     * name, and whether it is an RVar. */
    std::pair<std::string, bool> take_leaf(const std::string &name, const char *action) {
        auto it = current_.find(name);
        if (it == current_.end() || !plan_.leaves.count(it->second)) {
            fail(std::string("cannot ") + action + " '" + user_name(stage_, name) +
                 "': it is not a loop variable of this stage (it does not exist, or was already split, fused or "
                 "renamed). Use the names the earlier directives made.");
        }
        std::string v = it->second;
        plan_.leaves.erase(v);
        bool is_rvar = plan_.rvar_leaves.erase(v) > 0;
        return {v, is_rvar};
    }

    ResolvedSplit resolve_tail(const Split &s, const std::string &x, bool is_rvar) {
        ResolvedSplit r{s};
        const bool update = stage_.index > 0;
        switch (s.tail) {
        case TailStrategy::RoundUp:
            if (is_rvar) {
                fail("splitting reduction variable '" + user_name(stage_, s.old_var) +
                     "' with TailStrategy::RoundUp would run iterations outside its RDom. Use GuardWithIf.");
            }
            // Rounding up a var made by an earlier split or fuse runs into
            // the points of the next block, which an update would then
            // apply twice; only new points past the end are harmless.
            if (update && !is_original_pure_var(x)) r.guarded = true;
            // In folded storage the extra points would overwrite slots that
            // are still live: compute only the points asked for.
            if (fixed_storage_) r.guarded = true;
            break;
        case TailStrategy::ShiftInwards:
        case TailStrategy::Auto:
            // Recomputing a point is harmless only in a pure definition, and
            // points before the first one only where storage grows to hold
            // them (not in folded storage).
            if (update || fixed_storage_) {
                r.guarded = true;
            } else {
                r.shifted = true;
            }
            break;
        case TailStrategy::GuardWithIf:
        case TailStrategy::PredicateLoads:
        case TailStrategy::PredicateStores:
            r.guarded = true;
            break;
        }
        return r;
    }

    bool is_original_pure_var(const std::string &internal_name) const {
        for (const std::string &x : stage_.pure_vars) {
            if (plan_.original.at(x) == internal_name) return true;
        }
        return false;
    }

    void apply(const Split &s) {
        switch (s.kind) {
        case Split::SplitVar: return apply_split(s);
        case Split::FuseVars: return apply_fuse(s);
        case Split::RenameVar: return apply_rename(s);
        }
    }

    void apply_split(const Split &s) {
        const std::string who = user_name(stage_, s.old_var);
        if (!s.factor.defined() || !s.factor.type().is_int_or_uint() || !s.factor.type().is_scalar()) {
            fail("the split of '" + who + "' needs an integer factor.");
        }
        Expr f = s.factor.type() == Int(32) ? s.factor : Cast::make(Int(32), s.factor);
        if (auto c = as_const_int(simplify(f)); c && *c <= 0) {
            fail("the split of '" + who + "' has factor " + std::to_string(*c) + "; the factor must be positive.");
        }
        auto [x, is_rvar] = take_leaf(s.old_var, "split");
        ResolvedSplit r = resolve_tail(s, x, is_rvar);
        std::string outer = introduce(s.outer), inner = introduce(s.inner);
        r.split.old_var = x;
        r.split.outer = outer;
        r.split.inner = inner;
        r.split.factor = f;

        // An aligned split's blocks start at align + k * f: the outer loop
        // runs over the k whose blocks meet [min, max] (floor division), so
        // x - align is outer * f + inner, and an expression of
        // (x - align) % f simplifies to inner.
        const bool aligned = s.align.defined();
        if (aligned) {
            add_var(outer, Div::make(Sub::make(loop_min(x), s.align), f),
                    Div::make(Sub::make(loop_max(x), s.align), f), Expr(), is_rvar);
        } else {
            add_var(outer, Expr(0), Expr(), Div::make(Sub::make(Add::make(loop_extent(x), f), Expr(1)), f), is_rvar);
        }
        add_var(inner, Expr(0), Expr(), f, is_rvar);

        Expr base = Add::make(split_start(x, s.align), Mul::make(var(outer), f));
        if (r.shifted) {
            // The last block ends at the last point. With fewer points than
            // the factor it starts before the first one: the stage computes
            // a little more, which bounds inference sizes the storage and the
            // inputs for (and an output buffer's region check rejects). An
            // aligned first block is shifted forwards to the first point.
            if (aligned) base = Max::make(base, loop_min(x));
            base = Min::make(base, Add::make(Sub::make(loop_max(x), f), Expr(1)));
        }
        plan_.definitions.emplace_back(x, Add::make(base, var(inner)));
        if (r.guarded) {
            Expr below_max = LE::make(var(x), loop_max(x));
            plan_.guards[x] = aligned ? And::make(LE::make(loop_min(x), var(x)), below_max) : below_max;
        }
        plan_.splits.push_back(r);
    }

    void apply_fuse(const Split &s) {
        auto [inner, inner_rvar] = take_leaf(s.inner, "fuse");
        auto [outer, outer_rvar] = take_leaf(s.outer, "fuse");
        if (inner_rvar != outer_rvar) {
            fail("cannot fuse '" + user_name(stage_, s.inner) + "' with '" + user_name(stage_, s.outer) +
                 "': one is a reduction variable and the other a pure variable.");
        }
        std::string fused = introduce(s.old_var);
        // O * I iterations, written as (I >= 1 ? max(O, 0) : 0) * max(I, 1):
        // empty when either extent is (a producer computed per iteration of
        // a GuardWithIf tile has negative extents in both dimensions past
        // its corner, whose product ran spurious iterations), and a multiple
        // of the divisor below, so the outer variable's last value
        // simplifies to max(O, 0) - 1 and bounds inference sizes exactly.
        add_var(fused, Expr(0), Expr(),
                Mul::make(Select::make(GE::make(loop_extent(inner), Expr(1)), Max::make(loop_extent(outer), Expr(0)),
                                       Expr(0)),
                          divisor(inner)),
                inner_rvar);
        plan_.definitions.emplace_back(inner, Add::make(Mod::make(var(fused), divisor(inner)), loop_min(inner)));
        plan_.definitions.emplace_back(outer, Add::make(Div::make(var(fused), divisor(inner)), loop_min(outer)));
        ResolvedSplit r{s};
        r.split.old_var = fused;
        r.split.outer = outer;
        r.split.inner = inner;
        plan_.splits.push_back(r);
    }

    /** Where a fused loop runs, it gives its inner variable back in
     * [inner.loop_min, inner.loop_max] and its outer one in
     * [outer.loop_min, outer.loop_max]: each definition is wrapped in a
     * promise_clamped to that range, so bounds inference finds the box of
     * the unfused loops. From the division alone it does not: where the
     * fused loop runs no iteration (a Func computed past a consumer's
     * guarded tail, whose box is empty there) the rows come back as
     * [y, y - 1] where the unfused loops give [y, y.loop_max], and relaxed
     * over a loop around, the former reaches past the last row used (CI
     * seeds 1164, campaign seed 962294). Not where a later split may run the
     * fused loop past its extent (RoundUp, ShiftInwards): the points it
     * computes there read, and their reads must be counted. A guarded split
     * runs the fused loop past its extent too, but the definitions sit
     * inside its guard; the regions bounds inference computes from them do
     * not, so it makes their promises clamps, and removes the promises from
     * the definitions once it is done (StripFusedRangePromises,
     * lower/BoundsInference.cpp). */
    void promise_fused_ranges() {
        for (size_t k = 0; k < plan_.splits.size(); k++) {
            const Split &fuse = plan_.splits[k].split;
            if (fuse.kind != Split::FuseVars || !stays_in_extent(fuse.old_var, k + 1)) continue;
            for (auto &[name, value] : plan_.definitions) {
                if (name != fuse.inner && name != fuse.outer) continue;
                value = Call::make(Int(32), intrinsic::promise_clamped, {value, loop_min(name), loop_max(name)},
                                   CallType::Intrinsic);
            }
        }
    }

    /** Whether the splits from index `from` on keep every variable made
     * from `var` inside its loop's range (guarded tails only). */
    bool stays_in_extent(const std::string &var, size_t from) const {
        std::set<std::string> derived = {var};
        for (size_t k = from; k < plan_.splits.size(); k++) {
            const ResolvedSplit &r = plan_.splits[k];
            const Split &s = r.split;
            if (s.kind == Split::FuseVars) {
                if (derived.count(s.inner) || derived.count(s.outer)) derived.insert(s.old_var);
                continue;
            }
            if (!derived.count(s.old_var)) continue;
            if (s.kind == Split::SplitVar && !r.guarded) return false;
            derived.insert(s.outer);
            if (s.kind == Split::SplitVar) derived.insert(s.inner);
        }
        return true;
    }

    void apply_rename(const Split &s) {
        auto [old, is_rvar] = take_leaf(s.old_var, "rename");
        std::string renamed = introduce(s.outer);
        add_var(renamed, loop_min(old), Expr(), loop_extent(old), is_rvar);
        plan_.definitions.emplace_back(old, var(renamed));
        ResolvedSplit r{s};
        r.split.old_var = old;
        r.split.outer = renamed;
        plan_.splits.push_back(r);
    }

    const Stage &stage_;
    bool fixed_storage_;
    SplitPlan plan_;
    std::map<std::string, int> versions_, introduced_;
    std::map<std::string, std::string> current_;
};

/** The marker value listing an unroll cascade's factors. */
Expr cascade_marker_value(const Dim &d) {
    std::vector<Expr> factors;
    for (int f : d.unroll_cascade) factors.push_back(Expr(f));
    return Shuffle::make_concat(factors);
}

/** Checks Stage::dims names exactly the loops the splits leave. */
void check_dims(const Stage &stage, const SplitPlan &plan) {
    std::set<std::string> seen;
    for (const Dim &d : stage.dims) {
        const std::string name = user_name(stage, d.var);
        if (!plan.leaves.count(d.var)) {
            throw CompileError("In the schedule of " + describe(stage) + ": the loop order names '" + name +
                               "', which is not a loop of this stage (it was split, fused or renamed away, or does "
                               "not exist).");
        }
        if (!seen.insert(d.var).second) {
            throw CompileError("In the schedule of " + describe(stage) + ": the loop order names '" + name +
                               "' twice.");
        }
        if (!d.unroll_cascade.empty() && d.for_type != ForType::Unrolled) {
            throw InternalError("unroll cascade on loop " + d.var + ", which is not unrolled");
        }
        for (int f : d.unroll_cascade) {
            if (f <= 0) {
                throw CompileError("In the schedule of " + describe(stage) + ": the unroll cascade of '" + name +
                                   "' has factor " + std::to_string(f) + "; factors must be positive.");
            }
        }
    }
    for (const std::string &leaf : plan.leaves) {
        // A pure var an update does not loop over (its left-hand side does
        // not use it) needs no loop.
        const bool original_pure = std::find(stage.pure_vars.begin(), stage.pure_vars.end(), leaf) != stage.pure_vars.end();
        if (!seen.count(leaf) && !original_pure) {
            throw CompileError("In the schedule of " + describe(stage) + ": variable '" + user_name(stage, leaf) +
                               "' has no place in the loop order. Name it in reorder().");
        }
    }
}

/** A loop that can stop early (RDom::loop_while) stays one serial loop,
 * outermost in its stage: its condition is evaluated once per iteration. */
void check_exit_loop(const Stage &stage, const SplitPlan &plan) {
    if (!stage.loop_condition.defined()) return;
    const std::string name = user_name(stage, stage.exit_loop);
    const std::string where = "In the schedule of " + describe(stage) + ": RVar '" + name +
                              "' has a loop_while condition, so its loop ";
    if (!plan.leaves.count(stage.exit_loop)) {
        throw CompileError(where + "can't be split, fused or renamed (the loop must stop at the first false "
                           "condition). Split the other variables instead.");
    }
    if (stage.dims.empty() || stage.dims.back().var != stage.exit_loop) {
        throw CompileError(where + "must be the outermost loop of the stage (each iteration runs the whole "
                           "stage once). Reorder so that '" + name + "' is last in reorder().");
    }
    const Dim &d = stage.dims.back();
    if (d.for_type != ForType::Serial || d.device_api != DeviceAPI::None) {
        throw CompileError(where + "runs its iterations one after another: it can't be parallel, vectorized, "
                           "unrolled or a GPU loop. Schedule the loops inside it instead.");
    }
}

/** The marker lower_loop_exits turns into the loop's exit (and trip count). */
Stmt loop_exit_marker(const Stage &stage, const std::map<std::string, Expr> &renamed) {
    Expr cond = substitute(renamed, stage.loop_condition);
    return Evaluate::make(Call::make(Int(32), intrinsic::loop_while,
                                     {cond, StringImm::make(stage.trip_count_buffer)}, CallType::Intrinsic));
}

Stmt wrap_lets(const std::vector<std::pair<std::string, Expr>> &lets, Stmt body) {
    for (auto it = lets.rbegin(); it != lets.rend(); ++it) body = LetStmt::make(it->first, it->second, body);
    return body;
}

}  // namespace

Stmt build_stage_loop_nest(const Stage &stage, bool fixed_storage, std::set<std::string> *coordinates) {
    SplitPlan plan = SplitPlanner(stage, fixed_storage).run();
    check_dims(stage, plan);
    check_exit_loop(stage, plan);

    // The definition's variables by their internal names.
    std::map<std::string, Expr> renamed;
    for (const auto &[name, internal] : plan.original) {
        if (name != internal) renamed[name] = var(internal);
    }
    std::vector<Expr> values, args;
    for (const Expr &e : stage.values) values.push_back(substitute(renamed, e));
    for (const Expr &e : stage.args) args.push_back(substitute(renamed, e));
    Stmt body = Provide::make(stage.func, values, args);
    if (stage.predicate.defined()) body = IfThenElse::make(substitute(renamed, stage.predicate), body);
    // The first split's definition is innermost: later splits define the
    // variables it is written in. A guard sits just inside the definition of
    // the variable it tests, so bounds inference sees the guarded range in
    // everything defined from that variable.
    for (const auto &[name, value] : plan.definitions) {
        auto guard = plan.guards.find(name);
        if (guard != plan.guards.end()) body = IfThenElse::make(guard->second, body);
        body = LetStmt::make(name, value, body);
        if (coordinates) coordinates->insert(name);
    }

    for (const Dim &d : stage.dims) {
        if (d.var == stage.exit_loop && stage.loop_condition.defined()) {
            body = Block::make(loop_exit_marker(stage, renamed), body);
        }
        body = For::make(d.var, loop_min(d.var), loop_extent(d.var), d.for_type, d.device_api, body);
        if (!d.unroll_cascade.empty()) body = LetStmt::make(unroll_cascade_marker(d.var), cascade_marker_value(d), body);
    }
    if (stage.single_thread_device_api != DeviceAPI::None) {
        // gpu_single_thread: one workgroup of one invocation runs the loops.
        const DeviceAPI api = stage.single_thread_device_api;
        body = For::make(stage.prefix + "__thread_id_x", 0, 1, ForType::GPUThread, api, body);
        body = For::make(stage.prefix + "__block_id_x", 0, 1, ForType::GPUBlock, api, body);
    }
    if (!stage.loop_condition.defined() && !stage.trip_count_buffer.empty()) {
        // Without a condition the loop over the outermost RVar runs its
        // extent (however it is split), once per run of the stage.
        const ReductionVariable &outer = stage.rvars.back();
        Expr count = Max::make(outer.extent, Expr(0));
        body = Block::make(Evaluate::make(Call::make(Int(32), intrinsic::set_trip_count,
                                                     {StringImm::make(stage.trip_count_buffer), count},
                                                     CallType::Intrinsic)),
                           body);
    }
    return wrap_lets(plan.bounds, body);
}

std::vector<std::pair<std::string, Expr>> stage_loop_bounds(const Stage &stage, bool fixed_storage) {
    return SplitPlanner(stage, fixed_storage).run().bounds;
}

Box stage_computed_region(const Stage &stage, bool fixed_storage) {
    SplitPlan plan = SplitPlanner(stage, fixed_storage).run();
    // Each variable's computed range, from the loops outwards: a loop spans
    // its bounds; a split var spans what its definition reaches (clipped by
    // its guard, if any).
    std::map<std::string, Interval> range;
    for (const std::string &leaf : plan.leaves) range[leaf] = Interval(loop_min(leaf), loop_max(leaf));
    for (auto it = plan.splits.rbegin(); it != plan.splits.rend(); ++it) {
        const Split &s = it->split;
        if (s.kind == Split::RenameVar) {
            range[s.old_var] = range.at(s.outer);
        } else if (s.kind == Split::FuseVars) {
            const Interval &fused = range.at(s.old_var);
            range[s.inner] = Interval(loop_min(s.inner), loop_max(s.inner));
            range[s.outer] = Interval(Add::make(Div::make(fused.min, divisor(s.inner)), loop_min(s.outer)),
                                      Add::make(Div::make(fused.max, divisor(s.inner)), loop_min(s.outer)));
        } else if (it->guarded) {
            range[s.old_var] = Interval(loop_min(s.old_var), loop_max(s.old_var));
        } else if (it->shifted) {
            Expr first_start = Add::make(Sub::make(loop_max(s.old_var), s.factor), Expr(1));
            range[s.old_var] = Interval(Min::make(loop_min(s.old_var), first_start), loop_max(s.old_var));
        } else {
            const Interval &o = range.at(s.outer), &i = range.at(s.inner);
            Expr start = split_start(s.old_var, s.align);
            range[s.old_var] = Interval(Add::make(Add::make(start, Mul::make(o.min, s.factor)), i.min),
                                        Add::make(Add::make(start, Mul::make(o.max, s.factor)), i.max));
        }
    }
    // Express the result in the stage's symbols: substitute the loop bounds,
    // latest definitions first.
    Box box;
    for (const std::string &x : stage.pure_vars) {
        Interval r = range.at(plan.original.at(x));
        for (auto it = plan.bounds.rbegin(); it != plan.bounds.rend(); ++it) {
            r.min = substitute(it->first, it->second, r.min);
            r.max = substitute(it->first, it->second, r.max);
        }
        box.emplace_back(simplify(r.min), simplify(r.max));
    }
    return box;
}

}  // namespace internal
}  // namespace loom
