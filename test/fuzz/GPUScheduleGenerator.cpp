// Random legal GPU schedules for the fuzzer's pipelines (a Vulkan target).
//
// Funcs are visited from the output back to the inputs, as in
// ScheduleGenerator.cpp. Each visited Func is inlined, computed at the root,
// or, when all its uses are in one stage of one consumer, computed at that
// stage's innermost GPU block loop (workgroup shared memory, computed by the
// workgroup's invocations), at its innermost GPU thread loop (each
// invocation's registers) or at its outermost CPU loop (serial or
// parallel). Each stage of a Func computed at the root (or at a CPU loop)
// then runs on the GPU (gpu_tile in one or two dimensions, gpu_blocks +
// gpu_threads, gpu_single_thread) or stays on the CPU, so one pipeline mixes
// both and lowering's copies and dirty bits are exercised.
//
// Only legal schedules are drawn: thread loops have constant extents (x at
// most kMaxThreadsX, y at most kMaxThreadsY, so no workgroup exceeds 256
// invocations), no RVar and no parallel, vectorized or unrolled loop becomes
// a GPU loop, block loops are the outermost GPU loops and producers are
// computed only at the innermost block or thread loop (code between two
// block or two thread loops is refused). Storage inside a kernel needs a
// constant size, so a producer goes into a kernel only when the region it
// is needed over there has a constant size: its consumer iterates over
// constant boxes (a tail that rounds up or shifts inwards: a guarded tail
// makes the last box smaller), every read of it indexes each dimension by
// the same loop variable plus constants and RVars, and its updates write
// only where its pure definition does.

#include <algorithm>
#include <map>
#include <set>

#include "fuzz/FuzzModel.h"

using loom::MemoryType;
using loom::TailStrategy;

namespace fuzz {

namespace {

constexpr int kMaxThreadsX = 32;
constexpr int kMaxThreadsY = 8;

enum class Where { Inline, Root, AtBlock, AtThread, AtCpuLoop };

/** The loops of one stage that a producer may be computed at ("": none). */
struct StageSites {
    std::string block;     // the innermost GPU block loop
    std::string thread;    // the innermost GPU thread loop
    std::string cpu_loop;  // the outermost loop, when it is a CPU loop (serial or parallel)
    bool cpu_loop_parallel = false;
    // Each iteration of the block (thread) loop covers a box of constant size.
    bool constant_boxes = false;
};

// How a call argument indexes a dimension: by pure variable x (0) or y
// (1), plus constants and RVars; by constants and RVars only (kFixed); or
// otherwise (kOther: scaled, divided, clamped, data-dependent).
constexpr int kFixed = -1;
constexpr int kOther = -2;
constexpr int kUnset = -3;

int index_kind(const ENode &e) {
    switch (e.op) {
    case Op::Const:
    case Op::RVar: return kFixed;
    case Op::Var: return e.index;
    case Op::Add:
    case Op::Sub: {
        int a = index_kind(*e.kids[0]), b = index_kind(*e.kids[1]);
        if (a == kOther || b == kOther) return kOther;
        if (b == kFixed) return a;
        if (a == kFixed && e.op == Op::Add) return b;
        return kOther;
    }
    default: return kOther;
    }
}

/** Merges kind k into the kind recorded for one dimension; false when two
 * reads index it differently (their union has no constant size). */
bool merge_kind(int &recorded, int k) {
    if (k == kOther) return false;
    if (recorded == kUnset) recorded = k;
    return recorded == k;
}

struct FuncPlan {
    Where where = Where::Root;
    std::vector<StageSites> stages;
    bool inside_parallel = false;  // computed inside a parallel loop
};

class GPUScheduleGenerator {
public:
    GPUScheduleGenerator(const PipelineDesc &p, std::mt19937 &rng) : p_(p), rng_(rng), plan_(p.funcs.size()) {}

