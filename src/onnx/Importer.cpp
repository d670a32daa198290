// Walking graphs: scopes, the op table, node contexts, folding of values
// known at compile time, and the helpers that make a tensor's Func.

#include <algorithm>
#include <atomic>

#include "GpuSchedule.h"
#include "Importer.h"

namespace loom::internal {
// Exported by libLoom (src/ir/Substitute.h): replaces free Variables by
// name. Declared here rather than included, so that LoomOnnx keeps to the
// public headers apart from this one function.
Expr substitute(const std::map<std::string, Expr> &replacements, const Expr &e);
}  // namespace loom::internal

namespace loom::onnx {

namespace detail {

// ---- The op table ---------------------------------------------------------

const OpTable &op_table() {
    static const OpTable table = [] {
        OpTable t;
        register_elementwise_ops(t);
        register_shape_ops(t);
        register_reduce_ops(t);
        register_control_flow_ops(t);
        register_sequence_ops(t);
        register_along_axis_ops(t);
        register_loss_ops(t);
        return t;
    }();
    return table;
}

namespace {
std::string supported_list() {
    std::string s;
    for (const auto &[name, fn] : op_table()) s += (s.empty() ? "" : " ") + name;
    return s;
}
}  // namespace

// ---- NodeContext ----------------------------------------------------------

std::string NodeContext::where() const {
    if (!node.name().empty()) return "ONNX node '" + node.name() + "' (" + node.op_type() + ")";
    std::string first_output = node.output_size() ? node.output(0) : "";
    return "ONNX node " + node.op_type() + " (unnamed, output '" + first_output + "')";
}

void NodeContext::fail(const std::string &message) const { throw CompileError(where() + ": " + message); }

const Val &NodeContext::input(int i) const {
    if (!has_input(i)) fail("input " + std::to_string(i) + " is required but absent");
    return inputs[i];
}

const Tensor &NodeContext::tensor(int i) const {
    const Val &v = input(i);
    if (v.kind != Val::Kind::Tensor)
        fail("input " + std::to_string(i) + " ('" + node.input(i) + "') must be a tensor, not a " +
             (v.kind == Val::Kind::Sequence ? "sequence" : "none"));
    return v.tensor;
}

const ::onnx::AttributeProto *NodeContext::attr(const std::string &name) const {
    for (const auto &a : node.attribute()) {
        if (a.name() == name) return &a;
    }
    return nullptr;
}

bool NodeContext::has_attr(const std::string &name) const { return attr(name) != nullptr; }

int64_t NodeContext::attr_int(const std::string &name, int64_t fallback) const {
    const auto *a = attr(name);
    return a ? a->i() : fallback;
}

float NodeContext::attr_float(const std::string &name, float fallback) const {
    const auto *a = attr(name);
    return a ? a->f() : fallback;
}

std::string NodeContext::attr_string(const std::string &name, const std::string &fallback) const {
    const auto *a = attr(name);
    return a ? a->s() : fallback;
}

std::vector<int64_t> NodeContext::attr_ints(const std::string &name) const {
    const auto *a = attr(name);
    if (!a) return {};
    return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

const ::onnx::GraphProto &NodeContext::attr_graph(const std::string &name) const {
    const auto *a = attr(name);
    if (!a || !a->has_g()) fail("attribute '" + name + "' (a graph) is required");
    return a->g();
}

std::vector<int64_t> NodeContext::ints(int i, const char *what) const {
    Tensor t = tensor(i);
    const Buffer<> &b = importer.fold(t, where() + " " + what);
    if (t.type().is_float()) fail(std::string(what) + " must be integers");
    std::vector<int64_t> out;
    for (int64_t k = 0; k < num_elements(t.shape); k++) out.push_back(buffer_int(b, k));
    return out;
}

std::vector<double> NodeContext::doubles(int i, const char *what) const {
    Tensor t = tensor(i);
    const Buffer<> &b = importer.fold(t, where() + " " + what);
    std::vector<double> out;
    for (int64_t k = 0; k < num_elements(t.shape); k++) out.push_back(buffer_double(b, k));
    return out;
}

int normalize_axis(int64_t axis, int rank, const NodeContext &ctx) {
    int64_t a = axis < 0 ? axis + rank : axis;
    if (a < 0 || a >= std::max(rank, 1) || (rank == 0))
        ctx.fail("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
    return (int)a;
}

// ---- Importer -------------------------------------------------------------

namespace {
void check_size(const Val &v, const NodeContext &ctx, int64_t limit) {
    auto check = [&](const Tensor &t) {
        int64_t n = 1;
        for (int64_t d : t.shape) {
            if (d < 0 || d > limit) ctx.fail("makes a tensor of shape " + shape_string(t.shape) + ", beyond the limit");
            n *= std::max<int64_t>(d, 1);
            if (n > limit)
                ctx.fail("makes a tensor of shape " + shape_string(t.shape) + ", more than " + std::to_string(limit) +
                         " elements (CompileOptions::max_tensor_elements)");
        }
    };
    if (v.kind == Val::Kind::Tensor) check(v.tensor);
    for (const Tensor &t : v.elements) check(t);
}
}  // namespace

const Buffer<> &Importer::fold(Tensor &t, const std::string &where) {
    if (t.known.defined()) return t.known;
    if (t.iterated())
        throw RecurrenceUnsupported(where + " must be known when compiling, but it changes with the loop iteration");
    if (!t.runtime_inputs.empty()) {
        std::string names;
        for (const auto &n : t.runtime_inputs) names += (names.empty() ? "'" : ", '") + n + "'";
        throw NeedsInputValues(where + " must be known when compiling, but it is computed from the graph input(s) " +
                                   names + " (compile with CompileOptions::specialize naming them, or use a Session)",
                               t.runtime_inputs);
    }
    if (num_elements(t.shape) == 0) {
        t.known = new_buffer(t.element_type, t.shape);
        return t.known;
    }
    std::vector<int> sizes;
    for (auto it = t.shape.rbegin(); it != t.shape.rend(); ++it) sizes.push_back((int)*it);
    if (sizes.empty()) sizes.push_back(1);
    // The Func is realized on its own: a copy keeps the schedule of the
    // original, which the final pipeline still uses.
    Realization r = t.func.realize(sizes);
    t.known = r[std::max(t.tuple_index, 0)];
    return t.known;
}

void Importer::run_graph(const ::onnx::GraphProto &graph, Scope &scope) {
    for (const auto &init : graph.initializer())
        scope.values[init.name()] = Val::of(tensor_from_proto(init, "graph '" + graph.name() + "' initializer"));
    const OpTable &table = op_table();
    for (const auto &node : graph.node()) {
        NodeContext ctx{*this, node, scope, {}, opset_};
        for (const auto &name : node.input()) {
            if (name.empty()) {
                ctx.inputs.push_back(Val());
                continue;
            }
            const Val *v = scope.find(name);
            if (!v) ctx.fail("reads '" + name + "', which no earlier node, graph input or initializer defines");
            ctx.inputs.push_back(*v);
        }
        if (!node.domain().empty() && node.domain() != "ai.onnx")
            ctx.fail("op domain '" + node.domain() + "' is not supported (only the default ONNX domain); supported ops: " +
                     supported_list());
        if (node.output_size() == 0) ctx.fail("has no outputs (every ONNX op has at least one)");
        auto it = table.find(node.op_type());
        if (it == table.end())
            ctx.fail("unsupported op type '" + node.op_type() + "'; supported ops: " + supported_list());
        std::vector<Val> outs;
        try {
            outs = it->second(ctx);
        } catch (const Error &) {
            throw;
        } catch (const std::exception &e) {
            ctx.fail(std::string("failed: ") + e.what());
        }
        for (int i = 0; i < node.output_size(); i++) {
            if (node.output(i).empty()) continue;
            if (i >= (int)outs.size())
                ctx.fail("output " + std::to_string(i) + " ('" + node.output(i) + "') is not produced by this op");
            check_size(outs[i], ctx, options_.max_tensor_elements);
            scope.values[node.output(i)] = outs[i];
        }
    }
}

std::vector<Val> Importer::run_subgraph(const ::onnx::GraphProto &graph, const Scope &parent,
                                        const std::vector<Val> &inputs, const std::string &where) {
    if (graph.input_size() != (int)inputs.size())
        throw CompileError(where + ": the subgraph '" + graph.name() + "' has " + std::to_string(graph.input_size()) +
                           " inputs, but the op passes " + std::to_string(inputs.size()));
    Scope scope;
    scope.parent = &parent;
    // Body inputs shadow values of the same name in enclosing scopes.
    for (int i = 0; i < graph.input_size(); i++) scope.values[graph.input(i).name()] = inputs[i];
    struct Depth {
        int &d;
        explicit Depth(int &depth) : d(depth) { d++; }
        ~Depth() { d--; }
    } depth(depth_);
    run_graph(graph, scope);
    std::vector<Val> outs;
    for (const auto &o : graph.output()) {
        const Val *v = scope.find(o.name());
        if (!v) throw CompileError(where + ": the subgraph's output '" + o.name() + "' is never defined");
        outs.push_back(*v);
    }
    return outs;
}

namespace {
bool reads(const ::onnx::GraphProto &g, const std::string &name) {
    for (const auto &n : g.node()) {
        for (const auto &i : n.input()) {
            if (i == name) return true;
        }
        for (const auto &a : n.attribute()) {
            if (a.has_g() && reads(a.g(), name)) return true;
            for (const auto &sub : a.graphs()) {
                if (reads(sub, name)) return true;
            }
        }
    }
    return false;
}
}  // namespace

bool Importer::only_a_graph_output(const std::string &name) const {
    if (!top_graph_ || depth_ != 0 || name.empty()) return false;
    bool output = false;
    for (const auto &o : top_graph_->output()) output = output || o.name() == name;
    return output && !reads(*top_graph_, name);
}

std::shared_ptr<Param<int>> Importer::scalar_input(const std::string &name) {
    auto &param = scalar_inputs_[name];
    if (!param) param = std::make_shared<Param<int>>(func_name(name + "_value"), 0, Expr(0), Expr(INT32_MAX - 1));
    return param;
}

bool Importer::is_top_level_input(const std::string &name, const Scope &scope) const {
    if (!top_graph_ || depth_ != 0 || &scope != top_scope_) return false;
    for (const auto &i : top_graph_->input()) {
        if (i.name() == name) return true;
    }
    return false;
}

// ---- Tensors as Funcs -----------------------------------------------------

const char *const iteration_marker = "<loop iteration>";
const char *const state_marker = "<loop state>";

namespace {
thread_local const Var *current_recurrence = nullptr;
thread_local bool current_hoists = false;
thread_local std::vector<StepFunc> *current_step_funcs = nullptr;
}

RecurrenceGuard::RecurrenceGuard(bool hoist, bool step_funcs) : var_(loom::internal::unique_func_name("iteration")) {
    if (current_recurrence) throw RecurrenceUnsupported("a recurrence inside a recurrence");
    current_recurrence = &var_;
    current_hoists = hoist;
    current_step_funcs = step_funcs ? &step_funcs_ : nullptr;
}

RecurrenceGuard::~RecurrenceGuard() {
    current_recurrence = nullptr;
    current_hoists = false;
    current_step_funcs = nullptr;
}

bool recurrence_hoists() { return current_hoists; }

std::vector<StepFunc> *recurrence_step_funcs() { return current_step_funcs; }

const Var *recurrence_var() { return current_recurrence; }

std::string func_name(const std::string &onnx_name) {
    std::string n;
    for (char c : onnx_name) n += (std::isalnum((unsigned char)c) || c == '_') ? c : '_';
    if (n.empty() || std::isdigit((unsigned char)n[0])) n = "v_" + n;
    return loom::internal::unique_func_name(n);
}

namespace {
std::vector<Var> loom_args(int rank, std::vector<Var> &onnx_order) {
    onnx_order.clear();
    for (int k = 0; k < rank; k++) onnx_order.push_back(Var("i" + std::to_string(k)));
    std::vector<Var> args(onnx_order.rbegin(), onnx_order.rend());
    if (args.empty()) args.push_back(Var("s"));
    return args;
}
}  // namespace

void parallel_iterations(Stage stage, const Var &iteration, int64_t work_per_iteration, TailStrategy tail) {
    constexpr int64_t min_task_work = 65536;
    const int64_t per_task =
        std::min<int64_t>(1 << 20, (min_task_work + std::max<int64_t>(1, work_per_iteration) - 1) /
                                       std::max<int64_t>(1, work_per_iteration));
    Var task(iteration.name() + "_task"), inner(iteration.name() + "_in");
    stage.split(iteration, task, inner, (int)per_task, tail).parallel(task);
}

Tensor make_tensor(int element_type, const Shape &shape, const std::function<Expr(const Index &)> &body,
                   std::set<std::string> runtime_inputs, const std::string &name, bool elementwise,
                   bool inline_it, bool data_movement) {
    Tensor t;
    t.element_type = element_type;
    t.shape = shape;
    t.runtime_inputs = std::move(runtime_inputs);
    std::vector<Var> vars;
    std::vector<Var> args = loom_args((int)shape.size(), vars);
    bool hoisted = t.iterated() && !t.runtime_inputs.count(state_marker) && recurrence_hoists();
    if (hoisted) {
        // Independent of the state: a Func of the iteration too, computed
        // for every iteration before the loop (vectorisable, and done once).
        args.push_back(*recurrence_var());
        inline_it = data_movement;
    }
    if (t.iterated() && !hoisted) {
        // An expression over fresh Vars, substituted where it is read.
        if (!recurrence_var()) throw InternalError("ONNX importer: an iterated tensor outside its recurrence");
        Index idx;
        for (size_t k = 0; k < shape.size(); k++) {
            Var v(loom::internal::unique_func_name("e" + std::to_string(k)));
            t.expression_vars.push_back(v.name());
            idx.push_back(v);
        }
        Expr value = body(idx);
        Type type = loom_type(element_type);
        if (value.type() != type) value = type.is_bool() ? (value != cast(value.type(), Expr(0))) : cast(type, value);
        t.expression = value;
        t.expression_iteration = recurrence_var()->name();
        return t;
    }
    Index idx(vars.begin(), vars.end());
    Expr value = body(idx);
    Type type = loom_type(element_type);
    if (value.type() != type) value = type.is_bool() ? (value != cast(value.type(), Expr(0))) : cast(type, value);
    t.func = Func(func_name(name));
    t.func(args) = value;
    if (!inline_it) {
        if (gpu_schedule_root(t.func, args, num_elements(shape), t.foldable())) return t;
        t.func.compute_root();
        if (!shape.empty() && shape.back() >= 16) t.func.vectorize(args[0], 8, TailStrategy::GuardWithIf);
        // The iterations in parallel, in tasks worth a fork.
        if (hoisted) parallel_iterations(t.func, args.back(), num_elements(shape));
    }
    return t;
}

Tensor known_tensor(int element_type, const Shape &shape, Buffer<> values, const std::string &name) {
    Tensor t;
    t.element_type = element_type;
    t.shape = shape;
    t.known = values;
    std::vector<Var> vars;
    std::vector<Var> args = loom_args((int)shape.size(), vars);
    t.func = Func(func_name(name));
    std::vector<Expr> eargs(args.begin(), args.end());
    t.func(args) = values(eargs);
    return t;
}

Tensor input_tensor(int element_type, const Shape &shape, const ImageParam &param, const std::string &name) {
    Tensor t;
    t.element_type = element_type;
    t.shape = shape;
    t.runtime_inputs = {name};
    std::vector<Var> vars;
    std::vector<Var> args = loom_args((int)shape.size(), vars);
    t.func = Func(func_name(name));
    std::vector<Expr> eargs(args.begin(), args.end());
    // An empty input has no element to read; a read that bounds inference
    // still places (a Gather at the iteration of a loop of zero trips) would
    // fail the buffer's bounds check, so it reads a zero instead.
    if (num_elements(shape) == 0)
        t.func(args) = cast(loom_type(element_type), Expr(0));
    else
        t.func(args) = param(eargs);
    return t;
}

Expr read_at(const Tensor &t, const Index &idx, const Expr &iteration) {
    if (t.expression.defined()) {
        std::map<std::string, Expr> replacements;
        for (size_t k = 0; k < t.expression_vars.size(); k++) replacements[t.expression_vars[k]] = idx[k];
        replacements[t.expression_iteration] = iteration;
        return loom::internal::substitute(replacements, t.expression);
    }
    std::vector<Expr> args(idx.rbegin(), idx.rend());
    if (args.empty()) args.push_back(Expr(0));
    if (t.iterated()) args.push_back(iteration);
    if (t.tuple_index >= 0) return t.func(args)[t.tuple_index];
    return t.func(args);
}

Expr read(const Tensor &t, const Index &idx) {
    if (t.iterated() && !recurrence_var()) throw InternalError("ONNX importer: an iterated tensor read outside its recurrence");
    return read_at(t, idx, t.iterated() ? Expr(*recurrence_var()) : Expr());
}

Expr read_broadcast(const Tensor &t, const Shape &out, const Index &idx) {
    int offset = (int)out.size() - t.rank();
    Index mine;
    for (int k = 0; k < t.rank(); k++) {
        bool stretched = t.shape[k] == 1 && out[offset + k] != 1;
        mine.push_back(stretched ? Expr(0) : idx[offset + k]);
    }
    return read(t, mine);
}

Shape broadcast_shapes(const Shape &a, const Shape &b, const std::string &where) {
    size_t n = std::max(a.size(), b.size());
    Shape out(n);
    for (size_t k = 0; k < n; k++) {
        int64_t da = k < n - a.size() ? 1 : a[k - (n - a.size())];
        int64_t db = k < n - b.size() ? 1 : b[k - (n - b.size())];
        if (da != db && da != 1 && db != 1)
            throw CompileError(where + ": shapes " + shape_string(a) + " and " + shape_string(b) +
                               " do not broadcast (numpy rules)");
        out[k] = da == 1 ? db : da;
    }
    return out;
}

std::set<std::string> union_inputs(const std::vector<const Tensor *> &tensors) {
    std::set<std::string> s;
    for (const Tensor *t : tensors) {
        if (!t->known.defined()) s.insert(t->runtime_inputs.begin(), t->runtime_inputs.end());
    }
    return s;
}

Tensor int64_tensor(const std::vector<int64_t> &values, bool scalar, const std::string &name) {
    Shape shape;
    if (!scalar) shape.push_back((int64_t)values.size());
    Buffer<> b = new_buffer(Int64, shape);
    for (size_t i = 0; i < values.size(); i++) buffer_set_int(b, (int64_t)i, values[i]);
    return known_tensor(Int64, shape, b, name);
}

}  // namespace detail

std::vector<std::string> supported_ops() {
    std::vector<std::string> ops;
    for (const auto &[name, fn] : detail::op_table()) ops.push_back(name);
    return ops;
}

}  // namespace loom::onnx
