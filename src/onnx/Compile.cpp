// compile(): a model and concrete inputs to one Loom Pipeline; running it;
// the Session that caches compiled models by input signature; AOT output.

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "loom/Pipeline.h"

#include "GpuSchedule.h"
#include "Importer.h"

namespace loom::onnx {

using namespace detail;

namespace detail {

/** A graph input (or one element of a sequence input) the pipeline reads. */
struct InputSlot {
    std::string input;  // graph input name
    int element = -1;   // sequence element, -1 for a tensor
    ImageParam param;
    int element_type = 0;
    Shape shape;
};

/** Where one output tensor comes from. */
struct OutputTensor {
    Shape shape;
    int element_type = 0;
    int pipeline_index = -1;  // -1: no elements, nothing to compute
    // A scan output of a loop ended at run time: allocated at shape[0] rows
    // (or the value of graph input rows_input), cropped to the trip count
    // the pipeline output count_index holds.
    int count_index = -1;
    std::string rows_input;
    // No M: rows = the capacity Param; the run doubles it and runs again
    // while the pipeline output exhausted_index says the loop hit it.
    std::shared_ptr<Param<int>> capacity;
    int exhausted_index = -1;
    // Tensor::state_rows: the pipeline output is the loop's state, one row
    // more than the output's (its first row, the initial value, dropped).
    bool state_rows = false;
};

struct OutputPlan {
    std::string name;
    Value::Kind kind = Value::Kind::None;
    int element_type = 0;
    std::vector<OutputTensor> tensors;  // 1 for a tensor, n for a sequence
};

struct CompiledContents {
    Model model;
    Target target;
    std::vector<InputSlot> slots;
    std::map<std::string, Value> specialized;  // inputs compiled in by value
    std::map<std::string, Value> signature;    // kinds/types/shapes compiled for
    std::vector<OutputPlan> outputs;
    std::vector<Func> pipeline_outputs;
    Pipeline pipeline;
    std::vector<std::string> loop_notes;
    int64_t max_loop_iterations = -1;
    // Params set from scalar integer inputs before each run (Importer::scalar_input).
    std::map<std::string, std::shared_ptr<Param<int>>> scalar_inputs;

