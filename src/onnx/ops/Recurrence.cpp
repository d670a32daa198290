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

#include "../GpuSchedule.h"
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
    // Undefined but at iteration 0 (the updates write every state read), so
    // that no pass writes the initial value into every iteration's slot.
    std::vector<Expr> undefs, values;
    for (const Tensor &t : inits) {
        undefs.push_back(undef(t.type()));
        values.push_back(read(t, idx));
    }
    std::vector<Expr> first(args.begin(), args.end());
    first.back() = Expr(0);
    if (inits.size() == 1) {
        st.func(args) = undefs[0];
        st.func(first) = values[0];
    } else {
        st.func(args) = Tuple(undefs);
        st.func(first) = Tuple(values);
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
    Region region;
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

/** Elements of a state's last axis per task when a loop whose elements are
 * independent runs its chunks in parallel (at least two chunks): 1024 floats
 * over 256 steps is 256K additions a task. */
constexpr int parallel_chunk_elements = 1024;

/** Lanes of a vector over a dimension of `extent` elements of `type`: the
 * target's natural width, halved down to 4 while wider than the extent; 0
 * where the extent is too short to vectorise. */
int lanes_for(const Target &target, const Type &type, int64_t extent) {
    int lanes = target.natural_vector_size(type);
    while (lanes > 4 && lanes > extent) lanes /= 2;
    return lanes > 1 && extent >= lanes ? lanes : 0;
}

/** Vectorises the innermost element RVar of update `stage` where Loom can
 * see that its lanes are independent (the update reads the state only at
 * the element it writes); elsewhere the loop stays scalar. */
void vectorize_elements(States &st, SpaceTime &d, int stage, const Target &target) {
    if (st.shape.empty()) return;
    if (gpu_schedule_state_rvar(st.func, stage, RVar(d.dom[0]), st.shape.back())) return;
    int lanes = lanes_for(target, st.func.types()[0], st.shape.back());
    if (!lanes) return;
    try {
        st.func.update(stage).vectorize(RVar(d.dom[0]), lanes, TailStrategy::GuardWithIf);
    } catch (const CompileError &) {
        // Elements read other elements of the previous iteration.
    }
}

/** The state's element Vars as make_states names them, ONNX order. */
std::vector<Var> element_vars(const States &st) {
    std::vector<Var> vars;
    for (size_t k = 0; k < st.shape.size(); k++) vars.push_back(Var("i" + std::to_string(k)));
    return vars;
}

/** Defines update `stage` of the state, S(dims, r + 1) = next[k] at r over
 * r in [0, extent), and schedules it. Where the
 * values read the state only at the element they write (what a body that
 * leaves its reductions to StepFuncs does), the dims stay pure Vars: the
 * step loop outermost, the last ONNX axis vectorised, like the hand-written
 * apps/rnn. Otherwise every element of step r + 1 may read any element of
 * step r: the dims are RVars of the update's RDom (space_time). Returns
 * the step RVar and the trip count. */
struct Step {
    RVar rvar;
    Expr trip_count;
};

Step define_step(States &st, const std::vector<Tensor> &next, const Expr &extent, int stage, const Target &target,
                 bool elementwise_steps) {
    for (const Tensor &t : next) {
        if (t.shape != st.shape) throw RecurrenceUnsupported("a carried value changes shape");
    }
    auto define = [&](const std::vector<Expr> &lhs, const std::vector<Expr> &values) {
        if (values.size() == 1)
            st.func(lhs) = values[0];
        else
            st.func(lhs) = Tuple(values);
    };
    if (!st.shape.empty()) {
        std::vector<Var> vars = element_vars(st);
        std::vector<Var> loom_vars(vars.rbegin(), vars.rend());
        RDom time(Expr(0), extent, func_name("r"));
        Index space(vars.begin(), vars.end());
        std::vector<Expr> lhs(loom_vars.begin(), loom_vars.end());
        lhs.push_back(time.x + 1);
        std::vector<Expr> values;
        for (const Tensor &t : next) values.push_back(cast(t.type(), read_at(t, space, time.x)));
        bool pure = true;
        try {
            define(lhs, values);
        } catch (const CompileError &) {
            pure = false;  // it reads other elements of the state: RVars below
        }
        if (pure) {
            if (gpu_schedule_state_update(st.func, stage, loom_vars, RVar(time.x), st.shape))
                return {RVar(time.x), time.trip_count()};
            std::vector<VarOrRVar> order(loom_vars.begin(), loom_vars.end());
            order.push_back(RVar(time.x));
            st.func.update(stage).reorder(order);
            for (size_t k = 0; k < vars.size(); k++) st.func.bound(vars[k], 0, (int)st.shape[k]);
            int lanes = lanes_for(target, st.func.types()[0], st.shape.back());
            if (elementwise_steps && st.shape.back() >= 2 * parallel_chunk_elements) {
                // Each element's chain of steps depends on that element
                // alone (no StepFunc computed at the step): chunks of the
                // last axis in parallel, every step of a chunk inside its
                // task (one fork, not one per step), as in apps/loop_add_step.
                Var chunk(loom_vars[0].name() + "_chunk"), within(loom_vars[0].name() + "_within");
                Stage update = st.func.update(stage);
                update.split(loom_vars[0], chunk, within, parallel_chunk_elements, TailStrategy::GuardWithIf);
                std::vector<VarOrRVar> chunked{within};
                chunked.insert(chunked.end(), loom_vars.begin() + 1, loom_vars.end());
                chunked.push_back(RVar(time.x));
                chunked.push_back(chunk);
                update.reorder(chunked).parallel(chunk);
                if (lanes) update.vectorize(within, lanes, TailStrategy::GuardWithIf);
            } else if (lanes) {
                st.func.update(stage).vectorize(loom_vars[0], lanes, TailStrategy::GuardWithIf);
            }
            if (lanes && stage > 0) st.func.update(0).vectorize(loom_vars[0], lanes, TailStrategy::GuardWithIf);
            return {RVar(time.x), time.trip_count()};
        }
    }
    SpaceTime d = space_time(st.shape, extent);
    std::vector<Expr> values;
    for (const Tensor &t : next) values.push_back(cast(t.type(), read_at(t, d.space, d.time)));
    define_state("update", [&] { define(d.lhs, values); });
    vectorize_elements(st, d, stage, target);
    return {RVar(d.dom[(int)st.shape.size()]), d.dom.trip_count()};
}

/** The StepFuncs of the body, computed once per step inside the state's
 * update (compute_at the step RVar) and vectorised over their last ONNX
 * axis, that axis inside the reduction's loops (a row of U times a
 * broadcast element of h, as in apps/rnn). */
void schedule_step_funcs(std::vector<StepFunc> &funcs, const Func &state, const RVar &step, const Target &target) {
    for (StepFunc &sf : funcs) {
        if (gpu_schedule_step_func(sf.func, sf.pure, state, step)) continue;
        sf.func.compute_at(state, step);
        if (sf.pure.size() < 2) continue;
        const Var &inner = sf.pure[0];
        bool update = !sf.rvars.empty();
        if (update) {
            std::vector<VarOrRVar> order{inner};
            order.insert(order.end(), sf.unrolled.begin(), sf.unrolled.end());
            order.insert(order.end(), sf.rvars.begin(), sf.rvars.end());
            sf.func.update(0).reorder(order);
        }
        for (const Var &v : sf.unrolled) {
            sf.func.unroll(v);
            if (update) sf.func.update(0).unroll(v);
        }
        int lanes = lanes_for(target, sf.func.types()[0], sf.inner_extent);
        if (!lanes) continue;
        std::vector<Stage> stages{Stage(sf.func)};
        if (update) stages.push_back(sf.func.update(0));
        for (Stage &s : stages) {
            if (sf.inner_extent % lanes == 0 && sf.inner_extent / lanes <= 8) {
                // Every vector unrolled: constant offsets, so LLVM keeps the
                // sums of a step in registers across the reduction's loop.
                Var vector(inner.name() + "_vector"), lane(inner.name() + "_lane");
                s.split(inner, vector, lane, lanes).vectorize(lane).unroll(vector);
            } else {
                s.vectorize(inner, lanes, TailStrategy::GuardWithIf);
            }
        }
    }
}

/** Says in the loop notes which body values are StepFuncs. */
void note_step_funcs(NodeContext &ctx, const std::vector<StepFunc> &funcs) {
    if (funcs.empty()) return;
    std::string names;
    for (const StepFunc &sf : funcs) names += (names.empty() ? "" : ", ") + sf.func.name();
    ctx.importer.note(ctx.where() + ": computed once per step inside the loop (compute_at the step RVar): " + names);
}

/** S(dims, r + 1) = next[k] at r, over r in [0, trips); S at the root.
 * `only_last`: nothing but S(dims, trips) is read afterwards (no scan
 * outputs), so the iteration dimension folds to two slots. */
void define_update(States &st, const std::vector<Tensor> &next, int64_t trips, bool only_last,
                   std::vector<StepFunc> &step_funcs, const Target &target) {
    if (st.count == 0) return;
    Step step = define_step(st, next, Expr((int)trips), 1, target, step_funcs.empty());
    st.func.compute_root();
    if (only_last) st.func.fold_storage(*recurrence_var(), 2);
    schedule_step_funcs(step_funcs, st.func, step.rvar, target);
}

/** Builds a recurrence with StepFuncs for the reductions of state values
 * first; where that mapping fails, builds it again writing them out in the
 * state's update. */
template<typename Build>
std::vector<Val> with_step_funcs(Build &&build) {
    try {
        return build(true);
    } catch (const RecurrenceNeedsExitFlag &) {
        throw;
    } catch (const RecurrenceUnsupported &) {
        return build(false);
    }
}

/** The tensor at iteration `iteration` of an iterated (or invariant) tensor. */
Tensor final_value(const Tensor &t, const Expr &iteration, const std::string &name) {
    Tensor src = t;
    // Inlined: a read of the state, not a copy of it.
    return make_tensor(
        t.element_type, t.shape, [&](const Index &idx) { return read_at(src, idx, iteration); },
        without_marker(t.runtime_inputs), name, false, true);
}

/** Per-iteration tensors stacked along `axis` (reversed if asked). */
Tensor stacked(const Tensor &t, int64_t trips, int64_t axis, bool reverse, const std::string &name,
               bool inline_it = false) {
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
        without_marker(t.runtime_inputs), name, false, inline_it);
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

namespace {

std::vector<Val> loop_as_recurrence_impl(NodeContext &ctx, int64_t trips, bool step_funcs) {
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
    bool only_last = body.output_size() == 1 + carried_count;
    RecurrenceGuard guard(/*hoist=*/true, step_funcs && only_last);
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
    define_update(st, next, trips, only_last, guard.step_funcs(), ctx.importer.options().target);
    note_step_funcs(ctx, guard.step_funcs());
    std::vector<Val> results;
    for (int k = 0; k < carried_count; k++) {
        std::string name = k < ctx.num_outputs() ? ctx.node.output(k) : "carried";
        results.push_back(Val::of(final_value(state_tensor(st, k, inits[k]), Expr((int)trips), name)));
    }
    for (size_t j = 1 + carried_count; j < outs.size(); j++) {
        if (outs[j].kind != Val::Kind::Tensor) ctx.fail("scan outputs must be tensors");
        std::string name = (int)j - 1 < ctx.num_outputs() ? ctx.node.output((int)j - 1) : "scan";
        results.push_back(Val::of(stacked(outs[j].tensor, trips, 0, false, name)));
    }
    return results;
}

std::vector<Val> scan_as_recurrence_impl(NodeContext &ctx, bool step_funcs) {
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
    bool only_last = body.output_size() == state_count;
    RecurrenceGuard guard(/*hoist=*/true, step_funcs && only_last);
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
        // Clamped: a hoisted matrix product computes whole tasks of
        // iterations, up to one task past the last (Reduce.cpp).
        Expr it = clamp(Expr(guard.var()), 0, (int)std::max<int64_t>(length - 1, 0));
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
    define_update(st, next, length, only_last, guard.step_funcs(), ctx.importer.options().target);
    note_step_funcs(ctx, guard.step_funcs());
    std::vector<Val> results;
    for (int k = 0; k < state_count; k++) {
        std::string name = k < ctx.num_outputs() ? ctx.node.output(k) : "state";
        results.push_back(Val::of(final_value(state_tensor(st, k, inits[k]), Expr((int)length), name)));
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

}  // namespace

std::vector<Val> loop_as_recurrence(NodeContext &ctx, int64_t trips, const Tensor *) {
    return with_step_funcs([&](bool step_funcs) { return loop_as_recurrence_impl(ctx, trips, step_funcs); });
}

std::vector<Val> scan_as_recurrence(NodeContext &ctx) {
    return with_step_funcs([&](bool step_funcs) { return scan_as_recurrence_impl(ctx, step_funcs); });
}

namespace {

/** Whether a and b are the same body value (one passed on by Identity). */
bool same_value(const Tensor &a, const Tensor &b) {
    if (a.expression.defined() || b.expression.defined())
        return a.expression.same_as(b.expression) && a.expression_vars == b.expression_vars;
    return a.func.defined() && b.func.defined() && !a.known.defined() && !b.known.defined() &&
           a.func.name() == b.func.name() && a.tuple_index == b.tuple_index;
}

/** Whether the body's condition output is its condition input, directly or
 * through Identity nodes: then only M ends the loop (given a true cond). */
bool cond_passes_through(const ::onnx::GraphProto &body) {
    if (body.input_size() < 2 || body.output_size() < 1) return false;
    std::string name = body.output(0).name();
    const std::string &cond_in = body.input(1).name();
    for (int hops = 0; hops <= body.node_size() && name != cond_in; hops++) {
        const ::onnx::NodeProto *producer = nullptr;
        for (const auto &n : body.node()) {
            for (const auto &o : n.output()) {
                if (o == name) producer = &n;
            }
        }
        if (!producer || producer->op_type() != "Identity" || producer->input_size() != 1) return false;
        name = producer->input(0);
    }
    return name == cond_in;
}

std::vector<Val> loop_with_exit_impl(NodeContext &ctx, int64_t m_known, const Tensor *m_tensor,
                                     const Tensor *initial_cond, bool step_funcs) {
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
    // Counted: only M ends the loop (the cond is true and the body passes it
    // through), so the state needs no condition and no loop_while.
    bool counted = !initial_cond && (m_known >= 0 || m_tensor) && cond_passes_through(body);
    // A counted loop whose M is a graph input: M's value as a scalar Param
    // that the run sets (no Func read in the extent, so the trip count is
    // an Expr of it and the state can be a pipeline output, below).
    std::shared_ptr<Param<int>> m_param;
    if (counted && m_known < 0 && ctx.importer.is_top_level_input(ctx.node.input(0), ctx.scope) &&
        m_tensor->runtime_inputs == std::set<std::string>{ctx.node.input(0)} && num_elements(m_tensor->shape) == 1 &&
        !m_tensor->type().is_float())
        m_param = ctx.importer.scalar_input(ctx.node.input(0));
    RecurrenceGuard guard(/*hoist=*/m_known >= 0 || m_tensor != nullptr, step_funcs && scan_count == 0);
    const Var &iteration = guard.var();
    Shape shape = inits[0].shape;
    for (const Tensor &t : inits) {
        if (t.shape != shape) throw RecurrenceUnsupported("carried values of different shapes (they need compute_with)");
    }
    const std::string state_name = ctx.node.name().empty() ? "loop" : ctx.node.name();
    // The state: the carried values and the condition the previous
    // iteration left, broadcast to their shape so that it fits the Tuple.
    std::vector<Var> vars;
    for (size_t k = 0; k < shape.size(); k++) vars.push_back(Var("i" + std::to_string(k)));
    std::vector<Var> pure(vars.rbegin(), vars.rend());
    if (pure.empty()) pure.push_back(Var("s"));
    Index idx(vars.begin(), vars.end());
    States st;
    if (counted) {
        st = make_states(inits, state_name);
    } else {
        st.count = carried_count + 1;
        st.shape = shape;
        st.func = Func(func_name(state_name + "_state"));

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
    } else if (m_param) {
        extent = Expr(*m_param);
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
    const Target &target = ctx.importer.options().target;
    RVar step;
    Expr trips;
    if (counted) {
        Step s = define_step(st, next, extent, 1, target, guard.step_funcs().empty());
        step = s.rvar;
        trips = m_param ? extent : s.trip_count;
        ctx.importer.note(ctx.where() + ": only M ends it (the body passes its condition through): no condition in "
                          "the state, no loop_while" + std::string(m_param ? ", M read as a scalar Param" : ""));
    } else {
        SpaceTime d = space_time(shape, extent);
        RDom r = d.dom;
        std::vector<Expr> state_at_r(pure.size(), Expr(0));
        state_at_r.push_back(d.time);
        define_state("loop condition", [&] { r.loop_while(st.func(state_at_r)[carried_count]); });
        std::vector<Expr> values;
        for (int k = 0; k < carried_count; k++)
            values.push_back(cast(inits[k].type(), read_at(next[k], d.space, d.time)));
        values.push_back(read_at(cond_out, Index(cond_out.rank(), Expr(0)), d.time) != cast(cond_out.type(), Expr(0)));
        define_state("update", [&] { st.func(d.lhs) = Tuple(values); });
        vectorize_elements(st, d, 1, target);
        step = RVar(d.dom[(int)shape.size()]);
        trips = r.trip_count();
    }
    st.func.compute_root();
    if (scan_count == 0) st.func.fold_storage(iteration, 2);
    schedule_step_funcs(guard.step_funcs(), st.func, step, target);
    note_step_funcs(ctx, guard.step_funcs());

    std::vector<Val> results;
    for (int k = 0; k < carried_count; k++) {
        std::string name = k < ctx.num_outputs() ? ctx.node.output(k) : "carried";
        results.push_back(Val::of(final_value(state_tensor(st, k, inits[k]), trips, name)));
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
        bool state_rows_taken = false;
        for (int j = 0; j < scan_count; j++) {
            const Val &v = outs[1 + carried_count + j];
            if (v.kind != Val::Kind::Tensor) ctx.fail("scan outputs must be tensors");
            std::string name = carried_count + j < ctx.num_outputs() ? ctx.node.output(carried_count + j) : "scan";
            if (m_param && !state_rows_taken && st.count == 1 && !rows_input.empty() && !shape.empty() &&
                same_value(v.tensor, next[0])) {
                // The scan output is the carried value after each iteration:
                // the state itself, written in place (Compile.cpp). Its
                // trip count is M's Param, not trip_count(), which the code
                // generator lowers only for Funcs that are not outputs.
                Tensor out;
                out.element_type = inits[0].element_type;
                out.shape = shape;
                out.shape.insert(out.shape.begin(), 0);
                out.func = st.func;
                out.runtime_inputs = without_marker(state_tensor(st, 0, inits[0]).runtime_inputs);
                out.state_rows = true;
                out.dynamic_rows = dynamic;
                results.push_back(Val::of(out));
                state_rows_taken = true;
                continue;
            }
            // Rows past the trip count read states never computed; they are
            // cropped away after the run. Inlined: the output reads the
            // state, with no copy in between (the graph reads no such output).
            Tensor out = stacked(v.tensor, m_known >= 0 ? m_known : 0, 0, false, name, true);
            out.dynamic_rows = dynamic;
            results.push_back(Val::of(out));
        }
    }
    return results;
}

}  // namespace

std::vector<Val> loop_with_exit(NodeContext &ctx, int64_t m_known, const Tensor *m_tensor, const Tensor *initial_cond) {
    return with_step_funcs(
        [&](bool step_funcs) { return loop_with_exit_impl(ctx, m_known, m_tensor, initial_cond, step_funcs); });
}

}  // namespace loom::onnx::detail
