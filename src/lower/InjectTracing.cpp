#include "lower/InjectTracing.h"

#include <functional>
#include <map>

#include "ir/IRMutator.h"
#include "ir/IRVisitor.h"
#include "loom/Error.h"
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

bool is_undef(const Expr &e) {
    const Call *c = e.as<Call>();
    return c && c->is_intrinsic(intrinsic::undef);
}

class InjectTracing : public IRMutator {
public:
    InjectTracing(const PipelineStages &pipeline, bool trace_all) : pipeline_(pipeline), trace_all_(trace_all) {}

    /** Events of func below here have the event bound to id_name as parent
     * (an output's realization, which wraps the whole pipeline). */
    /** Whether a trace call was placed (Halide adds the pipeline's events
     * only then, or with trace_all). */
    bool touched = false;

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

    bool traces_realizations(const FunctionContents *f) const { return f && (f->trace_realizations || trace_all_); }

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
        if (!f || !(f->trace_stores || trace_all_)) return s;
        const Provide *p = s.as<Provide>();
        check_on_cpu(op->name, "trace_stores");
        std::vector<Expr> values = p->values;
        for (size_t i = 0; i < values.size(); i++) {
            if (is_undef(values[i])) continue;
            values[i] = trace_call(op->name, loom_trace_store, (int)i, "", parent_of(op->name), values[i], p->args);
            touched = true;
        }
        return Provide::make(p->name, values, p->args, p->predicate);
    }

    Expr visit(const Call *op) override {
        Expr e = IRMutator::visit(op);
        if (op->call_type != CallType::Func) return e;
        const FunctionContents *f = realized(op->name);
        if (!f || !(f->trace_loads || trace_all_)) return e;
        check_on_cpu(op->name, "trace_loads");
        const Call *c = e.as<Call>();
        touched = true;
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
    const bool trace_all_;
    std::string gpu_loop_;  // the outermost enclosing GPU loop, empty on the CPU
    std::map<std::string, std::vector<std::string>> ids_;                // func -> id variables, innermost last
    std::map<std::string, std::vector<std::vector<Expr>>> regions_;      // func -> realization regions
    int next_id_ = 0;
};

bool is_traced(const FunctionContents &f) {
    return f.trace_loads || f.trace_stores || f.trace_realizations || !f.trace_tags.empty();
}

/** Whether s reads the variable name (an output buffer's field). */
bool mentions(const Stmt &s, const std::string &name) {
    class Finder : public IRVisitor {
    public:
        explicit Finder(const std::string &n) : name_(n) {}
        bool found = false;

    protected:
        using IRVisitor::visit;
        void visit(const Variable *op) override { found = found || op->name == name_; }

    private:
        const std::string &name_;
    };
    Finder finder(name);
    s.accept(&finder);
    return finder.found;
}

/** An output Func has no Realize: its realization is the output buffer's
 * region (single-valued outputs, whose buffer fields are the symbols
 * f.min.<d> and f.extent.<d>), reported around the whole pipeline. Returns
 * the region, or nothing if f's realization is not traced or s does not
 * name those fields. */
std::vector<Expr> output_region(const FunctionContents &f, const Stmt &s, bool trace_all) {
    if (!(f.trace_realizations || trace_all) || f.outputs() != 1) return {};
    std::vector<Expr> region;
    for (int d = 0; d < f.dimensions(); d++) {
        const std::string min = f.name + ".min." + std::to_string(d);
        const std::string extent = f.name + ".extent." + std::to_string(d);
        if (!mentions(s, min) || !mentions(s, extent)) return {};
        region.push_back(Variable::make(Int(32), min));
        region.push_back(Variable::make(Int(32), extent));
    }
    return region;
}

}  // namespace

Stmt inject_tracing(const Stmt &s, const PipelineStages &pipeline, const Target &target) {
    // A traced Func that is inlined has no stores, loads or storage of its own
    // and traces nothing, as in Halide (lesson 8 of Halide's tutorial traces an
    // inlined producer to show that it prints nothing).
    const bool trace_all = target.has_feature(Target::TraceAll);
    bool any = trace_all;
    for (const auto &[name, func] : pipeline.env) any = any || is_traced(*func.get());
    if (!any) return s;
    InjectTracing injector(pipeline, trace_all);
    // The outputs' realizations wrap everything; their events parent what
    // happens to them inside.
    struct OutputRealization {
        std::string func, id;
        std::vector<Expr> region;
    };
    std::vector<OutputRealization> outputs;
    for (const FunctionPtr &output : pipeline.outputs) {
        std::vector<Expr> region = output_region(*output.get(), s, trace_all);
        if (region.empty() && output.get()->dimensions() > 0) continue;
        if (!(output.get()->trace_realizations || trace_all)) continue;
        outputs.push_back({output.get()->name, output.get()->name + ".trace_id.output", region});
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
    std::vector<Stmt> stmts;
    for (const std::string &func : pipeline.order) {
        for (const std::string &tag : pipeline.func(func).trace_tags) {
            stmts.push_back(Evaluate::make(trace_call(func, loom_trace_tag, 0, tag, pipeline_id, Expr(0), {})));
        }
    }
    if (!trace_all && !injector.touched && outputs.empty() && stmts.empty()) return s;
    stmts.push_back(body);
    stmts.push_back(Evaluate::make(trace_call(name, loom_trace_end_pipeline, 0, "", pipeline_id, Expr(0), {})));
    Expr begin = trace_call(name, loom_trace_begin_pipeline, 0, "", Expr(-1), Expr(0), {});
    return LetStmt::make(kPipelineTraceId, begin, Block::make(stmts));
}

}  // namespace internal
}  // namespace loom
