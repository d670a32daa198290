// Random pipelines for the schedule fuzzer: 2-D Funcs over one or two
// inputs, each a random expression of earlier Funcs read at small offsets
// (stencils, transposes, up- and down-sampling), and now and then a
// reduction: a sum/min/max/recurrence over a small window, a histogram-like
// scatter into a clamped index, or a scan along x or y.

#include <algorithm>
#include <cmath>

#include "fuzz/FuzzModel.h"

namespace fuzz {

namespace {

constexpr double kIntWrapAbove = 1 << 20;  // larger int values get reduced with %
constexpr double kFloatClampAbove = 1e5;    // larger float values get clamped
constexpr double kCostBudget = 60;          // inlined calls per point of a Func

class PipelineGenerator {
public:
    PipelineGenerator(std::mt19937 &rng, const GeneratorOptions &options) : rng_(rng), options_(options) {}

    PipelineDesc run() {
        p_.out_width = pick_size();
        p_.out_height = pick_size();
        p_.out_min_x = chance(0.5) ? 0 : uniform(-8, 8);
        p_.out_min_y = chance(0.5) ? 0 : uniform(-8, 8);
        int n_inputs = chance(0.7) ? 1 : 2;
        for (int i = 0; i < n_inputs; i++) add_input();
        plain_inputs_ = n_inputs;
        std::vector<int> wrappers;
        for (int i = 0; i < n_inputs; i++) {
            if (chance(0.6)) wrappers.push_back(add_wrapper(i, (Boundary)uniform(0, 4)));
        }
        // An input read without a boundary condition: its buffer is exactly
        // the region bounds inference asks for.
        if (chance(0.4)) {
            add_input();
            p_.inputs.back().raw = true;
            wrappers.push_back(add_wrapper(n_inputs, Boundary::None));
        }
        int n_stages = uniform(2, std::max(2, options_.max_stages));
        for (int s = 0; s < n_stages; s++) {
            // The first stage reads every wrapper; each later stage reads
            // the one before it, so every Func is used by the output.
            std::vector<int> forced;
            if (s == 0) {
                forced = wrappers;
            } else {
                forced.push_back((int)p_.funcs.size() - 1);
            }
            add_stage(forced, s == n_stages - 1);
        }
        return p_;
    }

private:
    // ---- randomness ---------------------------------------------------------------
    int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
    bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
    template<typename T>
    const T &pick(const std::vector<T> &v) {
        return v[uniform(0, (int)v.size() - 1)];
    }
    int pick_size() {
        if (chance(0.1)) return uniform(1, 4);
        return uniform(5, 32);
    }
    ElemType pick_type() {
        double u = std::uniform_real_distribution<double>(0, 1)(rng_);
        if (u < 0.6) return ElemType::I32;
        if (u < 0.8) return ElemType::U8;
        return options_.integers_only ? ElemType::I32 : ElemType::F32;
    }

    // ---- inputs and wrappers ---------------------------------------------------------
    void add_input() {
        InputDesc in;
        in.type = pick_type();
        in.width = uniform(5, 40);
        in.height = uniform(5, 40);
        in.min_x = chance(0.5) ? 0 : uniform(-10, 10);
        in.min_y = chance(0.5) ? 0 : uniform(-10, 10);
        in.fill_seed = (uint32_t)rng_();
        p_.inputs.push_back(in);
    }

    double input_bound(int i) const {
        switch (p_.inputs[i].type) {
        case ElemType::I32: return 1000;
        case ElemType::U8: return 255;
        case ElemType::F32: return 100;
        }
        return 0;
    }

    int add_wrapper(int input, Boundary boundary) {
        FuncDesc f;
        f.name = "in" + std::to_string(input) + (boundary == Boundary::None ? "_raw" : "_bc");
        f.kind = FuncKind::InputWrapper;
        f.type = p_.inputs[input].type;
        f.input = input;
        f.boundary = boundary;
        f.bound = input_bound(input);
        f.reads = {{}};
        p_.funcs.push_back(f);
        cost_.push_back(2);
        return (int)p_.funcs.size() - 1;
    }