    ScheduleDesc run() {
        for (int f = (int)p_.funcs.size() - 1; f >= 0; f--) visit(f);
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

    SchedOp op(SchedKind k, int f, int stage, std::vector<std::string> vars = {}) {
        SchedOp o;
        o.kind = k;
        o.func = f;
        o.stage = stage;
        o.rvars.assign(vars.size(), false);
        o.vars = std::move(vars);
        return o;
    }

    std::string fresh(int f, int stage, const std::string &base, const char *what) {
        return base + "_" + what + std::to_string(++counter_[{f, stage}]);
    }

    /** The pure loops of a stage, innermost first. */
    std::vector<std::string> pure_loops(int f, int stage) const {
        if (stage == 0) return {"x", "y"};
        std::vector<std::string> v;
        for (int d : p_.funcs[f].updates[stage - 1].pure_vars) v.push_back(d == 0 ? "x" : "y");
        return v;
    }

    // ---- placement ---------------------------------------------------------------------

    /** The expressions of f's stage: its value and its left-hand side. */
    std::vector<const ENode *> stage_exprs(int f, int stage) const {
        const FuncDesc &d = p_.funcs[f];
        if (stage == 0) return {d.pure.get()};
        std::vector<const ENode *> v = {d.updates[stage - 1].value.get()};
        for (const ENodePtr &a : d.updates[stage - 1].lhs) v.push_back(a.get());
        return v;
    }

    /** Records in kinds[d] how the expressions index dimension d of Func f,
     * in terms of the stage's variables, looking through inlined Funcs; false
     * when some read has no constant-size footprint (see index_kind). */
    bool read_kinds(const std::vector<const ENode *> &exprs, int f, int kinds[2]) const {
        for (const ENode *e : exprs) {
            if (e && !read_kinds(*e, f, kinds)) return false;
        }
        return true;
    }

    bool read_kinds(const ENode &e, int f, int kinds[2]) const {
        for (const ENodePtr &k : e.kids) {
            if (!read_kinds(*k, f, kinds)) return false;
        }
        if (e.op != Op::Call) return true;
        if (e.index == f) {
            return merge_kind(kinds[0], index_kind(*e.kids[0])) && merge_kind(kinds[1], index_kind(*e.kids[1]));
        }
        if (plan_[e.index].where != Where::Inline || !p_.funcs[e.index].pure) return true;
        // f read through inlined g: g's reads of f, in g's variables, then
        // g's variables as this call indexes them.
        int inner[2] = {kUnset, kUnset};
        if (!read_kinds(*p_.funcs[e.index].pure, f, inner)) return false;
        for (int d = 0; d < 2; d++) {
            if (inner[d] == kUnset) continue;
            int k = inner[d] == kFixed ? kFixed : index_kind(*e.kids[inner[d]]);
            if (!merge_kind(kinds[d], k)) return false;
        }
        return true;
    }

    /** Whether f, computed inside consumer c's stage s, is needed over a
     * box of constant size per iteration of a loop with constant boxes. */
    bool constant_footprint(int f, int c, int s) const {
        for (const UpdateDesc &u : p_.funcs[f].updates) {
            // An update that writes elsewhere (a histogram, a scan) adds
            // its own region.
            if (u.lhs[0]->op != Op::Var || u.lhs[1]->op != Op::Var) return false;
        }
        int kinds[2] = {kUnset, kUnset};
        return read_kinds(stage_exprs(c, s), f, kinds);
    }

    /** The (consumer, stage) pairs that read f, looking through inlined consumers. */
    std::set<std::pair<int, int>> use_sites(int f) const {
        std::set<std::pair<int, int>> sites;
        for (int c = f + 1; c < (int)p_.funcs.size(); c++) {
            const std::vector<std::vector<int>> &reads = p_.funcs[c].reads;
            for (int s = 0; s < (int)reads.size(); s++) {
                if (std::find(reads[s].begin(), reads[s].end(), f) == reads[s].end()) continue;
                if (plan_[c].where == Where::Inline) {
                    std::set<std::pair<int, int>> through = use_sites(c);
                    sites.insert(through.begin(), through.end());
                } else {
                    sites.insert({c, s});
                }
            }
        }
        return sites;
    }

    void compute_at(int f, int c, int s, const std::string &loop) {
        SchedOp o = op(SchedKind::ComputeAt, f, 0, {loop});
        o.at_func = c;
        o.at_stage = s == last_stage(c) ? -1 : s;
        s_.ops.push_back(o);
    }

    void store_in(int f, MemoryType m) {
        SchedOp o = op(SchedKind::StoreIn, f, 0);
        o.factor = (int)m;
        s_.ops.push_back(o);
    }

    void place(int f) {
        FuncPlan &plan = plan_[f];
        if (is_output(f)) {
            plan.where = Where::Root;
            return;
        }
        if (p_.funcs[f].updates.empty() && chance(0.25)) {
            plan.where = Where::Inline;
            return;
        }
        std::set<std::pair<int, int>> sites = use_sites(f);
        if (sites.size() == 1 && chance(0.65)) {
            auto [c, s] = *sites.begin();
            const StageSites &at = plan_[c].stages[s];
            const bool constant = at.constant_boxes && constant_footprint(f, c, s);
            std::vector<Where> levels;
            if (!at.block.empty() && constant) levels.push_back(Where::AtBlock);
            if (!at.thread.empty() && constant) levels.push_back(Where::AtThread);
            if (!at.cpu_loop.empty()) levels.push_back(Where::AtCpuLoop);
            if (!levels.empty()) {
                plan.where = pick(levels);
                switch (plan.where) {
                case Where::AtBlock:
                    compute_at(f, c, s, at.block);
                    if (chance(0.3)) store_in(f, MemoryType::GPUShared);
                    break;
                case Where::AtThread:
                    compute_at(f, c, s, at.thread);
                    if (chance(0.3)) store_in(f, MemoryType::Register);
                    break;
                default:
                    compute_at(f, c, s, at.cpu_loop);
                    plan.inside_parallel = at.cpu_loop_parallel || plan_[c].inside_parallel;
                    // Storage at the root of a Func computed per iteration
                    // of a serial loop: a sliding window over iterations,
                    // which a GPU stage computes on the device while its
                    // consumer may read on the host. Not outside a parallel
                    // loop (the iterations would race on one buffer).
                    if (!plan.inside_parallel && chance(0.3)) s_.ops.push_back(op(SchedKind::StoreRoot, f, 0));
                    break;
                }
                return;
            }
        }
        plan.where = Where::Root;
        s_.ops.push_back(op(SchedKind::ComputeRoot, f, 0));
        // Heap is the default at the root: device memory for a GPU stage.
        if (chance(0.1)) store_in(f, MemoryType::Heap);
    }

    // ---- tails -------------------------------------------------------------------------

    /** The tail strategies legal for splitting pure loop `loop` (x or y, not
     * split yet, or fused when fused) of f's stage by factor. */
    std::vector<TailStrategy> legal_tails(int f, int stage, const std::string &loop, int factor, bool fused) const {
        std::vector<TailStrategy> ok = {TailStrategy::GuardWithIf, TailStrategy::PredicateStores};
        int extent = loop == "x" ? p_.out_width : p_.out_height;
        if (fused) extent = p_.out_width * p_.out_height;
        // ShiftInwards (Auto in a pure definition) would start the last
        // block before the output's min when the output is smaller.
        if (stage == 0 && (!is_output(f) || extent >= factor)) {
            ok.push_back(TailStrategy::ShiftInwards);
            ok.push_back(TailStrategy::Auto);
        }
        // RoundUp writes past the end: not of the output (unless it divides).
        if (!is_output(f) || (!fused && extent % factor == 0)) {
            ok.push_back(TailStrategy::RoundUp);
            if (stage > 0) ok.push_back(TailStrategy::Auto);
        }
        return ok;
    }

    TailStrategy pick_tail(int f, int stage, const std::string &loop, int factor, bool fused = false) {
        return pick(legal_tails(f, stage, loop, factor, fused));
    }

    /** A tail legal for both loops of a 2-D tile. */
    TailStrategy pick_tail2(int f, int stage, const std::string &a, int fa, const std::string &b, int fb) {
        std::vector<TailStrategy> ta = legal_tails(f, stage, a, fa, false), tb = legal_tails(f, stage, b, fb, false);
        std::vector<TailStrategy> both;
        for (TailStrategy t : ta) {
            if (std::find(tb.begin(), tb.end(), t) != tb.end()) both.push_back(t);
        }
        return pick(both);
    }

    // ---- stages ------------------------------------------------------------------------

    /** Whether a split with this tail iterates over boxes of one size (a
     * guarded or predicated tail makes the last one smaller). */
    static bool constant_tail(TailStrategy t) {
        return t == TailStrategy::RoundUp || t == TailStrategy::ShiftInwards || t == TailStrategy::Auto;
    }

    void gpu_tile_1d(int f, int stage, const std::string &v, int factor, bool fused, StageSites &sites) {
        std::string b = fresh(f, stage, v, "b"), t = fresh(f, stage, v, "t");
        SchedOp o = op(SchedKind::GpuTile1D, f, stage, {v, b, t});
        o.factor = factor;
        o.tail = pick_tail(f, stage, v, factor, fused);
        s_.ops.push_back(o);
        sites.block = b;
        sites.thread = t;
        sites.constant_boxes = constant_tail(o.tail) && !fused;
    }

    /** A stage of a Func computed at the root or at a CPU loop, on the GPU. */
    void shape_gpu_stage(int f, int stage) {
        StageSites &sites = plan_[f].stages[stage];
        std::vector<std::string> pure = pure_loops(f, stage);
        if (pure.empty() || chance(0.08)) {
            s_.ops.push_back(op(SchedKind::GpuSingleThread, f, stage));
            return;
        }
        if (pure.size() == 1) {
            if (chance(0.5)) {
                gpu_tile_1d(f, stage, pure[0], uniform(1, kMaxThreadsX), false, sites);
                return;
            }
            split_blocks_threads(f, stage, pure[0], {}, sites);
            return;
        }
        switch (uniform(0, 5)) {
        case 0:
        case 1: {  // 2-D tiles
            int fx = uniform(1, kMaxThreadsX), fy = uniform(1, kMaxThreadsY);
            std::string bx = fresh(f, stage, "x", "b"), by = fresh(f, stage, "y", "b");
            std::string tx = fresh(f, stage, "x", "t"), ty = fresh(f, stage, "y", "t");
            SchedOp o = op(SchedKind::GpuTile2D, f, stage, {"x", "y", bx, by, tx, ty});
            o.factor = fx;
            o.factor2 = fy;
            o.tail = pick_tail2(f, stage, "x", fx, "y", fy);
            s_.ops.push_back(o);
            sites.block = bx;
            sites.thread = tx;
            sites.constant_boxes = constant_tail(o.tail);
            return;
        }
        case 2:  // 1-D tiles along x; y a serial loop on the host around the kernel
            gpu_tile_1d(f, stage, "x", uniform(1, kMaxThreadsX), false, sites);
            sites.cpu_loop = "y";
            return;
        case 3:  // 1-D tiles along y; each invocation loops over x (all of it)
            gpu_tile_1d(f, stage, "y", uniform(1, kMaxThreadsY), false, sites);
            sites.constant_boxes = false;
            return;
        case 4: {  // x and y fused, then 1-D tiles
            std::string xy = fresh(f, stage, "xy", "f");
            s_.ops.push_back(op(SchedKind::Fuse, f, stage, {"x", "y", xy}));
            gpu_tile_1d(f, stage, xy, uniform(1, kMaxThreadsX), true, sites);
            return;
        }
        default: split_blocks_threads(f, stage, "x", "y", sites); return;
        }
    }

    /** split(v, vb, vt) + gpu_blocks(vb[, outer]) + gpu_threads(vt). */
    void split_blocks_threads(int f, int stage, const std::string &v, const std::string &outer, StageSites &sites) {
        int factor = uniform(1, kMaxThreadsX);
        std::string b = fresh(f, stage, v, "b"), t = fresh(f, stage, v, "t");
        SchedOp split = op(SchedKind::Split, f, stage, {v, b, t});
        split.factor = factor;
        split.tail = pick_tail(f, stage, v, factor);
        s_.ops.push_back(split);
        s_.ops.push_back(op(SchedKind::GpuBlocks, f, stage, outer.empty() ? std::vector<std::string>{b}
                                                                           : std::vector<std::string>{b, outer}));
        s_.ops.push_back(op(SchedKind::GpuThreads, f, stage, {t}));
        sites.block = b;
        sites.thread = t;
        sites.constant_boxes = constant_tail(split.tail);
    }

    /** A stage on the CPU: serial, parallel, or vectorized. */
    void shape_cpu_stage(int f, int stage) {
        StageSites &sites = plan_[f].stages[stage];
        std::vector<std::string> pure = pure_loops(f, stage);
        double u = std::uniform_real_distribution<double>(0, 1)(rng_);
        if (!pure.empty() && u < 0.25) {
            // Producers computed per iteration of it may be GPU stages:
            // kernels launched from several host threads at once.
            s_.ops.push_back(op(SchedKind::Parallel, f, stage, {pure.back()}));
            sites.cpu_loop = pure.back();
            sites.cpu_loop_parallel = true;
            return;
        }
        if (stage == 0 && u < 0.5) {
            SchedOp o = op(SchedKind::VectorizeSplit, f, stage, {"x"});
            o.factor = uniform(2, 8);
            o.tail = pick_tail(f, stage, "x", o.factor);
            s_.ops.push_back(o);
        }
        // A producer may be computed per iteration of the outermost pure
        // loop (after the RVars in an update, so outermost of all).
        if (!pure.empty()) sites.cpu_loop = pure.back();
    }

    /** A stage of a Func computed at a block loop (workgroup shared memory):
     * thread loops over split pure loops, or serial at block level. */
    void shape_block_level_stage(int f, int stage) {
        StageSites &sites = plan_[f].stages[stage];
        std::vector<std::string> pure = pure_loops(f, stage);
        if (pure.empty() || chance(0.15)) return;
        if (pure.size() == 2 && chance(0.5)) {
            int fx = uniform(1, kMaxThreadsX), fy = uniform(1, kMaxThreadsY);
            std::string xo = fresh(f, stage, "x", "o"), yo = fresh(f, stage, "y", "o");
            std::string xi = fresh(f, stage, "x", "t"), yi = fresh(f, stage, "y", "t");
            SchedOp o = op(SchedKind::Tile, f, stage, {"x", "y", xo, yo, xi, yi});
            o.factor = fx;
            o.factor2 = fy;
            o.tail = pick_tail2(f, stage, "x", fx, "y", fy);
            s_.ops.push_back(o);
            s_.ops.push_back(op(SchedKind::GpuThreads, f, stage, {xi, yi}));
            sites.thread = xi;
            sites.constant_boxes = constant_tail(o.tail);
            return;
        }
        const std::string &v = pure[0];
        int factor = uniform(1, kMaxThreadsX);
        std::string vo = fresh(f, stage, v, "o"), vi = fresh(f, stage, v, "t");
        SchedOp split = op(SchedKind::Split, f, stage, {v, vo, vi});
        split.factor = factor;
        split.tail = pick_tail(f, stage, v, factor);
        s_.ops.push_back(split);
        s_.ops.push_back(op(SchedKind::GpuThreads, f, stage, {vi}));
        sites.thread = vi;
        sites.constant_boxes = constant_tail(split.tail);
    }

    void visit(int f) {
        FuncPlan &plan = plan_[f];
        plan.stages.resize(1 + p_.funcs[f].updates.size());
        place(f);
        const double gpu = is_output(f) ? 0.8 : 0.65;
        for (int s = 0; s < (int)plan.stages.size(); s++) {
            switch (plan.where) {
            case Where::Inline:
            case Where::AtThread: break;  // no loops of its own / registers: serial in the invocation
            case Where::AtBlock: shape_block_level_stage(f, s); break;
            case Where::Root:
            case Where::AtCpuLoop:
                if (chance(gpu)) {
                    shape_gpu_stage(f, s);
                } else {
                    shape_cpu_stage(f, s);
                }
                break;
            }
        }
    }

    const PipelineDesc &p_;
    std::mt19937 &rng_;
    std::vector<FuncPlan> plan_;
    ScheduleDesc s_;
    std::map<std::pair<int, int>, int> counter_;
};

}  // namespace

ScheduleDesc generate_gpu_schedule(const PipelineDesc &p, std::mt19937 &rng) {
    GPUScheduleGenerator g(p, rng);
    return g.run();
}

}  // namespace fuzz
