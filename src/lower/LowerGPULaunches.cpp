#include "lower/LowerGPULaunches.h"

#include <map>
#include <set>

#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/IRVisitor.h"
#include "ir/Simplify.h"
#include "loom/Error.h"
#include "lower/ExternStages.h"
#include "lower/ExtractGPUKernels.h"

namespace loom {
namespace internal {

namespace {

Expr null_handle() { return Reinterpret::make(Handle(), make_zero(UInt(64))); }

Expr buffer_of(const std::string &name) { return Variable::make(Handle(), name + ".buffer"); }

Expr vulkan_interface() {
    return Call::make(Handle(), "loom_vulkan_device_interface", {}, CallType::PureExtern);
}

Expr runtime_call(const std::string &fn, const std::vector<Expr> &args) {
    return Call::make(Int(32), fn, args, CallType::Extern);
}

Stmt set_dirty(const std::string &name, bool host, bool device) {
    return Evaluate::make(Call::make(Int(32), intrinsic::buffer_set_dirty,
                                     {buffer_of(name), make_bool(host), make_bool(device)}, CallType::Intrinsic));
}

/** Which names of `of_interest` a piece of IR loads and stores, and
 * whether it holds a launch. With stop_at_children, only the node's own
 * expressions count (not its child statements). */
class Accesses : public IRVisitor {
public:
    explicit Accesses(const std::set<std::string> &of_interest) : of_interest_(of_interest) {}
    std::set<std::string> loaded, stored;
    bool has_launch = false;
    std::set<std::string> launched;   // the kernels launched
    std::set<std::string> allocated;  // buffers allocated inside

protected:
    using IRVisitor::visit;
    const std::set<std::string> &of_interest_;
    void visit(const Load *op) override {
        if (of_interest_.count(op->name)) loaded.insert(op->name);
        IRVisitor::visit(op);
    }
    void visit(const Store *op) override {
        if (of_interest_.count(op->name)) stored.insert(op->name);
        IRVisitor::visit(op);
    }
    void visit(const Call *op) override {
        if (op->is_intrinsic(intrinsic::gpu_launch)) {
            has_launch = true;
            launched.insert(op->args[0].as<StringImm>()->value);
        }
        // An extern stage's C function (lower/ExternStages.h) reads and
        // may write, on the host, the buffers it is passed.
        if (op->is_intrinsic(intrinsic::extern_make_buffer)) host_access(op->args[0]);
        if (op->call_type == CallType::Extern && op->name.rfind("loom_", 0) != 0) {
            for (const Expr &a : op->args) host_access(a);
        }
        IRVisitor::visit(op);
    }
    void visit(const Allocate *op) override {
        allocated.insert(op->name);
        IRVisitor::visit(op);
    }
    /** A host pointer ("f") or buffer ("f.buffer") handed to C code. */
    void host_access(const Expr &e) {
        const Variable *v = e.as<Variable>();
        if (!v || !v->type.is_handle()) return;
        std::string name = v->name;
        if (name.size() > 7 && name.compare(name.size() - 7, 7, ".buffer") == 0) name.resize(name.size() - 7);
        if (!of_interest_.count(name)) return;
        loaded.insert(name);
        stored.insert(name);
    }
};

class GPULaunches : public IRMutator {
public:
    explicit GPULaunches(const std::vector<GPUKernel> &kernels) {
        for (const GPUKernel &k : kernels) {
            kernels_[k.name] = &k;
            for (const GPUKernelArgument &a : k.args) {
                if (a.is_buffer) device_touched_.insert(a.name);
            }
        }
    }

    Stmt mutate(const Stmt &s) override {
        if (!s.defined()) return s;
        Accesses a(device_touched_);
        s.accept(&a);
        if (a.has_launch) return IRMutator::mutate(s);
        return with_host_copies(s, a.loaded, a.stored);
    }

protected:
    using IRMutator::visit;
    std::map<std::string, const GPUKernel *> kernels_;
    std::set<std::string> device_touched_;
    // Buffers copied to the host around an enclosing parallel loop instead.
    std::set<std::string> hoisted_;
    int checks_ = 0;
    int launches_ = 0;

    /** s with the buffers it touches on the host copied back first and
     * marked host-dirty after if it wrote them. */
    Stmt with_host_copies(const Stmt &s, const std::set<std::string> &loaded, const std::set<std::string> &stored) {
        std::set<std::string> touched;
        for (const std::string &b : loaded) {
            if (!hoisted_.count(b)) touched.insert(b);
        }
        std::set<std::string> stored_here;
        for (const std::string &b : stored) {
            if (!hoisted_.count(b)) stored_here.insert(b);
        }
        touched.insert(stored_here.begin(), stored_here.end());
        if (touched.empty()) return s;
        std::vector<Stmt> before, after;
        for (const std::string &b : touched) before.push_back(check(runtime_call("loom_copy_to_host", {null_handle(), buffer_of(b)})));
        for (const std::string &b : stored_here) after.push_back(set_dirty(b, true, false));
        std::vector<Stmt> all = before;
        all.push_back(s);
        all.insert(all.end(), after.begin(), after.end());
        return Block::make(all);
    }

