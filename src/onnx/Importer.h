#ifndef LOOM_ONNX_IMPORTER_H
#define LOOM_ONNX_IMPORTER_H

// The importer's inside: every ONNX value as a Loom Func over its dims with
// the shape known at compile time, the scopes of graphs and subgraphs, the
// op table, and folding of values known at compile time.

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "loom/Func.h"
#include "loom/IROperator.h"
#include "loom/ImageParam.h"
#include "loom/Param.h"
#include "loom/RDom.h"
#include "loom/onnx/Onnx.h"

namespace loom::onnx::detail {

struct ModelContents {
    ::onnx::ModelProto proto;
    std::vector<ValueInfo> inputs, outputs;
    int64_t opset = 1;
    std::string origin;
};

ValueInfo value_info_of(const ::onnx::ValueInfoProto &info);

/** Thrown by the importer when compiling needs the value of graph inputs it
 * was given only the shape of; a Session specialises them and retries. */
struct NeedsInputValues : CompileError {
    NeedsInputValues(const std::string &message, std::set<std::string> names)
        : CompileError(message), inputs(std::move(names)) {}
    std::set<std::string> inputs;
};

/** Thrown while building a Loop or Scan body as a recurrence (update
 * definitions over an RDom) when the body needs what that mapping cannot
 * give yet; the op then instantiates the body once per iteration. */
struct RecurrenceUnsupported : CompileError {
    using CompileError::CompileError;
};

/** The body decides when the loop ends: build it again with a flag. */
struct RecurrenceNeedsExitFlag : RecurrenceUnsupported {
    using RecurrenceUnsupported::RecurrenceUnsupported;
};

/** In Tensor::runtime_inputs: the tensor changes with the loop iteration;
 * and: it depends on the loop-carried state. */
extern const char *const iteration_marker;
extern const char *const state_marker;

/** While alive, tensors made from iterated ones get the iteration Var as
 * their last Loom argument and are inlined (ControlFlow.cpp). Nested
 * guards throw RecurrenceUnsupported. */
/** A body value computed once per iteration inside the loop: a reduction
 * (MatMul, Gemm, ReduceSum...) of values that depend on the state, as a Func
 * of its ONNX dims (Loom order) and the iteration with an update over the
 * reduction's RDom. The recurrence schedules it at the step RVar of the
 * state's update (compute_at), vectorized over `inner`. */
struct StepFunc {
    Func func;
    std::vector<Var> pure;   // Loom order, the iteration Var last; empty for rank 0
    std::vector<RVar> rvars; // of its update, innermost first; empty: no update
    std::vector<Var> unrolled;  // pure Vars unrolled (just outside the vector)
    int64_t inner_extent = 1;
};

class RecurrenceGuard {
public:
    /** hoist: body values that do not depend on the state become Funcs of
     * the iteration computed for every iteration before the loop (the loop
     * must have a bounded extent). step_funcs: reductions of state values
     * become StepFuncs (every Func that reads the state must then be part of
     * the state's update: no scan outputs). */
    explicit RecurrenceGuard(bool hoist = false, bool step_funcs = false);
    ~RecurrenceGuard();
    RecurrenceGuard(const RecurrenceGuard &) = delete;
    RecurrenceGuard &operator=(const RecurrenceGuard &) = delete;
    const Var &var() const { return var_; }
    std::vector<StepFunc> &step_funcs() { return step_funcs_; }

private:
    Var var_;
    std::vector<StepFunc> step_funcs_;
};
/** The iteration Var of the recurrence being built, or null. */
const Var *recurrence_var();
/** Whether the recurrence being built hoists state-independent values. */
bool recurrence_hoists();
/** Where reductions of state values go as StepFuncs, or null when the
 * recurrence being built writes them out in the state's update. */
std::vector<StepFunc> *recurrence_step_funcs();

/** ONNX index expressions, outermost axis first. */
using Index = std::vector<Expr>;
using Shape = std::vector<int64_t>;

/** A tensor at compile time. */
struct Tensor {
    int element_type = 0;
    Shape shape;
    Func func;        // Loom args reversed; rank 0 has one arg of extent 1
    Buffer<> known;   // the values, when known at compile time (Loom layout)
    std::set<std::string> runtime_inputs;  // graph inputs it depends on
    int tuple_index = -1;  // element of a Tuple-valued func, or -1
    /** Inside a recurrence, a body value is an expression over the Vars
     * `expression_vars` (ONNX order) and the iteration Var
     * `expression_iteration`, not a Func: the state's update reads it
     * directly, and no other Func reads the state before its last update
     * (Loom, like Halide, fixes a Func once another one reads it). */
    Expr expression;
    std::vector<std::string> expression_vars;
    std::string expression_iteration;
    /** A Loop's scan output whose extent along axis 0 is the trip count,
     * known only at run time: shape[0] is the capacity allocated (or the
     * graph input `rows_input` gives it at run time), `trip_count` (a
     * one-element Int(32) Func) the rows to keep. Only graph outputs are
     * such tensors. */
    struct DynamicRows {
        Func trip_count;
        std::string rows_input;
        // A loop with no M: rows allocated = `capacity`, a Param the run
        // doubles while `exhausted` (the loop stopped at the capacity with its
        // condition still true) says so.
        std::shared_ptr<Param<int>> capacity;
        Func exhausted;
    };
    std::shared_ptr<DynamicRows> dynamic_rows;
    /** A scan output whose rows are a loop's state after each iteration:
     * `func` is the state S(dims..., i), and row i of the output is S at
     * i + 1. The pipeline writes the state into the output buffer (one row
     * more, the first dropped after the run) instead of copying it. */
    bool state_rows = false;
    Type type() const { return loom_type_of(element_type); }
    int rank() const { return (int)shape.size(); }
    bool foldable() const { return known.defined() || runtime_inputs.empty(); }
    /** Its func takes the loop iteration as a last argument. */
    bool iterated() const { return !known.defined() && runtime_inputs.count(iteration_marker) > 0; }
};

/** A value at compile time: tensor, sequence or absent optional/input. */
struct Val {
    enum class Kind { Tensor, Sequence, None, Missing };
    Kind kind = Kind::Missing;
    Tensor tensor;
    std::vector<Tensor> elements;
    int element_type = 0;  // sequences (also when empty) and nones
    static Val of(Tensor t) {
        Val v;
        v.kind = Kind::Tensor;
        v.element_type = t.element_type;
        v.tensor = std::move(t);
        return v;
    }
    static Val sequence(int element_type, std::vector<Tensor> elements) {
        Val v;
        v.kind = Kind::Sequence;
        v.element_type = element_type;
        v.elements = std::move(elements);
        return v;
    }
    static Val none(int element_type = 0) {
        Val v;
        v.kind = Kind::None;
        v.element_type = element_type;
        return v;
    }
};

/** Names bound in a graph; subgraphs see the values of enclosing scopes. */
struct Scope {
    const Scope *parent = nullptr;
    std::map<std::string, Val> values;
    const Val *find(const std::string &name) const {
        for (const Scope *s = this; s; s = s->parent) {
            auto it = s->values.find(name);
            if (it != s->values.end()) return &it->second;
        }
        return nullptr;
    }
};

class Importer;

/** What an op sees of its node. */
struct NodeContext {
    Importer &importer;
    const ::onnx::NodeProto &node;
    const Scope &scope;
    std::vector<Val> inputs;  // Missing for "" and absent trailing inputs
    int64_t opset;

