#include "lower/InjectProfiling.h"

#include <map>

#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "loom/runtime/loom_runtime.h"

namespace loom {
namespace internal {

namespace {

const char *const kInstance = "loom.profiler.instance";

Expr instance() { return Variable::make(Handle(), kInstance); }

/** NULL: codegen passes the pipeline's user_context in its place. */
Expr null_user_context() { return Reinterpret::make(Handle(), make_zero(UInt(64))); }

Stmt runtime_call(const std::string &name, const std::vector<Expr> &args) {
    return Evaluate::make(Call::make(Int(32), name, args, CallType::Extern));
}

class InjectProfiling : public IRMutator {
public:
    explicit InjectProfiling(const std::map<std::string, int> &storage_ids, const std::map<std::string, int> &func_ids)
        : storage_ids_(storage_ids), func_ids_(func_ids) {}

protected:
    using IRMutator::visit;

    Stmt visit(const For *op) override {
        // Worker threads (parallel loops) and GPU kernels do not switch the
        // current Func; their time is the enclosing Func's.
        const bool threaded = op->for_type == ForType::Parallel || op->for_type == ForType::GPUBlock ||
                              op->for_type == ForType::GPUThread;
        if (op->for_type == ForType::GPUBlock || op->for_type == ForType::GPUThread) return op;
        const bool was = in_threads_;
        in_threads_ = in_threads_ || threaded;
        Stmt result = IRMutator::visit(op);
        in_threads_ = was;
        return result;
    }

    Stmt visit(const ProducerConsumer *op) override {
        auto it = func_ids_.find(op->name);
        if (!op->is_producer || in_threads_ || it == func_ids_.end()) return IRMutator::visit(op);
        const int parent = current_;
        current_ = it->second;
        Stmt body = mutate(op->body);
        current_ = parent;
        body = Block::make({runtime_call("loom_profiler_set_current_func", {instance(), Expr(it->second)}), body,
                            runtime_call("loom_profiler_set_current_func", {instance(), Expr(parent)})});
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
        body = Block::make({runtime_call("loom_profiler_memory_allocate", {instance(), Expr(it->second), b}), body,
                            runtime_call("loom_profiler_memory_free", {instance(), Expr(it->second), b})});
        body = LetStmt::make(bytes_name, bytes, body);
        return Allocate::make(op->name, op->type, op->memory_type, op->extents, op->condition, body);
    }

private:
    const std::map<std::string, int> &storage_ids_;
    const std::map<std::string, int> &func_ids_;
    int current_ = 0;
    bool in_threads_ = false;
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
    body = Block::make({runtime_call("loom_profiler_pipeline_start",
                                     {null_user_context(), instance(), StringImm::make(pipeline_name),
                                      StringImm::make(names), Expr(num_funcs)}),
                        body, runtime_call("loom_profiler_pipeline_end", {null_user_context(), instance()})});
    return Allocate::make(kInstance, UInt(8), MemoryType::Stack, {Expr(int(LOOM_PROFILER_INSTANCE_BYTES(num_funcs)))},
                          Expr(), body);
}

}  // namespace internal
}  // namespace loom
