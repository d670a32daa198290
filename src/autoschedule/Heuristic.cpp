// Loom's built-in autoscheduler (Heuristic.h, docs/AUTOSCHEDULER.md).
//
// The search (Search.h) with the cost model (CostModel.h) decides per
// Func: leave alone (extern stages, Funcs in a recurrence cycle), inline,
// compute per tile of its consumers' group, or compute_root; and the tile
// of each realized Func. This file writes those choices: tile the two
// innermost dimensions by the chosen tile, vectorize the innermost by the
// target's natural vector width, and parallelize the outermost loop, fused
// with the next ones until it has `parallelism` iterations. Updates
// vectorize and parallelize only pure Vars that are provably independent
// (each self-reference uses the Var at its own position), and unroll small
// constant RVar loops.
// Every split guards its tail (GuardWithIf), so the schedule is correct
// for any size, not only the estimated one. Everything is a pure function
// of the pipeline, the estimates, the target and the parameters, so the
// result is deterministic.

#include "autoschedule/Heuristic.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

#include "autoschedule/CallGraph.h"
#include "autoschedule/CostModel.h"
#include "autoschedule/Search.h"
#include "ir/IRUtil.h"
#include "ir/IRVisitor.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "loom/Error.h"
#include "loom/Func.h"
#include "loom/Pipeline.h"
#include "lower/TopologicalOrder.h"

namespace loom {
namespace internal {

namespace {

using Settings = HeuristicSettings;

Settings parse_settings(const AutoschedulerParams &params) {
    Settings s;
    const std::string who = "autoscheduler '" + params.name + "'";
    for (const auto &[key, value] : params.extra) {
        std::istringstream in(value);
        bool ok = false;
        if (key == "parallelism") {
            long long v = 0;
            ok = bool(in >> v) && in.eof() && v > 0 && v <= (1 << 20);
            s.parallelism = int(v);
        } else if (key == "last_level_cache_size") {
            long long v = 0;
            ok = bool(in >> v) && in.eof() && v > 0;
            s.last_level_cache_size = uint64_t(v);
        } else if (key == "balance") {
            double v = 0;
            ok = bool(in >> v) && in.eof() && v > 0;
            s.balance = v;
        } else {
            throw CompileError(who + " (Loom's heuristic autoscheduler) has no parameter '" + key +
                               "'; it takes parallelism, last_level_cache_size and balance.");
        }
        if (!ok) throw CompileError(who + ": " + key + "='" + value + "' is not a positive number.");
    }
    return s;
}

// ---- Refusals ---------------------------------------------------------------------

/** What the user already scheduled on f by hand, or "". */
std::string hand_schedule_of(const FunctionContents &f) {
    const FuncSchedule &s = f.schedule;
    if (!s.compute_level.is_inlined()) return s.compute_level.is_root() ? "compute_root" : "compute_at";
    if (!s.store_level.is_inlined()) return s.store_level.is_root() ? "store_root" : "store_at";
    if (!s.hoist_storage_level.is_inlined()) return "hoist_storage";
    if (!s.storage_folds.empty()) return "fold_storage";
    if (!s.bound_alignments.empty()) return "align_bounds";
    if (!s.storage_dims.empty()) return "align_storage or bound_storage";
    if (!s.storage_order.empty()) return "reorder_storage";
    if (s.memory_type != MemoryType::Auto) return "store_in";
    if (s.memoized) return "memoize";
    if (s.async) return "async";
    if (!f.wrappers.empty()) return "in() or clone_in()";
    for (int k = 0; k < f.stages(); k++) {
        const Definition &d = f.stage(k);
        const std::string stage = k == 0 ? "" : " on update(" + std::to_string(k - 1) + ")";
        if (!d.specializations.empty()) return "specialize" + stage;
        if (d.schedule.touched) return "loop directives (split, vectorize, parallel, ...)" + stage;
    }
    return "";
}

void check_unscheduled(const CallGraph &graph) {
    for (const std::string &name : graph.order) {
        // An extern stage is placed at root by define_extern, and is left as it is.
        if (graph.nodes.at(name).is_extern) continue;
        const std::string what = hand_schedule_of(*graph.nodes.at(name).func.get());
        if (what.empty()) continue;
        throw CompileError("Func " + name + " is already scheduled (" + what +
                           "): Loom's autoscheduler, like Halide's, needs a pipeline whose Funcs are all "
                           "unscheduled, so a pipeline is autoscheduled once. Remove the hand-written schedule, "
                           "or schedule every Func by hand.");
    }
}

// ---- Writing the schedule: applied to the Funcs and written as C++ ---------------

std::string identifier(const std::string &name) {
    std::string id = name;
    for (char &c : id) {
        if (!std::isalnum((unsigned char)c) && c != '_') c = '_';
    }
    if (id.empty() || std::isdigit((unsigned char)id[0])) id = "_" + id;
    return id;
}

class ScheduleWriter {
public:
    /** func_index: each Func's index in the pipeline's topological order
     * (Pipeline::get_func), by name. */
    explicit ScheduleWriter(std::map<std::string, size_t> func_index) : func_index_(std::move(func_index)) {}

