// Random legal schedules for the fuzzer's pipelines.
//
// Funcs are visited from the output back to the inputs. Each visited Func
// first gets a compute level that encloses every use of it (its consumers
// were visited before, so their final loop nests are known), then random
// loop shaping for each of its stages: splits with tail strategies that are
// legal where they are used, fuses, reorders, tiles, and at most one
// vectorized, some unrolled and some parallel loops.

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "fuzz/FuzzModel.h"

using loom::TailStrategy;

namespace fuzz {

namespace {

enum class Mark { None, Parallel, Vectorized, Unrolled };

struct Loop {
    std::string name;
    bool rvar = false;
    int dim = -1;              // the pure dimension it comes from (-1: RVar or fused)
    bool original = false;     // the dimension's own loop, not split or fused
    bool unit_step = false;    // advances its dimension by one per iteration
    bool shifted = false;      // made by (or under) a ShiftInwards split
    bool auto_named = false;   // named by Loom (vectorize/unroll/parallel with a factor)
    int const_extent = 0;      // > 0 when the extent is known
    // The output's loops: the extent at run time (0: unknown). ShiftInwards
    // needs at least its factor there (the shifted block would start before
    // the output's min).
    int output_extent = 0;
    Mark mark = Mark::None;
    // Halide's split rules: a loop from an earlier split's inner loop takes
    // no predicated tail (nor RoundUp in an update), and the loops of a
    // predicated split are not split again.
    bool from_inner = false;
    bool predicated = false;
    // The inner loop of a split whose tail makes every iteration of the
    // outer loop cover the same number of points (RoundUp, ShiftInwards,
    // Auto): a Func computed per iteration there has a box of one size.
    bool same_size = false;
    // Made by (or under) a GuardWithIf or predicated split: Loom clamps a
    // box inside it to the guard (min(v, v_max) - v + k), which it cannot
    // prove constant, so no Func computed inside counts as per tile.
    bool guarded = false;
};

struct LoopId {
    int func, stage;
    std::string name;
    bool rvar;
    bool operator==(const LoopId &o) const { return func == o.func && stage == o.stage && name == o.name; }
};

using Path = std::vector<LoopId>;  // outermost first

enum class Placement { Inline, Root, At };

struct FuncState {
    std::vector<std::vector<Loop>> stages;  // loops per stage, innermost first
    Placement placement = Placement::Inline;
    Path site;  // the loops around the Func's computation
    bool visited = false;
};

/** Whether index expression e is y (dim 1's var) plus a constant; sets d. */
bool var_plus_const(const ENode &e, int v, int &d) {
    if (e.op == Op::Var && e.index == v) {
        d = 0;
        return true;
    }
    if (e.op == Op::Add && e.kids[0]->op == Op::Var && e.kids[0]->index == v && e.kids[1]->op == Op::Const) {
        d = (int)e.kids[1]->ival;
        return true;
    }
    return false;
}

class ScheduleGenerator {
public:
    ScheduleGenerator(const PipelineDesc &p, std::mt19937 &rng) : p_(p), rng_(rng), state_(p.funcs.size()) {}

    ScheduleDesc run() {
        for (int f = (int)p_.funcs.size() - 1; f >= 0; f--) visit(f);
        // The output's shaping comes first in the text (it is visited
        // first); compute levels name loops that exist by then.
        if (chance(0.8)) add_compute_with();
        return s_;
    }

private:
    int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
    bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
    template<typename T>
    const T &pick(const std::vector<T> &v) {
        return v[uniform(0, (int)v.size() - 1)];
    }

    bool is_output(int f) const { return f == p_.output_index(); }
    int last_stage(int f) const { return (int)p_.funcs[f].updates.size(); }

    SchedOp op(SchedKind k, int f, int stage) {
        SchedOp o;
        o.kind = k;
        o.func = f;
        o.stage = stage;
        return o;
    }

    // ---- where each Func is used --------------------------------------------------

    /** The loop paths (outermost first, ending inside the innermost loop of
     * the reading stage) of every use of Func f. */
    std::vector<Path> use_paths(int f) const {
        std::vector<Path> paths;
        for (int c = f + 1; c < (int)p_.funcs.size(); c++) {
            const FuncDesc &cd = p_.funcs[c];
            for (int s = 0; s < (int)cd.reads.size(); s++) {
                const std::vector<int> &r = cd.reads[s];
                if (std::find(r.begin(), r.end(), f) == r.end()) continue;
                const FuncState &cs = state_[c];
                if (cs.placement == Placement::Inline) {
                    std::vector<Path> through = use_paths(c);
                    paths.insert(paths.end(), through.begin(), through.end());
                    continue;
                }
                Path path = cs.site;
                const std::vector<Loop> &loops = cs.stages[s];
                for (auto it = loops.rbegin(); it != loops.rend(); ++it) path.push_back({c, s, it->name, it->rvar});
                paths.push_back(path);
            }
        }
        return paths;
    }