    // ---- expressions ------------------------------------------------------------------

    /** What an expression being generated may use. */
    struct Ctx {
        int rvars = 0;           // RVars usable as call offsets (Window updates)
        double cost = 0;         // inlined calls so far
        double budget = kCostBudget;
        std::vector<int> *reads = nullptr;
        // In an update that replaces pure var i by an RVar, Var i reads as it.
        ENodePtr var_as[2];
    };

    ENodePtr var(int i, const Ctx &ctx) { return ctx.var_as[i] ? ctx.var_as[i] : make_var(i); }

    /** A cast to t that never leaves t's range: floats are clamped first
     * (an out-of-range float-to-int cast is undefined). */
    ENodePtr safe_cast(ElemType t, ENodePtr e) {
        if (e->type == ElemType::F32 && t != ElemType::F32) {
            double lo = t == ElemType::U8 ? 0 : -1000, hi = t == ElemType::U8 ? 255 : 1000;
            e = make_node(Op::Clamp, ElemType::F32, {e, make_float(lo), make_float(hi)}, hi);
        }
        return make_cast(t, e);
    }

    /** An index of a pure read in dimension dim: the dim's var (or the
     * other one, for a transpose) at a small offset, sometimes scaled. */
    ENodePtr index_expr(int v, const Ctx &ctx, int rvar) {
        ENodePtr e = var(v, ctx);
        double u = std::uniform_real_distribution<double>(0, 1)(rng_);
        if (u < 0.08) {
            e = make_node(Op::Mul, ElemType::I32, {e, make_int(2)}, e->bound * 2);
        } else if (u < 0.16) {
            e = make_node(Op::Div, ElemType::I32, {e, make_int(2)}, e->bound);
        }
        if (rvar >= 0 && rvar < ctx.rvars) e = make_node(Op::Add, ElemType::I32, {e, make_rvar(rvar)}, e->bound * 2);
        int d = chance(0.4) ? 0 : uniform(-2, 2);
        if (d != 0) e = make_node(Op::Add, ElemType::I32, {e, make_int(d)}, e->bound + 2);
        return e;
    }

    std::vector<ENodePtr> call_args(const Ctx &ctx) {
        bool transpose = chance(0.08);
        int vx = transpose ? 1 : 0, vy = transpose ? 0 : 1;
        return {index_expr(vx, ctx, 0), index_expr(vy, ctx, 1)};
    }

    ENodePtr call(int f, const Ctx &ctx, std::vector<ENodePtr> args) {
        auto n = std::make_shared<ENode>();
        n->op = Op::Call;
        n->type = p_.funcs[f].type;
        n->index = f;
        n->bound = p_.funcs[f].bound;
        n->kids = std::move(args);
        if (ctx.reads && std::find(ctx.reads->begin(), ctx.reads->end(), f) == ctx.reads->end()) {
            ctx.reads->push_back(f);
        }
        return n;
    }

    /** A direct read of an input buffer, clamped into its box. */
    ENodePtr input_read(int i, const Ctx &ctx) {
        const InputDesc &in = p_.inputs[i];
        std::vector<ENodePtr> args = call_args(ctx);
        args[0] = make_node(Op::Clamp, ElemType::I32, {args[0], make_int(in.min_x), make_int(in.min_x + in.width - 1)},
                            1 << 12);
        args[1] = make_node(Op::Clamp, ElemType::I32,
                            {args[1], make_int(in.min_y), make_int(in.min_y + in.height - 1)}, 1 << 12);
        auto n = std::make_shared<ENode>();
        n->op = Op::InputRead;
        n->type = in.type;
        n->index = i;
        n->bound = input_bound(i);
        n->kids = std::move(args);
        return n;
    }