    /** A loop of a stage, by name; is_rvar for RVars. */
    struct Loop {
        std::string name;
        bool is_rvar = false;
    };

    /** Starts the directives of one stage. */
    void begin(const FunctionPtr &func, int stage) {
        func_ = func;
        stage_ = stage;
        chain_.clear();
        name_func(func);
        const std::vector<std::string> &args = func.get()->args;
        for (size_t i = 0; i < args.size(); i++) pure_vars_.emplace(args[i], std::make_pair(func.get()->name, i));
    }
    /** Ends the stage's directives (one C++ statement). */
    void end() {
        if (chain_.empty()) return;
        std::string target = identifier(func_.get()->name);
        if (stage_ > 0) target += ".update(" + std::to_string(stage_ - 1) + ")";
        body_ += "    " + target;
        for (const std::string &c : chain_) body_ += "\n        ." + c;
        body_ += ";\n";
        chain_.clear();
    }

    void compute_root() {
        Func(func_).compute_root();
        chain_.push_back("compute_root()");
    }
    void store_at(const FunctionPtr &consumer, const std::string &loop) {
        Func(func_).store_at(Func(consumer), Var(loop));
        loops_.emplace(loop, false);
        name_func(consumer);
        chain_.push_back("store_at(" + identifier(consumer.get()->name) + ", " + identifier(loop) + ")");
    }
    void compute_at(const FunctionPtr &consumer, const std::string &loop) {
        Func(func_).compute_at(Func(consumer), Var(loop));
        loops_.emplace(loop, false);
        name_func(consumer);
        chain_.push_back("compute_at(" + identifier(consumer.get()->name) + ", " + identifier(loop) + ")");
    }
    void tile(const Loop &x, const Loop &y, const Loop &xo, const Loop &yo, const Loop &xi, const Loop &yi,
              int xfactor, int yfactor) {
        stage().tile(v(x), v(y), v(xo), v(yo), v(xi), v(yi), xfactor, yfactor, loom::TailStrategy::GuardWithIf);
        chain_.push_back("tile(" + ids({x, y, xo, yo, xi, yi}) + ", " + std::to_string(xfactor) + ", " +
                         std::to_string(yfactor) + ", TailStrategy::GuardWithIf)");
    }
    void split(const Loop &old, const Loop &outer, const Loop &inner, int factor) {
        stage().split(v(old), v(outer), v(inner), factor, loom::TailStrategy::GuardWithIf);
        chain_.push_back("split(" + ids({old, outer, inner}) + ", " + std::to_string(factor) +
                         ", TailStrategy::GuardWithIf)");
    }
    void vectorize(const Loop &var) {
        stage().vectorize(v(var));
        chain_.push_back("vectorize(" + ids({var}) + ")");
    }
    void unroll(const Loop &var) {
        stage().unroll(v(var));
        chain_.push_back("unroll(" + ids({var}) + ")");
    }
    void parallel(const Loop &var) {
        stage().parallel(v(var));
        chain_.push_back("parallel(" + ids({var}) + ")");
    }
    void fuse(const Loop &inner, const Loop &outer, const Loop &fused) {
        stage().fuse(v(inner), v(outer), v(fused));
        chain_.push_back("fuse(" + ids({inner, outer, fused}) + ")");
    }
    void reorder(const std::vector<Loop> &loops) {
        std::vector<VarOrRVar> vars;
        for (const Loop &l : loops) vars.push_back(v(l));
        stage().reorder(vars);
        chain_.push_back("reorder(" + ids(loops) + ")");
    }

