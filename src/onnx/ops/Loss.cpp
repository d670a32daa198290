// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss: a gather of the
// target class per element, weighted, then no reduction, a sum or a
// weighted mean (root Funcs with updates over RDoms).

#include "../Importer.h"

namespace loom::onnx::detail {

namespace {

Tensor sum_all(const Tensor &x, const std::string &name) {
    Tensor kept = reduce_kept(x, std::vector<bool>(x.rank(), true), false, name + "_sum");
    return reshape_tensor(kept, {}, name + "_total");
}

/** Loss of log-probabilities `input` [N, C, d...] against `target` [N, d...]. */
std::vector<Val> nll(NodeContext &ctx, const Tensor &input, const Tensor &target, const Tensor *weight,
                     const std::string &name) {
    if (input.rank() < 2 || target.rank() != input.rank() - 1) ctx.fail("input must be [N, C, ...] and target [N, ...]");
    if (target.type().is_float()) ctx.fail("target must hold integer class indices");
    std::string reduction = ctx.attr_string("reduction", "mean");
    if (reduction != "none" && reduction != "sum" && reduction != "mean")
        ctx.fail("reduction must be none, sum or mean, not '" + reduction + "'");
    bool has_ignore = ctx.has_attr("ignore_index");
    int64_t ignore = ctx.attr_int("ignore_index", 0);
    int64_t classes = input.shape[1];
    Tensor in = input, tg = target, w = weight ? *weight : Tensor();
    Type t = input.type();
    auto parts = [&](const Index &i, Expr &ignored, Expr &cls) {
        Expr label = cast(Int(64), read(tg, i));
        ignored = has_ignore ? (label == Expr(ignore)) : cast(Bool(), Expr(0));
        cls = clamp(cast(Int(32), label), 0, (int)classes - 1);
    };
    auto weight_of = [&](const Index &i) {
        Expr ignored, cls;
        parts(i, ignored, cls);
        Expr wt = weight ? read(w, {cls}) : cast(t, Expr(1));
        return select(ignored, cast(t, Expr(0)), wt);
    };
    std::vector<const Tensor *> ins = {&input, &target};
    if (weight) ins.push_back(weight);
    Tensor loss = make_tensor(
        input.element_type, target.shape,
        [&](const Index &i) {
            Expr ignored, cls;
            parts(i, ignored, cls);
            Index at = {i[0], cls};
            at.insert(at.end(), i.begin() + 1, i.end());
            return -read(in, at) * weight_of(i);
        },
        union_inputs(ins), name + (reduction == "none" ? "" : "_elements"));
    if (reduction == "none") return {Val::of(loss)};
    Tensor total = sum_all(loss, name);
    if (reduction == "sum") return {Val::of(total)};
    Tensor weights = make_tensor(input.element_type, target.shape, weight_of, union_inputs(ins), name + "_weights", false,
                                 true);
    Tensor weight_total = sum_all(weights, name + "_w");
    return {Val::of(make_tensor(
        input.element_type, {}, [&](const Index &) { return read(total, {}) / read(weight_total, {}); },
        union_inputs(ins), name))};
}

std::vector<Val> nll_op(NodeContext &ctx) {
    const Tensor *weight = ctx.has_input(2) ? &ctx.tensor(2) : nullptr;
    return nll(ctx, ctx.tensor(0), ctx.tensor(1), weight, ctx.node.output(0));
}

std::vector<Val> softmax_cross_entropy_op(NodeContext &ctx) {
    const Tensor &scores = ctx.tensor(0);
    if (scores.rank() < 2) ctx.fail("scores must be [N, C, ...]");
    if (!scores.type().is_float()) ctx.fail("needs floating-point scores");
    std::vector<bool> reduced(scores.rank(), false);
    reduced[1] = true;
    std::string name = ctx.node.output(0);
    Tensor s = scores;
    Tensor m = reduce_kept(scores, reduced, true, name + "_max");
    Tensor e = make_tensor(
        scores.element_type, scores.shape, [&](const Index &i) { return exp(read(s, i) - read_broadcast(m, s.shape, i)); },
        scores.runtime_inputs, name + "_exp");
    Tensor sum = reduce_kept(e, reduced, false, name + "_sum");
    Tensor log_prob = make_tensor(
        scores.element_type, scores.shape,
        [&](const Index &i) { return read(s, i) - read_broadcast(m, s.shape, i) - log(read_broadcast(sum, s.shape, i)); },
        scores.runtime_inputs, ctx.num_outputs() > 1 ? ctx.node.output(1) : name + "_log_prob");
    const Tensor *weight = ctx.has_input(2) ? &ctx.tensor(2) : nullptr;
    std::vector<Val> outs = nll(ctx, log_prob, ctx.tensor(1), weight, name);
    outs.push_back(Val::of(log_prob));
    return outs;
}

}  // namespace

void register_loss_ops(OpTable &t) {
    t["NegativeLogLikelihoodLoss"] = nll_op;
    t["SoftmaxCrossEntropyLoss"] = softmax_cross_entropy_op;
}

}  // namespace loom::onnx::detail