    static Path common_prefix(const std::vector<Path> &paths) {
        if (paths.empty()) return {};
        Path prefix = paths[0];
        for (const Path &p : paths) {
            size_t n = 0;
            while (n < prefix.size() && n < p.size() && prefix[n] == p[n]) n++;
            prefix.resize(n);
        }
        return prefix;
    }

    const Loop &loop_of(const LoopId &id) const {
        for (const Loop &l : state_[id.func].stages[id.stage]) {
            if (l.name == id.name) return l;
        }
        throw std::logic_error("fuzz: loop " + id.name + " not found");
    }

    // ---- compute and store levels ---------------------------------------------------

    void place(int f) {
        FuncState &st = state_[f];
        if (is_output(f)) {
            st.placement = Placement::Root;
            return;
        }
        const FuncDesc &d = p_.funcs[f];
        std::vector<Path> uses = use_paths(f);
        Path prefix = common_prefix(uses);
        // Loops a Func may be computed in: not vectorized, not named by Loom.
        std::vector<size_t> candidates;
        for (size_t i = 0; i < prefix.size(); i++) {
            const Loop &l = loop_of(prefix[i]);
            if (l.mark == Mark::Vectorized || l.auto_named) break;
            candidates.push_back(i);
        }
        double u = std::uniform_real_distribution<double>(0, 1)(rng_);
        bool can_inline = d.updates.empty();
        if (can_inline && u < 0.3) {
            st.placement = Placement::Inline;  // the default: nothing to say
            return;
        }
        if (candidates.empty() || u < 0.55) {
            st.placement = Placement::Root;
            s_.ops.push_back(op(SchedKind::ComputeRoot, f, 0));
            return;
        }
        size_t at = pick(candidates);
        st.placement = Placement::At;
        st.site.assign(prefix.begin(), prefix.begin() + at + 1);
        const LoopId &l = prefix[at];
        SchedOp c = op(SchedKind::ComputeAt, f, 0);
        c.at_func = l.func;
        c.at_stage = l.stage == last_stage(l.func) ? -1 : l.stage;
        c.vars = {l.name};
        c.rvars = {l.rvar};
        s_.ops.push_back(c);
        if (try_fold(f, uses, at)) return;
        mark_per_tile(f, uses, at);
        if (!chance(0.3)) return;
        // Storage further out: at the root or at an enclosing loop, but not
        // outside a parallel loop that encloses the computation (the
        // iterations would share, and race on, one buffer).
        int store = uniform(-1, (int)at - 1);
        for (size_t i = 0; i <= at; i++) {
            if (loop_of(prefix[i]).mark == Mark::Parallel && (int)i > store) return;
        }
        // The loop the producer's window slides along (when it is serial):
        // the visit splits the producer in that dimension now and then.
        slide_dim_[f] = loop_of(prefix[at]).dim;
        if (store < 0) {
            s_.ops.push_back(op(SchedKind::StoreRoot, f, 0));
            return;
        }
        const LoopId &sl = prefix[store];
        store_sites_.push_back(sl);
        SchedOp so = op(SchedKind::StoreAt, f, 0);
        so.at_func = sl.func;
        so.at_stage = sl.stage == last_stage(sl.func) ? -1 : sl.stage;
        so.vars = {sl.name};
        so.rvars = {sl.rvar};
        s_.ops.push_back(so);
    }

    /** store_root + fold_storage(y, k) when it is certainly legal: f is read
     * only by one stage of one consumer, at y + constant, and computed at the
     * innermost, serial, unshifted piece of that consumer's y loop. f's own
     * loops are not split yet (visit() then leaves its y alone). */
    bool try_fold(int f, const std::vector<Path> &uses, size_t at) {
        if (!p_.funcs[f].updates.empty() || uses.size() != 1 || !chance(0.35)) return false;
        const Path &use = uses[0];
        const LoopId &l = use[at];
        const Loop &loop = loop_of(l);
        if (loop.dim != 1 || !loop.unit_step || loop.shifted || loop.mark == Mark::Parallel) return false;
        for (size_t i = 0; i < at; i++) {
            if (loop_of(use[i]).mark == Mark::Parallel) return false;
        }
        // The innermost piece of y in loop order: no loop inside it may
        // advance y too (an outer piece reordered inwards, or a loop fused
        // with y), or one iteration would need many rows.
        for (size_t i = at + 1; i < use.size(); i++) {
            const Loop &inner = loop_of(use[i]);
            if (!inner.rvar && inner.dim != 0) return false;
        }
        // The consumer's reads of f in that stage, in dimension 1.
        const FuncDesc &c = p_.funcs[l.func];
        const ENode *value = l.stage == 0 ? c.pure.get() : c.updates[l.stage - 1].value.get();
        if (!value || p_.funcs[l.func].kind == FuncKind::InputWrapper) return false;
        int lo = 1 << 20, hi = -(1 << 20);
        bool ok = true;
        std::function<void(const ENode &)> scan = [&](const ENode &e) {
            if (e.op == Op::Call && e.index == f) {
                int d = 0;
                if (!var_plus_const(*e.kids[1], 1, d)) ok = false;
                lo = std::min(lo, d);
                hi = std::max(hi, d);
            }
            for (const ENodePtr &k : e.kids) scan(*k);
        };
        scan(*value);
        if (!ok || lo > hi) return false;
        int factor = hi - lo + 1 + uniform(0, 2);
        s_.ops.push_back(op(SchedKind::StoreRoot, f, 0));
        SchedOp fo = op(SchedKind::FoldStorage, f, 0);
        fo.vars = {"y"};
        fo.rvars = {false};
        fo.factor = factor;
        s_.ops.push_back(fo);
        folded_.insert(f);
        return true;
    }

