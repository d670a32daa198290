// Loop and Scan as update definitions (DESIGN.md "ONNX Loop as update
// definitions"). Every body value becomes a Func with the iteration as its
// last (outermost) Loom argument, inlined; the carried values live in one
// Func S(dims..., i) (a Tuple when there are several, which must then share
// a shape) with
//     S(dims, i)     = initial value            (pure definition)
//     S(dims, r + 1) = body output at r         (update over RDom r(0, M))
// computed at the root, so the recurrence is one compiled loop over r
// whatever M is. Scan outputs are Funcs of the iteration reading the body's
// values at that iteration; final values read S at M.
//
// A condition computed by the body, a cond input or a trip count known only
// at run time, or no trip count at all: loop_with_exit keeps the condition
// as one more carried value and ends the loop with RDom::loop_while (a real
// exit); final values read the state at r.trip_count(); scan outputs are
// allocated at M rows and cropped to the trip count after the run.
//
// What this mapping cannot express yet throws RecurrenceUnsupported and the
// caller instantiates the body once per iteration instead: scan outputs
// without M or read by the graph when the loop ends at run time, carried
// values that change shape or are sequences,
// several carried values of different shapes (that needs compute_with on
// the RVar), reductions in the body (they need compute_at the RVar).

#include "../Importer.h"

