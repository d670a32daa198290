#include "lower/InjectTracing.h"

#include "ir/IRMutator.h"
#include "ir/IRVisitor.h"
#include "loom/Error.h"
#include "loom/runtime/loom_runtime.h"

namespace loom {
namespace internal {

namespace {

Expr trace_call(const std::string &func, int event, int value_index, const std::string &tag, const Expr &value,
                const std::vector<Expr> &coordinates) {
    std::vector<Expr> args = {StringImm::make(func), Expr(event), Expr(value_index), StringImm::make(tag), value};
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

protected:
    using IRMutator::visit;

    const FunctionContents *realized(const std::string &name) const {
        auto it = pipeline_.env.find(name);
        return it == pipeline_.env.end() ? nullptr : it->second.get();
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
            values[i] = trace_call(op->name, loom_trace_store, (int)i, "", values[i], p->args);
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
        return trace_call(op->name, loom_trace_load, c->value_index, "", e, c->args);
    }

    Stmt visit(const Realize *op) override {
        Stmt s = IRMutator::visit(op);
        const FunctionContents *f = realized(op->name);
        if (!f || !(f->trace_realizations || trace_all_)) return s;
        check_on_cpu(op->name, "trace_realizations");
        const Realize *r = s.as<Realize>();
        std::vector<Expr> region;
        for (const Range &range : r->bounds) {
            region.push_back(range.min);
            region.push_back(range.extent);
        }
        Stmt begin = Evaluate::make(trace_call(op->name, loom_trace_begin_realization, 0, "", Expr(0), region));
        Stmt end = Evaluate::make(trace_call(op->name, loom_trace_end_realization, 0, "", Expr(0), region));
        return Realize::make(r->name, r->types, r->memory_type, r->bounds, r->condition,
                             Block::make({begin, r->body, end}));
    }

private:
    const PipelineStages &pipeline_;
    const bool trace_all_;
    std::string gpu_loop_;  // the outermost enclosing GPU loop, empty on the CPU
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
 * region, reported around the whole pipeline (single-valued outputs, whose
 * buffer fields are the symbols f.min.<d> and f.extent.<d>). */
Stmt trace_output_realizations(Stmt s, const PipelineStages &pipeline, bool trace_all) {
    for (const FunctionPtr &output : pipeline.outputs) {
        const FunctionContents &f = *output.get();
        if (!(f.trace_realizations || trace_all) || f.outputs() != 1) continue;
        std::vector<Expr> region;
        for (int d = 0; d < f.dimensions(); d++) {
            const std::string min = f.name + ".min." + std::to_string(d);
            const std::string extent = f.name + ".extent." + std::to_string(d);
            if (!mentions(s, min) || !mentions(s, extent)) return s;
            region.push_back(Variable::make(Int(32), min));
            region.push_back(Variable::make(Int(32), extent));
        }
        Stmt begin = Evaluate::make(trace_call(f.name, loom_trace_begin_realization, 0, "", Expr(0), region));
        Stmt end = Evaluate::make(trace_call(f.name, loom_trace_end_realization, 0, "", Expr(0), region));
        s = Block::make({begin, s, end});
    }
    return s;
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
    Stmt body = trace_output_realizations(InjectTracing(pipeline, trace_all).mutate(s), pipeline, trace_all);
    // The tags, once per run, before anything else happens.
    std::vector<Stmt> stmts;
    for (const std::string &name : pipeline.order) {
        for (const std::string &tag : pipeline.func(name).trace_tags) {
            stmts.push_back(Evaluate::make(trace_call(name, loom_trace_tag, 0, tag, Expr(0), {})));
        }
    }
    if (stmts.empty()) return body;
    stmts.push_back(body);
    return Block::make(stmts);
}

}  // namespace internal
}  // namespace loom