    /** The range [lo, hi] of d in a read index `v + d` (v: pure Var v of
     * the reading stage, d: constants and RVars of its RDom); false for
     * any other index (scaled, transposed, an RVar alone, ...). */
    static bool offset_range(const ENode &e, int v, const FuncDesc &reader, int &lo, int &hi) {
        if (e.op == Op::Var) {
            lo = hi = 0;
            return e.index == v;
        }
        if (e.op != Op::Add) return false;
        const ENode &b = *e.kids[1];
        if (!offset_range(*e.kids[0], v, reader, lo, hi)) return false;
        if (b.op == Op::Const) {
            lo += (int)b.ival;
            hi += (int)b.ival;
            return true;
        }
        if (b.op == Op::RVar && b.index < (int)reader.rdom.size()) {
            lo += reader.rdom[b.index].first;
            hi += reader.rdom[b.index].first + reader.rdom[b.index].second - 1;
            return true;
        }
        return false;
    }

    /** Sets the extents of f's loops when f, computed at use[at], has a box
     * of one size per iteration there (a Func per tile whose extent is a
     * constant only once the tile's bounds are simplified): read by one
     * stage of one consumer, at `v + offsets` in each dimension v, and the
     * consumer's loops inside `at` are, per dimension, none, the inner
     * loop of a RoundUp/ShiftInwards/Auto split, or a whole dimension of
     * known extent, plus all its RVars. */
    void mark_per_tile(int f, const std::vector<Path> &uses, size_t at) {
        const FuncDesc &d = p_.funcs[f];
        if (uses.size() != 1 || !(d.updates.empty() || d.kind == FuncKind::Window)) return;
        const Path &use = uses[0];
        const LoopId &reader_loop = use.back();
        const FuncDesc &reader = p_.funcs[reader_loop.func];
        const int stage = reader_loop.stage;
        if (reader.kind == FuncKind::InputWrapper || !reader.where.empty()) return;
        const std::vector<int> &direct = reader.reads[stage];
        if (std::find(direct.begin(), direct.end(), f) == direct.end()) return;
        const ENode *value = stage == 0 ? reader.pure.get() : reader.updates[stage - 1].value.get();
        if (!value) return;
        int lo[2] = {1 << 20, 1 << 20}, hi[2] = {-(1 << 20), -(1 << 20)};
        bool ok = true;
        std::function<void(const ENode &)> scan = [&](const ENode &e) {
            if (e.op == Op::Call && e.index == f) {
                for (int v = 0; v < 2; v++) {
                    int l = 0, h = 0;
                    if (!offset_range(*e.kids[v], v, reader, l, h)) ok = false;
                    lo[v] = std::min(lo[v], l);
                    hi[v] = std::max(hi[v], h);
                }
            }
            for (const ENodePtr &k : e.kids) scan(*k);
        };
        scan(*value);
        if (stage > 0) {
            for (const ENodePtr &a : reader.updates[stage - 1].lhs) scan(*a);
        }
        if (!ok || lo[0] > hi[0]) return;
        int per_iteration[2] = {1, 1}, inner_loops[2] = {0, 0};
        size_t rvars_inside = 0;
        for (size_t i = at + 1; i < use.size(); i++) {
            const Loop &l = loop_of(use[i]);
            if (l.rvar) {
                rvars_inside++;
                continue;
            }
            // One loop per dimension: the inner loop of a split with a tail
            // of one size, or a whole dimension of known extent (a bound()
            // output, or a consumer that is itself per tile).
            if (l.dim < 0 || ++inner_loops[l.dim] > 1) return;
            if (!(l.same_size || l.original) || l.const_extent <= 0) return;
            per_iteration[l.dim] = l.const_extent;
        }
        if (stage > 0 && rvars_inside != reader.rdom.size()) return;
        // Fused or guarded loops anywhere in the reading stage make the
        // box's bounds clamped or divided, not constant.
        for (const Loop &l : state_[reader_loop.func].stages[stage]) {
            if ((!l.rvar && l.dim < 0) || l.guarded) return;
        }
        for (std::vector<Loop> &loops : state_[f].stages) {
            for (Loop &l : loops) {
                if (l.original) l.const_extent = per_iteration[l.dim] + hi[l.dim] - lo[l.dim];
            }
        }
        per_tile_.insert(f);
    }

    // ---- loop shaping ----------------------------------------------------------------