    int num_inputs() const { return (int)inputs.size(); }
    bool has_input(int i) const { return i < num_inputs() && inputs[i].kind != Val::Kind::Missing; }
    /** Input i as a tensor (CompileError if absent or not a tensor). */
    const Tensor &tensor(int i) const;
    const Val &input(int i) const;

    bool has_attr(const std::string &name) const;
    const ::onnx::AttributeProto *attr(const std::string &name) const;
    int64_t attr_int(const std::string &name, int64_t fallback) const;
    float attr_float(const std::string &name, float fallback) const;
    std::string attr_string(const std::string &name, const std::string &fallback) const;
    std::vector<int64_t> attr_ints(const std::string &name) const;
    const ::onnx::GraphProto &attr_graph(const std::string &name) const;

    /** The values of input i, known at compile time (folding it if needed). */
    std::vector<int64_t> ints(int i, const char *what) const;
    std::vector<double> doubles(int i, const char *what) const;

    /** "node 'name' (Op)" for messages. */
    std::string where() const;
    [[noreturn]] void fail(const std::string &message) const;
    /** The names of the node's outputs (may be fewer than the op makes). */
    int num_outputs() const { return node.output_size(); }
};

using OpFunction = std::function<std::vector<Val>(NodeContext &)>;
using OpTable = std::map<std::string, OpFunction>;

const OpTable &op_table();
void register_elementwise_ops(OpTable &table);
void register_shape_ops(OpTable &table);
void register_reduce_ops(OpTable &table);
void register_control_flow_ops(OpTable &table);
void register_sequence_ops(OpTable &table);
void register_along_axis_ops(OpTable &table);
void register_loss_ops(OpTable &table);

/** Walks graphs node by node, building Funcs. */
class Importer {
public:
    Importer(int64_t opset, const CompileOptions &options) : opset_(opset), options_(options) {}

