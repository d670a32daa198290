// Ops that move elements or make shapes: Constant, ConstantOfShape, Shape,
// Size, Reshape, Flatten, Unsqueeze, Squeeze, Slice, Gather, Concat, Expand,
// Tile, Transpose, Range. Every output shape is known when compiling.

#include <cmath>
#include <cstring>

#include "../Importer.h"

namespace loom::onnx::detail {

namespace {

std::vector<int64_t> strides_of(const Shape &shape) {
    std::vector<int64_t> s(shape.size(), 1);
    for (int k = (int)shape.size() - 2; k >= 0; k--) s[k] = s[k + 1] * shape[k + 1];
    return s;
}

/** The same elements in row-major order under a new shape. */
Tensor reshaped(const Tensor &x, const Shape &out, const std::string &name) {
    if (x.known.defined()) {
        Buffer<> b = new_buffer(x.element_type, out);
        size_t bytes = (size_t)num_elements(out) * x.type().bytes();
        if (bytes) std::memcpy(b.raw_buffer()->host, x.known.raw_buffer()->host, bytes);
        return known_tensor(x.element_type, out, b, name);
    }
    if (out == x.shape) return x;
    std::vector<int64_t> out_strides = strides_of(out), in_strides = strides_of(x.shape);
    Tensor src = x;
    return make_tensor(
        x.element_type, out,
        [&](const Index &idx) {
            Expr linear = Expr(0);
            for (size_t k = 0; k < out.size(); k++) linear = linear + idx[k] * (int)out_strides[k];
            Index in;
            for (size_t k = 0; k < src.shape.size(); k++)
                in.push_back((linear / (int)in_strides[k]) % (int)std::max<int64_t>(src.shape[k], 1));
            return read(src, in);
        },
        x.runtime_inputs, name);
}

std::vector<Val> constant_op(NodeContext &ctx) {
    const std::string name = ctx.node.output(0);
    if (const auto *a = ctx.attr("value")) return {Val::of(tensor_from_proto(a->t(), ctx.where()))};
    if (const auto *a = ctx.attr("value_float")) {
        Buffer<> b = new_buffer(Float32, {});
        buffer_set(b, 0, a->f());
        return {Val::of(known_tensor(Float32, {}, b, name))};
    }
    if (const auto *a = ctx.attr("value_floats")) {
        Buffer<> b = new_buffer(Float32, {(int64_t)a->floats_size()});
        for (int i = 0; i < a->floats_size(); i++) buffer_set(b, i, a->floats(i));
        return {Val::of(known_tensor(Float32, {(int64_t)a->floats_size()}, b, name))};
    }
    if (const auto *a = ctx.attr("value_int")) return {Val::of(int64_tensor({a->i()}, true, name))};
    if (const auto *a = ctx.attr("value_ints"))
        return {Val::of(int64_tensor(std::vector<int64_t>(a->ints().begin(), a->ints().end()), false, name))};
    ctx.fail("needs a 'value', 'value_float(s)' or 'value_int(s)' attribute (sparse and string constants are not supported)");
}

std::vector<Val> constant_of_shape_op(NodeContext &ctx) {
    Shape shape = ctx.ints(0, "shape");
    for (int64_t d : shape) {
        if (d < 0) ctx.fail("negative dimension in shape " + shape_string(shape));
    }
    int e = Float32;
    double value = 0;
    if (const auto *a = ctx.attr("value")) {
        Tensor v = tensor_from_proto(a->t(), ctx.where());
        if (num_elements(v.shape) != 1) ctx.fail("'value' must hold one element");
        e = v.element_type;
        value = buffer_double(v.known, 0);
    }
    Expr v = cast(loom_type(e), Expr(value));
    return {Val::of(make_tensor(e, shape, [&](const Index &) { return v; }, {}, ctx.node.output(0), true))};
}

std::vector<Val> shape_op(NodeContext &ctx) {
    const Tensor &x = ctx.tensor(0);
    int64_t rank = x.rank();
    int64_t start = ctx.attr_int("start", 0), end = ctx.attr_int("end", rank);
    if (start < 0) start += rank;
    if (end < 0) end += rank;
    start = std::clamp<int64_t>(start, 0, rank);
    end = std::clamp<int64_t>(end, 0, rank);
    std::vector<int64_t> dims;
    for (int64_t k = start; k < end; k++) dims.push_back(x.shape[k]);
    return {Val::of(int64_tensor(dims, false, ctx.node.output(0)))};
}

std::vector<Val> size_op(NodeContext &ctx) {
    return {Val::of(int64_tensor({num_elements(ctx.tensor(0).shape)}, true, ctx.node.output(0)))};
}

std::vector<Val> reshape_op(NodeContext &ctx) {
    const Tensor &x = ctx.tensor(0);
    std::vector<int64_t> spec = ctx.opset < 5 ? ctx.attr_ints("shape") : ctx.ints(1, "shape");
    bool allow_zero = ctx.attr_int("allowzero", 0) != 0;
    Shape out;
    int infer = -1;
    int64_t known = 1;
    for (size_t k = 0; k < spec.size(); k++) {
        int64_t d = spec[k];
        if (d == 0 && !allow_zero) {
            if (k >= x.shape.size()) ctx.fail("shape entry 0 at axis " + std::to_string(k) + " copies no input axis");
            d = x.shape[k];
        }
        if (d == -1) {
            if (infer >= 0) ctx.fail("shape " + shape_string(spec) + " has more than one -1");
            infer = (int)k;
            out.push_back(1);
            continue;
        }
        if (d < 0) ctx.fail("bad shape entry " + std::to_string(d));
        out.push_back(d);
        known *= d;
    }
    int64_t n = num_elements(x.shape);
    if (infer >= 0) {
        if (known == 0 || n % known) ctx.fail("cannot infer the -1 of " + shape_string(spec) + " for " + shape_string(x.shape));
        out[infer] = n / known;
    }
    if (num_elements(out) != n)
        ctx.fail("cannot reshape " + shape_string(x.shape) + " (" + std::to_string(n) + " elements) to " + shape_string(out));
    return {Val::of(reshaped(x, out, ctx.node.output(0)))};
}

std::vector<Val> flatten_op(NodeContext &ctx) {
    const Tensor &x = ctx.tensor(0);
    int64_t axis = ctx.attr_int("axis", 1);
    if (axis < 0) axis += x.rank();
    if (axis < 0 || axis > x.rank()) ctx.fail("axis out of range");
    int64_t outer = 1, inner = 1;
    for (int k = 0; k < x.rank(); k++) (k < axis ? outer : inner) *= x.shape[k];
    return {Val::of(reshaped(x, {outer, inner}, ctx.node.output(0)))};
}

std::vector<int64_t> axes_of(NodeContext &ctx, int input_index, int first_opset_with_input) {
    if (ctx.opset >= first_opset_with_input) return ctx.has_input(input_index) ? ctx.ints(input_index, "axes") : std::vector<int64_t>{};
    return ctx.attr_ints("axes");
}

std::vector<Val> unsqueeze_op(NodeContext &ctx) {
    const Tensor &x = ctx.tensor(0);
    std::vector<int64_t> axes = axes_of(ctx, 1, 13);
    int out_rank = x.rank() + (int)axes.size();
    std::vector<bool> inserted(out_rank, false);
    for (int64_t a : axes) {
        int k = normalize_axis(a, out_rank, ctx);
        if (inserted[k]) ctx.fail("axis " + std::to_string(a) + " repeats");
        inserted[k] = true;
    }
    Shape out;
    int next = 0;
    for (int k = 0; k < out_rank; k++) out.push_back(inserted[k] ? 1 : x.shape[next++]);
    return {Val::of(reshaped(x, out, ctx.node.output(0)))};
}

std::vector<Val> squeeze_op(NodeContext &ctx) {
    const Tensor &x = ctx.tensor(0);
    std::vector<int64_t> axes = axes_of(ctx, 1, 13);
    std::vector<bool> drop(x.rank(), false);
    if (axes.empty()) {
        for (int k = 0; k < x.rank(); k++) drop[k] = x.shape[k] == 1;
    }
    for (int64_t a : axes) {
        int k = normalize_axis(a, x.rank(), ctx);
        if (x.shape[k] != 1) ctx.fail("cannot squeeze axis " + std::to_string(a) + " of extent " + std::to_string(x.shape[k]));
        drop[k] = true;
    }
    Shape out;
    for (int k = 0; k < x.rank(); k++) {
        if (!drop[k]) out.push_back(x.shape[k]);
    }
    return {Val::of(reshaped(x, out, ctx.node.output(0)))};
}

std::vector<Val> slice_op(NodeContext &ctx) {
    const Tensor &x = ctx.tensor(0);
    std::vector<int64_t> starts, ends, axes, steps;
    if (ctx.opset < 10) {
        starts = ctx.attr_ints("starts");
        ends = ctx.attr_ints("ends");
        axes = ctx.attr_ints("axes");
    } else {
        starts = ctx.ints(1, "starts");
        ends = ctx.ints(2, "ends");
        if (ctx.has_input(3)) axes = ctx.ints(3, "axes");
        if (ctx.has_input(4)) steps = ctx.ints(4, "steps");
    }
    if (axes.empty()) {
        for (size_t k = 0; k < starts.size(); k++) axes.push_back((int64_t)k);
    }
    if (steps.empty()) steps.assign(starts.size(), 1);
    if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
        ctx.fail("starts, ends, axes and steps must have the same length");
    int r = x.rank();
    std::vector<int64_t> first(r, 0), step(r, 1);
    Shape out = x.shape;
    for (size_t i = 0; i < starts.size(); i++) {
        int a = normalize_axis(axes[i], r, ctx);
        int64_t dim = x.shape[a], s = starts[i], e = ends[i], st = steps[i];
        if (st == 0) ctx.fail("step 0");
        if (s < 0) s += dim;
        if (e < 0) e += dim;
        if (st > 0) {
            s = std::clamp<int64_t>(s, 0, dim);
            e = std::clamp<int64_t>(e, 0, dim);
        } else {
            s = std::clamp<int64_t>(s, 0, dim - 1);
            e = std::clamp<int64_t>(e, -1, dim - 1);
        }
        int64_t count = st > 0 ? (e - s + st - 1) / st : (s - e + (-st) - 1) / (-st);
        out[a] = std::max<int64_t>(count, 0);
        first[a] = s;
        step[a] = st;
    }
    Tensor src = x;
    return {Val::of(make_tensor(
        x.element_type, out,
        [&](const Index &idx) {
            Index in;
            for (int k = 0; k < r; k++) in.push_back(Expr((int)first[k]) + idx[k] * (int)step[k]);
            return read(src, in);
        },
        x.runtime_inputs, ctx.node.output(0)))};
}

std::vector<Val> gather_op(NodeContext &ctx) {
    const Tensor &data = ctx.tensor(0), &indices = ctx.tensor(1);
    int axis = normalize_axis(ctx.attr_int("axis", 0), data.rank(), ctx);
    if (indices.type().is_float()) ctx.fail("indices must be integers");
    Shape out(data.shape.begin(), data.shape.begin() + axis);
    out.insert(out.end(), indices.shape.begin(), indices.shape.end());
    out.insert(out.end(), data.shape.begin() + axis + 1, data.shape.end());
    int q = indices.rank();
    int64_t n = data.shape[axis];
    Tensor d = data, ind = indices;
    return {Val::of(make_tensor(
        data.element_type, out,
        [&](const Index &idx) {
            Index at(idx.begin() + axis, idx.begin() + axis + q);
            Expr i = cast(Int(32), read(ind, at));
            i = clamp(select(i < 0, i + (int)n, i), 0, (int)std::max<int64_t>(n - 1, 0));
            Index in(idx.begin(), idx.begin() + axis);
            in.push_back(i);
            in.insert(in.end(), idx.begin() + axis + q, idx.end());
            return read(d, in);
        },
        union_inputs({&data, &indices}), ctx.node.output(0), false, false, /*data_movement=*/true))};
}

std::vector<Val> concat_tensors(NodeContext &ctx, const std::vector<Tensor> &ins, int64_t axis_attr, bool new_axis,
                                const std::string &name) {
    if (ins.empty()) ctx.fail("needs at least one tensor to concatenate");
    int rank = ins[0].rank() + (new_axis ? 1 : 0);
    int axis = normalize_axis(axis_attr, rank, ctx);
    std::vector<Tensor> parts;
    for (const Tensor &t : ins) {
        if (!new_axis) {
            parts.push_back(t);
            continue;
        }
        Shape s = t.shape;
        s.insert(s.begin() + axis, 1);
        parts.push_back(reshaped(t, s, name + "_unsqueezed"));
    }
    Shape out = parts[0].shape;
    out[axis] = 0;
    std::vector<int64_t> offsets;
    std::vector<const Tensor *> ptrs;
    for (const Tensor &t : parts) {
        if (t.rank() != rank || t.element_type != parts[0].element_type) ctx.fail("inputs differ in rank or type");
        for (int k = 0; k < rank; k++) {
            if (k != axis && t.shape[k] != out[k]) ctx.fail("inputs differ in shape outside the axis");
        }
        offsets.push_back(out[axis]);
        out[axis] += t.shape[axis];
        ptrs.push_back(&t);
    }
    return {Val::of(make_tensor(
        parts[0].element_type, out,
        [&](const Index &idx) {
            Expr value;
            for (int p = 0; p < (int)parts.size(); p++) {
                if (parts[p].shape[axis] == 0) continue;
                Index in = idx;
                in[axis] = clamp(idx[axis] - (int)offsets[p], 0, (int)parts[p].shape[axis] - 1);
                Expr v = read(parts[p], in);
                value = value.defined() ? select(idx[axis] >= (int)offsets[p], v, value) : v;
            }
            if (!value.defined()) value = cast(parts[0].type(), Expr(0));
            return value;
        },
        union_inputs(ptrs), name))};
}

std::vector<Val> concat_op(NodeContext &ctx) {
    std::vector<Tensor> ins;
    for (int i = 0; i < ctx.num_inputs(); i++) ins.push_back(ctx.tensor(i));
    return concat_tensors(ctx, ins, ctx.attr_int("axis", 0), false, ctx.node.output(0));
}

std::vector<Val> expand_op(NodeContext &ctx) {
    const Tensor &x = ctx.tensor(0);
    Shape out = broadcast_shapes(x.shape, ctx.ints(1, "shape"), ctx.where());
    Tensor src = x;
    return {Val::of(make_tensor(x.element_type, out, [&](const Index &idx) { return read_broadcast(src, out, idx); },
                                x.runtime_inputs, ctx.node.output(0)))};
}

std::vector<Val> tile_op(NodeContext &ctx) {
    const Tensor &x = ctx.tensor(0);
    std::vector<int64_t> repeats = ctx.ints(1, "repeats");
    if ((int)repeats.size() != x.rank()) ctx.fail("repeats must have one entry per axis");
    Shape out = x.shape;
    for (int k = 0; k < x.rank(); k++) out[k] *= repeats[k];
    Tensor src = x;
    return {Val::of(make_tensor(
        x.element_type, out,
        [&](const Index &idx) {
            Index in;
            for (int k = 0; k < src.rank(); k++) in.push_back(idx[k] % (int)std::max<int64_t>(src.shape[k], 1));
            return read(src, in);
        },
        x.runtime_inputs, ctx.node.output(0)))};
}

std::vector<Val> transpose_op(NodeContext &ctx) {
    const Tensor &x = ctx.tensor(0);
    std::vector<int64_t> perm = ctx.attr_ints("perm");
    int r = x.rank();
    if (perm.empty()) {
        for (int k = r - 1; k >= 0; k--) perm.push_back(k);
    }
    if ((int)perm.size() != r) ctx.fail("perm must have one entry per axis");
    Shape out;
    for (int k = 0; k < r; k++) out.push_back(x.shape[normalize_axis(perm[k], r, ctx)]);
    Tensor src = x;
    return {Val::of(make_tensor(
        x.element_type, out,
        [&](const Index &idx) {
            Index in(r);
            for (int k = 0; k < r; k++) in[normalize_axis(perm[k], r, ctx)] = idx[k];
            return read(src, in);
        },
        x.runtime_inputs, ctx.node.output(0)))};
}

std::vector<Val> range_op(NodeContext &ctx) {
    const Tensor &start_t = ctx.tensor(0);
    int e = start_t.element_type;
    double start = ctx.doubles(0, "start")[0], limit = ctx.doubles(1, "limit")[0], delta = ctx.doubles(2, "delta")[0];
    if (delta == 0) ctx.fail("delta is 0");
    double count = std::ceil((limit - start) / delta);
    if (!(count <= (double)ctx.importer.options().max_tensor_elements))
        ctx.fail("makes " + std::to_string(count) + " elements, beyond CompileOptions::max_tensor_elements");
    int64_t n = std::max<int64_t>((int64_t)count, 0);
    if (n > ctx.importer.options().max_tensor_elements) ctx.fail("makes " + std::to_string(n) + " elements, beyond CompileOptions::max_tensor_elements");
    Buffer<> b = new_buffer(e, {n});
    bool is_int = !start_t.type().is_float();
    for (int64_t i = 0; i < n; i++) {
        if (is_int)
            buffer_set_int(b, i, (int64_t)start + i * (int64_t)delta);
        else
            buffer_set(b, i, start + (double)i * delta);
    }
    return {Val::of(known_tensor(e, {n}, b, ctx.node.output(0)))};
}

std::vector<Val> split_op(NodeContext &ctx) {
    const Tensor &x = ctx.tensor(0);
    int axis = normalize_axis(ctx.attr_int("axis", 0), x.rank(), ctx);
    std::vector<int64_t> split = ctx.opset >= 13 ? (ctx.has_input(1) ? ctx.ints(1, "split") : std::vector<int64_t>{})
                                                 : ctx.attr_ints("split");
    int outputs = ctx.num_outputs();
    if (split.empty()) {
        int64_t dim = x.shape[axis];
        int64_t chunk = (dim + outputs - 1) / std::max(outputs, 1);
        for (int i = 0; i < outputs; i++) split.push_back(std::max<int64_t>(0, std::min(chunk, dim - chunk * i)));
    }
    std::vector<Val> outs;
    int64_t offset = 0;
    for (size_t i = 0; i < split.size(); i++) {
        Shape s = x.shape;
        s[axis] = split[i];
        Tensor src = x;
        int64_t off = offset;
        outs.push_back(Val::of(make_tensor(
            x.element_type, s,
            [&](const Index &idx) {
                Index in = idx;
                in[axis] = idx[axis] + (int)off;
                return read(src, in);
            },
            x.runtime_inputs, i < (size_t)outputs ? ctx.node.output((int)i) : "split")));
        offset += split[i];
    }
    return outs;
}

}  // namespace

std::vector<Val> concat_for_sequence(NodeContext &ctx, const std::vector<Tensor> &ins, int64_t axis, bool new_axis) {
    return concat_tensors(ctx, ins, axis, new_axis, ctx.node.output(0));
}

Tensor reshape_tensor(const Tensor &x, const Shape &out, const std::string &name) { return reshaped(x, out, name); }

void register_shape_ops(OpTable &t) {
    t["Constant"] = constant_op;
    t["ConstantOfShape"] = constant_of_shape_op;
    t["Shape"] = shape_op;
    t["Size"] = size_op;
    t["Reshape"] = reshape_op;
    t["Flatten"] = flatten_op;
    t["Unsqueeze"] = unsqueeze_op;
    t["Squeeze"] = squeeze_op;
    t["Slice"] = slice_op;
    t["Gather"] = gather_op;
    t["Concat"] = concat_op;
    t["Expand"] = expand_op;
    t["Tile"] = tile_op;
    t["Transpose"] = transpose_op;
    t["Range"] = range_op;
    t["Split"] = split_op;
}

}  // namespace loom::onnx::detail