    void init_loops(int f) {
        const FuncDesc &d = p_.funcs[f];
        FuncState &st = state_[f];
        Loop x{"x", false, 0, true, true}, y{"y", false, 1, true, true};
        if (is_output(f)) {
            x.output_extent = p_.out_width;
            y.output_extent = p_.out_height;
        }
        st.stages.push_back({x, y});
        for (size_t u = 0; u < d.updates.size(); u++) {
            std::vector<Loop> loops;
            const char *rnames[] = {"x", "y"};
            for (size_t r = 0; r < d.rdom.size(); r++) {
                Loop l;
                l.name = "r" + std::to_string(f) + "$" + rnames[r];
                l.rvar = true;
                loops.push_back(l);
            }
            for (int v : d.updates[u].pure_vars) loops.push_back(v == 0 ? x : y);
            st.stages.push_back(loops);
        }
    }

    /** May loop l of f be split with RoundUp (or PredicateLoads) by factor? */
    bool round_up_ok(int f, const Loop &l, int factor) const {
        if (l.rvar) return false;
        if (!is_output(f)) return true;
        if (!l.original) return false;
        int extent = l.dim == 0 ? p_.out_width : p_.out_height;
        return extent % factor == 0;
    }

    TailStrategy pick_tail(int f, int stage, const Loop &l, int factor) {
        std::vector<TailStrategy> ok = {TailStrategy::GuardWithIf, TailStrategy::PredicateStores};
        if (stage == 0 && (!is_output(f) || l.output_extent >= factor)) {
            ok.push_back(TailStrategy::ShiftInwards);
            ok.push_back(TailStrategy::Auto);
        }
        if (round_up_ok(f, l, factor)) {
            ok.push_back(TailStrategy::RoundUp);
            ok.push_back(TailStrategy::PredicateLoads);
            if (stage > 0) ok.push_back(TailStrategy::Auto);
        }
        auto refused = [&](TailStrategy t) {
            const bool predicated = t == TailStrategy::PredicateLoads || t == TailStrategy::PredicateStores;
            return l.from_inner && (predicated || (stage > 0 && t == TailStrategy::RoundUp));
        };
        ok.erase(std::remove_if(ok.begin(), ok.end(), refused), ok.end());
        return pick(ok);
    }

    std::vector<int> free_pure_loops(const std::vector<Loop> &loops, bool avoid_dim1) const {
        std::vector<int> v;
        for (int i = 0; i < (int)loops.size(); i++) {
            if (loops[i].rvar || loops[i].mark != Mark::None || loops[i].predicated) continue;
            if (avoid_dim1 && loops[i].dim == 1) continue;
            v.push_back(i);
        }
        return v;
    }

    std::string fresh(int f, int stage, const std::string &base, const char *what) {
        return base + "_" + what + std::to_string(++counter_[{f, stage}]);
    }

    /** Splits loops[i] (model only); returns the index of the inner loop
     * (i) and leaves the outer at i + 1. */
    void split_model(std::vector<Loop> &loops, int i, const std::string &outer, const std::string &inner, int factor,
                     TailStrategy tail, int stage) {
        Loop old = loops[i];
        Loop in = old, out = old;
        out.name = outer;
        out.original = false;
        out.unit_step = false;
        out.const_extent = old.const_extent ? (old.const_extent + factor - 1) / factor : 0;
        out.output_extent = old.output_extent ? (old.output_extent + factor - 1) / factor : 0;
        in.name = inner;
        in.original = false;
        in.const_extent = factor;
        in.output_extent = old.output_extent ? factor : 0;
        in.from_inner = true;
        out.from_inner = old.from_inner;
        const bool predicated = tail == TailStrategy::PredicateLoads || tail == TailStrategy::PredicateStores;
        in.predicated = out.predicated = old.predicated || predicated;
        bool shift = tail == TailStrategy::ShiftInwards || (tail == TailStrategy::Auto && stage == 0);
        in.shifted = old.shifted || shift;
        out.shifted = in.shifted;
        in.same_size = tail == TailStrategy::RoundUp || tail == TailStrategy::ShiftInwards || tail == TailStrategy::Auto;
        out.same_size = false;
        const bool guard = tail == TailStrategy::GuardWithIf || predicated;
        in.guarded = out.guarded = old.guarded || guard;
        loops[i] = in;
        loops.insert(loops.begin() + i + 1, out);
    }

    void add_split(int f, int stage, std::vector<Loop> &loops, bool avoid_dim1) {
        std::vector<int> free = free_pure_loops(loops, avoid_dim1);
        if (free.empty()) return;
        int i = pick(free);
        int factor = uniform(1, 9);
        split_loop(f, stage, loops, i, factor, pick_tail(f, stage, loops[i], factor));
    }

    /** A split of loops[i] by factor with tail (legal there). */
    void split_loop(int f, int stage, std::vector<Loop> &loops, int i, int factor, TailStrategy tail) {
        std::string old = loops[i].name;
        std::string outer = chance(0.3) ? old : fresh(f, stage, old, "o");
        std::string inner = fresh(f, stage, old, "i");
        SchedOp o = op(SchedKind::Split, f, stage);
        o.vars = {old, outer, inner};
        o.rvars = {false, false, false};
        o.factor = factor;
        o.tail = tail;
        s_.ops.push_back(o);
        split_model(loops, i, outer, inner, factor, tail, stage);
    }