    CompiledContents() = default;
    CompiledContents(const CompiledContents &) = delete;
    CompiledContents &operator=(const CompiledContents &) = delete;
};

}  // namespace detail

namespace {

/** A dense Loom-layout buffer for a tensor Value (rank 0 as one element). */
Buffer<> loom_buffer(const Value &v) {
    if (v.tensor.dimensions() == 0 && v.tensor.defined()) return Value::from_tensor(v.tensor).tensor;
    return v.tensor;
}

bool same_signature(const Value &a, const Value &b) {
    if (a.kind != b.kind) return false;
    if (a.kind == Value::Kind::Tensor) return a.element_type == b.element_type && a.shape == b.shape;
    if (a.kind == Value::Kind::Sequence) {
        if (a.elements.size() != b.elements.size()) return false;
        for (size_t k = 0; k < a.elements.size(); k++) {
            if (!same_signature(a.elements[k], b.elements[k])) return false;
        }
    }
    return true;
}

bool same_values(const Value &a, const Value &b) {
    if (!same_signature(a, b)) return false;
    if (a.kind == Value::Kind::Sequence) {
        for (size_t k = 0; k < a.elements.size(); k++) {
            if (!same_values(a.elements[k], b.elements[k])) return false;
        }
        return true;
    }
    if (a.kind != Value::Kind::Tensor) return true;
    for (int64_t i = 0; i < a.num_elements(); i++) {
        double x = a.at(i), y = b.at(i);
        if (!(x == y || (x != x && y != y))) return false;
    }
    return true;
}

std::string signature_text(const Value &v, bool with_values) {
    std::string s = v.describe();
    if (v.kind == Value::Kind::Sequence) {
        s += "{";
        for (const Value &e : v.elements) s += signature_text(e, with_values) + ";";
        s += "}";
    }
    if (with_values && v.kind == Value::Kind::Tensor) {
        s += "=";
        for (int64_t i = 0; i < v.num_elements(); i++) s += std::to_string(v.at(i)) + ",";
    }
    return s;
}

void check_declared(const ValueInfo &info, const Value &v) {
    auto fail = [&](const std::string &why) {
        throw CompileError("ONNX input '" + info.name + "' is declared " + info.to_string() + " but was given " +
                           v.describe() + ": " + why);
    };
    bool want_tensor = info.kind == ValueInfo::Kind::Tensor;
    bool want_seq = info.kind == ValueInfo::Kind::Sequence;
    if (v.kind == Value::Kind::None && info.kind != ValueInfo::Kind::Optional) fail("only optional inputs may be none");
    if (want_tensor && v.kind != Value::Kind::Tensor) fail("a tensor is needed");
    if (want_seq && v.kind != Value::Kind::Sequence) fail("a sequence is needed");
    auto check_tensor = [&](const Value &t) {
        if (info.element_type && t.element_type != info.element_type) fail("wrong element type");
        if (!info.has_shape) return;
        if (t.shape.size() != info.shape.size()) fail("wrong rank");
        for (size_t k = 0; k < t.shape.size(); k++) {
            if (info.shape[k].value >= 0 && info.shape[k].value != t.shape[k]) fail("wrong extent of axis " + std::to_string(k));
        }
    };
    if (v.kind == Value::Kind::Tensor) check_tensor(v);
    if (v.kind == Value::Kind::Sequence) {
        for (const Value &e : v.elements) check_tensor(e);
    }
}

Tensor bind_tensor(const Value &v, const std::string &input, int element, bool specialized,
                   std::vector<InputSlot> &slots) {
    std::string name = element < 0 ? input : input + "_" + std::to_string(element);
    if (v.shape.size() > 16) throw CompileError("ONNX input '" + input + "' has rank > 16");
    if (specialized) {
        Buffer<> b = new_buffer(v.element_type, v.shape);
        size_t bytes = (size_t)v.num_elements() * b.type().bytes();
        Buffer<> src = loom_buffer(v);
        if (bytes) std::memcpy(b.raw_buffer()->host, src.raw_buffer()->host, bytes);
        return known_tensor(v.element_type, v.shape, b, name);
    }
    InputSlot slot;
    slot.input = input;
    slot.element = element;
    slot.element_type = v.element_type;
    slot.shape = v.shape;
    slot.param = ImageParam(loom_type_of(v.element_type), std::max<int>(1, (int)v.shape.size()), func_name(name));
    slots.push_back(slot);
    Tensor t = input_tensor(v.element_type, v.shape, slot.param, name);
    t.runtime_inputs = {input};
    return t;
}

OutputTensor plan_tensor(const Tensor &t, std::vector<Func> &funcs, const std::string &name, const Target &target) {
    OutputTensor o;
    o.shape = t.shape;
    o.element_type = t.element_type;
    if (t.dynamic_rows) {
        // Each scan output gets its own copies: a Func may be only one
        // output of a pipeline.
        auto copy_of = [&](const Func &f, const std::string &what) {
            Func c(func_name(name + "_" + what));
            Var s("s");
            c(s) = f(s);
            return c;
        };
        if (t.dynamic_rows->capacity) {
            o.capacity = t.dynamic_rows->capacity;
            o.exhausted_index = (int)funcs.size();
            funcs.push_back(copy_of(t.dynamic_rows->exhausted, "exhausted"));
        }
        o.count_index = (int)funcs.size();
        funcs.push_back(copy_of(t.dynamic_rows->trip_count, "trip_count"));
        o.rows_input = t.dynamic_rows->rows_input;
    } else if (num_elements(t.shape) == 0) {
        return o;
    }
    if (num_elements(t.shape) > (int64_t(1) << 31)) throw CompileError("output '" + name + "' is too large");
    if (t.state_rows) {
        o.state_rows = true;
        o.pipeline_index = (int)funcs.size();
        funcs.push_back(t.func);
        return o;
    }
    Func out(func_name(name + "_out"));
    std::vector<Var> args;
    for (int k = 0; k < std::max(1, t.rank()); k++) args.push_back(Var("o" + std::to_string(k)));
    std::vector<Expr> eargs(args.begin(), args.end());
    out(args) = t.tuple_index >= 0 ? Expr(t.func(eargs)[t.tuple_index]) : Expr(t.func(eargs));
    // The target's natural vectors along the last ONNX axis; the outermost
    // axis in parallel when its rows are long enough to pay for a task each.
    if (gpu_schedule_root(out, args, num_elements(t.shape), false)) {
        o.pipeline_index = (int)funcs.size();
        funcs.push_back(out);
        return o;
    }
    int lanes = target.natural_vector_size(loom_type_of(t.element_type));
    if (lanes > 1 && !t.shape.empty() && t.shape.back() >= 2 * lanes) out.vectorize(args[0], lanes, TailStrategy::GuardWithIf);
    if (t.rank() >= 2 && num_elements(Shape(t.shape.begin() + 1, t.shape.end())) >= 4096) out.parallel(args.back());
    o.pipeline_index = (int)funcs.size();
    funcs.push_back(out);
    return o;
}

}  // namespace

CompiledModel compile(const Model &model, const std::map<std::string, Value> &inputs, const CompileOptions &options) {
    if (!model.contents()) throw CompileError("compile: the Model is empty (use load_model)");
    auto cc = std::make_shared<CompiledContents>();
    // With vulkan in the target, the Funcs get GPU schedules (GpuSchedule.h).
    GpuScheduleScope gpu_schedules(options.target);
    cc->model = model;
    cc->target = options.target;
    cc->max_loop_iterations = options.max_loop_iterations;
    Importer importer(model.opset(), options);
    Scope scope;
    for (const ValueInfo &info : model.inputs()) {
        auto it = inputs.find(info.name);
        if (it == inputs.end()) {
            if (info.kind == ValueInfo::Kind::Optional) {
                scope.values[info.name] = Val::none(info.element_type);
                cc->signature[info.name] = Value::none();
                continue;
            }
            throw CompileError("ONNX input '" + info.name + "' (" + info.to_string() + ") is not given");
        }
        const Value &v = it->second;
        check_declared(info, v);
        cc->signature[info.name] = v;
        bool specialized = options.specialize.count(info.name) > 0;
        if (specialized) cc->specialized[info.name] = v;
        if (v.kind == Value::Kind::Tensor) {
            loom_type_of(v.element_type);
            scope.values[info.name] = Val::of(bind_tensor(v, info.name, -1, specialized, cc->slots));
        } else if (v.kind == Value::Kind::Sequence) {
            std::vector<Tensor> elements;
            for (size_t k = 0; k < v.elements.size(); k++)
                elements.push_back(bind_tensor(v.elements[k], info.name, (int)k, specialized, cc->slots));
            scope.values[info.name] = Val::sequence(v.element_type ? v.element_type : info.element_type, elements);
        } else {
            scope.values[info.name] = Val::none(info.element_type);
        }
    }
    const auto &graph = model.contents()->proto.graph();
    importer.set_top_graph(&graph, &scope);
    importer.run_graph(graph, scope);
    for (const ValueInfo &info : model.outputs()) {
        const Val *v = scope.find(info.name);
        if (!v || v->kind == Val::Kind::Missing)
            throw CompileError("ONNX graph output '" + info.name + "' is never computed by the graph");
        OutputPlan plan;
        plan.name = info.name;
        plan.element_type = v->element_type ? v->element_type : info.element_type;
        if (v->kind == Val::Kind::Tensor) {
            plan.kind = Value::Kind::Tensor;
            plan.tensors.push_back(plan_tensor(v->tensor, cc->pipeline_outputs, info.name, options.target));
        } else if (v->kind == Val::Kind::Sequence) {
            plan.kind = Value::Kind::Sequence;
            for (const Tensor &t : v->elements)
                plan.tensors.push_back(plan_tensor(t, cc->pipeline_outputs, info.name, options.target));
        }
        cc->outputs.push_back(plan);
    }
    cc->loop_notes = importer.notes();
    for (const std::string &line : gpu_schedules.notes()) cc->loop_notes.push_back(line);
    cc->scalar_inputs = importer.scalar_inputs();
    if (!cc->pipeline_outputs.empty()) {
        cc->pipeline = Pipeline(cc->pipeline_outputs);
        cc->pipeline.compile_jit(options.target);
    }
    CompiledModel m;
    m.contents_ = cc;
    return m;
}

std::vector<Value> CompiledModel::run(const std::map<std::string, Value> &inputs) const {
    if (!contents_) throw RuntimeError("run: the CompiledModel is empty");
    const CompiledContents &cc = *contents_;
    for (const auto &[name, compiled] : cc.signature) {
        auto it = inputs.find(name);
        if (it == inputs.end()) {
            if (compiled.kind == Value::Kind::None) continue;
            throw RuntimeError("ONNX input '" + name + "' is missing");
        }
        if (!same_signature(it->second, compiled))
            throw RuntimeError("ONNX input '" + name + "' is " + signature_text(it->second, false) +
                               " but the model was compiled for " + signature_text(compiled, false) +
                               " (compile again for these shapes, or use a Session)");
        auto sp = cc.specialized.find(name);
        if (sp != cc.specialized.end() && !same_values(it->second, sp->second))
            throw RuntimeError("ONNX input '" + name + "' has other values than the ones compiled in (" +
                               signature_text(sp->second, true) + "); use a Session, which recompiles");
    }
    for (const InputSlot &slot : cc.slots) {
        const Value &v = inputs.at(slot.input);
        const Value &t = slot.element < 0 ? v : v.elements[slot.element];
        Buffer<> b = loom_buffer(t);
        // Inputs are host data, perhaps changed in place since the last run:
        // kernels read them from a fresh device copy.
        if (cc.target.has_feature(Target::Vulkan)) {
            if (b.device_dirty()) b.copy_to_host();
            b.set_host_dirty();
        }
        ImageParam param = slot.param;
        param.set(b);
    }
    for (const auto &[name, param] : cc.scalar_inputs) {
        const Value &v = inputs.at(name);
        param->set((int)std::clamp<int64_t>(v.num_elements() ? (int64_t)v.at(0) : 0, 0, INT32_MAX - 1));
    }
    // Buffers in pipeline-output order: the exhausted flag and the trip
    // count of dynamic rows come just before their scan output. A loop with
    // no M runs again with twice the capacity while it stopped at the
    // capacity (the rows allocated stay within twice the rows kept).
    std::vector<Buffer<>> buffers;
    std::vector<Shape> shapes;  // of each output tensor, rows as allocated
    for (int attempt = 0;; attempt++) {
    buffers.clear();
    shapes.clear();
    for (const OutputPlan &plan : cc.outputs) {
        for (const OutputTensor &o : plan.tensors) {
            Shape shape = o.shape;
            if (o.capacity) {
                if (attempt == 0) o.capacity->set(16);
                shape[0] = o.capacity->get();
            }
            if (!o.rows_input.empty()) {
                const Value &m = inputs.at(o.rows_input);
                shape[0] = std::clamp<int64_t>(m.num_elements() ? (int64_t)m.at(0) : 0, 0, int64_t(1) << 30);
                if (num_elements(shape) > (int64_t(1) << 31))
                    throw RuntimeError("ONNX output '" + plan.name + "' would have " + std::to_string(shape[0]) +
                                       " rows, too many to allocate");
            }
            shapes.push_back(shape);
            if (o.exhausted_index >= 0) buffers.push_back(new_buffer(Int32, {1}));
            if (o.count_index >= 0) buffers.push_back(new_buffer(Int32, {1}));
            if (o.pipeline_index >= 0) {
                // The pipeline writes every element of its outputs (a state
                // written in place: every row up to the trip count, and the
                // rows after it are cropped away below), so no zeroing.
                Shape allocated = shape;
                if (o.state_rows) allocated[0]++;
                buffers.push_back(new_uninitialized_buffer(o.element_type, allocated));
            }
        }
    }
    if (!buffers.empty()) {
        Realization r(buffers);
        const_cast<Pipeline &>(cc.pipeline).realize(r, cc.target);
    }
    bool again = false;
    size_t at = 0;
    std::set<Param<int> *> doubled;  // scan outputs of one loop share it
    for (const OutputPlan &plan : cc.outputs) {
        for (const OutputTensor &o : plan.tensors) {
            bool capped = cc.max_loop_iterations >= 0 && o.capacity && o.capacity->get() >= cc.max_loop_iterations;
            if (o.exhausted_index >= 0 && !capped && buffer_int(buffers[at], 0) && doubled.insert(o.capacity.get()).second) {
                if (o.capacity->get() >= (1 << 29)) throw RuntimeError("ONNX output '" + plan.name + "': the loop did not end within 2^29 iterations");
                o.capacity->set(o.capacity->get() * 2);
                again = true;
            }
            at += (o.exhausted_index >= 0) + (o.count_index >= 0) + (o.pipeline_index >= 0);
        }
    }
    if (!again) break;
    }
    for (const InputSlot &slot : cc.slots) {
        ImageParam param = slot.param;
        param.reset();
    }
    std::vector<Value> results;
    size_t next = 0, shape_index = 0;
    for (const OutputPlan &plan : cc.outputs) {
        std::vector<Value> tensors;
        for (const OutputTensor &o : plan.tensors) {
            Shape shape = shapes[shape_index++];
            int64_t rows = -1;
            if (o.exhausted_index >= 0) next++;
            if (o.count_index >= 0) rows = std::clamp<int64_t>(buffer_int(buffers[next++], 0), 0, shape[0]);
            Buffer<> b = o.pipeline_index >= 0 ? buffers[next++] : new_buffer(o.element_type, shape);
            if (o.state_rows) {
                // Rows 1.. of the state, renumbered from 0 (a view: no copy).
                const int row_dim = b.dimensions() - 1;
                b = b.cropped(row_dim, 1, (int)shape[0]).translated(row_dim, -1);
            }
            if (rows >= 0 && rows != shape[0]) {
                // Keep the rows the loop computed: a dense prefix, as axis 0
                // is outermost.
                Shape kept = shape;
                kept[0] = rows;
                Buffer<> cropped = new_buffer(o.element_type, kept);
                size_t bytes = (size_t)num_elements(kept) * cropped.type().bytes();
                if (bytes) std::memcpy(cropped.raw_buffer()->host, b.raw_buffer()->host, bytes);
                b = cropped;
                shape = kept;
            }
            Value t = Value::from_buffer(b, shape);
            t.element_type = o.element_type;
            tensors.push_back(t);
        }
        Value v;
        if (plan.kind == Value::Kind::Tensor) v = tensors[0];
        if (plan.kind == Value::Kind::Sequence) v = Value::sequence_of(plan.element_type, tensors);
        if (plan.kind == Value::Kind::None) v = Value::none();
        v.name = plan.name;
        results.push_back(v);
    }
    return results;
}

void CompiledModel::print_loop_nest() const {
    if (contents_ && contents_->pipeline.defined()) const_cast<Pipeline &>(contents_->pipeline).print_loop_nest();
}

std::vector<std::string> CompiledModel::loop_notes() const { return contents_->loop_notes; }

std::vector<std::string> CompiledModel::argument_names() const {
    std::vector<std::string> names;
    for (const InputSlot &s : contents_->slots) names.push_back(s.param.name());
    for (const auto &[input, param] : contents_->scalar_inputs) names.push_back(param->name());
    for (const Func &f : contents_->pipeline_outputs) names.push_back(f.name());
    return names;
}

void CompiledModel::compile_to_static_library(const std::string &dir, const std::string &name,
                                              const Target &target) const {
    const CompiledContents &cc = *contents_;
    for (const OutputPlan &plan : cc.outputs) {
        for (const OutputTensor &o : plan.tensors) {
            if (o.pipeline_index < 0)
                throw CompileError("compile_to_static_library: output '" + plan.name +
                                   "' has no elements; a C function cannot return it");
        }
        if (plan.kind == Value::Kind::None)
            throw CompileError("compile_to_static_library: output '" + plan.name + "' is none");
    }
    if (!cc.pipeline.defined()) throw CompileError("compile_to_static_library: the model computes nothing");
    std::filesystem::create_directories(dir);
    std::vector<Argument> args;
    for (const InputSlot &s : cc.slots) args.push_back(Argument(s.param));
    // The value of a trip count input again, as an int (Importer::scalar_input).
    for (const auto &[input, param] : cc.scalar_inputs) args.push_back(Argument(*param));
    const_cast<Pipeline &>(cc.pipeline).compile_to_static_library(dir + "/" + name, args, name, target);
}

Session::Session(Model model, CompileOptions options) : model_(std::move(model)), options_(std::move(options)) {}

const CompiledModel &Session::compiled_for(const std::map<std::string, Value> &inputs) {
    auto key_of = [&] {
        std::string key;
        for (const auto &[name, v] : inputs) key += name + ":" + signature_text(v, options_.specialize.count(name) > 0) + "|";
        return key;
    };
    auto it = cache_.find(key_of());
    if (it != cache_.end()) return it->second;
    for (int attempt = 0;; attempt++) {
        try {
            CompiledModel m = compile(model_, inputs, options_);
            compilations_++;
            return cache_[key_of()] = m;
        } catch (const NeedsInputValues &e) {
            size_t before = options_.specialize.size();
            for (const auto &n : e.inputs) {
                if (inputs.count(n)) options_.specialize.insert(n);
            }
            if (options_.specialize.size() == before || attempt > 16) throw CompileError(e.what());
            auto again = cache_.find(key_of());
            if (again != cache_.end()) return again->second;
        }
    }
}

std::vector<Value> Session::run(const std::map<std::string, Value> &inputs) { return compiled_for(inputs).run(inputs); }

}  // namespace loom::onnx