namespace loom::onnx::detail {

namespace {

struct States {
    Func func;
    int count = 0;
    Shape shape;
};

/** Runs a definition of the state; a CompileError of Loom's there (a rule
 * of update definitions this mapping breaks) means: instantiate the body
 * per iteration instead. */
template<typename F>
void define_state(const char *what, F &&define) {
    try {
        define();
    } catch (const NeedsInputValues &) {
        throw;
    } catch (const RecurrenceUnsupported &) {
        throw;
    } catch (const CompileError &e) {
        throw RecurrenceUnsupported(std::string("Loom refused the state's ") + what + ": " + e.what());
    }
}

std::set<std::string> without_marker(std::set<std::string> s) {
    s.erase(iteration_marker);
    s.erase(state_marker);
    return s;
}

States make_states(const std::vector<Tensor> &inits, const std::string &name) {
    States st;
    st.count = (int)inits.size();
    if (inits.empty()) return st;
    st.shape = inits[0].shape;
    for (const Tensor &t : inits) {
        if (t.shape != st.shape)
            throw RecurrenceUnsupported("carried values of different shapes (they need compute_with on the RVar)");
    }
    std::vector<Var> vars;
    for (size_t k = 0; k < st.shape.size(); k++) vars.push_back(Var("i" + std::to_string(k)));
    std::vector<Var> args(vars.rbegin(), vars.rend());
    if (args.empty()) args.push_back(Var("s"));
    args.push_back(*recurrence_var());
    Index idx(vars.begin(), vars.end());
    st.func = Func(func_name(name + "_state"));
    if (inits.size() == 1) {
        st.func(args) = read(inits[0], idx);
    } else {
        std::vector<Expr> values;
        for (const Tensor &t : inits) values.push_back(read(t, idx));
        st.func(args) = Tuple(values);
    }
    return st;
}

Tensor state_tensor(const States &st, int k, const Tensor &init) {
    Tensor t;
    t.element_type = init.element_type;
    t.shape = st.shape;
    t.func = st.func;
    t.tuple_index = st.count > 1 ? k : -1;
    t.runtime_inputs = init.runtime_inputs;
    t.runtime_inputs.insert(iteration_marker);
    t.runtime_inputs.insert(state_marker);
    return t;
}

/** The domain of a state's update: every element of the state (RVars, the
 * last ONNX axis innermost) at every iteration (the last RVar, outermost).
 * RVars rather than pure Vars in the element positions, because an element
 * of iteration r + 1 may read any element of iteration r, and a recursive
 * call may vary only RVar positions (as in Halide). */
struct SpaceTime {
    RDom dom;
    Index space;             // ONNX order
    std::vector<Expr> lhs;   // Loom order, then the iteration + 1
    Expr time;
};

SpaceTime space_time(const Shape &shape, const Expr &extent) {
    SpaceTime st;
    std::vector<std::pair<Expr, Expr>> region;
    int rank = (int)shape.size();
    for (int k = rank - 1; k >= 0; k--) region.emplace_back(Expr(0), Expr((int)shape[k]));
    region.emplace_back(Expr(0), extent);
    st.dom = RDom(region, func_name("r"));
    st.space.resize(rank);
    for (int k = 0; k < rank; k++) st.space[k] = st.dom[rank - 1 - k];
    for (int j = 0; j < rank; j++) st.lhs.push_back(st.dom[j]);
    if (rank == 0) st.lhs.push_back(Expr(0));
    st.time = st.dom[rank];
    st.lhs.push_back(st.time + 1);
    return st;
}

/** Vectorises the innermost element RVar of update `stage` where Loom can
 * see that its lanes are independent (the update reads the state only at
 * the element it writes); elsewhere the loop stays scalar. */
void vectorize_elements(States &st, SpaceTime &d, int stage) {
    if (st.shape.empty() || st.shape.back() < 16) return;
    try {
        st.func.update(stage).vectorize(RVar(d.dom[0]), 8, TailStrategy::GuardWithIf);
    } catch (const CompileError &) {
        // Elements read other elements of the previous iteration.
    }
}

/** S(dims, r + 1) = next[k] at r, over r in [0, trips); S at the root.
 * `only_last`: nothing but S(dims, trips) is read afterwards (no scan
 * outputs), so the iteration dimension folds to two slots. */
void define_update(States &st, const std::vector<Tensor> &next, int64_t trips, bool only_last) {
    if (st.count == 0) return;
    for (const Tensor &t : next) {
        if (t.shape != st.shape) throw RecurrenceUnsupported("a carried value changes shape");
    }
    SpaceTime d = space_time(st.shape, Expr((int)trips));
    std::vector<Expr> values;
    for (const Tensor &t : next) values.push_back(cast(t.type(), read_at(t, d.space, d.time)));
    define_state("update", [&] {
        if (values.size() == 1)
            st.func(d.lhs) = values[0];
        else
            st.func(d.lhs) = Tuple(values);
    });
    st.func.compute_root();
    if (only_last) st.func.fold_storage(*recurrence_var(), 2);
    vectorize_elements(st, d, 0);
}

/** The tensor at iteration `iteration` of an iterated (or invariant) tensor. */
Tensor final_value(const Tensor &t, int64_t iteration, const std::string &name) {
    Tensor src = t;
    return make_tensor(
        t.element_type, t.shape, [&](const Index &idx) { return read_at(src, idx, Expr((int)iteration)); },
        without_marker(t.runtime_inputs), name);
}

/** Per-iteration tensors stacked along `axis` (reversed if asked). */
Tensor stacked(const Tensor &t, int64_t trips, int64_t axis, bool reverse, const std::string &name) {
    Shape shape = t.shape;
    int a = (int)(axis < 0 ? axis + (int64_t)shape.size() + 1 : axis);
    if (a < 0 || a > (int)shape.size()) throw CompileError(name + ": scan output axis out of range");
    shape.insert(shape.begin() + a, trips);
    Tensor src = t;
    return make_tensor(
        t.element_type, shape,
        [&](const Index &idx) {
            Index rest = idx;
            rest.erase(rest.begin() + a);
            Expr it = reverse ? Expr((int)trips - 1) - idx[a] : idx[a];
            return read_at(src, rest, it);
        },
        without_marker(t.runtime_inputs), name);
}

Tensor iteration_tensor() {
    Tensor t;
    t.element_type = Int64;
    t.runtime_inputs = {iteration_marker};
    t.func = Func(func_name("iteration_number"));
    t.func(Var("s"), *recurrence_var()) = cast(Int(64), Expr(*recurrence_var()));
    return t;
}

bool known_true(Importer &importer, Tensor t, const std::string &where) {
    if (t.iterated()) return false;
    const Buffer<> &b = importer.fold(t, where);
    return num_elements(t.shape) == 1 && buffer_double(b, 0) != 0;
}

}  // namespace

std::vector<Val> loop_as_recurrence(NodeContext &ctx, int64_t trips, const Tensor *) {
    const auto &body = ctx.attr_graph("body");
    int carried_count = ctx.num_inputs() - 2;
    std::vector<Tensor> inits;
    for (int k = 0; k < carried_count; k++) {
        if (ctx.input(2 + k).kind != Val::Kind::Tensor) throw RecurrenceUnsupported("a carried sequence");
        inits.push_back(ctx.tensor(2 + k));
    }
    if (trips <= 0) throw RecurrenceUnsupported("no iterations");
    if (ctx.importer.options().max_loop_iterations >= 0)
        trips = std::min(trips, ctx.importer.options().max_loop_iterations);
    Buffer<> true_buffer = new_buffer(Boolean, {});
    buffer_set_int(true_buffer, 0, 1);
    Tensor true_tensor = known_tensor(Boolean, {}, true_buffer, "cond_in");
    RecurrenceGuard guard(/*hoist=*/true);
    States st = make_states(inits, ctx.node.name().empty() ? "loop" : ctx.node.name());
    std::vector<Val> inputs = {Val::of(iteration_tensor()), Val::of(true_tensor)};
    for (int k = 0; k < carried_count; k++) inputs.push_back(Val::of(state_tensor(st, k, inits[k])));
    std::vector<Val> outs = ctx.importer.run_subgraph(body, ctx.scope, inputs, ctx.where() + " body");
    if (outs[0].kind != Val::Kind::Tensor) ctx.fail("the body's condition output must be a tensor");
    if (!known_true(ctx.importer, outs[0].tensor, ctx.where() + " body condition"))
        throw RecurrenceNeedsExitFlag("the body computes its condition");
    std::vector<Tensor> next;
    for (int k = 0; k < carried_count; k++) {
        const Val &v = outs[1 + k];
        if (v.kind != Val::Kind::Tensor || v.tensor.element_type != inits[k].element_type)
            throw RecurrenceUnsupported("a carried value changes type or kind");
        next.push_back(v.tensor);
    }
    define_update(st, next, trips, body.output_size() == 1 + carried_count);
    std::vector<Val> results;
    for (int k = 0; k < carried_count; k++) {
        std::string name = k < ctx.num_outputs() ? ctx.node.output(k) : "carried";
        results.push_back(Val::of(final_value(state_tensor(st, k, inits[k]), trips, name)));
    }
    for (size_t j = 1 + carried_count; j < outs.size(); j++) {
        if (outs[j].kind != Val::Kind::Tensor) ctx.fail("scan outputs must be tensors");
        std::string name = (int)j - 1 < ctx.num_outputs() ? ctx.node.output((int)j - 1) : "scan";
        results.push_back(Val::of(stacked(outs[j].tensor, trips, 0, false, name)));
    }
    return results;
}

std::vector<Val> scan_as_recurrence(NodeContext &ctx) {
    if (ctx.opset < 9) throw RecurrenceUnsupported("Scan-8's batch axis");
    const auto &body = ctx.attr_graph("body");
    int scan_inputs = (int)ctx.attr_int("num_scan_inputs", 0);
    int state_count = ctx.num_inputs() - scan_inputs;
    if (scan_inputs <= 0 || state_count < 0) ctx.fail("num_scan_inputs must be between 1 and the number of inputs");
    std::vector<int64_t> in_dirs = ctx.attr_ints("scan_input_directions");
    std::vector<int64_t> out_dirs = ctx.attr_ints("scan_output_directions");
    std::vector<int64_t> in_axes = ctx.attr_ints("scan_input_axes");
    std::vector<int64_t> out_axes = ctx.attr_ints("scan_output_axes");
    std::vector<Tensor> inits, xs;
    for (int k = 0; k < state_count; k++) inits.push_back(ctx.tensor(k));
    for (int j = 0; j < scan_inputs; j++) xs.push_back(ctx.tensor(state_count + j));
    int64_t length = -1;
    std::vector<int> axes;
    for (int j = 0; j < scan_inputs; j++) {
        int a = normalize_axis(j < (int)in_axes.size() ? in_axes[j] : 0, xs[j].rank(), ctx);
        axes.push_back(a);
        if (length >= 0 && xs[j].shape[a] != length) ctx.fail("scan inputs have different lengths");
        length = xs[j].shape[a];
    }
    if (length <= 0) throw RecurrenceUnsupported("no iterations");
    RecurrenceGuard guard(/*hoist=*/true);
    States st = make_states(inits, ctx.node.name().empty() ? "scan" : ctx.node.name());
    std::vector<Val> inputs;
    for (int k = 0; k < state_count; k++) inputs.push_back(Val::of(state_tensor(st, k, inits[k])));
    for (int j = 0; j < scan_inputs; j++) {
        // Element `iteration` of scan input j along its axis, as an iterated tensor.
        Tensor x = xs[j];
        int a = axes[j];
        bool reverse = j < (int)in_dirs.size() && in_dirs[j] == 1;
        Tensor e;
        e.element_type = x.element_type;
        e.shape = x.shape;
        e.shape.erase(e.shape.begin() + a);
        e.runtime_inputs = x.runtime_inputs;
        e.runtime_inputs.insert(iteration_marker);
        std::vector<Var> vars;
        for (size_t k = 0; k < e.shape.size(); k++) vars.push_back(Var("i" + std::to_string(k)));
        std::vector<Var> args(vars.rbegin(), vars.rend());
        if (args.empty()) args.push_back(Var("s"));
        args.push_back(guard.var());
        Index in(vars.begin(), vars.end());
        Expr it = guard.var();
        in.insert(in.begin() + a, reverse ? Expr((int)length - 1) - it : it);
        e.func = Func(func_name(ctx.node.input(state_count + j) + "_element"));
        e.func(args) = read(x, in);
        inputs.push_back(Val::of(e));
    }
    std::vector<Val> outs = ctx.importer.run_subgraph(body, ctx.scope, inputs, ctx.where() + " body");
    std::vector<Tensor> next;
    for (int k = 0; k < state_count; k++) {
        if (outs[k].kind != Val::Kind::Tensor || outs[k].tensor.element_type != inits[k].element_type)
            throw RecurrenceUnsupported("a state changes type or kind");
        next.push_back(outs[k].tensor);
    }
    define_update(st, next, length, (int)outs.size() == state_count);
    std::vector<Val> results;
    for (int k = 0; k < state_count; k++) {
        std::string name = k < ctx.num_outputs() ? ctx.node.output(k) : "state";
        results.push_back(Val::of(final_value(state_tensor(st, k, inits[k]), length, name)));
    }
    for (int j = 0; state_count + j < (int)outs.size(); j++) {
        const Val &v = outs[state_count + j];
        if (v.kind != Val::Kind::Tensor) ctx.fail("scan outputs must be tensors");
        bool reverse = j < (int)out_dirs.size() && out_dirs[j] == 1;
        int64_t axis = j < (int)out_axes.size() ? out_axes[j] : 0;
        std::string name = state_count + j < ctx.num_outputs() ? ctx.node.output(state_count + j) : "scan";
        results.push_back(Val::of(stacked(v.tensor, length, axis, reverse, name)));
    }
    return results;
}

}  // namespace loom::onnx::detail