    void add_fuse(int f, int stage, std::vector<Loop> &loops, bool avoid_dim1) {
        std::vector<int> pairs;
        for (int i = 0; i + 1 < (int)loops.size(); i++) {
            const Loop &a = loops[i], &b = loops[i + 1];
            if (a.rvar || b.rvar || a.mark != Mark::None || b.mark != Mark::None) continue;
            if (avoid_dim1 && (a.dim == 1 || b.dim == 1)) continue;
            pairs.push_back(i);
        }
        if (pairs.empty()) return;
        int i = pick(pairs);
        Loop fused;
        fused.name = fresh(f, stage, loops[i].name + loops[i + 1].name, "f");
        fused.const_extent = loops[i].const_extent && loops[i + 1].const_extent
                                 ? loops[i].const_extent * loops[i + 1].const_extent
                                 : 0;
        fused.shifted = loops[i].shifted || loops[i + 1].shifted;
        fused.from_inner = loops[i].from_inner || loops[i + 1].from_inner;
        fused.predicated = loops[i].predicated || loops[i + 1].predicated;
        fused.guarded = loops[i].guarded || loops[i + 1].guarded;
        fused.output_extent = loops[i].output_extent * loops[i + 1].output_extent;
        SchedOp o = op(SchedKind::Fuse, f, stage);
        o.vars = {loops[i].name, loops[i + 1].name, fused.name};
        o.rvars = {false, false, false};
        s_.ops.push_back(o);
        loops[i] = fused;
        loops.erase(loops.begin() + i + 1);
    }

    void add_reorder(int f, int stage, std::vector<Loop> &loops) {
        if (loops.size() < 2) return;
        std::vector<Loop> order = loops;
        std::shuffle(order.begin(), order.end(), rng_);
        // RVars keep their relative order (reordering them could change an
        // order-dependent reduction; Loom refuses it).
        std::vector<Loop> rvars;
        for (const Loop &l : loops) {
            if (l.rvar) rvars.push_back(l);
        }
        size_t next = 0;
        for (Loop &l : order) {
            if (l.rvar) l = rvars[next++];
        }
        SchedOp o = op(SchedKind::Reorder, f, stage);
        for (const Loop &l : order) {
            o.vars.push_back(l.name);
            o.rvars.push_back(l.rvar);
        }
        s_.ops.push_back(o);
        loops = order;
    }

    void add_tile(int f, int stage, std::vector<Loop> &loops, bool avoid_dim1) {
        std::vector<int> free = free_pure_loops(loops, avoid_dim1);
        if (free.size() < 2) return;
        std::shuffle(free.begin(), free.end(), rng_);
        int a = std::min(free[0], free[1]), b = std::max(free[0], free[1]);
        int fa = uniform(1, 9), fb = uniform(1, 9);
        // One tail for both: legal for both.
        TailStrategy tail = TailStrategy::GuardWithIf;
        for (int k = 0; k < 4; k++) {
            TailStrategy t = pick_tail(f, stage, loops[a], fa);
            TailStrategy t2 = pick_tail(f, stage, loops[b], fb);
            if (t == t2) {
                tail = t;
                break;
            }
        }
        if (tail == TailStrategy::RoundUp || tail == TailStrategy::PredicateLoads ||
            (tail == TailStrategy::Auto && stage > 0)) {
            if (!round_up_ok(f, loops[a], fa) || !round_up_ok(f, loops[b], fb)) tail = TailStrategy::GuardWithIf;
        }
        std::string an = loops[a].name, bn = loops[b].name;
        std::string ai = fresh(f, stage, an, "i"), bi = fresh(f, stage, bn, "i");
        std::string ao = fresh(f, stage, an, "o"), bo = fresh(f, stage, bn, "o");
        SchedOp o = op(SchedKind::Tile, f, stage);
        o.vars = {an, bn, ao, bo, ai, bi};
        o.rvars = std::vector<bool>(6, false);
        o.factor = fa;
        o.factor2 = fb;
        o.tail = tail;
        s_.ops.push_back(o);
        // split a, split b, then xi, yi, xo, yo into the four places.
        split_model(loops, b, bo, bi, fb, tail, stage);
        split_model(loops, a, ao, ai, fa, tail, stage);
        std::vector<int> places;
        std::vector<Loop> four;
        for (const std::string &n : {ai, bi, ao, bo}) {
            for (int i = 0; i < (int)loops.size(); i++) {
                if (loops[i].name == n) {
                    places.push_back(i);
                    four.push_back(loops[i]);
                }
            }
        }
        std::sort(places.begin(), places.end());
        for (int k = 0; k < 4; k++) loops[places[k]] = four[k];
    }