    ENodePtr constant(ElemType t) {
        switch (t) {
        case ElemType::I32: return make_int(uniform(-20, 20));
        case ElemType::U8: return make_int(uniform(0, 255), ElemType::U8);
        case ElemType::F32: return make_float(uniform(-40, 40) * 0.25);
        }
        return make_int(0);
    }

    ENodePtr leaf(ElemType t, Ctx &ctx) {
        double u = std::uniform_real_distribution<double>(0, 1)(rng_);
        if (u < 0.55) {
            // A read of an earlier Func, or of an input.
            std::vector<int> affordable;
            for (int f = 0; f < (int)p_.funcs.size(); f++) {
                if (ctx.cost + cost_[f] <= ctx.budget) affordable.push_back(f);
            }
            if (!affordable.empty() && chance(0.85)) {
                int f = pick(affordable);
                ctx.cost += cost_[f];
                return safe_cast(t, call(f, ctx, call_args(ctx)));
            }
            return safe_cast(t, input_read(uniform(0, plain_inputs_ - 1), ctx));
        }
        if (u < 0.75) return safe_cast(t, var(uniform(0, 1), ctx));
        return constant(t);
    }

    ENodePtr reduce_magnitude(ENodePtr e) {
        if (e->type == ElemType::I32 && e->bound > kIntWrapAbove) {
            int m = pick(std::vector<int>{1021, 4093, 255, 17});
            return make_node(Op::Mod, ElemType::I32, {e, make_int(m)}, m - 1);
        }
        if (e->type == ElemType::F32 && e->bound > kFloatClampAbove) {
            return make_node(Op::Clamp, ElemType::F32, {e, make_float(-1000), make_float(1000)}, 1000);
        }
        return e;
    }

    /** e, wrapped with % when it could grow too large for a reduction to
     * add up many of it. */
    ENodePtr small(ENodePtr e) {
        if (e->type == ElemType::I32 && e->bound > 4092) {
            return make_node(Op::Mod, ElemType::I32, {e, make_int(4093)}, 4092);
        }
        if (e->type == ElemType::F32 && e->bound > 1000) {
            return make_node(Op::Clamp, ElemType::F32, {e, make_float(-1000), make_float(1000)}, 1000);
        }
        return e;
    }

    ENodePtr expr(ElemType t, int depth, Ctx &ctx) {
        if (depth <= 0 || chance(0.25)) return leaf(t, ctx);
        double u = std::uniform_real_distribution<double>(0, 1)(rng_);
        // A cast from another type.
        if (u < 0.1) {
            ElemType from = pick_type();
            return safe_cast(t, expr(from, depth - 1, ctx));
        }
        if (u < 0.2) {
            ENodePtr a = expr(t, depth - 1, ctx), b = expr(t, depth - 1, ctx);
            ENodePtr c = expr(t, depth - 1, ctx), d = expr(t, depth - 1, ctx);
            return make_node(Op::Select, t, {a, b, c, d}, std::max(c->bound, d->bound));
        }
        if (u < 0.26) {
            ENodePtr a = expr(t, depth - 1, ctx);
            ENodePtr lo = constant(t), hi = constant(t);
            if (t == ElemType::F32 ? lo->fval > hi->fval : lo->ival > hi->ival) std::swap(lo, hi);
            return make_node(Op::Clamp, t, {a, lo, hi}, std::max(lo->bound, hi->bound));
        }
        ENodePtr a = expr(t, depth - 1, ctx);
        ENodePtr b = expr(t, depth - 1, ctx);
        return reduce_magnitude(binary(t, a, b));
    }

