#include "lower/MapLoopsToGPU.h"

#include <map>
#include <set>

#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/IRVisitor.h"
#include "ir/Scope.h"
#include "lower/ExtractGPUKernels.h"
#include "lower/LoopNames.h"

namespace loom {
namespace internal {

namespace {

/** Invocations per workgroup of a mapped loop: small enough that most test
 * extents leave a partial last workgroup, so the guard is exercised. */
constexpr int kThreads = 8;

/** Whether a loop's body can be the code of one GPU thread: no parallel or
 * GPU loops, and Func storage of a constant size only (lets with constant
 * values from outside are known, others are not). */
class FitsInAThread : public IRVisitor {
public:
    FitsInAThread(const Scope<Expr> &constant_lets, const std::set<std::string> &pinned)
        : lets_(constant_lets), pinned_(pinned) {}
    bool fits = true;

protected:
    using IRVisitor::visit;
    Scope<Expr> lets_;
    std::set<std::string> realized_;  // Funcs whose storage is inside the loop
    /** hoist_storage() (the allocation may lie outside the loop) or
     * bound_storage() (a run-time check a kernel can't make). */
    const std::set<std::string> &pinned_;

    void visit(const LetStmt *op) override {
        lets_.push(op->name, op->value);
        op->body.accept(this);
        lets_.pop(op->name);
    }
    void visit(const For *op) override {
        if (op->for_type == ForType::Parallel || op->for_type == ForType::GPUBlock ||
            op->for_type == ForType::GPUThread) {
            fits = false;
            return;
        }
        IRVisitor::visit(op);
    }
    void visit(const Realize *op) override {
        if (pinned_.count(op->name)) fits = false;
        for (const Range &r : op->bounds) {
            if (!as_const_int(resolve_through_lets(r.extent, lets_)).has_value()) fits = false;
        }
        if (!fits) return;
        realized_.insert(op->name);
        op->body.accept(this);
    }
    void visit(const ProducerConsumer *op) override {
        // A Func stored outside the loop but computed inside it (store_root,
        // sliding windows, folded storage) carries values from one iteration
        // to the next.
        if (op->is_producer && !realized_.count(op->name)) fits = false;
        if (fits) op->body.accept(this);
    }
};

class MapLoops : public IRMutator {
public:
    explicit MapLoops(const PipelineStages &pipeline) {
        std::set<StageRef> fused;
        for (const FusedGroup &g : pipeline.fused_groups) {
            fused.insert(g.parent);
            fused.insert(g.children.begin(), g.children.end());
        }
        for (const auto &[func, stages] : pipeline.stages) {
            const FuncSchedule &schedule = pipeline.func(func).schedule;
            bool bounded = false;
            for (const StorageDim &d : schedule.storage_dims) bounded = bounded || d.bound.defined();
            if (!schedule.hoist_storage_level.is_inlined() || bounded) pinned_.insert(func);
            for (const Stage &stage : stages) {
                if (fused.count(StageRef{func, stage.index})) continue;
                if (stage.single_thread_device_api != DeviceAPI::None) continue;
                for (const Dim &d : stage.dims) {
                    if (!d.is_rvar) pure_loops_.insert(d.var);
                    stage_of_loop_[d.var] = stage.prefix;
                }
            }
        }
    }

protected:
    using IRMutator::visit;
    std::set<std::string> pure_loops_;
    std::set<std::string> pinned_;  // Funcs with hoist_storage() or bound_storage()
    std::map<std::string, std::string> stage_of_loop_;  // loop name -> "f.s1."
    std::set<std::string> stages_entered_;  // stages with a loop around the current node
    Scope<Expr> constant_lets_;  // enclosing lets with constant values

    bool fits_in_a_thread(const Stmt &body) const {
        FitsInAThread check(constant_lets_, pinned_);
        body.accept(&check);
        return check.fits;
    }

    Stmt visit(const LetStmt *op) override {
        Expr value = resolve_through_lets(op->value, constant_lets_);
        const bool constant = as_const_int(value).has_value();
        if (constant) constant_lets_.push(op->name, value);
        Stmt s = IRMutator::visit(op);
        if (constant) constant_lets_.pop(op->name);
        return s;
    }

    Stmt visit(const For *op) override {
        const bool serial = op->for_type == ForType::Serial;
        if (!serial && op->for_type != ForType::Parallel) {
            // GPU loops stay as they are, and so does the code inside them;
            // vectorized and unrolled loops run inside threads.
            return op;
        }
        const bool pure = pure_loops_.count(op->name) != 0;
        if (pure && fits_in_a_thread(op->body)) return split_onto_gpu(op);
        // Kernels are not launched from inside a parallel loop.
        if (!serial) return op;
        auto stage = stage_of_loop_.find(op->name);
        const bool outermost_of_stage = stage != stage_of_loop_.end() && !stages_entered_.count(stage->second);
        if (outermost_of_stage) stages_entered_.insert(stage->second);
        Stmt s = IRMutator::visit(op);
        if (outermost_of_stage) stages_entered_.erase(stage->second);
        // A stage of RVar loops only (a reduction to a scalar, a recurrence)
        // runs in one GPU thread, as gpu_single_thread() would run it.
        if (outermost_of_stage && !pure && !has_gpu_loops(s) && fits_in_a_thread(op->body)) {
            return on_one_thread(op->name, s);
        }
        return s;
    }

    static Stmt on_one_thread(const std::string &name, const Stmt &s) {
        Stmt t = For::make(name + ".__thread", 0, 1, ForType::GPUThread, DeviceAPI::Default_GPU, s);
        return For::make(name + ".__block", 0, 1, ForType::GPUBlock, DeviceAPI::Default_GPU, t);
    }

    static Stmt split_onto_gpu(const For *op) {
        const std::string block = op->name + ".__block", thread = op->name + ".__thread";
        Expr block_var = Variable::make(Int(32), block), thread_var = Variable::make(Int(32), thread);
        Expr v = Variable::make(Int(32), op->name);
        Expr index = Add::make(op->min, Add::make(Mul::make(block_var, kThreads), thread_var));
        Stmt body = IfThenElse::make(LT::make(v, Add::make(op->min, op->extent)), op->body);
        body = LetStmt::make(op->name, index, body);
        body = For::make(thread, 0, kThreads, ForType::GPUThread, DeviceAPI::Default_GPU, body);
        Expr blocks = Div::make(Add::make(op->extent, kThreads - 1), kThreads);
        return For::make(block, 0, blocks, ForType::GPUBlock, DeviceAPI::Default_GPU, body);
    }
};

}  // namespace

Stmt map_loops_to_gpu(const Stmt &s, const PipelineStages &pipeline) { return MapLoops(pipeline).mutate(s); }

}  // namespace internal
}  // namespace loom