    void add_vectorize(int f, int stage, std::vector<Loop> &loops) {
        Loop &l = loops[0];
        if (l.rvar || l.mark != Mark::None || (folded_.count(f) && l.dim != 0)) return;
        if (l.const_extent > 0 && l.const_extent <= 16 && chance(0.5)) {
            SchedOp o = op(SchedKind::Vectorize, f, stage);
            o.vars = {l.name};
            o.rvars = {false};
            s_.ops.push_back(o);
            l.mark = Mark::Vectorized;
            return;
        }
        if (l.predicated) return;  // not split again
        int factor = uniform(2, 8);
        SchedOp o = op(SchedKind::VectorizeSplit, f, stage);
        o.vars = {l.name};
        o.rvars = {false};
        o.factor = factor;
        o.tail = pick_tail(f, stage, l, factor);
        s_.ops.push_back(o);
        split_model(loops, 0, l.name, l.name + "_vi", factor, o.tail, stage);
        loops[0].auto_named = true;
        loops[0].mark = Mark::Vectorized;
    }

    void add_unroll(int f, int stage, std::vector<Loop> &loops) {
        std::vector<int> free;
        for (int i = 0; i < (int)loops.size() && i < 3; i++) {
            if (folded_.count(f) && loops[i].dim != 0) continue;  // a folded Func's y stays whole
            if (!loops[i].rvar && loops[i].mark == Mark::None) free.push_back(i);
        }
        if (free.empty()) return;
        int i = pick(free);
        Loop &l = loops[i];
        double u = std::uniform_real_distribution<double>(0, 1)(rng_);
        if (l.const_extent > 0 && l.const_extent <= 16 && u < 0.4) {
            SchedOp o = op(SchedKind::Unroll, f, stage);
            o.vars = {l.name};
            o.rvars = {false};
            s_.ops.push_back(o);
            l.mark = Mark::Unrolled;
            return;
        }
        if (u < 0.7) {
            SchedOp o = op(SchedKind::UnrollCascade, f, stage);
            o.vars = {l.name};
            o.rvars = {false};
            o.cascade = pick(std::vector<std::vector<int>>{{8, 4, 1}, {4, 2, 1}, {3, 1}, {2, 1}, {5, 2, 1}});
            s_.ops.push_back(o);
            l.mark = Mark::Unrolled;
            return;
        }
        if (l.predicated) return;  // not split again
        int factor = uniform(2, 4);
        SchedOp o = op(SchedKind::UnrollSplit, f, stage);
        o.vars = {l.name};
        o.rvars = {false};
        o.factor = factor;
        o.tail = pick_tail(f, stage, l, factor);
        s_.ops.push_back(o);
        split_model(loops, i, l.name, l.name + "_ui", factor, o.tail, stage);
        loops[i].auto_named = true;
        loops[i].mark = Mark::Unrolled;
    }

    void add_parallel(int f, int stage, std::vector<Loop> &loops) {
        std::vector<int> outer;
        for (int i = 1; i < (int)loops.size(); i++) {
            if (folded_.count(f) && loops[i].dim != 0) continue;  // a folded Func's y stays whole
            if (!loops[i].rvar && loops[i].mark == Mark::None) outer.push_back(i);
        }
        if (outer.empty()) return;
        int i = pick(outer);
        Loop &l = loops[i];
        if (chance(0.25) && !l.predicated) {
            int task = uniform(2, 5);
            SchedOp o = op(SchedKind::ParallelTask, f, stage);
            o.vars = {l.name};
            o.rvars = {false};
            o.factor = task;
            o.tail = pick_tail(f, stage, l, task);
            s_.ops.push_back(o);
            split_model(loops, i, l.name, l.name + "_pi", task, o.tail, stage);
            loops[i].auto_named = true;
            loops[i + 1].mark = Mark::Parallel;
            return;
        }
        SchedOp o = op(SchedKind::Parallel, f, stage);
        o.vars = {l.name};
        o.rvars = {false};
        s_.ops.push_back(o);
        l.mark = Mark::Parallel;
    }

    void add_output_bound(int f) {
        int dim = uniform(0, 1);
        SchedOp o = op(SchedKind::Bound, f, 0);
        o.vars = {dim == 0 ? "x" : "y"};
        o.rvars = {false};
        o.bound_min = dim == 0 ? p_.out_min_x : p_.out_min_y;
        o.factor = dim == 0 ? p_.out_width : p_.out_height;
        s_.ops.push_back(o);
        for (std::vector<Loop> &loops : state_[f].stages) {
            for (Loop &l : loops) {
                if (l.original && l.dim == dim) l.const_extent = o.factor;
            }
        }
    }

    /** The first free pure loop of dimension dim (-1: none). */
    int free_loop_of_dim(const std::vector<Loop> &loops, int dim) const {
        for (int i = 0; i < (int)loops.size(); i++) {
            const Loop &l = loops[i];
            if (!l.rvar && l.dim == dim && l.mark == Mark::None && !l.predicated) return i;
        }
        return -1;
    }

