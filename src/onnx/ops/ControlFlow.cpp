// If, Loop and Scan.
//
// The trip count of every Loop and Scan is known when compiling (from
// shapes, constants, or inputs the Session specialises on). Where the body
// allows, the loop becomes update definitions over an RDom
// (ops/Recurrence.cpp); otherwise the body is instantiated once per
// iteration: each iteration's values are Funcs of the one compiled
// pipeline, not an interpreter's steps (docs/ONNX.md). A condition known
// only at run time with a known trip count M keeps every carried value as
// select(still running, new, old) for M iterations; scan outputs then need
// the trip count when compiling (the Session specialises on the inputs).

#include "../Importer.h"

namespace loom::onnx::detail {

namespace {

bool truth(Importer &importer, Tensor t, const std::string &where) {
    const Buffer<> &b = importer.fold(t, where);
    if (num_elements(t.shape) != 1) throw CompileError(where + " must hold exactly one element");
    return buffer_double(b, 0) != 0;
}

Expr scalar_read(const Tensor &t) { return read(t, Index(t.rank(), Expr(0))); }

Tensor bool_tensor(bool value, const std::string &name) {
    Buffer<> b = new_buffer(Boolean, {});
    buffer_set_int(b, 0, value ? 1 : 0);
    return known_tensor(Boolean, {}, b, name);
}

/** select(cond, a, b) for two tensors of the same shape and type. */
Tensor select_tensor(const Tensor &cond, const Tensor &a, const Tensor &b, const std::string &name) {
    Tensor c = cond, x = a, y = b;
    return make_tensor(
        a.element_type, a.shape, [&](const Index &i) { return select(scalar_read(c) != Expr(false), read(x, i), read(y, i)); },
        union_inputs({&cond, &a, &b}), name, true);
}

bool same_layout(const Tensor &a, const Tensor &b) { return a.shape == b.shape && a.element_type == b.element_type; }

/** select between two values of the same structure, or nothing if they differ. */
bool select_values(const Tensor &cond, const Val &a, const Val &b, const std::string &name, Val &out) {
    if (a.kind != b.kind) return false;
    if (a.kind == Val::Kind::None) {
        out = a;
        return true;
    }
    if (a.kind == Val::Kind::Tensor) {
        if (!same_layout(a.tensor, b.tensor)) return false;
        out = Val::of(select_tensor(cond, a.tensor, b.tensor, name));
        return true;
    }
    if (a.kind == Val::Kind::Sequence) {
        if (a.elements.size() != b.elements.size()) return false;
        std::vector<Tensor> elements;
        for (size_t k = 0; k < a.elements.size(); k++) {
            if (!same_layout(a.elements[k], b.elements[k])) return false;
            elements.push_back(select_tensor(cond, a.elements[k], b.elements[k], name));
        }
        out = Val::sequence(a.element_type, elements);
        return true;
    }
    return false;
}

std::vector<Val> if_op(NodeContext &ctx) {
    const Tensor &cond = ctx.tensor(0);
    const auto &then_graph = ctx.attr_graph("then_branch");
    const auto &else_graph = ctx.attr_graph("else_branch");
    if (cond.foldable())
        return ctx.importer.run_subgraph(truth(ctx.importer, cond, ctx.where() + " condition") ? then_graph : else_graph,
                                         ctx.scope, {}, ctx.where());
    // A condition known only at run time: both branches are compiled and
    // each output selects between them; that needs outputs of one shape.
    std::vector<Val> a = ctx.importer.run_subgraph(then_graph, ctx.scope, {}, ctx.where() + " then_branch");
    std::vector<Val> b = ctx.importer.run_subgraph(else_graph, ctx.scope, {}, ctx.where() + " else_branch");
    if (a.size() != b.size()) ctx.fail("the branches have different numbers of outputs");
    std::vector<Val> outs(a.size());
    for (size_t k = 0; k < a.size(); k++) {
        std::string name = k < (size_t)ctx.num_outputs() ? ctx.node.output((int)k) : "if_out";
        if (!select_values(cond, a[k], b[k], name, outs[k])) {
            Tensor c = cond;
            truth(ctx.importer, c, ctx.where() + " condition (its branches give output " + std::to_string(k) +
                                      " different shapes, types or kinds)");
        }
    }
    return outs;
}

/** The declared shape of a subgraph output, unknown dims as 0 (used only
 * for scan outputs of zero iterations). */
Shape declared_shape(const ::onnx::ValueInfoProto &info) {
    ValueInfo v = value_info_of(info);
    Shape s;
    for (const auto &d : v.shape) s.push_back(std::max<int64_t>(d.value, 0));
    return s;
}

Val stack(NodeContext &ctx, const std::vector<Tensor> &items, int64_t axis, bool reverse,
          const ::onnx::ValueInfoProto &declared, int element_type, const std::string &name) {
    if (items.empty()) {
        Shape s = declared_shape(declared);
        int a = (int)(axis < 0 ? axis + (int64_t)s.size() + 1 : axis);
        s.insert(s.begin() + std::clamp(a, 0, (int)s.size()), 0);
        int e = element_type ? element_type : value_info_of(declared).element_type;
        return Val::of(known_tensor(e ? e : Float32, s, new_buffer(e ? e : Float32, s), name));
    }
    std::vector<Tensor> ordered(items);
    if (reverse) std::reverse(ordered.begin(), ordered.end());
    return concat_for_sequence(ctx, ordered, axis, true)[0];
}

std::vector<Val> loop_op(NodeContext &ctx) {
    Importer &importer = ctx.importer;
    const auto &body = ctx.attr_graph("body");
    int carried_count = ctx.num_inputs() - 2;
    if (carried_count < 0) ctx.fail("needs the inputs M and cond (either may be empty names)");
    if (body.input_size() != carried_count + 2)
        ctx.fail("the body has " + std::to_string(body.input_size()) + " inputs; a Loop with " +
                 std::to_string(carried_count) + " loop-carried values needs " + std::to_string(carried_count + 2) +
                 " (iteration number, condition, then the carried values)");
    if (body.output_size() < carried_count + 1)
        ctx.fail("the body has " + std::to_string(body.output_size()) + " outputs; it needs at least " +
                 std::to_string(carried_count + 1) + " (condition, then the carried values, then scan outputs)");
    int scan_count = body.output_size() - 1 - carried_count;
    bool has_m = ctx.has_input(0);
    bool has_cond = ctx.has_input(1);
    bool m_foldable = has_m && ctx.tensor(0).foldable();
    bool cond_foldable = !has_cond || ctx.tensor(1).foldable();
    // ONNX Runtime's reading: an absent cond is true, and the body's cond
    // output still ends the loop (docs/ONNX.md).
    bool cond_true = !has_cond || (cond_foldable && truth(importer, ctx.tensor(1), ctx.where() + " cond"));

    std::string why_unrolled = "CompileOptions::loops_as_recurrences is off";
    if (importer.options().loops_as_recurrences && (!cond_foldable || cond_true)) {
        int64_t m_known = m_foldable ? std::max<int64_t>(ctx.ints(0, "trip count M")[0], 0) : -1;
        bool exit_needed = !m_foldable || !cond_foldable;
        if (!exit_needed) {
            // A fixed trip count, as long as the body's condition stays true.
            try {
                std::vector<Val> results = loop_as_recurrence(ctx, m_known, nullptr);
                importer.note(ctx.where() + ": update definitions over RDom(0, " + std::to_string(m_known) + ")");
                return results;
            } catch (const RecurrenceNeedsExitFlag &) {
                exit_needed = true;
            } catch (const RecurrenceUnsupported &e) {
                why_unrolled = e.what();
            }
        }
        if (exit_needed) {
            try {
                std::vector<Val> results = loop_with_exit(ctx, m_known, has_m && !m_foldable ? &ctx.tensor(0) : nullptr,
                                                          has_cond && !cond_foldable ? &ctx.tensor(1) : nullptr);
                importer.note(ctx.where() + ": update definitions with loop_while over RDom(0, " +
                              (m_known >= 0 ? std::to_string(m_known) : has_m ? std::string("M at run time")
                                                                             : std::string("unbounded")) +
                              ")");
                return results;
            } catch (const RecurrenceUnsupported &e) {
                why_unrolled = e.what();
            }
        }
    } else if (importer.options().loops_as_recurrences) {
        why_unrolled = "cond is false";
    }

    // One body per iteration: the trip count must be known when compiling.
    int64_t trip_limit = has_m ? ctx.ints(0, "trip count M")[0] : -1;
    if (has_m && trip_limit < 0) trip_limit = 0;
    bool known_active = true;
    Tensor active;  // defined when the condition is known only at run time
    if (has_cond) {
        const Tensor &c = ctx.tensor(1);
        if (c.foldable()) {
            known_active = truth(importer, c, ctx.where() + " cond");
        } else if (has_m) {
            active = c;
        } else {
            truth(importer, c, ctx.where() + " cond (there is no trip count M)");
        }
    }
    std::vector<Val> carried(ctx.inputs.begin() + 2, ctx.inputs.end());
    std::vector<std::vector<Tensor>> scans(scan_count);
    const int64_t limit = importer.options().max_unrolled_iterations;
    for (int64_t i = 0;; i++) {
        if (has_m && i >= trip_limit) break;
        if (!active.func.defined() && !known_active) break;
        if (i >= limit)
            ctx.fail("runs more than " + std::to_string(limit) +
                     " iterations (CompileOptions::max_unrolled_iterations); with no trip count M, the body's "
                     "condition never became false when compiling");
        std::vector<Val> body_inputs;
        body_inputs.push_back(Val::of(int64_tensor({i}, true, "iteration")));
        body_inputs.push_back(Val::of(active.func.defined() ? active : bool_tensor(known_active, "cond_in")));
        body_inputs.insert(body_inputs.end(), carried.begin(), carried.end());
        std::string where = ctx.where() + " iteration " + std::to_string(i);
        std::vector<Val> outs = importer.run_subgraph(body, ctx.scope, body_inputs, where);
        if (outs[0].kind != Val::Kind::Tensor) ctx.fail("the body's condition output must be a tensor");
        for (int k = 0; k < carried_count; k++) {
            const Val &next = outs[1 + k];
            if (!active.func.defined()) {
                carried[k] = next;
                continue;
            }
            Val selected;
            if (!select_values(active, next, carried[k], "carried", selected))
                truth(importer, active, where + " condition (a carried value changes shape, type or kind)");
            carried[k] = selected;
        }
        for (int j = 0; j < scan_count; j++) {
            const Val &s = outs[1 + carried_count + j];
            if (s.kind != Val::Kind::Tensor) ctx.fail("scan output " + std::to_string(j) + " must be a tensor");
            if (active.func.defined()) truth(importer, active, where + " condition (the loop has scan outputs)");
            scans[j].push_back(s.tensor);
        }
        Tensor cond_out = outs[0].tensor;
        if (cond_out.foldable()) {
            bool c = truth(importer, cond_out, where + " body condition");
            if (!c) {
                known_active = false;
                if (active.func.defined()) {
                    // Still running at run time or not, nothing changes after this.
                    break;
                }
            }
        } else if (has_m) {
            Tensor prev = active.func.defined() ? active : bool_tensor(known_active, "active");
            Tensor p = prev, c = cond_out;
            active = make_tensor(
                Boolean, {}, [&](const Index &) { return (scalar_read(p) != Expr(false)) && (scalar_read(c) != Expr(false)); },
                union_inputs({&prev, &cond_out}), "active", true);
        } else {
            truth(importer, cond_out, where + " body condition (there is no trip count M)");
        }
    }
    importer.note(ctx.where() + ": body instantiated per iteration (" + why_unrolled + ")");
    std::vector<Val> results(carried.begin(), carried.end());
    for (int j = 0; j < scan_count; j++) {
        std::string name = carried_count + j < ctx.num_outputs() ? ctx.node.output(carried_count + j) : "scan";
        results.push_back(stack(ctx, scans[j], 0, false, body.output(1 + carried_count + j), 0, name));
    }
    return results;
}

/** Element t along axis of x (the axis removed). */
Tensor element_at(const Tensor &x, int axis, int64_t t, const std::string &name) {
    Shape s = x.shape;
    s.erase(s.begin() + axis);
    Tensor src = x;
    return make_tensor(
        x.element_type, s,
        [&](const Index &idx) {
            Index in = idx;
            in.insert(in.begin() + axis, Expr((int)t));
            return read(src, in);
        },
        x.runtime_inputs, name, false, true);
}

std::vector<Val> scan_op(NodeContext &ctx) {
    Importer &importer = ctx.importer;
    const auto &body = ctx.attr_graph("body");
    int scan_inputs = (int)ctx.attr_int("num_scan_inputs", 0);
    bool batched = ctx.opset < 9;  // Scan-8: a batch axis first and sequence_lens
    int first = batched ? 1 : 0;
    int state_count = ctx.num_inputs() - first - scan_inputs;
    if (scan_inputs <= 0 || state_count < 0) ctx.fail("num_scan_inputs must be between 1 and the number of inputs");
    if (body.input_size() != state_count + scan_inputs)
        ctx.fail("the body has " + std::to_string(body.input_size()) + " inputs; it needs " +
                 std::to_string(state_count + scan_inputs) + " (the states, then one element of each scan input)");
    if (body.output_size() < state_count) ctx.fail("the body has fewer outputs than there are states");
    int scan_outputs = body.output_size() - state_count;
    if (importer.options().loops_as_recurrences && !batched) {
        try {
            std::vector<Val> results = scan_as_recurrence(ctx);
            importer.note(ctx.where() + ": update definitions over an RDom");
            return results;
        } catch (const RecurrenceUnsupported &e) {
            importer.note(ctx.where() + ": body instantiated per element (" + e.what() + ")");
        }
    } else {
        importer.note(ctx.where() + ": body instantiated per element (" +
                      (batched ? std::string("Scan-8's batch axis") : "CompileOptions::loops_as_recurrences is off") + ")");
    }
    std::vector<int64_t> in_dirs = ctx.attr_ints(batched ? "directions" : "scan_input_directions");
    std::vector<int64_t> out_dirs = ctx.attr_ints("scan_output_directions");
    std::vector<int64_t> in_axes = ctx.attr_ints("scan_input_axes");
    std::vector<int64_t> out_axes = ctx.attr_ints("scan_output_axes");

    std::vector<Tensor> states, inputs;
    for (int k = 0; k < state_count; k++) states.push_back(ctx.tensor(first + k));
    for (int j = 0; j < scan_inputs; j++) inputs.push_back(ctx.tensor(first + state_count + j));
    int64_t batch = batched ? (inputs[0].rank() > 0 ? inputs[0].shape[0] : 0) : 1;
    if (batched && ctx.has_input(0)) {
        std::vector<int64_t> lens = ctx.ints(0, "sequence_lens");
        for (int64_t l : lens) {
            if (inputs[0].rank() < 2 || l != inputs[0].shape[1])
                ctx.fail("sequence_lens shorter than the scan inputs are not supported");
        }
    }
    std::vector<std::vector<Tensor>> final_states(state_count), final_scans(scan_outputs);
    for (int64_t b = 0; b < batch; b++) {
        std::vector<Tensor> state, xs;
        for (const Tensor &s : states) state.push_back(batched ? element_at(s, 0, b, "state") : s);
        for (const Tensor &x : inputs) xs.push_back(batched ? element_at(x, 0, b, "scan_in") : x);
        std::vector<int> axes;
        int64_t length = -1;
        for (int j = 0; j < scan_inputs; j++) {
            int a = normalize_axis(j < (int)in_axes.size() ? in_axes[j] : 0, xs[j].rank(), ctx);
            axes.push_back(a);
            if (length >= 0 && xs[j].shape[a] != length) ctx.fail("scan inputs have different lengths");
            length = xs[j].shape[a];
        }
        if (length > importer.options().max_unrolled_iterations)
            ctx.fail("scans " + std::to_string(length) + " elements, more than CompileOptions::max_unrolled_iterations");
        std::vector<std::vector<Tensor>> scans(scan_outputs);
        for (int64_t t = 0; t < length; t++) {
            std::vector<Val> body_inputs;
            for (const Tensor &s : state) body_inputs.push_back(Val::of(s));
            for (int j = 0; j < scan_inputs; j++) {
                bool reverse = j < (int)in_dirs.size() && in_dirs[j] == 1;
                body_inputs.push_back(Val::of(element_at(xs[j], axes[j], reverse ? length - 1 - t : t, "scan_in")));
            }
            std::vector<Val> outs =
                importer.run_subgraph(body, ctx.scope, body_inputs, ctx.where() + " iteration " + std::to_string(t));
            for (int k = 0; k < state_count; k++) {
                if (outs[k].kind != Val::Kind::Tensor) ctx.fail("states must be tensors");
                state[k] = outs[k].tensor;
            }
            for (int j = 0; j < scan_outputs; j++) {
                if (outs[state_count + j].kind != Val::Kind::Tensor) ctx.fail("scan outputs must be tensors");
                scans[j].push_back(outs[state_count + j].tensor);
            }
        }
        for (int k = 0; k < state_count; k++) final_states[k].push_back(state[k]);
        for (int j = 0; j < scan_outputs; j++) {
            bool reverse = j < (int)out_dirs.size() && out_dirs[j] == 1;
            int64_t axis = j < (int)out_axes.size() ? out_axes[j] : 0;
            Val stacked = stack(ctx, scans[j], axis, reverse, body.output(state_count + j), 0, "scan_out");
            final_scans[j].push_back(stacked.tensor);
        }
    }
    std::vector<Val> results;
    for (int k = 0; k < state_count; k++) {
        std::string name = k < ctx.num_outputs() ? ctx.node.output(k) : "state";
        results.push_back(batched ? stack(ctx, final_states[k], 0, false, body.output(k), 0, name)
                                  : Val::of(final_states[k][0]));
    }
    for (int j = 0; j < scan_outputs; j++) {
        std::string name = state_count + j < ctx.num_outputs() ? ctx.node.output(state_count + j) : "scan";
        results.push_back(batched ? stack(ctx, final_scans[j], 0, false, body.output(state_count + j), 0, name)
                                  : Val::of(final_scans[j][0]));
    }
    return results;
}

}  // namespace

void register_control_flow_ops(OpTable &t) {
    t["If"] = if_op;
    t["Loop"] = loop_op;
    t["Scan"] = scan_op;
}

}  // namespace loom::onnx::detail