    ENodePtr binary(ElemType t, ENodePtr a, ENodePtr b) {
        const double narrow = t == ElemType::U8 ? 255 : 0;
        auto bound = [&](double v) { return narrow ? narrow : v; };
        switch (uniform(0, 6)) {
        case 0: return make_node(Op::Add, t, {a, b}, bound(a->bound + b->bound));
        case 1: return make_node(Op::Sub, t, {a, b}, bound(a->bound + b->bound));
        case 2:
            if (t != ElemType::U8 && a->bound * b->bound > (t == ElemType::F32 ? 1e6 : 1 << 28)) {
                return make_node(Op::Add, t, {a, b}, bound(a->bound + b->bound));
            }
            return make_node(Op::Mul, t, {a, b}, bound(a->bound * b->bound));
        case 3: return make_node(Op::Min, t, {a, b}, std::max(a->bound, b->bound));
        case 4: return make_node(Op::Max, t, {a, b}, std::max(a->bound, b->bound));
        case 5: {
            // Division: by a constant, or (integers) by anything; Loom
            // defines x / 0 as 0.
            if (t == ElemType::F32) {
                double c = pick(std::vector<double>{2, 4, 0.5, -4, 3});
                return make_node(Op::Div, t, {a, make_float(c)}, a->bound / std::min(std::fabs(c), 1.0));
            }
            if (chance(0.6)) {
                int c = t == ElemType::U8 ? uniform(1, 7) : pick(std::vector<int>{2, 3, 4, 7, -3, -1, 1});
                return make_node(Op::Div, t, {a, make_int(c, t)}, a->bound);
            }
            return make_node(Op::Div, t, {a, b}, a->bound);
        }
        default: {
            if (t == ElemType::F32) return make_node(Op::Max, t, {a, b}, std::max(a->bound, b->bound));
            if (chance(0.6)) {
                int c = uniform(2, 17);
                return make_node(Op::Mod, t, {a, make_int(c, t)}, c - 1);
            }
            return make_node(Op::Mod, t, {a, b}, bound(b->bound));
        }
        }
    }

    /** A value of type t that reads every Func of forced (and whatever else). */
    ENodePtr value_with(ElemType t, const std::vector<int> &forced, Ctx &ctx, int depth) {
        ENodePtr e = expr(t, depth, ctx);
        for (int f : forced) {
            ctx.cost += cost_[f];
            ENodePtr c = safe_cast(t, call(f, ctx, call_args(ctx)));
            e = reduce_magnitude(binary(t, e, c));
        }
        return reduce_magnitude(e);
    }

    // ---- stages -------------------------------------------------------------------

    void add_stage(const std::vector<int> &forced, bool is_output) {
        FuncDesc f;
        int index = (int)p_.funcs.size();
        f.name = "f" + std::to_string(index);
        f.type = pick_type();
        double u = std::uniform_real_distribution<double>(0, 1)(rng_);
        if (u < 0.55) {
            f.kind = FuncKind::Pointwise;
        } else if (u < 0.72) {
            f.kind = FuncKind::Window;
        } else if (u < 0.84) {
            f.kind = FuncKind::Histogram;
            if (f.type == ElemType::U8) f.type = ElemType::I32;
        } else {
            f.kind = FuncKind::Scan;
        }
        // An output's updates must write inside the output's box: a scan
        // needs two points along its dimension.
        if (is_output && f.kind == FuncKind::Scan && p_.out_width < 2 && p_.out_height < 2) {
            f.kind = FuncKind::Pointwise;
        }
        is_output_ = is_output;
        f.reads.assign(1, {});
        Ctx pure_ctx;
        pure_ctx.reads = &f.reads[0];
        bool reduction = f.kind != FuncKind::Pointwise;
        // A reduction's pure definition is often trivial; its update reads
        // the forced producers instead.
        if (!reduction) {
            f.pure = value_with(f.type, forced, pure_ctx, uniform(1, 3));
            f.bound = f.pure->bound;
            p_.funcs.push_back(f);
            cost_.push_back(std::max(1.0, pure_ctx.cost + 1));
            return;
        }
        f.pure = chance(0.4) ? constant(f.type) : expr(f.type, uniform(0, 2), pure_ctx);
        f.pure = small(f.pure);
        f.reads.push_back({});
        switch (f.kind) {
        case FuncKind::Window: add_window_update(f, index, forced); break;
        case FuncKind::Histogram: add_histogram_update(f, index, forced); break;
        case FuncKind::Scan: add_scan_update(f, index, forced); break;
        default: break;
        }
        if (chance(0.3)) add_where(f);
        p_.funcs.push_back(f);
        cost_.push_back(1);
    }

