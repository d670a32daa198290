#include "lower/InjectTracing.h"

#include <functional>
#include <map>
#include <set>

#include "ir/Bounds.h"
#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/IRVisitor.h"
#include "ir/NamesBound.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "loom/Error.h"
#include "loom/IROperator.h"
#include "loom/runtime/loom_runtime.h"

namespace loom {
namespace internal {

namespace {

/** The id variable of the pipeline's Begin pipeline event, the parent of
 * every event not inside a traced realization. */
const char *const kPipelineTraceId = "loom.pipeline.trace_id";

Expr trace_call(const std::string &func, int event, int value_index, const std::string &tag, const Expr &parent_id,
                const Expr &value, const std::vector<Expr> &coordinates) {
    std::vector<Expr> args = {StringImm::make(func), Expr(event), Expr(value_index), StringImm::make(tag), parent_id,
                              value};
    args.insert(args.end(), coordinates.begin(), coordinates.end());
    return Call::make(value.type(), intrinsic::trace, args, CallType::Intrinsic);
}

/** What the target's features trace in every Func (Halide's trace_loads,
 * trace_stores, trace_realizations and trace_pipeline; Loom's trace_all is
 * all four). As in Halide, tracing loads or stores also traces the
 * realizations, which give the loads and stores their parent ids. */
struct TraceEverything {
    bool loads = false, stores = false, realizations = false, pipeline = false;
    static TraceEverything of(const Target &t) {
        const bool all = t.has_feature(Target::TraceAll);
        TraceEverything e;
        e.loads = all || t.has_feature(Target::TraceLoads);
        e.stores = all || t.has_feature(Target::TraceStores);
        e.realizations = e.loads || e.stores || t.has_feature(Target::TraceRealizations);
        e.pipeline = all || t.has_feature(Target::TracePipeline);
        return e;
    }
};

class InjectTracing : public IRMutator {
public:
    InjectTracing(const PipelineStages &pipeline, const TraceEverything &all) : pipeline_(pipeline), all_(all) {}

    /** Events of func below here have the event bound to id_name as parent
     * (an output's realization, which wraps the whole pipeline). */
    /** Whether a trace call was placed (Halide adds the pipeline's events
     * only then, or with trace_all). */
    bool touched = false;

    /** The Funcs and input buffers whose loads, stores or realizations are
     * traced, with their value types (Halide's func_type_and_dim tags). */
    std::map<std::string, std::vector<Type>> touched_types;
    /** The input buffers read here whose ImageParam has trace tags. */
    std::map<std::string, std::vector<std::string>> input_tags;

    void touch(const std::string &name, int value_index, Type type) {
        std::vector<Type> &types = touched_types[name];
        if ((int)types.size() <= value_index) types.resize(value_index + 1, type);
        types[value_index] = type.element_of();
    }

    void enter(const std::string &func, const std::string &id_name, const std::vector<Expr> &region) {
        ids_[func].push_back(id_name);
        regions_[func].push_back(region);
    }

protected:
    using IRMutator::visit;

    const FunctionContents *realized(const std::string &name) const {
        auto it = pipeline_.env.find(name);
        return it == pipeline_.env.end() ? nullptr : it->second.get();
    }

    bool traces_realizations(const FunctionContents *f) const {
        return f && (f->trace_realizations || all_.realizations);
    }

    /** The id of the innermost traced realization, produce or consume of
     * func around here; else the pipeline's. */
    Expr parent_of(const std::string &func) const {
        auto it = ids_.find(func);
        const std::string &name = it == ids_.end() || it->second.empty() ? kPipelineTraceId : it->second.back();
        return Variable::make(Int(32), name);
    }

    /** The trace of func about to be placed: refused inside a GPU loop. */
    void check_on_cpu(const std::string &func, const char *what) const {
        if (gpu_loop_.empty()) return;
        throw CompileError("Func " + func + " is traced (" + what + ") inside the GPU loop " + gpu_loop_ +
                           ", and GPU kernels cannot call the trace handler. Compute " + func +
                           " on the CPU, or remove the trace.");
    }
    void check_input_on_cpu(const std::string &input) const {
        if (gpu_loop_.empty()) return;
        throw CompileError("The input buffer " + input + " is traced (the target's trace_loads or trace_all) "
                           "inside the GPU loop " + gpu_loop_ + ", and GPU kernels cannot call the trace "
                           "handler. Compute the Funcs that read " + input + " on the CPU, or remove the "
                           "target feature.");
    }

