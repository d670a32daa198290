#include "lower/InjectProfiling.h"

#include <map>

#include "ir/IRMutator.h"
#include "ir/IRVisitor.h"
#include "ir/IRUtil.h"
#include "lower/ShrinkAllocations.h"
#include "loom/runtime/loom_runtime.h"

namespace loom {
namespace internal {

namespace {

const char *const kInstance = "loom.profiler.instance";

Expr instance() { return Variable::make(Handle(), kInstance); }

/** NULL: codegen passes the pipeline's user_context in its place. */
Expr null_user_context() { return Reinterpret::make(Handle(), make_zero(UInt(64))); }

Expr runtime_call(const std::string &name, const std::vector<Expr> &args) {
    return Call::make(Int(32), name, args, CallType::Extern);
}

Stmt call_stmt(const std::string &name, const std::vector<Expr> &args) {
    return Evaluate::make(runtime_call(name, args));
}

/** Whether s starts other threads: a parallel loop or a fork. */
bool starts_threads(const Stmt &s) {
    class Find : public IRVisitor {
    public:
        bool found = false;

    protected:
        using IRVisitor::visit;
        void visit(const For *op) override {
            found = found || op->for_type == ForType::Parallel;
            IRVisitor::visit(op);
        }
        void visit(const Fork *) override { found = true; }
    } find;
    s.accept(&find);
    return find.found;
}

class InjectProfiling : public IRMutator {
public:
    explicit InjectProfiling(const std::map<std::string, int> &storage_ids, const std::map<std::string, int> &func_ids)
        : storage_ids_(storage_ids), func_ids_(func_ids) {}

protected:
    using IRMutator::visit;

    Stmt visit(const For *op) override {
        // GPU kernels cannot call the profiler: their time is the Func's
        // that launches them.
        if (op->for_type == ForType::GPUBlock || op->for_type == ForType::GPUThread) return op;
        if (op->for_type != ForType::Parallel) return IRMutator::visit(op);
        // Each iteration is a task on some thread. A task with no threads of
        // its own inside (a leaf) claims the sampling token, so that one
        // thread's Funcs are sampled at a time (Halide's scheme).
        const bool leaf = !in_leaf_task_ && !starts_threads(op->body);
        const bool was_leaf = in_leaf_task_;
        in_leaf_task_ = in_leaf_task_ || leaf;
        Stmt body = mutate(op->body);
        in_leaf_task_ = was_leaf;
        body = as_task(body, leaf);
        Stmt loop = For::make(op->name, op->min, op->extent, op->for_type, op->device_api, body);
        return waiting(loop);
    }

    Stmt visit(const Fork *op) override {
        // Each branch runs on a thread of its own; neither claims the token.
        Stmt first = as_task(mutate(op->first), false);
        Stmt rest = as_task(mutate(op->rest), false);
        return waiting(Fork::make(first, rest));
    }

    Stmt visit(const ProducerConsumer *op) override {
        auto it = func_ids_.find(op->name);
        if (!op->is_producer || it == func_ids_.end()) return IRMutator::visit(op);
        const int parent = current_;
        current_ = it->second;
        Stmt body = mutate(op->body);
        current_ = parent;
        body = Block::make({set_current_func(it->second), body, set_current_func(parent)});
        return ProducerConsumer::make(op->name, op->is_producer, body);
    }

    Stmt visit(const Allocate *op) override {
        Stmt body = mutate(op->body);
        auto it = storage_ids_.find(op->name);
        if (it == storage_ids_.end()) {
            return Allocate::make(op->name, op->type, op->memory_type, op->extents, op->condition, body);
        }
        Expr bytes = make_const(UInt(64), int64_t(op->type.bytes()) * op->type.lanes());
        for (const Expr &e : op->extents) bytes = Mul::make(bytes, Cast::make(UInt(64), e));
        if (op->condition.defined()) bytes = Select::make(op->condition, bytes, make_zero(UInt(64)));
        const std::string bytes_name = op->name + ".profiled_bytes";
        Expr b = Variable::make(UInt(64), bytes_name);
        body = Block::make(call_stmt("loom_profiler_memory_allocate", {instance(), Expr(it->second), b}),
                           at_release(body, op->name,
                                      call_stmt("loom_profiler_memory_free", {instance(), Expr(it->second), b})));
        body = LetStmt::make(bytes_name, bytes, body);
        return Allocate::make(op->name, op->type, op->memory_type, op->extents, op->condition, body);
    }

private:
    /** Inside a leaf task only the holder of the token writes. */
    Stmt set_current_func(int id) const {
        if (in_leaf_task_) return call_stmt("loom_profiler_set_task_func", {instance(), Expr(id), task_token()});
        return call_stmt("loom_profiler_set_current_func", {instance(), Expr(id)});
    }

    static Expr task_token() { return Variable::make(Int(32), kTaskToken); }

    /** body as the work of one thread, in the current Func. */
    Stmt as_task(const Stmt &body, bool claim_token) const {
        Expr start = runtime_call("loom_profiler_task_start", {instance(), Expr(current_), Expr(claim_token ? 1 : 0)});
        return LetStmt::make(kTaskToken, start,
                             Block::make(body, call_stmt("loom_profiler_task_end", {instance(), task_token()})));
    }

    /** The thread that runs s waits for other threads. */
    static Stmt waiting(const Stmt &s) {
        return Block::make({call_stmt("loom_profiler_add_active_threads", {instance(), Expr(-1)}), s,
                            call_stmt("loom_profiler_add_active_threads", {instance(), Expr(1)})});
    }

    static constexpr const char *kTaskToken = "loom.profiler.task_token";
    const std::map<std::string, int> &storage_ids_;
    const std::map<std::string, int> &func_ids_;
    int current_ = 0;
    bool in_leaf_task_ = false;
};

}  // namespace

Stmt inject_profiling(const Stmt &s, const PipelineStages &pipeline, const std::string &pipeline_name) {
    // Slot 0 is the time outside every Func, then the Funcs in realization
    // order; each storage (a Tuple has one per element) counts for its Func.
    std::string names = "overhead\n";
    std::map<std::string, int> func_ids, storage_ids;
    for (const std::string &name : pipeline.order) {
        const int id = (int)func_ids.size() + 1;
        func_ids[name] = id;
        names += name + "\n";
        const FunctionContents &f = pipeline.func(name);
        for (int v = 0; v < f.outputs(); v++) storage_ids[storage_name(f, v)] = id;
    }
    const int num_funcs = (int)func_ids.size() + 1;
    Stmt body = InjectProfiling(storage_ids, func_ids).mutate(s);
    // A run that fails anywhere inside (an assertion, an allocation, a
    // task of a parallel loop...) returns through the abort, which releases
    // its record once every task has ended.
    Expr abort = runtime_call("loom_profiler_pipeline_abort", {instance()});
    body = Block::make({call_stmt("loom_profiler_pipeline_start",
                                  {null_user_context(), instance(), StringImm::make(pipeline_name),
                                   StringImm::make(names), Expr(num_funcs)}),
                        Evaluate::make(Call::make(Int(32), intrinsic::cleanup_on_failure, {abort}, CallType::Intrinsic)),
                        body, call_stmt("loom_profiler_pipeline_end", {null_user_context(), instance()})});
    return Allocate::make(kInstance, UInt(8), MemoryType::Stack, {Expr(int(LOOM_PROFILER_INSTANCE_BYTES(num_funcs)))},
                          Expr(), body);
}

}  // namespace internal
}  // namespace loom
