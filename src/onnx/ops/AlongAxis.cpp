// Ops that work along one axis: ArgMax ArgMin (a Tuple-valued reduction),
// Softmax LogSoftmax (max and sum reductions, then elementwise), CumSum (a
// scan as an update along the axis), GatherElements, Trilu.

#include "../GpuSchedule.h"
#include "../Importer.h"

namespace loom::onnx::detail {

namespace {

void refuse_iterated(const NodeContext &ctx, const Tensor &x) {
    if (x.iterated()) throw RecurrenceUnsupported(ctx.where() + " inside a recurrence");
}

std::vector<Var> make_vars(size_t n, std::vector<Var> &loom_order) {
    std::vector<Var> vars;
    for (size_t k = 0; k < n; k++) vars.push_back(Var("a" + std::to_string(k)));
    loom_order.assign(vars.rbegin(), vars.rend());
    if (loom_order.empty()) loom_order.push_back(Var("s"));
    return vars;
}

std::vector<Val> arg_op(NodeContext &ctx, bool is_max) {
    const Tensor &x = ctx.tensor(0);
    refuse_iterated(ctx, x);
    int r = x.rank();
    int axis = normalize_axis(ctx.attr_int("axis", 0), r, ctx);
    bool keepdims = ctx.attr_int("keepdims", 1) != 0, last = ctx.attr_int("select_last_index", 0) != 0;
    int64_t n = x.shape[axis];
    if (n == 0) ctx.fail("cannot take the arg-extreme of an empty axis");
    Shape out = x.shape;
    if (keepdims)
        out[axis] = 1;
    else
        out.erase(out.begin() + axis);
    std::vector<Var> args;
    std::vector<Var> vars = make_vars(out.size(), args);
    auto input_index = [&](Expr along) {
        Index in;
        for (int k = 0, o = 0; k < r; k++) {
            if (k == axis) {
                in.push_back(along);
                if (keepdims) o++;
            } else {
                in.push_back(vars[o++]);
            }
        }
        return in;
    };
    Func f(func_name(ctx.node.output(0)));
    f(args) = Tuple(cast(Int(64), Expr(0)), read(x, input_index(Expr(0))));
    if (n > 1) {
        RDom rd(1, (int)n - 1);
        std::vector<Expr> eargs(args.begin(), args.end());
        Expr v = read(x, input_index(rd.x));
        Expr cur = f(eargs)[1];
        Expr better = is_max ? (last ? v >= cur : v > cur) : (last ? v <= cur : v < cur);
        f(eargs) = Tuple(select(better, cast(Int(64), Expr(rd.x)), Expr(f(eargs)[0])), select(better, v, cur));
    }
    f.compute_root();
    Tensor t;
    t.element_type = Int64;
    t.shape = out;
    t.func = f;
    t.tuple_index = 0;
    t.runtime_inputs = x.runtime_inputs;
    return {Val::of(t)};
}

}  // namespace

Tensor reduce_kept(const Tensor &x, const std::vector<bool> &reduced, bool is_max, const std::string &name) {
    if (x.iterated()) throw RecurrenceUnsupported(name + ": a reduction inside a recurrence");
    int r = x.rank();
    Shape out = x.shape;
    Region region;
    std::vector<int> axes;
    for (int k = r - 1; k >= 0; k--) {
        if (!reduced[k]) continue;
        out[k] = 1;
        region.emplace_back(Expr(0), Expr((int)x.shape[k]));
        axes.push_back(k);
    }
    std::vector<Var> args;
    std::vector<Var> vars = make_vars(out.size(), args);
    Func f(func_name(name));
    f(args) = is_max ? x.type().min() : cast(x.type(), Expr(0));
    RDom rd(region);
    Index in(vars.begin(), vars.end());
    for (size_t j = 0; j < axes.size(); j++) in[axes[j]] = rd[(int)j];
    std::vector<Expr> eargs(args.begin(), args.end());
    Expr v = read(x, in);
    f(eargs) = is_max ? max(f(eargs), v) : f(eargs) + v;
    if (!gpu_schedule_root(f, args, num_elements(out), x.foldable())) f.compute_root();
    Tensor t;
    t.element_type = x.element_type;
    t.shape = out;
    t.func = f;
    t.runtime_inputs = x.runtime_inputs;
    return t;
}

namespace {

std::vector<Val> softmax_op(NodeContext &ctx, bool log_of_it) {
    const Tensor &x = ctx.tensor(0);
    refuse_iterated(ctx, x);
    if (!x.type().is_float()) ctx.fail("needs a floating-point input");
    int r = x.rank();
    // Before opset 13 the input is seen as a matrix [prod(:axis), prod(axis:)].
    bool flattened = ctx.opset < 13;
    int axis = normalize_axis(ctx.attr_int("axis", flattened ? 1 : -1), r, ctx);
    std::vector<bool> reduced(r, false);
    for (int k = 0; k < r; k++) reduced[k] = flattened ? k >= axis : k == axis;
    Tensor src = x;
    Tensor m = reduce_kept(x, reduced, true, ctx.node.output(0) + "_max");
    Tensor e = make_tensor(
        x.element_type, x.shape, [&](const Index &i) { return exp(read(src, i) - read_broadcast(m, src.shape, i)); },
        x.runtime_inputs, ctx.node.output(0) + "_exp");
    Tensor s = reduce_kept(e, reduced, false, ctx.node.output(0) + "_sum");
    return {Val::of(make_tensor(
        x.element_type, x.shape,
        [&](const Index &i) {
            if (log_of_it) return read(src, i) - read_broadcast(m, src.shape, i) - log(read_broadcast(s, src.shape, i));
            return read(e, i) / read_broadcast(s, src.shape, i);
        },
        x.runtime_inputs, ctx.node.output(0), true))};
}

std::vector<Val> cumsum_op(NodeContext &ctx) {
    const Tensor &x = ctx.tensor(0);
    refuse_iterated(ctx, x);
    int r = x.rank();
    int axis = normalize_axis(ctx.ints(1, "axis")[0], r, ctx);
    bool exclusive = ctx.attr_int("exclusive", 0) != 0, reverse = ctx.attr_int("reverse", 0) != 0;
    int n = (int)x.shape[axis];
    Tensor src = x;
    auto flip = [&](Expr i) { return reverse ? Expr(n - 1) - i : i; };
    Tensor y = make_tensor(
        x.element_type, x.shape,
        [&](const Index &i) {
            Index in = i;
            in[axis] = flip(i[axis]);
            return read(src, in);
        },
        x.runtime_inputs, ctx.node.output(0) + "_in", false, true);
    std::vector<Var> args;
    std::vector<Var> vars = make_vars(r, args);
    Func c(func_name(ctx.node.output(0) + "_scan"));
    c(args) = read(y, Index(vars.begin(), vars.end()));
    if (n > 1) {
        RDom rd(1, n - 1);
        Index at(vars.begin(), vars.end()), before(vars.begin(), vars.end());
        at[axis] = rd.x;
        before[axis] = Expr(rd.x) - 1;
        std::vector<Expr> lhs(at.rbegin(), at.rend()), prev(before.rbegin(), before.rend());
        c(lhs) = c(prev) + read(y, at);
    }
    if (!gpu_schedule_root(c, args, num_elements(x.shape), x.foldable())) c.compute_root();
    Tensor scanned;
    scanned.element_type = x.element_type;
    scanned.shape = x.shape;
    scanned.func = c;
    scanned.runtime_inputs = x.runtime_inputs;
    return {Val::of(make_tensor(
        x.element_type, x.shape,
        [&](const Index &i) {
            Index in = i;
            in[axis] = flip(i[axis]);
            Expr v = read(scanned, in);
            return exclusive ? v - read(y, in) : v;
        },
        x.runtime_inputs, ctx.node.output(0)))};
}

std::vector<Val> gather_elements_op(NodeContext &ctx) {
    const Tensor &data = ctx.tensor(0), &indices = ctx.tensor(1);
    int r = data.rank();
    int axis = normalize_axis(ctx.attr_int("axis", 0), r, ctx);
    if (indices.rank() != r) ctx.fail("indices must have the rank of data");
    int64_t n = data.shape[axis];
    Tensor d = data, ind = indices;
    return {Val::of(make_tensor(
        data.element_type, indices.shape,
        [&](const Index &idx) {
            Expr i = cast(Int(32), read(ind, idx));
            i = clamp(select(i < 0, i + (int)n, i), 0, (int)std::max<int64_t>(n - 1, 0));
            Index in;
            for (int k = 0; k < r; k++) {
                // Other axes of indices may be shorter than data's, never longer.
                in.push_back(k == axis ? i : clamp(idx[k], 0, (int)std::max<int64_t>(d.shape[k] - 1, 0)));
            }
            return read(d, in);
        },
        union_inputs({&data, &indices}), ctx.node.output(0)))};
}

std::vector<Val> trilu_op(NodeContext &ctx) {
    const Tensor &x = ctx.tensor(0);
    if (x.rank() < 2) ctx.fail("needs a rank of at least 2");
    int64_t k = ctx.has_input(1) ? ctx.ints(1, "k")[0] : 0;
    bool upper = ctx.attr_int("upper", 1) != 0;
    int r = x.rank();
    Tensor src = x;
    Expr kk = Expr((int)std::clamp<int64_t>(k, -(int64_t(1) << 30), int64_t(1) << 30));
    return {Val::of(make_tensor(
        x.element_type, x.shape,
        [&](const Index &i) {
            Expr d = i[r - 1] - i[r - 2];
            Expr keep = upper ? d >= kk : d <= kk;
            return select(keep, read(src, i), cast(src.type(), Expr(0)));
        },
        x.runtime_inputs, ctx.node.output(0), true))};
}

// 1 at the first maximum along the axis (before opset 13: of the flattened
// block of axes from `axis` on), 0 elsewhere.
std::vector<Val> hardmax_op(NodeContext &ctx) {
    const Tensor &x = ctx.tensor(0);
    refuse_iterated(ctx, x);
    int r = x.rank();
    bool flattened = ctx.opset < 13;
    int axis = normalize_axis(ctx.attr_int("axis", flattened ? 1 : -1), r, ctx);
    Tensor block = x;
    int along = axis;
    if (flattened) {
        int64_t outer = 1, inner = 1;
        for (int k = 0; k < r; k++) (k < axis ? outer : inner) *= x.shape[k];
        block = reshape_tensor(x, {outer, inner}, ctx.node.output(0) + "_block");
        along = 1;
    }
    // argmax along `along`, kept as a 1.
    ::onnx::NodeProto node = ctx.node;
    node.clear_attribute();
    auto *a = node.add_attribute();
    a->set_name("axis");
    a->set_type(::onnx::AttributeProto::INT);
    a->set_i(along);
    NodeContext arg_ctx{ctx.importer, node, ctx.scope, {Val::of(block)}, ctx.opset};
    Tensor index = arg_op(arg_ctx, true)[0].tensor;
    Tensor b = block;
    Tensor hard = make_tensor(
        x.element_type, block.shape,
        [&](const Index &i) {
            Index at = i;
            at[along] = Expr(0);
            return select(cast(Int(64), i[along]) == read(index, at), cast(b.type(), Expr(1)), cast(b.type(), Expr(0)));
        },
        x.runtime_inputs, ctx.node.output(0));
    return {Val::of(flattened ? reshape_tensor(hard, x.shape, ctx.node.output(0)) : hard)};
}

std::vector<Val> layer_normalization_op(NodeContext &ctx) {
    const Tensor &x = ctx.tensor(0), &scale = ctx.tensor(1);
    refuse_iterated(ctx, x);
    if (!x.type().is_float()) ctx.fail("needs a floating-point input");
    int r = x.rank();
    int axis = normalize_axis(ctx.attr_int("axis", -1), r, ctx);
    double epsilon = ctx.attr_float("epsilon", 1e-5f);
    std::vector<bool> reduced(r, false);
    int64_t n = 1;
    for (int k = axis; k < r; k++) reduced[k] = true, n *= x.shape[k];
    Tensor src = x;
    Type t = x.type();
    std::string name = ctx.node.output(0);
    Tensor sum = reduce_kept(x, reduced, false, name + "_sum");
    Tensor mean = make_tensor(
        x.element_type, sum.shape, [&](const Index &i) { return read(sum, i) / cast(t, Expr((double)n)); },
        x.runtime_inputs, name + "_mean", false, true);
    Tensor centred = make_tensor(
        x.element_type, x.shape, [&](const Index &i) { return read(src, i) - read_broadcast(mean, src.shape, i); },
        x.runtime_inputs, name + "_centred");
    Tensor squares = make_tensor(
        x.element_type, x.shape, [&](const Index &i) { return read(centred, i) * read(centred, i); },
        x.runtime_inputs, name + "_squares", false, true);
    Tensor sum_squares = reduce_kept(squares, reduced, false, name + "_sum_squares");
    Tensor inv_std = make_tensor(
        x.element_type, sum.shape,
        [&](const Index &i) {
            return cast(t, Expr(1.0)) / sqrt(read(sum_squares, i) / cast(t, Expr((double)n)) + cast(t, Expr(epsilon)));
        },
        x.runtime_inputs, name + "_inv_std");
    bool has_bias = ctx.has_input(2);
    Tensor bias = has_bias ? ctx.tensor(2) : Tensor();
    Tensor s = scale;
    Tensor y = make_tensor(
        x.element_type, x.shape,
        [&](const Index &i) {
            Expr v = read(centred, i) * read_broadcast(inv_std, src.shape, i) * read_broadcast(s, src.shape, i);
            if (has_bias) v = v + read_broadcast(bias, src.shape, i);
            return v;
        },
        has_bias ? union_inputs({&x, &scale, &bias}) : union_inputs({&x, &scale}), name, true);
    return {Val::of(y), Val::of(mean), Val::of(inv_std)};
}

}  // namespace

void register_along_axis_ops(OpTable &t) {
    t["Hardmax"] = hardmax_op;
    t["LayerNormalization"] = layer_normalization_op;
    t["ArgMax"] = [](NodeContext &ctx) { return arg_op(ctx, true); };
    t["ArgMin"] = [](NodeContext &ctx) { return arg_op(ctx, false); };
    t["Softmax"] = [](NodeContext &ctx) { return softmax_op(ctx, false); };
    t["LogSoftmax"] = [](NodeContext &ctx) { return softmax_op(ctx, true); };
    t["CumSum"] = cumsum_op;
    t["GatherElements"] = gather_elements_op;
    t["Trilu"] = trilu_op;
}

}  // namespace loom::onnx::detail