namespace loom::onnx::detail {

std::vector<Val> loop_with_exit(NodeContext &ctx, int64_t m_known, const Tensor *m_tensor, const Tensor *initial_cond) {
    const auto &body = ctx.attr_graph("body");
    int carried_count = ctx.num_inputs() - 2;
    int scan_count = body.output_size() - 1 - carried_count;
    std::vector<Tensor> inits;
    for (int k = 0; k < carried_count; k++) {
        if (ctx.input(2 + k).kind != Val::Kind::Tensor) throw RecurrenceUnsupported("a carried sequence");
        inits.push_back(ctx.tensor(2 + k));
    }
    if (carried_count == 0) throw RecurrenceUnsupported("no carried value to hold the condition");
    // Scan outputs are allocated at M rows and cropped to the trip count,
    // so M must be known by the time the outputs are allocated, and nothing
    // in the graph may read them (their shape is known only after the run).
    std::string rows_input;
    std::shared_ptr<Param<int>> capacity;
    if (scan_count > 0) {
        if (m_known < 0 && !m_tensor) capacity = std::make_shared<Param<int>>(func_name("scan_capacity"), 16);
        for (int j = 0; j < scan_count; j++) {
            std::string name = carried_count + j < ctx.num_outputs() ? ctx.node.output(carried_count + j) : "";
            if (!name.empty() && !ctx.importer.only_a_graph_output(name))
                throw RecurrenceUnsupported("a scan output of a loop ended at run time is read by the graph");
        }
        if (m_tensor) {
            if (!ctx.importer.is_top_level_input(ctx.node.input(0), ctx.scope) ||
                m_tensor->runtime_inputs != std::set<std::string>{ctx.node.input(0)})
                throw RecurrenceUnsupported("scan outputs and a trip count M that is not a graph input");
            rows_input = ctx.node.input(0);
        }
    }
    Buffer<> true_buffer = new_buffer(Boolean, {});
    buffer_set_int(true_buffer, 0, 1);
    Tensor true_tensor = known_tensor(Boolean, {}, true_buffer, "cond_in");
    RecurrenceGuard guard(/*hoist=*/m_known >= 0 || m_tensor != nullptr);
    const Var &iteration = guard.var();
    Shape shape = inits[0].shape;
    for (const Tensor &t : inits) {
        if (t.shape != shape) throw RecurrenceUnsupported("carried values of different shapes (they need compute_with)");
    }
    // The state: the carried values and the condition the previous
    // iteration left, broadcast to their shape so that it fits the Tuple.
    std::vector<Var> vars;
    for (size_t k = 0; k < shape.size(); k++) vars.push_back(Var("i" + std::to_string(k)));
    std::vector<Var> pure(vars.rbegin(), vars.rend());
    if (pure.empty()) pure.push_back(Var("s"));
    Index idx(vars.begin(), vars.end());
    States st;
    st.count = carried_count + 1;
    st.shape = shape;
    st.func = Func(func_name((ctx.node.name().empty() ? "loop" : ctx.node.name()) + "_state"));
    {
        std::vector<Var> args = pure;
        args.push_back(iteration);
        std::vector<Expr> undefs;
        for (const Tensor &t : inits) undefs.push_back(undef(t.type()));
        undefs.push_back(undef(Bool()));
        st.func(args) = Tuple(undefs);
        std::vector<Expr> first(pure.begin(), pure.end());
        first.push_back(Expr(0));
        std::vector<Expr> values;
        for (const Tensor &t : inits) values.push_back(read(t, idx));
        const Tensor &c = initial_cond && initial_cond->func.defined() ? *initial_cond : true_tensor;
        values.push_back(read(c, Index(c.rank(), Expr(0))) != cast(c.type(), Expr(0)));
        st.func(first) = Tuple(values);
    }
    std::vector<Tensor> state_inits = inits;
    state_inits.push_back(true_tensor);
    std::vector<Val> inputs = {Val::of(iteration_tensor()), Val::of(true_tensor)};
    for (int k = 0; k < carried_count; k++) inputs.push_back(Val::of(state_tensor(st, k, inits[k])));
    std::vector<Val> outs = ctx.importer.run_subgraph(body, ctx.scope, inputs, ctx.where() + " body");
    if (outs[0].kind != Val::Kind::Tensor) ctx.fail("the body's condition output must be a tensor");
    Tensor cond_out = outs[0].tensor;
    if (num_elements(cond_out.shape) != 1) ctx.fail("the body's condition must hold one element");
    std::vector<Tensor> next;
    for (int k = 0; k < carried_count; k++) {
        const Val &v = outs[1 + k];
        if (v.kind != Val::Kind::Tensor || v.tensor.element_type != inits[k].element_type || v.tensor.shape != shape)
            throw RecurrenceUnsupported("a carried value changes type, kind or shape");
        next.push_back(v.tensor);
    }
    // The trip count bound: M, or M read at run time, or none (the loop ends
    // only when its condition does).
    Expr extent;
    if (m_known >= 0) {
        extent = Expr((int)std::min<int64_t>(m_known, INT32_MAX - 1));
    } else if (m_tensor) {
        extent = cast(Int(32), clamp(read(*m_tensor, Index(m_tensor->rank(), Expr(0))),
                                     cast(m_tensor->type(), Expr(0)), cast(m_tensor->type(), Expr(INT32_MAX - 1))));
    } else if (capacity) {
        extent = Expr(*capacity);
    } else {
        extent = Expr(INT32_MAX - 1);
    }
    int64_t cut = ctx.importer.options().max_loop_iterations;
    if (cut >= 0) extent = min(extent, Expr((int)std::min<int64_t>(cut, INT32_MAX - 1)));
    if (num_elements(shape) == 0) throw RecurrenceUnsupported("carried values with no elements cannot hold the condition");
    SpaceTime d = space_time(shape, extent);
    RDom r = d.dom;
    std::vector<Expr> state_at_r(pure.size(), Expr(0));
    state_at_r.push_back(d.time);
    define_state("loop condition", [&] { r.loop_while(st.func(state_at_r)[carried_count]); });
    std::vector<Expr> values;
    for (int k = 0; k < carried_count; k++) values.push_back(cast(inits[k].type(), read_at(next[k], d.space, d.time)));
    values.push_back(read_at(cond_out, Index(cond_out.rank(), Expr(0)), d.time) != cast(cond_out.type(), Expr(0)));
    define_state("update", [&] { st.func(d.lhs) = Tuple(values); });
    st.func.compute_root();
    if (scan_count == 0) st.func.fold_storage(iteration, 2);
    vectorize_elements(st, d, 1);

    Expr trips = r.trip_count();
    std::vector<Val> results;
    for (int k = 0; k < carried_count; k++) {
        std::string name = k < ctx.num_outputs() ? ctx.node.output(k) : "carried";
        Tensor state = state_tensor(st, k, inits[k]);
        results.push_back(Val::of(make_tensor(
            inits[k].element_type, shape, [&](const Index &i) { return read_at(state, i, trips); },
            without_marker(state.runtime_inputs), name)));
    }
    if (scan_count > 0) {
        auto dynamic = std::make_shared<Tensor::DynamicRows>();
        dynamic->trip_count = Func(func_name(ctx.node.name() + "_trip_count"));
        dynamic->trip_count(Var("s")) = trips;
        dynamic->rows_input = rows_input;
        if (capacity) {
            dynamic->capacity = capacity;
            std::vector<Expr> last(pure.size(), Expr(0));
            last.push_back(trips);
            dynamic->exhausted = Func(func_name(ctx.node.name() + "_exhausted"));
            dynamic->exhausted(Var("s")) = select(trips >= Expr(*capacity) && st.func(last)[carried_count], 1, 0);
        }
        for (int j = 0; j < scan_count; j++) {
            const Val &v = outs[1 + carried_count + j];
            if (v.kind != Val::Kind::Tensor) ctx.fail("scan outputs must be tensors");
            std::string name = carried_count + j < ctx.num_outputs() ? ctx.node.output(carried_count + j) : "scan";
            // Rows past the trip count read states never computed; they are
            // cropped away after the run.
            Tensor out = stacked(v.tensor, m_known >= 0 ? m_known : 0, 0, false, name);
            out.dynamic_rows = dynamic;
            results.push_back(Val::of(out));
        }
    }
    return results;
}

}  // namespace loom::onnx::detail