    /** Runs call; returns its nonzero result from the pipeline. */
    Stmt check(const Expr &call) {
        const std::string name = "gpu.result." + std::to_string(checks_++);
        Expr result = Variable::make(Int(32), name);
        return LetStmt::make(name, call, AssertStmt::make(EQ::make(result, 0), result));
    }

    /** A statement holding launches whose own expressions (a let's value, a
     * loop's bounds, a condition) read device-touched buffers: copy those
     * back first. */
    Stmt own_reads_first(const std::vector<Expr> &own, const Stmt &mutated) {
        Accesses a(device_touched_);
        for (const Expr &e : own) e.accept(&a);
        return with_host_copies(mutated, a.loaded, {});
    }

    Stmt visit(const LetStmt *op) override { return own_reads_first({op->value}, IRMutator::visit(op)); }
    Stmt visit(const For *op) override {
        if (op->for_type == ForType::Parallel) return own_reads_first({op->min, op->extent}, parallel_loop(op));
        return own_reads_first({op->min, op->extent}, IRMutator::visit(op));
    }

    /** A parallel loop with launches inside. Its iterations run at once, so
     * the buffers from outside it that its host code touches are copied to
     * the host once before it (and marked host-dirty once after, if
     * written), not per iteration: one iteration's copy back from the
     * device would overwrite what another already wrote on the host. Kernels
     * inside may then only read them, and only those not written on the
     * host here. */
    Stmt parallel_loop(const For *op) {
        Accesses host(device_touched_);
        op->body.accept(&host);
        std::set<std::string> read_by_kernels, written_by_kernels;
        for (const std::string &k : host.launched) {
            for (const GPUKernelArgument &a : kernels_.at(k)->args) {
                if (!a.is_buffer) continue;
                read_by_kernels.insert(a.name);
                if (a.written) written_by_kernels.insert(a.name);
            }
        }
        std::set<std::string> touched = host.loaded, stored;
        touched.insert(host.stored.begin(), host.stored.end());
        std::vector<Stmt> before, after;
        std::vector<std::string> added;
        for (const std::string &b : touched) {
            if (host.allocated.count(b) || hoisted_.count(b)) continue;  // per iteration, or done outside
            if (written_by_kernels.count(b) || (host.stored.count(b) && read_by_kernels.count(b))) {
                throw CompileError("Buffer " + b + " is used on the host and by GPU kernels inside the parallel loop " +
                                   op->name + ", and one of them writes it: the iterations would race on its host "
                                   "and device copies. Make the loop serial, or compute the Func that the kernels "
                                   "write outside the loop.");
            }
            before.push_back(check(runtime_call("loom_copy_to_host", {null_handle(), buffer_of(b)})));
            if (host.stored.count(b)) after.push_back(set_dirty(b, true, false));
            hoisted_.insert(b);
            added.push_back(b);
        }
        Stmt loop = IRMutator::visit(op);
        for (const std::string &b : added) hoisted_.erase(b);
        if (before.empty()) return loop;
        before.push_back(loop);
        before.insert(before.end(), after.begin(), after.end());
        return Block::make(before);
    }
    Stmt visit(const IfThenElse *op) override {
        return own_reads_first({op->condition}, IRMutator::visit(op));
    }
    Stmt visit(const While *op) override {
        return own_reads_first({op->condition}, IRMutator::visit(op));
    }

