// Sequences and optionals. A sequence's length and each element's shape are
// known when compiling (its elements are tensors, each with its own Func);
// positions must be known too. An optional is either its value or None.

#include "../Importer.h"

namespace loom::onnx::detail {

namespace {

const Val &sequence_input(NodeContext &ctx, int i) {
    const Val &v = ctx.input(i);
    if (v.kind != Val::Kind::Sequence) ctx.fail("input " + std::to_string(i) + " must be a sequence");
    return v;
}

int64_t position(NodeContext &ctx, int input, int64_t size, bool insert) {
    int64_t p = ctx.ints(input, "position")[0];
    int64_t limit = insert ? size : size - 1;
    if (p < 0) p += size;
    if (p < 0 || p > limit)
        ctx.fail("position " + std::to_string(p) + " is out of range for a sequence of " + std::to_string(size) +
                 " tensors");
    return p;
}

std::vector<Val> sequence_empty(NodeContext &ctx) {
    return {Val::sequence((int)ctx.attr_int("dtype", Float32), {})};
}

std::vector<Val> sequence_construct(NodeContext &ctx) {
    std::vector<Tensor> elements;
    for (int i = 0; i < ctx.num_inputs(); i++) {
        elements.push_back(ctx.tensor(i));
        if (elements.back().element_type != elements[0].element_type) ctx.fail("inputs differ in type");
    }
    if (elements.empty()) ctx.fail("needs at least one input");
    return {Val::sequence(elements[0].element_type, elements)};
}

std::vector<Val> sequence_insert(NodeContext &ctx) {
    Val seq = sequence_input(ctx, 0);
    const Tensor &t = ctx.tensor(1);
    if (!seq.elements.empty() && t.element_type != seq.element_type) ctx.fail("the tensor's type differs from the sequence's");
    int64_t p = ctx.has_input(2) ? position(ctx, 2, (int64_t)seq.elements.size(), true) : (int64_t)seq.elements.size();
    seq.elements.insert(seq.elements.begin() + p, t);
    seq.element_type = t.element_type;
    return {seq};
}

std::vector<Val> sequence_erase(NodeContext &ctx) {
    Val seq = sequence_input(ctx, 0);
    if (seq.elements.empty()) ctx.fail("cannot erase from an empty sequence");
    int64_t p = ctx.has_input(1) ? position(ctx, 1, (int64_t)seq.elements.size(), false)
                                 : (int64_t)seq.elements.size() - 1;
    seq.elements.erase(seq.elements.begin() + p);
    return {seq};
}

std::vector<Val> sequence_at(NodeContext &ctx) {
    const Val &seq = sequence_input(ctx, 0);
    return {Val::of(seq.elements[position(ctx, 1, (int64_t)seq.elements.size(), false)])};
}

std::vector<Val> sequence_length(NodeContext &ctx) {
    return {Val::of(int64_tensor({(int64_t)sequence_input(ctx, 0).elements.size()}, true, ctx.node.output(0)))};
}

std::vector<Val> concat_from_sequence(NodeContext &ctx) {
    const Val &seq = sequence_input(ctx, 0);
    if (!ctx.has_attr("axis")) ctx.fail("attribute 'axis' is required");
    return concat_for_sequence(ctx, seq.elements, ctx.attr_int("axis", 0), ctx.attr_int("new_axis", 0) != 0);
}

// The body runs once per element (the length is known when compiling); each
// of its outputs becomes a sequence.
std::vector<Val> sequence_map(NodeContext &ctx) {
    const Val &seq = sequence_input(ctx, 0);
    const auto &body = ctx.attr_graph("body");
    size_t n = seq.elements.size();
    for (int i = 1; i < ctx.num_inputs(); i++) {
        const Val &v = ctx.input(i);
        if (v.kind == Val::Kind::Sequence && v.elements.size() != n) ctx.fail("the input sequences differ in length");
    }
    std::vector<std::vector<Tensor>> results(body.output_size());
    for (size_t e = 0; e < n; e++) {
        std::vector<Val> inputs = {Val::of(seq.elements[e])};
        for (int i = 1; i < ctx.num_inputs(); i++) {
            const Val &v = ctx.input(i);
            inputs.push_back(v.kind == Val::Kind::Sequence ? Val::of(v.elements[e]) : v);
        }
        std::vector<Val> outs =
            ctx.importer.run_subgraph(body, ctx.scope, inputs, ctx.where() + " element " + std::to_string(e));
        for (size_t j = 0; j < outs.size(); j++) {
            if (outs[j].kind != Val::Kind::Tensor) ctx.fail("the body's outputs must be tensors");
            results[j].push_back(outs[j].tensor);
        }
    }
    std::vector<Val> outs;
    for (int j = 0; j < body.output_size(); j++) {
        int e = results[j].empty() ? value_info_of(body.output(j)).element_type : results[j][0].element_type;
        outs.push_back(Val::sequence(e, results[j]));
    }
    return outs;
}

std::vector<Val> optional_op(NodeContext &ctx) {
    if (ctx.has_input(0)) return {ctx.input(0)};
    int e = 0;
    if (const auto *a = ctx.attr("type")) {
        const ::onnx::TypeProto *t = &a->tp();
        if (t->has_sequence_type()) t = &t->sequence_type().elem_type();
        if (t->has_tensor_type()) e = t->tensor_type().elem_type();
    }
    return {Val::none(e)};
}

std::vector<Val> optional_has_element(NodeContext &ctx) {
    bool has = ctx.has_input(0) && ctx.inputs[0].kind != Val::Kind::None;
    Buffer<> b = new_buffer(Boolean, {});
    buffer_set_int(b, 0, has ? 1 : 0);
    return {Val::of(known_tensor(Boolean, {}, b, ctx.node.output(0)))};
}

std::vector<Val> optional_get_element(NodeContext &ctx) {
    const Val &v = ctx.input(0);
    if (v.kind == Val::Kind::None) ctx.fail("the optional is empty");
    return {v};
}

}  // namespace

void register_sequence_ops(OpTable &t) {
    t["SequenceEmpty"] = sequence_empty;
    t["SequenceConstruct"] = sequence_construct;
    t["SequenceInsert"] = sequence_insert;
    t["SequenceErase"] = sequence_erase;
    t["SequenceAt"] = sequence_at;
    t["SequenceLength"] = sequence_length;
    t["ConcatFromSequence"] = concat_from_sequence;
    t["SequenceMap"] = sequence_map;
    t["Optional"] = optional_op;
    t["OptionalHasElement"] = optional_has_element;
    t["OptionalGetElement"] = optional_get_element;
}

}  // namespace loom::onnx::detail
