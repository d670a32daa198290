#include "lower/LowerAtomics.h"

#include <cstdint>
#include <string>
#include <vector>

#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "loom/Error.h"
#include "loom/IROperator.h"

namespace loom {
namespace internal {

namespace {

bool schedule_is_atomic(const StageSchedule &s) { return s.atomic; }

bool any_specialization_atomic(const std::vector<Specialization> &list) {
    for (const Specialization &sp : list) {
        if (schedule_is_atomic(sp.schedule) || any_specialization_atomic(sp.specializations)) return true;
    }
    return false;
}

bool stage_is_atomic(const FunctionContents &f, int stage) {
    const Definition &def = f.stage(stage);
    return schedule_is_atomic(def.schedule) || any_specialization_atomic(def.specializations);
}

bool schedule_uses_gpu(const StageSchedule &s) {
    if (s.single_thread_device_api != DeviceAPI::None) return true;
    for (const Dim &d : s.dims) {
        if (is_gpu_loop(d.for_type)) return true;
    }
    return false;
}

bool any_gpu_atomic(const StageSchedule &s, const std::vector<Specialization> &list) {
    if (s.atomic && schedule_uses_gpu(s)) return true;
    for (const Specialization &sp : list) {
        if (any_gpu_atomic(sp.schedule, sp.specializations)) return true;
    }
    return false;
}

/** Refuses atomic updates with GPU schedules: SPIR-V atomics are not there yet. */
void check_no_gpu_atomics(const PipelineStages &pipeline) {
    for (const auto &[name, stages] : pipeline.stages) {
        const FunctionContents &f = pipeline.func(name);
        for (int k = 1; k < f.stages(); k++) {
            const Definition &def = f.stage(k);
            if (!any_gpu_atomic(def.schedule, def.specializations)) continue;
            throw CompileError("Can't use atomic() on " + name + ".update(" + std::to_string(k - 1) +
                               ") with GPU loops: Loom's SPIR-V back end has no atomic operations yet. Run the "
                               "atomic update on the CPU (parallel/vectorize its RVar loops), or leave the GPU "
                               "schedule's RVar loops serial without atomic().");
        }
    }
}

class MarkAtomicStores : public IRMutator {
public:
    explicit MarkAtomicStores(const PipelineStages &pipeline) : pipeline_(pipeline) {}

protected:
    using IRMutator::visit;

    Stmt visit(const For *op) override {
        loops_.push_back(op);
        Stmt result = IRMutator::visit(op);
        loops_.pop_back();
        return result;
    }

    Stmt visit(const Provide *op) override {
        auto stages = pipeline_.stages.find(op->name);
        if (stages == pipeline_.stages.end()) return op;
        const FunctionContents &f = pipeline_.func(op->name);
        // The stage this Provide belongs to: the one whose loops enclose it.
        const Stage *stage = nullptr;
        for (auto it = loops_.rbegin(); it != loops_.rend() && !stage; ++it) {
            for (const Stage &st : stages->second) {
                if (st.index > 0 && starts_with((*it)->name, st.prefix)) stage = &st;
            }
        }
        if (!stage || !stage_is_atomic(f, stage->index)) return op;
        bool concurrent = false, on_gpu = false;
        const For *vectorized = nullptr;
        for (const For *loop : loops_) {
            on_gpu = on_gpu || is_gpu_loop(loop->for_type);
            if (loop->for_type == ForType::Vectorized) vectorized = loop;
            if (!starts_with(loop->name, stage->prefix)) continue;
            concurrent = concurrent || loop->for_type == ForType::Parallel || loop->for_type == ForType::Vectorized;
        }
        // In a kernel of the GPU conformance mode the RVar loops run in one
        // thread (user GPU schedules were refused above).
        if (!concurrent || on_gpu) return op;
        if (op->values.size() > 1) return lock_tuple_update(op, *stage, vectorized);
        const Expr &value = op->values[0];
        Expr marked = Call::make(value.type(), intrinsic::atomic_update, {value}, CallType::Intrinsic);
        return Provide::make(op->name, {marked}, op->args, op->predicate);
    }

    /** A Tuple update runs under the lock of its element when its values
     * read the Func (Halide's mutex): no single atomic operation writes
     * several values. One that only assigns is plain stores, as in Halide. */
    Stmt lock_tuple_update(const Provide *op, const Stage &stage, const For *vectorized) {
        bool reads_self = false;
        for (const Expr &v : op->values) reads_self = reads_self || calls_func(v, op->name);
        if (!reads_self) return op;
        if (vectorized) {
            throw CompileError("Can't vectorize the loop " + vectorized->name + " around the atomic update " +
                               stage_description(op->name, stage.index) + ": its " +
                               std::to_string(op->values.size()) + " Tuple values are updated together under a "
                               "lock of their element (as in Halide, which takes a mutex), and a vector would take "
                               "several locks at once. Parallelize the loop instead, or split the Tuple into "
                               "separate Funcs.");
        }
        // The key: the Func and the element's coordinates, hashed (FNV-1a
        // style); the runtime maps it onto a lock.
        uint64_t name_hash = 0xcbf29ce484222325ull;
        for (unsigned char c : op->name) name_hash = (name_hash ^ c) * 0x100000001b3ull;
        Expr key = make_const(UInt(64), name_hash);
        for (const Expr &arg : op->args) key = key * make_const(UInt(64), (uint64_t)0x100000001b3ull) + cast(UInt(64), arg);
        const std::string key_name = op->name + ".atomic_lock_key." + std::to_string(lock_count_++);
        Expr key_var = Variable::make(UInt(64), key_name);
        auto runtime_call = [&](const char *fn) {
            Expr null_context = Reinterpret::make(Handle(), make_zero(UInt(64)));
            return Evaluate::make(Call::make(Int(32), fn, {null_context, key_var}, CallType::Extern));
        };
        Stmt body = Block::make({runtime_call(atomic_mutex_lock_function), Stmt(op),
                                 runtime_call(atomic_mutex_unlock_function)});
        return LetStmt::make(key_name, key, body);
    }

private:
    static bool starts_with(const std::string &s, const std::string &prefix) {
        return s.compare(0, prefix.size(), prefix) == 0;
    }

    static bool calls_func(const Expr &e, const std::string &name) {
        FindFuncCalls finder;
        finder.include(e);
        for (const auto &call : finder.calls) {
            if (call.first == name) return true;
        }
        return false;
    }

    const PipelineStages &pipeline_;
    std::vector<const For *> loops_;
    int lock_count_ = 0;
};

}  // namespace

Stmt lower_atomics(const Stmt &s, const PipelineStages &pipeline) {
    check_no_gpu_atomics(pipeline);
    return MarkAtomicStores(pipeline).mutate(s);
}

}  // namespace internal
}  // namespace loom