    ENodePtr self(const std::vector<ENodePtr> &args, const FuncDesc &f) {
        auto n = std::make_shared<ENode>();
        n->op = Op::SelfCall;
        n->type = f.type;
        n->bound = f.bound;
        n->kids = args;
        return n;
    }

    /** f(x, y) = f(x, y) op term(x + r.x, y + r.y). */
    void add_window_update(FuncDesc &f, int index, const std::vector<int> &forced) {
        int a = uniform(0, 2), b = uniform(0, 2);
        f.rdom = {{-a, 2 * a + 1}};
        if (chance(0.7)) f.rdom.push_back({-b, 2 * b + 1});
        int points = 1;
        for (auto &r : f.rdom) points *= r.second;
        Ctx ctx;
        ctx.rvars = (int)f.rdom.size();
        ctx.reads = &f.reads[1];
        ctx.budget = std::max(4.0, kCostBudget / points);
        ENodePtr term = small(value_with(f.type, forced, ctx, uniform(0, 2)));
        // An update that never mentions an RVar has no RVar loops: make
        // sure every RVar of the window appears.
        for (int r = 0; r < (int)f.rdom.size(); r++) {
            if (!uses_rvar(*term, r)) {
                ENodePtr rv = make_cast(f.type, make_rvar(r));
                double b = f.type == ElemType::U8 ? 255 : term->bound + 2;
                term = make_node(Op::Add, f.type, {term, rv}, b);
            }
        }
        UpdateDesc u;
        u.lhs = {make_var(0), make_var(1)};
        u.pure_vars = {0, 1};
        f.bound = f.pure->bound;
        ENodePtr me = self(u.lhs, f);
        int op = uniform(0, f.type == ElemType::I32 ? 3 : 2);
        if (op == 0) {
            double bound = f.type == ElemType::U8 ? 255 : f.pure->bound + points * term->bound;
            u.value = make_node(Op::Add, f.type, {me, term}, bound);
        } else if (op == 1) {
            u.value = make_node(Op::Max, f.type, {me, term}, std::max(f.pure->bound, term->bound));
        } else if (op == 2) {
            u.value = make_node(Op::Min, f.type, {me, term}, std::max(f.pure->bound, term->bound));
        } else {
            // An order-dependent recurrence, kept small by %.
            int m = 1009;
            if (term->bound > 1e6) term = make_node(Op::Mod, ElemType::I32, {term, make_int(m)}, m - 1);
            ENodePtr mine = make_node(Op::Mod, ElemType::I32, {me, make_int(m)}, m - 1);
            ENodePtr times3 = make_node(Op::Mul, ElemType::I32, {mine, make_int(3)}, 3 * (m - 1));
            ENodePtr sum = make_node(Op::Add, ElemType::I32, {times3, term}, 3 * (m - 1) + term->bound);
            u.value = make_node(Op::Mod, ElemType::I32, {sum, make_int(m)}, m - 1);
            f.bound = std::max(f.pure->bound, (double)m);
        }
        f.bound = std::max(f.bound, u.value->bound);
        u.value = fix_self_bound(u.value, f);
        f.updates.push_back(u);
        (void)index;
    }