    Stmt visit(const For *op) override {
        if (op->for_type != ForType::GPUBlock && op->for_type != ForType::GPUThread) return IRMutator::visit(op);
        std::string outer = gpu_loop_;
        if (gpu_loop_.empty()) gpu_loop_ = op->name;
        Stmt result = IRMutator::visit(op);
        gpu_loop_ = outer;
        return result;
    }

    Stmt visit(const Provide *op) override {
        Stmt s = IRMutator::visit(op);
        const FunctionContents *f = realized(op->name);
        if (!f || !(f->trace_stores || all_.stores)) return s;
        const Provide *p = s.as<Provide>();
        check_on_cpu(op->name, "trace_stores");
        std::vector<Expr> values = p->values;
        for (size_t i = 0; i < values.size(); i++) {
            if (is_undef(values[i])) continue;
            touch(op->name, (int)i, values[i].type());
            values[i] = trace_call(op->name, loom_trace_store, (int)i, "", parent_of(op->name), values[i], p->args);
            touched = true;
        }
        return Provide::make(p->name, values, p->args, p->predicate);
    }

    Expr visit(const Call *op) override {
        Expr e = IRMutator::visit(op);
        if (op->call_type == CallType::Image && op->param.defined() && !op->param.get()->trace_tags.empty()) {
            input_tags[op->name] = op->param.get()->trace_tags;
        }
        const bool traced_input = op->param.defined() && op->param.get()->trace_loads;
        if (op->call_type == CallType::Image && (all_.loads || traced_input)) {
            // ImageParam::trace_loads(), and the target's trace_loads (and
            // trace_all), trace the loads of input buffers, parented by the
            // pipeline, as in Halide.
            check_input_on_cpu(op->name);
            const Call *c = e.as<Call>();
            touched = true;
            touch(op->name, 0, op->type);
            return trace_call(op->name, loom_trace_load, 0, "", Variable::make(Int(32), kPipelineTraceId), e,
                              c->args);
        }
        if (op->call_type != CallType::Func) return e;
        const FunctionContents *f = realized(op->name);
        if (!f || !(f->trace_loads || all_.loads)) return e;
        check_on_cpu(op->name, "trace_loads");
        const Call *c = e.as<Call>();
        touched = true;
        touch(op->name, c->value_index, op->type);
        return trace_call(op->name, loom_trace_load, c->value_index, "", parent_of(op->name), e, c->args);
    }

    /** begin; S; end, with S's events of func parented by begin's id:
     *     let <id> = trace(func, begin, parent) in { S; trace(func, end, <id>) } */
    Stmt bracket(const std::string &func, int begin_event, int end_event, const std::vector<Expr> &region,
                 const std::function<Stmt()> &body) {
        const std::string id = func + ".trace_id." + std::to_string(next_id_++);
        touched = true;
        Expr begin = trace_call(func, begin_event, 0, "", parent_of(func), Expr(0), region);
        enter(func, id, region);
        Stmt inside = body();
        ids_[func].pop_back();
        regions_[func].pop_back();
        Stmt end = Evaluate::make(trace_call(func, end_event, 0, "", Variable::make(Int(32), id), Expr(0), region));
        return LetStmt::make(id, begin, Block::make(inside, end));
    }

    Stmt visit(const Realize *op) override {
        const FunctionContents *f = realized(op->name);
        if (!traces_realizations(f)) return IRMutator::visit(op);
        check_on_cpu(op->name, "trace_realizations");
        for (size_t i = 0; i < op->types.size(); i++) touch(op->name, (int)i, op->types[i]);
        std::vector<Expr> region;
        for (const Range &range : op->bounds) {
            region.push_back(range.min);
            region.push_back(range.extent);
        }
        Stmt body = bracket(op->name, loom_trace_begin_realization, loom_trace_end_realization, region,
                            [&] { return mutate(op->body); });
        return Realize::make(op->name, op->types, op->memory_type, op->bounds, op->condition, body);
    }