    std::string source(const std::string &header) const {
        std::string decls;
        for (const auto &[index, name] : funcs_) {
            decls += "    Func " + identifier(name) + " = pipeline.get_func(" + std::to_string(index) + ");\n";
        }
        // A pure Var is found through the first scheduled Func that has it
        // (as Halide's schedulers do), so a copy of the pipeline whose Vars
        // are named differently takes the schedule; new loops are named here.
        std::string vars, rvars;
        for (const auto &[name, is_rvar] : loops_) {
            auto pure = is_rvar ? pure_vars_.end() : pure_vars_.find(name);
            if (pure != pure_vars_.end()) {
                decls += "    Var " + identifier(name) + " = " + identifier(pure->second.first) + ".args()[" +
                         std::to_string(pure->second.second) + "];\n";
                continue;
            }
            std::string &list = is_rvar ? rvars : vars;
            list += std::string(list.empty() ? "" : ", ") + identifier(name) + "(\"" + name + "\")";
        }
        if (!vars.empty()) decls += "    Var " + vars + ";\n";
        if (!rvars.empty()) decls += "    RVar " + rvars + ";\n";
        return header + "{\n" + decls + body_ + "}\n";
    }

private:
    Stage stage() const { return Stage(func_, stage_); }
    void name_func(const FunctionPtr &f) { funcs_.emplace(func_index_.at(f.get()->name), f.get()->name); }
    VarOrRVar v(const Loop &l) {
        loops_.emplace(l.name, l.is_rvar);
        return VarOrRVar(l.name, l.is_rvar);
    }
    std::string ids(const std::vector<Loop> &loops) {
        std::string s;
        for (const Loop &l : loops) {
            loops_.emplace(l.name, l.is_rvar);
            s += (s.empty() ? "" : ", ") + identifier(l.name);
        }
        return s;
    }