    Stmt visit(const Evaluate *op) override {
        const Call *c = op->value.as<Call>();
        if (!c || !c->is_intrinsic(intrinsic::gpu_launch)) return IRMutator::visit(op);
        const std::string &name = c->args[0].as<StringImm>()->value;
        const GPUKernel &k = *kernels_.at(name);
        // The block counts, each evaluated once (a let unless constant).
        Expr grid[3];
        std::vector<std::pair<std::string, Expr>> grid_lets;
        for (int d = 0; d < 3; d++) {
            grid[d] = c->args[1 + d];
            if (as_const_int(grid[d])) continue;
            const std::string var = "gpu.blocks." + std::to_string(launches_) + "." + "xyz"[d];
            grid_lets.emplace_back(var, grid[d]);
            grid[d] = Variable::make(grid[d].type(), var);
        }
        launches_++;
        std::vector<Stmt> stmts;
        stmts.push_back(check(Call::make(Int(32), intrinsic::gpu_initialize_kernel, {c->args[0]}, CallType::Intrinsic)));
        std::vector<Expr> buffers, scalars;
        uint32_t push_bytes = 0;
        size_t next_scalar = 4;
        for (const GPUKernelArgument &a : k.args) {
            if (a.is_buffer) {
                buffers.push_back(buffer_of(a.name));
                stmts.push_back(check(runtime_call("loom_copy_to_device",
                                                   {null_handle(), buffer_of(a.name), vulkan_interface()})));
            } else {
                const uint32_t size = uint32_t(a.type.bytes());
                push_bytes = (push_bytes + size - 1) / size * size + size;
                scalars.push_back(c->args.at(next_scalar++));
            }
        }
        push_bytes = (push_bytes + 3) / 4 * 4;
        Expr buffer_array = buffers.empty() ? null_handle()
                                            : Call::make(Handle(), intrinsic::make_struct, buffers, CallType::Intrinsic);
        Expr push = scalars.empty() ? null_handle()
                                    : Call::make(Handle(), intrinsic::make_struct, scalars, CallType::Intrinsic);
        Expr state = Call::make(Handle(), intrinsic::gpu_kernel_state, {c->args[0]}, CallType::Intrinsic);
        stmts.push_back(check(runtime_call(
            "loom_vulkan_run", {null_handle(), state, c->args[0], grid[0], grid[1], grid[2],
                                Expr(k.workgroup_size[0]), Expr(k.workgroup_size[1]), Expr(k.workgroup_size[2]),
                                Expr(int(buffers.size())), buffer_array, make_const(UInt(32), int64_t(push_bytes)),
                                push})));
        for (const GPUKernelArgument &a : k.args) {
            if (a.is_buffer && a.written) stmts.push_back(set_dirty(a.name, false, true));
        }
        return only_if_not_empty(Block::make(stmts), grid, grid_lets);
    }

    /** The launch, run only when every grid dimension has at least one
     * block. A nest of GPU block loops runs like the serial loops it
     * replaces: one whose extent is 0 or negative (an empty region, a
     * where() that never holds) runs no iteration, so nothing is launched,
     * copied or marked dirty, and the runtime never sees a count below 1.
     * grid holds the extents, each a constant or a variable that lets
     * (name, extent) defines around the guard. */
    static Stmt only_if_not_empty(const Stmt &launch, const Expr (&grid)[3],
                                  const std::vector<std::pair<std::string, Expr>> &lets) {
        Expr all_positive = const_true();
        for (const Expr &extent : grid) {
            if (auto n = as_const_int(extent)) {
                if (*n <= 0) return Evaluate::make(0);  // never runs
                continue;
            }
            all_positive = And::make(all_positive, GT::make(extent, make_zero(extent.type())));
        }
        if (lets.empty()) return launch;
        Stmt s = IfThenElse::make(simplify(all_positive), launch);
        for (auto it = lets.rbegin(); it != lets.rend(); ++it) s = LetStmt::make(it->first, it->second, s);
        return s;
    }

    Stmt visit(const Allocate *op) override {
        Stmt body = mutate(op->body);
        if (!device_touched_.count(op->name)) {
            return Allocate::make(op->name, op->type, op->memory_type, op->extents, op->condition, body);
        }
        Accesses host(device_touched_);
        body.accept(&host);
        // After mutation, host accesses are the loads and stores left in the body.
        const bool host_used = host.loaded.count(op->name) || host.stored.count(op->name);
        Expr elements = make_one(Int(32));
        for (const Expr &e : op->extents) elements = Mul::make(elements, e);
        Type t = op->type;
        Expr make = Call::make(Handle(), intrinsic::make_device_buffer,
                               {host_used ? Variable::make(Handle(), op->name) : null_handle(),
                                make_const(UInt(8), int64_t(t.code())), make_const(UInt(8), int64_t(t.bits())), elements},
                               CallType::Intrinsic);
        Stmt free_device = check(runtime_call("loom_device_free", {null_handle(), buffer_of(op->name)}));
        Stmt wrapped = LetStmt::make(op->name + ".buffer", make, Block::make(body, free_device));
        if (!host_used) return remove_frees(wrapped, op->name);
        return Allocate::make(op->name, op->type, op->memory_type, op->extents, op->condition, wrapped);
    }

    static Stmt remove_frees(const Stmt &s, const std::string &name) {
        struct RemoveFrees : IRMutator {
            const std::string &name;
            explicit RemoveFrees(const std::string &n) : name(n) {}
            using IRMutator::visit;
            Stmt visit(const Free *op) override { return op->name == name ? Evaluate::make(0) : Stmt(op); }
        };
        return RemoveFrees(name).mutate(s);
    }
};

}  // namespace

Stmt lower_gpu_launches(const Stmt &s, const std::vector<GPUKernel> &kernels) {
    if (kernels.empty()) return s;
    return GPULaunches(kernels).mutate(s);
}

}  // namespace internal
}  // namespace loom