    /** A per-tile Func's stage as an accumulator block in registers: its
     * pure loops innermost (x, then y, then the RVars in their order),
     * x vectorized and y unrolled, both whole (their extents are constants
     * once the tile's bounds are simplified). */
    void add_register_block(int f, int stage, std::vector<Loop> &loops) {
        int xi = -1, yi = -1;
        for (int i = 0; i < (int)loops.size(); i++) {
            if (loops[i].original && loops[i].dim == 0) xi = i;
            if (loops[i].original && loops[i].dim == 1) yi = i;
        }
        if (xi < 0 || yi < 0) return;
        if (stage > 0) {
            std::vector<Loop> order = {loops[xi], loops[yi]};
            for (const Loop &l : loops) {
                if (l.rvar) order.push_back(l);
            }
            SchedOp o = op(SchedKind::Reorder, f, stage);
            for (const Loop &l : order) {
                o.vars.push_back(l.name);
                o.rvars.push_back(l.rvar);
            }
            s_.ops.push_back(o);
            loops = order;
            xi = 0;
            yi = 1;
        }
        if (loops[xi].const_extent <= 16 && chance(0.85)) {
            SchedOp o = op(SchedKind::Vectorize, f, stage);
            o.vars = {loops[xi].name};
            o.rvars = {false};
            s_.ops.push_back(o);
            loops[xi].mark = Mark::Vectorized;
        }
        if (loops[yi].const_extent <= 16 && chance(0.85)) {
            SchedOp o = op(SchedKind::Unroll, f, stage);
            o.vars = {loops[yi].name};
            o.rvars = {false};
            s_.ops.push_back(o);
            loops[yi].mark = Mark::Unrolled;
        }
    }

    void shape_stage(int f, int stage) {
        std::vector<Loop> &loops = state_[f].stages[stage];
        // A folded Func keeps its y loop whole (see try_fold).
        bool avoid_dim1 = folded_.count(f) > 0;
        // An update split along a pure Var with a GuardWithIf tail (its
        // region must stay exact: the tail is not rounded up).
        if (stage > 0 && chance(0.3)) {
            std::vector<int> free = free_pure_loops(loops, avoid_dim1);
            if (!free.empty()) {
                int i = pick(free);
                split_loop(f, stage, loops, i, uniform(2, 9), TailStrategy::GuardWithIf);
            }
        }
        int structural = uniform(0, 3);
        for (int k = 0; k < structural; k++) {
            switch (uniform(0, 4)) {
            case 0:
            case 1: add_split(f, stage, loops, avoid_dim1); break;
            case 2: add_fuse(f, stage, loops, avoid_dim1); break;
            case 3: add_reorder(f, stage, loops); break;
            case 4: add_tile(f, stage, loops, avoid_dim1); break;
            }
        }
        if (chance(0.4)) add_vectorize(f, stage, loops);
        if (chance(0.3)) add_unroll(f, stage, loops);
        if (chance(0.35)) add_parallel(f, stage, loops);
    }

    void visit(int f) {
        init_loops(f);
        place(f);
        FuncState &st = state_[f];
        if (st.placement == Placement::Inline) {
            // An inlined Func has no loops of its own.
            return;
        }
        if (is_output(f) && chance(0.15)) add_output_bound(f);
        if (per_tile_.count(f) && chance(0.7)) {
            for (int s = 0; s < (int)st.stages.size(); s++) add_register_block(f, s, st.stages[s]);
            return;
        }
        split_sliding_producer(f);
        for (int s = 0; s < (int)st.stages.size(); s++) {
            if (chance(0.75)) shape_stage(f, s);
        }
    }

    /** A producer with storage outside its compute loop (a sliding window,
     * or folded storage) split along the dimension it slides in: a
     * folded Func's y only with GuardWithIf (other tails compute rows
     * outside the window, into slots still live). */
    void split_sliding_producer(int f) {
        std::vector<Loop> &loops = state_[f].stages[0];
        if (folded_.count(f)) {
            if (!chance(0.5)) return;
            int i = free_loop_of_dim(loops, 1);
            if (i >= 0) split_loop(f, 0, loops, i, uniform(1, 4), TailStrategy::GuardWithIf);
            return;
        }
        auto it = slide_dim_.find(f);
        if (it == slide_dim_.end() || it->second < 0 || !chance(0.6)) return;
        int i = free_loop_of_dim(loops, it->second);
        if (i < 0) return;
        int factor = uniform(2, 6);
        split_loop(f, 0, loops, i, factor, pick_tail(f, 0, loops[i], factor));
    }

    // ---- compute_with ---------------------------------------------------------------------

    /** The Funcs that e calls. */
    static void calls_in(const ENode &e, std::set<int> &out) {
        if (e.op == Op::Call) out.insert((int)e.index);
        for (const ENodePtr &k : e.kids) calls_in(*k, out);
    }

    /** The Funcs that f's definitions call, from the expressions themselves
     * (FuncDesc::reads may list a Func whose read the generator dropped). */
    std::set<int> direct_reads(int f) const {
        std::set<int> out;
        const FuncDesc &d = p_.funcs[f];
        if (d.pure) calls_in(*d.pure, out);
        for (const UpdateDesc &u : d.updates) {
            if (u.value) calls_in(*u.value, out);
            for (const ENodePtr &a : u.lhs) {
                if (a) calls_in(*a, out);
            }
        }
        return out;
    }