    FunctionPtr func_;
    int stage_ = 0;
    std::vector<std::string> chain_;
    std::string body_;
    std::map<std::string, bool> loops_;  // every Var and RVar named, for the declarations
    std::map<std::string, size_t> func_index_;
    std::map<size_t, std::string> funcs_;  // every Func named, by get_func index, for the declarations
    /** Each pure Var of a scheduled Func: the first such Func and the Var's position. */
    std::map<std::string, std::pair<std::string, size_t>> pure_vars_;
};

// ---- Decisions ------------------------------------------------------------------------

constexpr int64_t unknown_extent = 1024;  // assumed where bounds could not be made constant

int64_t extent_of(const FuncNode &node, int d) {
    return node.region[d].known ? node.region[d].extent : unknown_extent;
}

/** A name for a new loop of f that no loop of stage s uses yet. */
std::string fresh_loop_name(const FunctionContents &f, int stage, const std::string &wanted) {
    std::set<std::string> taken(f.args.begin(), f.args.end());
    const Definition &d = f.stage(stage);
    if (d.rdom.defined()) {
        for (const ReductionVariable &rv : d.rdom.domain()) taken.insert(rv.var);
    }
    for (const Split &split : d.schedule.splits) taken.insert({split.old_var, split.outer, split.inner});
    std::string name = wanted;
    while (taken.count(name)) name += "_";
    return name;
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/** Parallelizes the outermost of `outer` (outermost first, with their
 * iteration counts), fusing it with the next ones until it has
 * `parallelism` iterations. Returns the name the innermost of `outer` has
 * afterwards (the fused loop's if it was fused). */
std::string parallelize_outer(ScheduleWriter &w, const FunctionContents &f, int stage,
                              std::vector<std::pair<ScheduleWriter::Loop, int64_t>> outer, int parallelism) {
    if (outer.empty()) return "";
    ScheduleWriter::Loop loop = outer[0].first;
    int64_t count = outer[0].second;
    size_t i = 1;
    for (; i < outer.size() && count < parallelism; i++) {
        ScheduleWriter::Loop fused{fresh_loop_name(f, stage, loop.name + "_" + outer[i].first.name), false};
        w.fuse(outer[i].first, loop, fused);
        loop = fused;
        count *= outer[i].second;
    }
    if (count >= 2) w.parallel(loop);
    return i == outer.size() ? loop.name : outer.back().first.name;
}

/** Schedules the loops of a realized Func's pure definition with the
 * search's tile (CostModel::tile_candidates: x by tile.x and y by tile.y
 * with two or more dimensions, else blocks of tile.x). Returns the loop
 * over its tiles (or blocks) in which a producer can be computed per tile,
 * or "" if it has none; *row_loop: the loop over the rows of a 2-D tile. */
std::string schedule_pure_stage(ScheduleWriter &w, const FuncNode &node, const Tile &tile, int vw,
                                const Settings &settings, std::string *row_loop) {
    const FunctionContents &f = *node.func.get();
    const int dims = f.dimensions();
    if (dims == 0) return "";
    bool tiled = true;
    const int64_t e0 = extent_of(node, 0);
    using Loop = ScheduleWriter::Loop;
    const Loop x{f.args[0], false};
    // Outer loops, outermost first, with their iteration counts.
    std::vector<std::pair<Loop, int64_t>> outer;
    for (int d = dims - 1; d >= 2; d--) outer.push_back({Loop{f.args[d], false}, extent_of(node, d)});

    if (tile.x > 0 && dims >= 2 && e0 >= vw && extent_of(node, 1) >= 2) {
        const Loop y{f.args[1], false};
        const int64_t e1 = extent_of(node, 1);
        const int tx = int(tile.x), ty = int(tile.y);
        const Loop xo{fresh_loop_name(f, 0, x.name + "_o"), false}, xi{fresh_loop_name(f, 0, x.name + "_i"), false};
        const Loop yo{fresh_loop_name(f, 0, y.name + "_o"), false}, yi{fresh_loop_name(f, 0, y.name + "_i"), false};
        w.tile(x, y, xo, yo, xi, yi, tx, ty);
        *row_loop = yi.name;
        if (vw > 1) {
            const Loop xv{fresh_loop_name(f, 0, x.name + "_v"), false};
            w.split(xi, xi, xv, vw);
            w.vectorize(xv);
        }
        outer.push_back({yo, ceil_div(e1, ty)});
        outer.push_back({xo, ceil_div(e0, tx)});
    } else if (tile.x > 0 && e0 >= vw && vw > 1) {
        // One dimension worth vectorizing: blocks of vectors, in parallel when alone.
        const int block = int(tile.x);
        const Loop xo{fresh_loop_name(f, 0, x.name + "_o"), false}, xi{fresh_loop_name(f, 0, x.name + "_i"), false};
        w.split(x, xo, xi, block);
        if (block > vw) {
            const Loop xv{fresh_loop_name(f, 0, x.name + "_v"), false};
            w.split(xi, xi, xv, vw);
            w.vectorize(xv);
        } else {
            w.vectorize(xi);
        }
        if (dims >= 2) outer.push_back({Loop{f.args[1], false}, extent_of(node, 1)});
        outer.push_back({xo, ceil_div(e0, block)});
    } else {
        tiled = false;
        for (int d = std::min(dims - 1, 1); d >= 0; d--) outer.push_back({Loop{f.args[d], false}, extent_of(node, d)});
        if (dims >= 2) outer.pop_back();  // keep the innermost dimension serial
    }
    const std::string tile_loop = parallelize_outer(w, f, 0, outer, settings.parallelism);
    return tiled ? tile_loop : "";
}

/** A producer computed inside a tile of its consumer: its loops are
 * serial there, with the innermost vectorized. */
void schedule_tile_producer(ScheduleWriter &w, const FuncNode &node, int vw) {
    const FunctionContents &f = *node.func.get();
    if (f.dimensions() == 0 || vw <= 1) return;
    const ScheduleWriter::Loop x{f.args[0], false};
    const ScheduleWriter::Loop xv{fresh_loop_name(f, 0, x.name + "_v"), false};
    w.split(x, x, xv, vw);
    w.vectorize(xv);
}

/** The most copies of the loop body the unrolled RVar loops of one update make. */
constexpr int64_t max_unrolled_copies = 16;

/** Unrolls the innermost RVar loops of an update whose extents are
 * constants (not estimates: an unrolled loop needs a constant trip count),
 * while their product stays at most max_unrolled_copies: a small kernel's
 * taps. Unrolling keeps the order of the iterations, so it is always legal. */
void unroll_small_rvars(ScheduleWriter &w, const FunctionContents &f, int stage) {
    const Definition &def = f.stage(stage);
    if (!def.rdom.defined() || def.rdom.predicate().defined()) return;
    int64_t copies = 1;
    for (const ReductionVariable &rv : def.rdom.domain()) {
        std::optional<int64_t> n = as_const_int(simplify(rv.extent));
        if (!n || *n < 2 || copies * *n > max_unrolled_copies) return;
        copies *= *n;
        w.unroll(ScheduleWriter::Loop{rv.var, true});
    }
}

/** Vectorizes the innermost free pure dimension of an update (inside its
 * RVar loops) and parallelizes the outermost (unless `serial`: a stage
 * computed per tile of a parallel loop); RVar loops stay in order, so the
 * reduction's order per point is unchanged, and small ones are unrolled. */
void schedule_update_stage(ScheduleWriter &w, const FuncNode &node, int stage, int vw, bool serial) {
    const FunctionContents &f = *node.func.get();
    using Loop = ScheduleWriter::Loop;
    std::vector<int> free_dims;
    for (int d = 0; d < f.dimensions(); d++) {
        if (is_free_pure_dim(f, stage, d)) free_dims.push_back(d);
    }
    if (free_dims.empty()) {  // e.g. a histogram: every iteration may write anywhere
        unroll_small_rvars(w, f, stage);
        return;
    }
    std::vector<std::pair<Loop, int64_t>> outer;
    for (auto it = free_dims.rbegin(); it != free_dims.rend(); ++it) {
        if (*it != 0) outer.push_back({Loop{f.args[*it], false}, extent_of(node, *it)});
    }
    if (free_dims[0] == 0 && extent_of(node, 0) >= vw && vw > 1) {
        const Loop x{f.args[0], false};
        const Loop xo{fresh_loop_name(f, stage, x.name + "_o"), false}, xv{fresh_loop_name(f, stage, x.name + "_v"), false};
        w.split(x, xo, xv, vw);
        w.vectorize(xv);
        const Definition &def = f.stage(stage);
        if (def.rdom.defined()) {
            // The vector loop goes inside the RVar loops (legal: its iterations are independent).
            std::vector<Loop> order = {xv};
            for (const ReductionVariable &rv : def.rdom.domain()) order.push_back(Loop{rv.var, true});
            w.reorder(order);
        }
        outer.push_back({xo, ceil_div(extent_of(node, 0), vw)});
    } else if (free_dims[0] == 0) {
        outer.push_back({Loop{f.args[0], false}, extent_of(node, 0)});
    }
    unroll_small_rvars(w, f, stage);
    // Parallelize the outermost free dimension only: fusing across RVar loops is not possible.
    if (!serial && !outer.empty() && outer[0].second >= 2) w.parallel(outer[0].first);
}

}  // namespace

const std::string &heuristic_autoscheduler_name() {
    static const std::string name = "LoomHeuristic";
    return name;
}

void run_heuristic_autoscheduler(const Pipeline &pipeline, const Target &target, const AutoschedulerParams &params,
                                 AutoSchedulerResults *results) {
    const Settings settings = parse_settings(params);
    if (target.has_gpu_feature()) {
        throw CompileError("autoscheduler '" + params.name + "': the target " + target.to_string() +
                           " has a GPU feature, and Loom's autoscheduler schedules for the CPU only; schedule GPU "
                           "pipelines by hand (gpu_tile, ...), or autoschedule for a CPU target.");
    }
    std::vector<FunctionPtr> outputs;
    for (const Func &f : pipeline.outputs()) outputs.push_back(f.function());
    CallGraph graph = build_call_graph(outputs);
    check_unscheduled(graph);
    estimate_regions(graph);

    const CostModel model(graph, target, settings);
    const Choices choices = search_schedule(graph, model);

    std::map<std::string, size_t> func_index;
    const std::vector<FunctionPtr> order = topological_order(outputs);
    for (size_t i = 0; i < order.size(); i++) func_index.emplace(order[i].get()->name, i);
    ScheduleWriter w(std::move(func_index));
    // Consumers first, so that a group's head has its tile loop before its members.
    std::map<std::string, std::string> tile_loops;  // realized Func -> its tile loop
    std::map<std::string, std::string> row_loops;   // realized Func -> the loop over its tile's rows
    for (auto it = graph.order.rbegin(); it != graph.order.rend(); ++it) {
        const FuncNode &node = graph.nodes.at(*it);
        if (node.in_cycle || node.is_extern) continue;  // their default schedule is the safe one
        if (choices.inlined.count(node.name)) continue;  // inline is the default
        const FunctionContents &f = *node.func.get();
        const int vw = model.vector_width(node.name);
        w.begin(node.func, 0);
        auto head = choices.head_of.find(node.name);
        const std::string loop = head == choices.head_of.end() ? "" : tile_loops[head->second];
        if (!loop.empty()) {
            const FunctionPtr &consumer = graph.nodes.at(head->second).func;
            auto tile = choices.tiles.find(head->second);
            const std::string &rows = row_loops[head->second];
            if (!rows.empty() && tile != choices.tiles.end() && model.can_slide(head->second, tile->second, choices)) {
                // A sliding window along the rows of the tile (docs/SCHEDULING.md).
                w.store_at(consumer, loop);
                w.compute_at(consumer, rows);
            } else {
                w.compute_at(consumer, loop);
            }
            schedule_tile_producer(w, node, vw);
        } else {
            if (!node.is_output) w.compute_root();
            auto tile = choices.tiles.find(node.name);
            tile_loops[node.name] = schedule_pure_stage(w, node, tile == choices.tiles.end() ? Tile{} : tile->second,
                                                        vw, settings, &row_loops[node.name]);
        }
        w.end();
        for (int s = 1; s < f.stages(); s++) {
            w.begin(node.func, s);
            schedule_update_stage(w, node, s, vw, !loop.empty());
            w.end();
        }
    }

    std::ostringstream header;
    header << "// Schedule written by Loom's autoscheduler " << heuristic_autoscheduler_name();
    if (params.name != heuristic_autoscheduler_name()) header << " (asked for as \"" << params.name << "\")";
    header << "\n// for target " << target.to_string() << ", parallelism=" << settings.parallelism
           << ", last_level_cache_size=" << settings.last_level_cache_size << ", balance=" << settings.balance
           << ".\n// `pipeline` is the Pipeline it scheduled, or one built the same way (its Funcs may be named\n"
              "// differently: pipeline.get_func(i) finds them by position); Funcs not named are inlined.\n";
    results->schedule_source = w.source(header.str());
    std::ostringstream machine;
    machine << settings.parallelism << "," << settings.last_level_cache_size << "," << settings.balance;
    results->machine_params_string = machine.str();
}

}  // namespace internal
}  // namespace loom
