// Reductions over RDoms: ReduceSum/Max/Min/Mean/Prod, MatMul, Gemm.
// Each is a Func with a pure initial value and one update over an RDom,
// computed at the root.

#include "../GpuSchedule.h"
#include "../Importer.h"

namespace loom::onnx::detail {

namespace {

enum class Reduction { Sum, Max, Min, Mean, Prod };

// Inside a recurrence (ops/Recurrence.cpp) every body value is inlined into
// the carried state's update, and a Func with an update cannot be inlined:
// there a short reduction is written out as one expression instead.
constexpr int64_t max_written_out_terms = 256;

bool any_iterated(const std::vector<const Tensor *> &ins) {
    for (const Tensor *t : ins) {
        if (t->iterated()) return true;
    }
    return false;
}

/** Inside a recurrence that takes StepFuncs, a reduction of values that
 * depend on the state is one: a Func with the iteration as its last
 * argument, computed once per iteration (ops/Recurrence.cpp schedules it). */
bool as_step_func(const std::vector<const Tensor *> &ins) {
    if (!recurrence_step_funcs()) return false;
    for (const Tensor *t : ins) {
        if (t->iterated() && t->runtime_inputs.count(state_marker)) return true;
    }
    return false;
}

/** Inside a recurrence that hoists, a reduction of values that change with
 * the iteration but not with the state is a Func of the iteration too,
 * computed for every iteration before the loop. */
bool as_hoisted(const std::vector<const Tensor *> &ins) {
    if (!recurrence_hoists()) return false;
    bool iterated = false;
    for (const Tensor *t : ins) {
        if (t->iterated() && t->runtime_inputs.count(state_marker)) return false;
        iterated = iterated || t->iterated();
    }
    return iterated;
}

/** Schedules a reduction over every iteration (the iteration Var last in
 * `args`) of `work` multiply-adds an iteration: the iterations in parallel
 * where each is worth a task, the innermost axis vectorised inside the
 * reduction's loops. */
void schedule_hoisted(Func &f, const std::vector<Var> &args, const RDom &rd, int64_t inner_extent, int64_t work) {
    if (gpu_schedule_root(f, args, 0, false)) return;
    f.compute_root();
    parallel_iterations(f, args.back(), work);
    parallel_iterations(f.update(0), args.back(), work);
    if (args.size() < 2 || inner_extent < 8) return;
    std::vector<VarOrRVar> order{args[0]};
    for (int k = 0; k < rd.dimensions(); k++) order.push_back(RVar(rd[k]));
    f.vectorize(args[0], 8, TailStrategy::GuardWithIf);
    f.update(0).reorder(order).vectorize(args[0], 8, TailStrategy::GuardWithIf);
}

/** Registers f (pure args `args`, the iteration last) as a StepFunc. */
Tensor step_func_tensor(const Func &f, const std::vector<Var> &args, const RDom &rd, int element_type,
                        const Shape &shape, std::set<std::string> runtime_inputs) {
    StepFunc sf;
    sf.func = f;
    sf.pure = args;
    for (int k = 0; k < rd.dimensions(); k++) sf.rvars.push_back(RVar(rd[k]));
    sf.inner_extent = shape.empty() ? 1 : shape.back();
    recurrence_step_funcs()->push_back(sf);
    Tensor result;
    result.element_type = element_type;
    result.shape = shape;
    result.runtime_inputs = std::move(runtime_inputs);
    result.func = f;
    return result;
}

/** Partial sums of a step Func's matrix product (see batched_matmul). On
 * the RNN benchmark (H = 64, AVX-512) a step took 0.46 us with one sum,
 * 0.37 us with 2 and 0.65 us with 4 (the parts are unrolled outside the
 * loop over the vectors of outputs, so 4 parts mean 16 accumulators). */
constexpr int partial_sums = 2;

/** How a hoisted matrix product (out[i, j] = sum_k a[i, k] b[k, j] at every
 * iteration, computed before the loop) keeps its sums in registers: `parts`
 * partial sums of k (k = parts * q + part) for one output row of `vectors`
 * vectors of `lanes`, as a Func computed per row. 0 parts: the row is too
 * wide for the registers (or the target is a GPU), use schedule_hoisted. */
struct RegisterTile {
    int lanes = 0, vectors = 0, parts = 0;
};

RegisterTile register_tile(const Target &target, const Type &t, int64_t m, int64_t k) {
    RegisterTile tile;
    if (target.has_gpu_feature() || !t.is_float() || k < 8) return tile;
    tile.lanes = target.natural_vector_size(t);
    while (tile.lanes > 4 && tile.lanes > m) tile.lanes /= 2;
    if (tile.lanes < 4 || m < tile.lanes) return tile;
    tile.vectors = (int)((m + tile.lanes - 1) / tile.lanes);
    // At most 16 accumulators (AVX-512 has 32 registers, AVX2 16: then the
    // rows are narrower in floats, the same count of vectors), and at
    // least 4 terms in each partial sum.
    for (int parts : {4, 2, 1}) {
        if (k % parts == 0 && k / parts >= 4 && tile.vectors * parts <= 16) {
            tile.parts = parts;
            break;
        }
    }
    return tile;
}

void refuse_long(const NodeContext &ctx, int64_t terms) {
    if (terms > max_written_out_terms)
        throw RecurrenceUnsupported(ctx.where() + ": a reduction of " + std::to_string(terms) +
                                    " terms inside a recurrence (it needs compute_at the RVar)");
}

Expr combine(Reduction kind, const Expr &a, const Expr &b) {
    switch (kind) {
    case Reduction::Max: return max(a, b);
    case Reduction::Min: return min(a, b);
    case Reduction::Prod: return a * b;
    default: return a + b;
    }
}

using ValueMap = std::function<Expr(Expr)>;

/** Reduces pre(x) over the axes, then applies post (ReduceL2 = post sqrt
 * of the Sum of pre x * x). */
std::vector<Val> reduce_op(NodeContext &ctx, Reduction kind, const ValueMap &pre = nullptr,
                           const ValueMap &post = nullptr, int axes_input_opset = 18) {
    const Tensor &x = ctx.tensor(0);
    int r = x.rank();
    // Axes are an input from opset 13 for ReduceSum and 18 for the others.
    int input_opset = axes_input_opset;
    std::vector<int64_t> axes;
    if (ctx.opset >= input_opset) {
        if (ctx.has_input(1)) axes = ctx.ints(1, "axes");
    } else {
        axes = ctx.attr_ints("axes");
    }
    bool keepdims = ctx.attr_int("keepdims", 1) != 0;
    if (axes.empty() && ctx.opset >= input_opset && ctx.attr_int("noop_with_empty_axes", 0) != 0)
        return {ctx.input(0)};
    std::vector<bool> reduced(r, axes.empty());
    for (int64_t a : axes) reduced[normalize_axis(a, r, ctx)] = true;

    Shape out;
    std::vector<int> out_axis_of(r, -1);
    for (int k = 0; k < r; k++) {
        if (!reduced[k]) {
            out_axis_of[k] = (int)out.size();
            out.push_back(x.shape[k]);
        } else if (keepdims) {
            out.push_back(1);
        }
    }
    int64_t count = 1;
    Region region;  // innermost (last axis) first
    std::vector<int> reduced_axes;
    for (int k = r - 1; k >= 0; k--) {
        if (!reduced[k]) continue;
        region.emplace_back(Expr(0), Expr((int)x.shape[k]));
        reduced_axes.push_back(k);
        count *= x.shape[k];
    }
    Type t = x.type();
    bool step = !region.empty() && as_step_func({&x});
    bool hoisted = !region.empty() && as_hoisted({&x});
    if (!step && !hoisted && any_iterated({&x})) {
        refuse_long(ctx, count);
        Tensor src = x;
        return {Val::of(make_tensor(
            x.element_type, out,
            [&](const Index &o) {
                Index in(r);
                for (int k = 0; k < r; k++) {
                    int pos = 0;
                    for (int j = 0; j < k; j++) pos += (!reduced[j] || keepdims) ? 1 : 0;
                    if (!reduced[k]) in[k] = o[pos];
                }
                Expr acc;
                for (int64_t flat = 0; flat < count; flat++) {
                    int64_t rest = flat;
                    for (int k = r - 1; k >= 0; k--) {
                        if (!reduced[k]) continue;
                        in[k] = Expr((int)(rest % x.shape[k]));
                        rest /= x.shape[k];
                    }
                    Expr v = read(src, in);
                    if (pre) v = cast(t, pre(v));
                    acc = acc.defined() ? combine(kind, acc, v) : v;
                }
                if (!acc.defined()) acc = cast(t, Expr(0));
                if (kind == Reduction::Mean) acc = acc / cast(t, Expr((double)count));
                if (post) acc = cast(t, post(acc));
                return acc;
            },
            x.runtime_inputs, ctx.node.output(0)))};
    }
    Expr init;
    switch (kind) {
    case Reduction::Sum:
    case Reduction::Mean: init = cast(t, Expr(0)); break;
    case Reduction::Prod: init = cast(t, Expr(1)); break;
    case Reduction::Max: init = t.min(); break;
    case Reduction::Min: init = t.max(); break;
    }
    std::vector<Var> vars;
    for (size_t k = 0; k < out.size(); k++) vars.push_back(Var("o" + std::to_string(k)));
    std::vector<Var> args(vars.rbegin(), vars.rend());
    if (args.empty()) args.push_back(Var("s"));
    if (step || hoisted) args.push_back(*recurrence_var());
    Func f(func_name(ctx.node.output(0) + "_reduce"));
    f(args) = init;
    RDom rd;
    if (!region.empty()) {
        rd = RDom(region);
        Index in(r);
        for (size_t j = 0; j < reduced_axes.size(); j++) in[reduced_axes[j]] = rd[(int)j];
        for (int k = 0; k < r; k++) {
            if (!reduced[k]) {
                // Output index of axis k: its position among the kept axes,
                // counting the kept 1s of keepdims.
                int pos = 0;
                for (int j = 0; j < k; j++) pos += (!reduced[j] || keepdims) ? 1 : 0;
                in[k] = vars[pos];
            }
        }
        std::vector<Expr> eargs(args.begin(), args.end());
        Expr v = read(x, in);
        if (pre) v = cast(t, pre(v));
        Expr old = f(eargs);
        switch (kind) {
        case Reduction::Sum:
        case Reduction::Mean: f(eargs) = old + v; break;
        case Reduction::Prod: f(eargs) = old * v; break;
        case Reduction::Max: f(eargs) = max(old, v); break;
        case Reduction::Min: f(eargs) = min(old, v); break;
        }
    }
    Tensor result;
    if (step) {
        result = step_func_tensor(f, args, rd, x.element_type, out, x.runtime_inputs);
    } else {
        if (hoisted)
            schedule_hoisted(f, args, rd, out.empty() ? 1 : out.back(), num_elements(out) * count);
        else if (!gpu_schedule_root(f, args, num_elements(out), x.foldable()))
            f.compute_root();
        result.element_type = x.element_type;
        result.shape = out;
        result.runtime_inputs = x.runtime_inputs;
        result.func = f;
    }
    if (kind == Reduction::Mean || post) {
        Tensor sum = result;
        result = make_tensor(
            x.element_type, out,
            [&](const Index &i) {
                Expr v = read(sum, i);
                if (kind == Reduction::Mean) v = v / cast(t, Expr((double)count));
                return post ? cast(t, post(v)) : v;
            },
            x.runtime_inputs, ctx.node.output(0), true);
    }
    return {Val::of(result)};
}

/** out[batch..., i, j] = sum_k a[batch..., i, k] * b[batch..., k, j] with
 * numpy batch broadcasting; a, b of rank >= 2. */
Tensor batched_matmul(NodeContext &ctx, const Tensor &a, const Tensor &b, const std::string &name) {
    int64_t n = a.shape[a.rank() - 2], k = a.shape[a.rank() - 1];
    int64_t k2 = b.shape[b.rank() - 2], m = b.shape[b.rank() - 1];
    if (k != k2) ctx.fail("inner dimensions differ: " + shape_string(a.shape) + " x " + shape_string(b.shape));
    Shape batch_a(a.shape.begin(), a.shape.end() - 2), batch_b(b.shape.begin(), b.shape.end() - 2);
    Shape batch = broadcast_shapes(batch_a, batch_b, ctx.where());
    Shape out = batch;
    out.push_back(n);
    out.push_back(m);
    int rank = (int)out.size();
    bool step = k > 0 && as_step_func({&a, &b});
    bool hoisted = k > 0 && as_hoisted({&a, &b});
    if (!step && !hoisted && any_iterated({&a, &b})) {
        refuse_long(ctx, k);
        auto full = [&](const Tensor &x) {
            Shape f = batch;
            f.push_back(x.shape[x.rank() - 2]);
            f.push_back(x.shape[x.rank() - 1]);
            return f;
        };
        Shape fa = full(a), fb = full(b);
        Tensor ta = a, tb = b;
        return make_tensor(
            a.element_type, out,
            [&](const Index &o) {
                Index ia(o.begin(), o.end() - 2), ib(o.begin(), o.end() - 2);
                ia.push_back(o[rank - 2]);
                ia.push_back(Expr(0));
                ib.push_back(Expr(0));
                ib.push_back(o[rank - 1]);
                Expr acc;
                for (int64_t q = 0; q < k; q++) {
                    ia[rank - 1] = Expr((int)q);
                    ib[rank - 2] = Expr((int)q);
                    Expr term = read_broadcast(ta, fa, ia) * read_broadcast(tb, fb, ib);
                    acc = acc.defined() ? acc + term : term;
                }
                return acc.defined() ? acc : cast(a.type(), Expr(0));
            },
            union_inputs({&a, &b}), name);
    }
    std::vector<Var> vars;
    for (int q = 0; q < rank; q++) vars.push_back(Var("o" + std::to_string(q)));
    std::vector<Var> args(vars.rbegin(), vars.rend());
    if (step || hoisted) args.push_back(*recurrence_var());
    std::vector<Expr> eargs(args.begin(), args.end());
    Type t = a.type();
    Index bidx(vars.begin(), vars.end() - 2);
    auto batch_read = [&](const Tensor &x, Expr row, Expr col) {
        Tensor view = x;
        Index idx = bidx;
        idx.push_back(row);
        idx.push_back(col);
        Shape full = batch;
        full.push_back(x.shape[x.rank() - 2]);
        full.push_back(x.shape[x.rank() - 1]);
        return read_broadcast(view, full, idx);
    };
    if (step && t.is_float() && k >= 4 * partial_sums && k % partial_sums == 0) {
        // Per step, the sum over k is a chain of dependent multiply-adds:
        // `partial_sums` partial sums (k = partial_sums * q + part, the part
        // unrolled inside the vector of outputs) shorten the chain as many
        // times, then one Func adds them.
        Var part("part");
        std::vector<Var> pargs = args;
        pargs.insert(pargs.begin() + 1, part);
        std::vector<Expr> epargs(pargs.begin(), pargs.end());
        Func partial(func_name(name + "_partial"));
        partial(pargs) = cast(t, Expr(0));
        RDom rq(0, (int)(k / partial_sums));
        Expr kk = rq.x * partial_sums + part;
        partial(epargs) = partial(epargs) + batch_read(a, vars[rank - 2], kk) * batch_read(b, kk, vars[rank - 1]);
        Expr sum;
        for (int q = 0; q < partial_sums; q++) {
            std::vector<Expr> at = eargs;
            at.insert(at.begin() + 1, Expr(q));
            sum = sum.defined() ? sum + partial(at) : partial(at);
        }
        Func f(func_name(name));
        f(args) = sum;
        step_func_tensor(partial, pargs, rq, a.element_type, out, {});
        recurrence_step_funcs()->back().unrolled = {part};
        return step_func_tensor(f, args, RDom(), a.element_type, out, union_inputs({&a, &b}));
    }
    RegisterTile tile = hoisted ? register_tile(ctx.importer.options().target, t, m, k) : RegisterTile();
    if (tile.parts > 0) {
        // Per iteration and output row, `parts` partial sums of every output
        // vector: a Func computed per row (a constant-size allocation that
        // LLVM keeps in registers: 16 accumulators for H = 64 on AVX-512),
        // its k loop outside the unrolled parts and vectors, so each
        // multiply-add reads a row of b and a broadcast element of a. The
        // sums in memory (one load and store per multiply-add) were 3x slower.
        Var part("part");
        std::vector<Var> pargs = args;
        pargs.insert(pargs.begin() + 1, part);
        std::vector<Expr> epargs(pargs.begin(), pargs.end());
        Func partial(func_name(name + "_partial"));
        partial(pargs) = cast(t, Expr(0));
        RDom rq(0, (int)(k / tile.parts), func_name("k"));
        Expr kk = rq.x * tile.parts + part;
        partial(epargs) = partial(epargs) + batch_read(a, vars[rank - 2], kk) * batch_read(b, kk, vars[rank - 1]);
        Expr sum;
        for (int q = 0; q < tile.parts; q++) {
            std::vector<Expr> at = eargs;
            at.insert(at.begin() + 1, Expr(q));
            sum = sum.defined() ? sum + partial(at) : partial(at);
        }
        Func f(func_name(name));
        f(args) = sum;
        const Var &inner = args[0], &row = args[1];
        f.compute_root().vectorize(inner, tile.lanes, TailStrategy::GuardWithIf);
        // RoundUp, not GuardWithIf: a guarded last task would give the
        // partial sums a run-time size (no registers). The iterations past
        // the last read their operands at clamped indices (a Gather clamps,
        // a Scan's element too) and are never read.
        parallel_iterations(f, args.back(), num_elements(out) * k, TailStrategy::RoundUp);
        partial.compute_at(f, row).bound(part, 0, tile.parts);
        partial.update(0).reorder(inner, part, RVar(rq.x));
        for (Stage s : {Stage(partial), partial.update(0)}) {
            if (m % tile.lanes == 0) {
                // Every vector unrolled too: constant offsets into the
                // partial sums, which LLVM then keeps in registers.
                Var vector(inner.name() + "_vector"), lane(inner.name() + "_lane");
                s.split(inner, vector, lane, tile.lanes).vectorize(lane).unroll(vector);
            } else {
                s.vectorize(inner, tile.lanes, TailStrategy::GuardWithIf);
            }
            s.unroll(part);
        }
        Tensor result;
        result.element_type = a.element_type;
        result.shape = out;
        result.runtime_inputs = union_inputs({&a, &b});
        result.func = f;
        return result;
    }
    Func f(func_name(name));
    f(args) = cast(t, Expr(0));
    RDom rk(0, (int)k);
    f(eargs) = f(eargs) + batch_read(a, vars[rank - 2], rk.x) * batch_read(b, rk.x, vars[rank - 1]);
    if (step) return step_func_tensor(f, args, rk, a.element_type, out, union_inputs({&a, &b}));
    if (hoisted)
        schedule_hoisted(f, args, rk, m, num_elements(out) * k);
    else if (!gpu_schedule_root(f, args, num_elements(out), a.foldable() && b.foldable()))
        f.compute_root();
    Tensor result;
    result.element_type = a.element_type;
    result.shape = out;
    result.runtime_inputs = union_inputs({&a, &b});
    result.func = f;
    return result;
}

std::vector<Val> matmul_op(NodeContext &ctx) {
    Tensor a = ctx.tensor(0), b = ctx.tensor(1);
    if (a.rank() == 0 || b.rank() == 0) ctx.fail("inputs must have rank >= 1");
    bool a_vector = a.rank() == 1, b_vector = b.rank() == 1;
    if (a_vector) a = reshape_tensor(a, {1, a.shape[0]}, ctx.node.output(0) + "_a");
    if (b_vector) b = reshape_tensor(b, {b.shape[0], 1}, ctx.node.output(0) + "_b");
    Tensor out = batched_matmul(ctx, a, b, ctx.node.output(0));
    Shape s = out.shape;
    if (b_vector) s.erase(s.end() - 1);
    if (a_vector) s.erase(s.end() - (b_vector ? 1 : 2));
    if (s != out.shape) out = reshape_tensor(out, s, ctx.node.output(0));
    return {Val::of(out)};
}

std::vector<Val> gemm_op(NodeContext &ctx) {
    Tensor a = ctx.tensor(0), b = ctx.tensor(1);
    if (a.rank() != 2 || b.rank() != 2) ctx.fail("A and B must be matrices");
    auto transposed = [&](const Tensor &x, const std::string &suffix) {
        Tensor src = x;
        return make_tensor(x.element_type, {x.shape[1], x.shape[0]},
                           [&](const Index &i) { return read(src, {i[1], i[0]}); }, x.runtime_inputs,
                           ctx.node.output(0) + suffix, false, true);
    };
    if (ctx.attr_int("transA", 0)) a = transposed(a, "_at");
    if (ctx.attr_int("transB", 0)) b = transposed(b, "_bt");
    Tensor ab = batched_matmul(ctx, a, b, ctx.node.output(0) + "_ab");
    float alpha = ctx.attr_float("alpha", 1.0f), beta = ctx.attr_float("beta", 1.0f);
    Type t = a.type();
    std::vector<const Tensor *> ins = {&ab};
    Tensor c;
    bool has_c = ctx.has_input(2);
    if (has_c) {
        c = ctx.tensor(2);
        broadcast_shapes(c.shape, ab.shape, ctx.where());
        ins.push_back(&c);
    }
    Shape out = ab.shape;
    return {Val::of(make_tensor(
        a.element_type, out,
        [&](const Index &i) {
            Expr v = read(ab, i);
            if (alpha != 1.0f) v = v * cast(t, Expr((double)alpha));
            if (has_c) v = v + read_broadcast(c, out, i) * cast(t, Expr((double)beta));
            return v;
        },
        union_inputs(ins), ctx.node.output(0), true))};
}

}  // namespace

void register_reduce_ops(OpTable &t) {
    t["ReduceSum"] = [](NodeContext &ctx) { return reduce_op(ctx, Reduction::Sum, nullptr, nullptr, 13); };
    t["ReduceMax"] = [](NodeContext &ctx) { return reduce_op(ctx, Reduction::Max); };
    t["ReduceMin"] = [](NodeContext &ctx) { return reduce_op(ctx, Reduction::Min); };
    t["ReduceMean"] = [](NodeContext &ctx) { return reduce_op(ctx, Reduction::Mean); };
    t["ReduceProd"] = [](NodeContext &ctx) { return reduce_op(ctx, Reduction::Prod); };
    auto square = [](Expr v) { return v * v; };
    auto as_float = [](const std::function<Expr(Expr)> &f) {
        return [f](Expr v) { return v.type().is_float() ? f(v) : f(cast(Float(64), v)); };
    };
    t["ReduceL1"] = [](NodeContext &ctx) {
        return reduce_op(ctx, Reduction::Sum, [](Expr v) { return v.type().is_uint() ? v : cast(v.type(), abs(v)); });
    };
    t["ReduceL2"] = [=](NodeContext &ctx) {
        return reduce_op(ctx, Reduction::Sum, square, as_float([](Expr v) { return sqrt(v); }));
    };
    t["ReduceSumSquare"] = [=](NodeContext &ctx) { return reduce_op(ctx, Reduction::Sum, square); };
    t["ReduceLogSum"] = [=](NodeContext &ctx) {
        return reduce_op(ctx, Reduction::Sum, nullptr, as_float([](Expr v) { return log(v); }));
    };
    t["ReduceLogSumExp"] = [=](NodeContext &ctx) {
        return reduce_op(ctx, Reduction::Sum, as_float([](Expr v) { return exp(v); }),
                         as_float([](Expr v) { return log(v); }));
    };
    t["MatMul"] = matmul_op;
    t["Gemm"] = gemm_op;
}

}  // namespace loom::onnx::detail