    /** Whether Func a reads Func b, directly or through other Funcs. */
    bool depends_on(int a, int b) const {
        for (int r : direct_reads(a)) {
            if (r == b || depends_on(r, b)) return true;
        }
        return false;
    }

    /** Whether loop l of a stage may be one of the loops a compute_with
     * fuses: serial or parallel, over a pure variable or split from one,
     * not shifted inwards (ShiftInwards recomputes points) and named by the
     * schedule. */
    static bool fusable(const Loop &l) {
        return !l.rvar && l.dim >= 0 && !l.shifted && !l.auto_named;
    }

    /** Whether loops x and y of two stages may be fused: fusable, the same
     * dimension and kind, and vectorized or unrolled loops of the same
     * constant extent. */
    static bool pair_up(const Loop &x, const Loop &y) {
        if (!fusable(x) || !fusable(y) || x.dim != y.dim || x.mark != y.mark) return false;
        if (x.mark == Mark::Vectorized || x.mark == Mark::Unrolled) {
            return x.const_extent > 0 && x.const_extent == y.const_extent;
        }
        return true;
    }

    /** Fuses the pure stage of a Func without updates (b) into the pure
     * stage of another (a), down to a loop, where that is certainly legal:
     * both are used by the output, neither reads the other (so no Func has
     * to run between them), both are
     * computed at the same place (root, or the same loop), both are neither
     * inline nor the output nor folded, the fused loops pair up (same
     * dimension, same kind, see fusable()), and no Func is computed or
     * stored at any fused loop. */
    void add_compute_with() {
        struct Candidate {
            int a, b, depth;
        };
        std::vector<Candidate> candidates;
        const int n = (int)p_.funcs.size();
        for (int a = 0; a < n; a++) {
            for (int b = 0; b < n; b++) {
                if (a == b || is_output(a) || is_output(b) || !p_.funcs[b].updates.empty()) continue;
                // Both must be part of the pipeline (Loom refuses to fuse
                // with a Func the output does not use).
                if (!depends_on(p_.output_index(), a) || !depends_on(p_.output_index(), b)) continue;
                if (folded_.count(a) || folded_.count(b)) continue;
                const FuncState &sa = state_[a], &sb = state_[b];
                if (sa.placement == Placement::Inline || sa.placement != sb.placement || !(sa.site == sb.site)) continue;
                if (depends_on(a, b) || depends_on(b, a)) continue;
                const std::vector<Loop> &la = sa.stages[0], &lb = sb.stages[0];
                int depth = 0;
                while (depth < (int)la.size() && depth < (int)lb.size()) {
                    const Loop &x = la[la.size() - 1 - depth], &y = lb[lb.size() - 1 - depth];
                    if (!pair_up(x, y)) break;
                    if (used_as_site({a, 0, x.name, false}) || used_as_site({b, 0, y.name, false})) break;
                    depth++;
                }
                if (depth > 0) candidates.push_back({a, b, depth});
            }
        }
        if (candidates.empty()) return;
        const Candidate &c = pick(candidates);
        const std::vector<Loop> &la = state_[c.a].stages[0];
        int depth = uniform(1, c.depth);
        SchedOp o = op(SchedKind::ComputeWith, c.b, 0);
        o.at_func = c.a;
        o.at_stage = 0;
        o.vars = {la[la.size() - depth].name};
        o.rvars = {false};
        // Halide's LoopAlignStrategy, or none (Auto).
        if (chance(0.6)) {
            o.align = (int)pick(std::vector<loom::LoopAlignStrategy>{
                loom::LoopAlignStrategy::AlignStart, loom::LoopAlignStrategy::AlignEnd,
                loom::LoopAlignStrategy::NoAlign, loom::LoopAlignStrategy::Auto});
        }
        s_.ops.push_back(o);
    }

    /** Whether some Func is computed or stored at loop l. */
    bool used_as_site(const LoopId &l) const {
        for (const FuncState &st : state_) {
            if (!st.site.empty() && st.site.back() == l) return true;
        }
        return std::find(store_sites_.begin(), store_sites_.end(), l) != store_sites_.end();
    }

    const PipelineDesc &p_;
    std::mt19937 &rng_;
    std::vector<FuncState> state_;
    ScheduleDesc s_;
    std::map<std::pair<int, int>, int> counter_;
    std::set<int> folded_;
    std::vector<LoopId> store_sites_;
    std::set<int> per_tile_;         // Funcs with a box of one size per iteration (mark_per_tile)
    std::map<int, int> slide_dim_;   // Funcs stored outside their compute loop: that loop's dimension
};

}  // namespace

ScheduleDesc generate_schedule(const PipelineDesc &p, std::mt19937 &rng) {
    ScheduleGenerator g(p, rng);
    return g.run();
}

}  // namespace fuzz