    /** f(clamp(idx(r, y) % K + k0, k0, k0 + K - 1), y) += w. */
    void add_histogram_update(FuncDesc &f, int index, const std::vector<int> &forced) {
        int n = uniform(1, 24);
        f.rdom = {{uniform(-5, 5), n}};
        Ctx ctx;
        ctx.reads = &f.reads[1];
        ctx.var_as[0] = make_rvar(0);
        int src = forced.empty() ? -1 : forced[0];
        if (src < 0 && index > 0) src = uniform(0, index - 1);
        ENodePtr x_arg = make_node(Op::Add, ElemType::I32, {make_rvar(0), make_int(uniform(-3, 3))}, 1 << 12);
        ENodePtr y_arg = index_expr(1, ctx, -1);
        ENodePtr read = src >= 0 ? call(src, ctx, {x_arg, y_arg}) : input_read(0, ctx);
        ENodePtr idx = safe_cast(ElemType::I32, read);
        int K = uniform(2, 16), k0 = uniform(-4, 6);
        if (is_output_) {
            K = uniform(1, std::min(16, p_.out_width));
            k0 = p_.out_min_x + uniform(0, p_.out_width - K);
        }
        idx = make_node(Op::Mod, ElemType::I32, {idx, make_int(K)}, K - 1);
        idx = make_node(Op::Add, ElemType::I32, {idx, make_int(k0)}, K + 4);
        idx = make_node(Op::Clamp, ElemType::I32, {idx, make_int(k0), make_int(k0 + K - 1)}, K + 4);
        UpdateDesc u;
        u.lhs = {idx, make_var(1)};
        u.pure_vars = {1};
        ENodePtr w;
        if (chance(0.5)) {
            w = f.type == ElemType::F32 ? make_float(1) : make_int(uniform(1, 3));
        } else {
            Ctx wctx;
            wctx.reads = &f.reads[1];
            wctx.var_as[0] = make_rvar(0);
            wctx.budget = 8;
            w = leaf(f.type, wctx);
            if (forced.size() > 1) w = value_with(f.type, {forced.begin() + 1, forced.end()}, wctx, 0);
        }
        // Other forced producers (wrappers of the first stage) get read too.
        if (forced.size() > 1 && w->op == Op::Const) {
            Ctx wctx;
            wctx.reads = &f.reads[1];
            wctx.var_as[0] = make_rvar(0);
            w = value_with(f.type, {forced.begin() + 1, forced.end()}, wctx, 0);
        }
        w = small(w);
        f.bound = f.pure->bound + n * w->bound;
        u.value = make_node(Op::Add, f.type, {self(u.lhs, f), w}, f.bound);
        u.value = fix_self_bound(u.value, f);
        f.updates.push_back(u);
    }

    /** f(r, y) = f(r - 1, y) + g(r, y) (or the same along y). */
    void add_scan_update(FuncDesc &f, int index, const std::vector<int> &forced) {
        int dim = chance(0.65) ? 0 : 1;
        int n = uniform(1, 30), start = uniform(-6, 8);
        if (is_output_) {
            int extent[2] = {p_.out_width, p_.out_height}, mins[2] = {p_.out_min_x, p_.out_min_y};
            if (extent[dim] < 2) dim = 1 - dim;
            start = mins[dim] + uniform(0, extent[dim] - 2);
            n = uniform(1, mins[dim] + extent[dim] - 1 - start);
        }
        f.rdom = {{start + 1, n}};
        Ctx ctx;
        ctx.reads = &f.reads[1];
        ctx.budget = 12;
        ctx.var_as[dim] = make_rvar(0);
        std::vector<ENodePtr> lhs = {make_var(0), make_var(1)};
        lhs[dim] = make_rvar(0);
        std::vector<ENodePtr> prev = lhs;
        prev[dim] = make_node(Op::Sub, ElemType::I32, {make_rvar(0), make_int(1)}, 1 << 12);
        // g reads the forced producers at (r, y) (or (x, r)).
        ENodePtr g;
        if (!forced.empty()) {
            for (int p : forced) {
                std::vector<ENodePtr> args = lhs;
                if (chance(0.5)) {
                    args[dim] = make_node(Op::Add, ElemType::I32, {args[dim], make_int(uniform(-2, 2))}, 1 << 12);
                }
                ENodePtr c = safe_cast(f.type, call(p, ctx, args));
                g = g ? reduce_magnitude(binary(f.type, g, c)) : c;
            }
        } else {
            g = leaf(f.type, ctx);
        }
        g = small(g);
        UpdateDesc u;
        u.lhs = lhs;
        u.pure_vars = {1 - dim};
        f.bound = f.type == ElemType::U8 ? 255 : (f.pure->bound + g->bound) * (n + 1);
        ENodePtr mine = self(lhs, f), before = self(prev, f);
        if (chance(0.25)) {
            // A running maximum of the pure values.
            u.value = make_node(Op::Max, f.type, {before, mine}, f.bound);
            if (chance(0.5)) u.value = make_node(Op::Add, f.type, {u.value, g}, f.bound);
        } else if (chance(0.5)) {
            u.value = make_node(Op::Add, f.type, {before, make_node(Op::Add, f.type, {mine, g}, f.bound)}, f.bound);
        } else {
            u.value = make_node(Op::Add, f.type, {before, g}, f.bound);
        }
        u.value = fix_self_bound(u.value, f);
        f.updates.push_back(u);
        (void)index;
    }