    /** Runs the nodes of `graph` in `scope` (initializers bound first). */
    void run_graph(const ::onnx::GraphProto &graph, Scope &scope);
    /** Runs a subgraph with its formal inputs bound to `inputs` in a child
     * scope of `parent`; returns its outputs in order. */
    std::vector<Val> run_subgraph(const ::onnx::GraphProto &graph, const Scope &parent,
                                  const std::vector<Val> &inputs, const std::string &where);

    /** The values of a tensor known at compile time (realized with the JIT
     * once if its Func depends on no runtime input). \throws
     * NeedsInputValues if it depends on graph inputs given as shapes only. */
    const Buffer<> &fold(Tensor &tensor, const std::string &where);
    const CompileOptions &options() const { return options_; }
    /** Whether `name` is only a graph output of the top-level graph (no
     * node reads it), and the node asking is in the top-level graph. */
    bool only_a_graph_output(const std::string &name) const;
    /** Whether `name` is an input of the top-level graph, not shadowed. */
    bool is_top_level_input(const std::string &name, const Scope &scope) const;
    void set_top_graph(const ::onnx::GraphProto *graph, const Scope *scope) {
        top_graph_ = graph;
        top_scope_ = scope;
    }
    /** A Param<int> that CompiledModel::run sets to the value of the scalar
     * integer graph input `name` (clamped to [0, 2^31 - 2]) before each run:
     * a trip count M read at run time as a scalar, not through a Func (one
     * Param per input). */
    std::shared_ptr<Param<int>> scalar_input(const std::string &name);
    const std::map<std::string, std::shared_ptr<Param<int>>> &scalar_inputs() const { return scalar_inputs_; }
    /** How each Loop and Scan was compiled, for CompiledModel::loop_notes(). */
    void note(const std::string &line) { notes_.push_back(line); }
    const std::vector<std::string> &notes() const { return notes_; }
    int64_t opset() const { return opset_; }

private:
    int64_t opset_;
    CompileOptions options_;
    std::vector<std::string> notes_;
    std::map<std::string, std::shared_ptr<Param<int>>> scalar_inputs_;
    const ::onnx::GraphProto *top_graph_ = nullptr;
    const Scope *top_scope_ = nullptr;
    int depth_ = 0;  // subgraphs being run
};

// ---- Building tensors --------------------------------------------------

Type loom_type(int element_type);
int64_t num_elements(const Shape &shape);
std::string shape_string(const Shape &shape);
/** The Func name for an ONNX value name (unique, no '.'). */
std::string func_name(const std::string &onnx_name);

/** A tensor whose element at ONNX index idx is body(idx); computed at the
 * root (vectorised when elementwise) unless `inline_it`. `data_movement`:
 * body only reads another tensor at computed indices (Gather): inlined even
 * when hoisted out of a recurrence, where a root Func would be a copy. */
Tensor make_tensor(int element_type, const Shape &shape, const std::function<Expr(const Index &)> &body,
                   std::set<std::string> runtime_inputs, const std::string &name, bool elementwise = false,
                   bool inline_it = false, bool data_movement = false);
/** Splits the iterations (`iteration`, a pure Var) of a stage of a Func
 * hoisted out of a recurrence into tasks of at least 64K operations
 * (`work_per_iteration` a iteration) on the thread pool: one task per
 * iteration costs more to hand out than it saves when an iteration is a
 * few microseconds, and one task means no fork at all. RoundUp computes up
 * to a whole task past the last iteration: only for Funcs whose iterated
 * reads are clamped to the iterations that exist (see make_tensor). */
void parallel_iterations(Stage stage, const Var &iteration, int64_t work_per_iteration,
                         TailStrategy tail = TailStrategy::GuardWithIf);

/** A tensor of known values (Loom layout buffer). */
Tensor known_tensor(int element_type, const Shape &shape, Buffer<> values, const std::string &name);
/** A tensor read from a graph input. */
Tensor input_tensor(int element_type, const Shape &shape, const ImageParam &param, const std::string &name);
/** Reads t at ONNX index idx (at the current iteration if iterated). */
Expr read(const Tensor &t, const Index &idx);
/** Reads t at ONNX index idx in iteration `iteration` (ignored if t is not iterated). */
Expr read_at(const Tensor &t, const Index &idx, const Expr &iteration);
/** Reads t broadcast (numpy rules) to an output of shape out at idx. */
Expr read_broadcast(const Tensor &t, const Shape &out, const Index &idx);
/** numpy broadcasting; CompileError (with where) if incompatible. */
Shape broadcast_shapes(const Shape &a, const Shape &b, const std::string &where);
std::set<std::string> union_inputs(const std::vector<const Tensor *> &tensors);
/** New zeroed buffer in Loom layout for an ONNX shape. */
Buffer<> new_buffer(int element_type, const Shape &shape);
/** The same, not zeroed (malloc'd, as Halide's Buffers are): for outputs the
 * pipeline writes in full. Zeroing a 4 MiB scan output took 40% of a run. */
Buffer<> new_uninitialized_buffer(int element_type, const Shape &shape);
/** Row-major element i of a dense Loom-layout buffer, as double / int64. */
double buffer_double(const Buffer<> &b, int64_t i);
int64_t buffer_int(const Buffer<> &b, int64_t i);
void buffer_set(Buffer<> &b, int64_t i, double value);
void buffer_set_int(Buffer<> &b, int64_t i, int64_t value);
/** A known scalar / 1-D tensor of int64s. */
Tensor int64_tensor(const std::vector<int64_t> &values, bool scalar, const std::string &name);
/** A known tensor from a TensorProto. */
Tensor tensor_from_proto(const ::onnx::TensorProto &proto, const std::string &where);
/** x's elements in row-major order under a new shape (Ops/Shape.cpp). */
Tensor reshape_tensor(const Tensor &x, const Shape &out, const std::string &name);
/** Concat of tensors along axis, or stacked along a new axis. */
std::vector<Val> concat_for_sequence(NodeContext &ctx, const std::vector<Tensor> &ins, int64_t axis, bool new_axis);
/** Loop and Scan as update definitions (ops/Recurrence.cpp); they throw
 * RecurrenceUnsupported where the body needs what that cannot express. */
/** A Loop of `trips` iterations whose condition stays true (it throws
 * RecurrenceNeedsExitFlag if the body computes one). */
std::vector<Val> loop_as_recurrence(NodeContext &ctx, int64_t trips, const Tensor *unused = nullptr);
/** A Loop as update definitions with a real exit (RDom::loop_while): the
 * condition (cond input, then the body's) is a carried value; M known
 * (m_known >= 0), read at run time from m_tensor, or absent (both unset:
 * the loop ends only by its condition). Scan outputs must be graph outputs
 * (allocated at M rows and cropped to the trip count at run time). */
std::vector<Val> loop_with_exit(NodeContext &ctx, int64_t m_known, const Tensor *m_tensor, const Tensor *initial_cond);
std::vector<Val> scan_as_recurrence(NodeContext &ctx);
/** max or sum of x over the axes in `reduced`, kept as 1s; a root Func
 * with an update over an RDom (ops/AlongAxis.cpp). */
Tensor reduce_kept(const Tensor &x, const std::vector<bool> &reduced, bool is_max, const std::string &name);
/** A normalised axis in [0, rank) (CompileError otherwise). */
int normalize_axis(int64_t axis, int rank, const NodeContext &ctx);

}  // namespace loom::onnx::detail

#endif