    /** Produce / End produce and Consume / End consume, with the region of
     * the realization they belong to, as in Halide. */
    Stmt visit(const ProducerConsumer *op) override {
        const FunctionContents *f = realized(op->name);
        if (!traces_realizations(f)) return IRMutator::visit(op);
        check_on_cpu(op->name, "trace_realizations");
        auto r = regions_.find(op->name);
        const std::vector<Expr> region = r == regions_.end() || r->second.empty() ? std::vector<Expr>()
                                                                                   : r->second.back();
        Stmt body = bracket(op->name, op->is_producer ? loom_trace_produce : loom_trace_consume,
                            op->is_producer ? loom_trace_end_produce : loom_trace_end_consume, region,
                            [&] { return mutate(op->body); });
        return ProducerConsumer::make(op->name, op->is_producer, body);
    }

private:
    const PipelineStages &pipeline_;
    const TraceEverything all_;
    std::string gpu_loop_;  // the outermost enclosing GPU loop, empty on the CPU
    std::map<std::string, std::vector<std::string>> ids_;                // func -> id variables, innermost last
    std::map<std::string, std::vector<std::vector<Expr>>> regions_;      // func -> realization regions
    int next_id_ = 0;
};

bool is_traced(const FunctionContents &f) {
    return f.trace_loads || f.trace_stores || f.trace_realizations || !f.trace_tags.empty();
}

/** Whether s reads an input whose ImageParam is traced (trace_loads() or
 * add_trace_tag()). */
bool reads_a_traced_input(const Stmt &s) {
    class Finder : public IRVisitor {
    public:
        bool found = false;

    protected:
        using IRVisitor::visit;
        void visit(const Call *op) override {
            const ParameterContents *p = op->param.defined() ? op->param.get() : nullptr;
            if (op->call_type == CallType::Image && p && (p->trace_loads || !p->trace_tags.empty())) found = true;
            IRVisitor::visit(op);
        }
    };
    Finder finder;
    s.accept(&finder);
    return finder.found;
}

/** An output Func has no Realize: its realization is the output buffer's
 * region (single-valued outputs, whose buffer fields are the symbols
 * f.min.<d> and f.extent.<d>), reported around the whole pipeline. Returns
 * the region, or nothing if f's realization is not traced or s does not
 * name those fields. */
std::vector<Expr> output_region(const FunctionContents &f, const Stmt &s, bool trace_all_realizations) {
    if (!(f.trace_realizations || trace_all_realizations) || f.outputs() != 1) return {};
    std::vector<Expr> region;
    for (int d = 0; d < f.dimensions(); d++) {
        const std::string min = f.name + ".min." + std::to_string(d);
        const std::string extent = f.name + ".extent." + std::to_string(d);
        if (!stmt_uses_var(s, min) || !stmt_uses_var(s, extent)) return {};
        region.push_back(Variable::make(Int(32), min));
        region.push_back(Variable::make(Int(32), extent));
    }
    return region;
}

/** Whether e reads one of names. */
bool reads_any(const Expr &e, const std::set<std::string> &names) {
    class Reads : public IRVisitor {
    public:
        explicit Reads(const std::set<std::string> &n) : names_(n) {}
        bool found = false;

    protected:
        using IRVisitor::visit;
        void visit(const Variable *op) override { found = found || names_.count(op->name); }

    private:
        const std::set<std::string> &names_;
    };
    Reads reads(names);
    e.accept(&reads);
    return reads.found;
}

/** Halide's "func_type_and_dim:" tag of each traced Func and input buffer,
 * producers first (input buffers, then the Funcs in realization order), as
 * a tool that lays out trace events (Halide's HalideTraceViz) expects:
 *     func_type_and_dim: <types> (<code> <bits> <lanes>)... <dims> (<min> <extent>)...
 * The box is the region the pipeline touches, evaluated when it starts; a
 * dimension whose bounds Loom cannot state there is reported as 0 0, as in
 * Halide. The numbers travel as the tag event's coordinates, which the back
 * ends append to the tag text. */
std::vector<Stmt> type_and_dim_tags(const Stmt &body, const std::map<std::string, std::vector<Type>> &touched,
                                    const PipelineStages &pipeline, const Expr &pipeline_id) {
    if (touched.empty()) return {};
    std::vector<std::string> order;
    for (const auto &[name, types] : touched) {
        if (!pipeline.env.count(name)) order.push_back(name);  // input buffers
    }
    for (const std::string &name : pipeline.order) {
        if (touched.count(name)) order.push_back(name);
    }
    auto wanted = [&](const std::string &name) { return touched.count(name) > 0; };
    std::map<std::string, Box> boxes = boxes_required(body, Scope<Interval>(), wanted);
    for (const auto &[name, box] : boxes_provided(body, Scope<Interval>(), wanted)) merge_boxes(boxes[name], box);
    const std::set<std::string> bound_inside = names_bound_in(body);
    std::vector<Stmt> tags;
    for (const std::string &name : order) {
        const std::vector<Type> &types = touched.at(name);
        std::vector<Expr> numbers = {Expr((int)types.size())};
        for (const Type &t : types) {
            const int code = t.is_int() ? loom_type_int : t.is_uint() || t.is_bool() ? loom_type_uint
                             : t.is_bfloat()                                      ? loom_type_bfloat
                             : t.is_float()                                       ? loom_type_float
                                                                                  : loom_type_handle;
            numbers.insert(numbers.end(), {Expr(code), Expr(t.bits()), Expr(t.lanes())});
        }
        int dims = 0;
        auto f = pipeline.env.find(name);
        const Box &box = boxes[name];
        dims = f != pipeline.env.end() ? f->second.get()->dimensions() : (int)box.size();
        numbers.push_back(Expr(dims));
        for (int d = 0; d < dims; d++) {
            const Interval i = d < (int)box.size() ? box[d] : Interval::everything();
            const bool known = i.is_bounded() && !reads_any(i.min, bound_inside) && !reads_any(i.max, bound_inside);
            Expr min = known ? simplify(cast(Int(32), i.min)) : Expr(0);
            Expr extent = known ? simplify(cast(Int(32), i.max - i.min + 1)) : Expr(0);
            numbers.insert(numbers.end(), {min, extent});
        }
        tags.push_back(Evaluate::make(
            trace_call(name, loom_trace_tag, 0, "func_type_and_dim:", pipeline_id, Expr(0), numbers)));
    }
    return tags;
}

}  // namespace

Stmt inject_tracing(const Stmt &s, const PipelineStages &pipeline, const Target &target) {
    // A traced Func that is inlined has no stores, loads or storage of its own
    // and traces nothing, as in Halide (lesson 8 of Halide's tutorial traces an
    // inlined producer to show that it prints nothing).
    const TraceEverything all = TraceEverything::of(target);
    bool any = all.loads || all.stores || all.realizations || all.pipeline;
    for (const auto &[name, func] : pipeline.env) any = any || is_traced(*func.get());
    if (!any && !reads_a_traced_input(s)) return s;
    InjectTracing injector(pipeline, all);
    // The outputs' realizations wrap everything; their events parent what
    // happens to them inside.
    struct OutputRealization {
        std::string func, id;
        std::vector<Expr> region;
    };
    std::vector<OutputRealization> outputs;
    for (const FunctionPtr &output : pipeline.outputs) {
        std::vector<Expr> region = output_region(*output.get(), s, all.realizations);
        if (region.empty() && output.get()->dimensions() > 0) continue;
        if (!(output.get()->trace_realizations || all.realizations)) continue;
        outputs.push_back({output.get()->name, output.get()->name + ".trace_id.output", region});
        for (int i = 0; i < output.get()->outputs(); i++) {
            injector.touch(output.get()->name, i, output.get()->output_types[i]);
        }
        injector.enter(outputs.back().func, outputs.back().id, region);
    }
    Stmt body = injector.mutate(s);
    const Expr pipeline_id = Variable::make(Int(32), kPipelineTraceId);
    for (auto it = outputs.rbegin(); it != outputs.rend(); ++it) {
        Expr begin = trace_call(it->func, loom_trace_begin_realization, 0, "", pipeline_id, Expr(0), it->region);
        Stmt end = Evaluate::make(trace_call(it->func, loom_trace_end_realization, 0, "",
                                             Variable::make(Int(32), it->id), Expr(0), it->region));
        body = LetStmt::make(it->id, begin, Block::make(body, end));
    }
    // Begin pipeline; the tags, once per run, before anything else happens;
    // the pipeline; End pipeline. As in Halide, the pipeline's events carry
    // the name of its first output.
    const std::string name = pipeline.outputs.empty() ? "" : pipeline.outputs[0].get()->name;
    std::vector<Stmt> stmts = type_and_dim_tags(body, injector.touched_types, pipeline, pipeline_id);
    for (const auto &[input, tags] : injector.input_tags) {
        for (const std::string &tag : tags) {
            stmts.push_back(Evaluate::make(trace_call(input, loom_trace_tag, 0, tag, pipeline_id, Expr(0), {})));
        }
    }
    for (const std::string &func : pipeline.order) {
        for (const std::string &tag : pipeline.func(func).trace_tags) {
            stmts.push_back(Evaluate::make(trace_call(func, loom_trace_tag, 0, tag, pipeline_id, Expr(0), {})));
        }
    }
    if (!all.pipeline && !injector.touched && outputs.empty() && stmts.empty()) return s;
    stmts.push_back(body);
    stmts.push_back(Evaluate::make(trace_call(name, loom_trace_end_pipeline, 0, "", pipeline_id, Expr(0), {})));
    Expr begin = trace_call(name, loom_trace_begin_pipeline, 0, "", Expr(-1), Expr(0), {});
    return LetStmt::make(kPipelineTraceId, begin, Block::make(stmts));
}

}  // namespace internal
}  // namespace loom