    /** r.where(a < b) with a predicate that mentions a pure Var the update
     * keeps and an RVar: the update then visits a different part of the
     * domain at each pure point. Mostly linear in both (bounds inference
     * can narrow the RVar's range with it), sometimes not. */
    void add_where(FuncDesc &f) {
        const std::vector<int> &pure = f.updates[0].pure_vars;
        if (pure.empty() || f.rdom.empty()) return;
        int v = pick(pure), r = uniform(0, (int)f.rdom.size() - 1);
        const int extent[2] = {p_.out_width, p_.out_height}, mins[2] = {p_.out_min_x, p_.out_min_y};
        // A threshold inside the output's range of v, so that the predicate
        // holds at some points and fails at others.
        const int inside = mins[v] + uniform(0, extent[v]);
        ENodePtr rv = make_rvar(r), pv = make_var(v);
        auto add = [](ENodePtr a, ENodePtr b) { return make_node(Op::Add, ElemType::I32, {a, b}, 1 << 12); };
        auto sub = [](ENodePtr a, ENodePtr b) { return make_node(Op::Sub, ElemType::I32, {a, b}, 1 << 12); };
        switch (uniform(0, 4)) {
        case 0: f.where = {add(rv, pv), make_int(inside)}; break;                  // r + v < c
        case 1: f.where = {rv, add(pv, make_int(uniform(-3, 2)))}; break;          // r < v + c
        case 2: f.where = {sub(pv, rv), make_int(inside)}; break;                  // v - r < c
        case 3: f.where = {make_int(inside), add(pv, rv)}; break;                  // c < v + r
        default: {
            // Not linear: r * 2 < v % 3 (the RVar's range cannot be narrowed).
            ENodePtr twice = make_node(Op::Mul, ElemType::I32, {rv, make_int(2)}, 1 << 13);
            f.where = {twice, make_node(Op::Mod, ElemType::I32, {pv, make_int(3)}, 2)};
            break;
        }
        }
    }

    static bool uses_rvar(const ENode &e, int r) {
        if (e.op == Op::RVar && e.index == r) return true;
        for (const ENodePtr &k : e.kids) {
            if (uses_rvar(*k, r)) return true;
        }
        return false;
    }

    /** SelfCall nodes were made before f.bound was final: rebuild them
     * with it, and keep the value under the int limit. */
    ENodePtr fix_self_bound(const ENodePtr &e, const FuncDesc &f) {
        if (f.type == ElemType::I32 && f.bound > kIntWrapAbove * 64) {
            throw std::logic_error("fuzz generator: reduction bound too large");
        }
        return e;
    }

    std::mt19937 &rng_;
    GeneratorOptions options_;
    PipelineDesc p_;
    std::vector<double> cost_;  // per Func: cost of inlining one call
    bool is_output_ = false;    // the stage being made is the output
    int plain_inputs_ = 0;      // inputs read directly (the raw one, if any, comes after)
};

}  // namespace

const char *boundary_name(Boundary b) {
    switch (b) {
    case Boundary::RepeatEdge: return "repeat_edge";
    case Boundary::ConstantExterior: return "constant_exterior";
    case Boundary::RepeatImage: return "repeat_image";
    case Boundary::MirrorImage: return "mirror_image";
    case Boundary::MirrorInterior: return "mirror_interior";
    case Boundary::None: return "none";
    }
    return "?";
}

PipelineDesc generate_pipeline(std::mt19937 &rng, const GeneratorOptions &options) {
    PipelineGenerator g(rng, options);
    return g.run();
}

std::string PipelineDesc::to_text() const {
    std::vector<std::string> func_names, input_names;
    for (const FuncDesc &f : funcs) func_names.push_back(f.name);
    for (size_t i = 0; i < inputs.size(); i++) input_names.push_back("in" + std::to_string(i));
    std::string s;
    s += "// seed " + std::to_string(seed) + "\nVar x(\"x\"), y(\"y\");\n";
    for (size_t i = 0; i < inputs.size(); i++) {
        const InputDesc &in = inputs[i];
        if (in.raw) {
            s += "ImageParam " + input_names[i] + "(type_of<" + cpp_type_name(in.type) + ">(), 2, \"" + input_names[i] +
                 "\");  // bound to a buffer of exactly the inferred region, filled from seed " +
                 std::to_string(in.fill_seed) + "\n";
            continue;
        }
        s += "Buffer<" + std::string(cpp_type_name(in.type)) + "> " + input_names[i] + "(" + std::to_string(in.width) +
             ", " + std::to_string(in.height) + ");  // min (" + std::to_string(in.min_x) + ", " +
             std::to_string(in.min_y) + "), random fill seed " + std::to_string(in.fill_seed) + "\n";
    }
    for (const FuncDesc &f : funcs) {
        s += "Func " + f.name + "(\"" + f.name + "\");";
        s += "  // " + std::string(cpp_type_name(f.type)) + "\n";
        if (f.kind == FuncKind::InputWrapper && f.boundary == Boundary::None) {
            s += f.name + "(x, y) = " + input_names[f.input] + "(x, y);\n";
            continue;
        }
        if (f.kind == FuncKind::InputWrapper) {
            s += f.name + "(x, y) = BoundaryConditions::" + boundary_name(f.boundary) + "(" + input_names[f.input] +
                 (f.boundary == Boundary::ConstantExterior ? ", 0" : "") + ")(x, y);\n";
            continue;
        }
        s += f.name + "(x, y) = " + fuzz::to_text(*f.pure, func_names, input_names, f.name) + ";\n";
        if (!f.rdom.empty()) {
            s += "RDom r(";
            for (size_t i = 0; i < f.rdom.size(); i++) {
                s += (i ? ", " : "") + std::to_string(f.rdom[i].first) + ", " + std::to_string(f.rdom[i].second);
            }
            s += ", \"r" + std::to_string(&f - funcs.data()) + "\");\n";
            if (!f.where.empty()) {
                s += "r.where(" + fuzz::to_text(*f.where[0], func_names, input_names, f.name) + " < " +
                     fuzz::to_text(*f.where[1], func_names, input_names, f.name) + ");\n";
            }
        }
        for (const UpdateDesc &u : f.updates) {
            s += f.name + "(" + fuzz::to_text(*u.lhs[0], func_names, input_names, f.name) + ", " +
                 fuzz::to_text(*u.lhs[1], func_names, input_names, f.name) +
                 ") = " + fuzz::to_text(*u.value, func_names, input_names, f.name) + ";\n";
        }
    }
    s += "// output " + funcs.back().name + " realized over [" + std::to_string(out_min_x) + ", " +
         std::to_string(out_min_x + out_width) + ") x [" + std::to_string(out_min_y) + ", " +
         std::to_string(out_min_y + out_height) + ")\n";
    return s;
}

}  // namespace fuzz
