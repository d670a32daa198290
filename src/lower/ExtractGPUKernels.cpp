#include "lower/ExtractGPUKernels.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "ir/IRMutator.h"
#include "ir/IRPrinter.h"
#include "ir/IRUtil.h"
#include "ir/IRVisitor.h"
#include "ir/Scope.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "loom/Error.h"
#include "lower/LoopNames.h"

namespace loom {
namespace internal {

namespace {


Expr gpu_index(const char *which, int dim) {
    return Call::make(Int(32), which, {Expr(dim)}, CallType::PureIntrinsic);
}

class HasGPULoops : public IRVisitor {
public:
    bool found = false;

protected:
    using IRVisitor::visit;
    void visit(const For *op) override {
        if (is_gpu_loop(op->for_type)) {
            found = true;
            return;
        }
        IRVisitor::visit(op);
    }
};

std::string gpu_word(ForType t) { return t == ForType::GPUBlock ? "GPU block loop" : "GPU thread loop"; }

/** Checks the loop's API against the target. */
void check_device_api(const For *op, const Target &target) {
    if (op->device_api != DeviceAPI::Default_GPU && op->device_api != DeviceAPI::Vulkan) {
        throw CompileError(describe_loop(op->name) + " is a " + gpu_word(op->for_type) +
                           " with a device API that is not a GPU API; use DeviceAPI::Vulkan or "
                           "DeviceAPI::Default_GPU.");
    }
    if (!target.has_feature(Target::Vulkan)) {
        throw CompileError(describe_loop(op->name) + " is a " + gpu_word(op->for_type) + ", but the target " +
                           target.to_string() +
                           " has no GPU API. Add the vulkan feature (e.g. Target(\"host-vulkan\"), or "
                           "LOOM_JIT_TARGET=host-vulkan for the JIT).");
    }
}

/** The names a statement defines (lets, loops, allocations) and the free
 * variables and buffers it uses: a kernel's arguments. */
class KernelArguments : public IRVisitor {
public:
    std::map<std::string, Type> scalars;  // free Variables
    std::map<std::string, GPUKernelArgument> buffers;
    std::vector<std::string> buffer_order, scalar_order;

protected:
    using IRVisitor::visit;
    std::map<std::string, int> defined_;

    void define(const std::string &n) { defined_[n]++; }
    void undefine(const std::string &n) {
        if (--defined_[n] == 0) defined_.erase(n);
    }
    bool is_defined(const std::string &n) const { return defined_.count(n) != 0; }

    void use_buffer(const std::string &name, Type t, bool write) {
        if (is_defined(name)) return;
        auto it = buffers.find(name);
        if (it == buffers.end()) {
            GPUKernelArgument a;
            a.name = name;
            a.type = t.element_of();
            a.is_buffer = true;
            it = buffers.emplace(name, a).first;
            buffer_order.push_back(name);
        }
        (write ? it->second.written : it->second.read) = true;
    }

    void visit(const Variable *op) override {
        if (is_defined(op->name) || scalars.count(op->name)) return;
        if (op->type.is_handle()) {
            throw InternalError("extract_gpu_kernels: a kernel uses the handle " + op->name);
        }
        scalars[op->name] = op->type;
        scalar_order.push_back(op->name);
    }
    void visit(const Let *op) override {
        op->value.accept(this);
        define(op->name);
        op->body.accept(this);
        undefine(op->name);
    }
    void visit(const LetStmt *op) override {
        op->value.accept(this);
        define(op->name);
        op->body.accept(this);
        undefine(op->name);
    }
    void visit(const For *op) override {
        op->min.accept(this);
        op->extent.accept(this);
        define(op->name);
        op->body.accept(this);
        undefine(op->name);
    }
    void visit(const Allocate *op) override {
        for (const Expr &e : op->extents) e.accept(this);
        define(op->name);
        op->body.accept(this);
        undefine(op->name);
    }
    void visit(const Load *op) override {
        use_buffer(op->name, op->type, false);
        IRVisitor::visit(op);
    }
    void visit(const Store *op) override {
        use_buffer(op->name, op->value.type(), true);
        IRVisitor::visit(op);
    }
};

/** True if the statement has an Allocate at block level (outside thread
 * loops) with GPUShared or Auto memory: workgroup shared memory. */
class HasSharedAllocation : public IRVisitor {
public:
    bool found = false;

protected:
    using IRVisitor::visit;
    void visit(const For *op) override {
        if (op->for_type == ForType::GPUThread) return;  // registers there
        IRVisitor::visit(op);
    }
    void visit(const Allocate *op) override {
        if (op->memory_type == MemoryType::Auto || op->memory_type == MemoryType::GPUShared) found = true;
        IRVisitor::visit(op);
    }
};

/** True if the statement stores at block level (outside thread loops):
 * thread 0's stores, which thread loops may read. */
class HasBlockLevelStore : public IRVisitor {
public:
    bool found = false;

protected:
    using IRVisitor::visit;
    void visit(const For *op) override {
        if (op->for_type == ForType::GPUThread) return;
        IRVisitor::visit(op);
    }
    void visit(const Store *op) override { found = true; }
};

/** Rewrites the code inside a kernel's block loops: thread loops become
 * invocation indices, allocations get their GPU memory type. */
class LowerThreadLoops : public IRMutator {
public:
    LowerThreadLoops(const std::string &kernel, bool barriers, bool barriers_before)
        : kernel_(kernel), barriers_(barriers), barriers_before_(barriers && barriers_before) {}
    int workgroup_size[3] = {1, 1, 1};
    int64_t shared_memory_bytes = 0;

protected:
    using IRMutator::visit;
    const std::string &kernel_;
    const bool barriers_;
    // Also a barrier before each thread loop nest: block-level code stores
    // (in invocation 0 only) what the nest may read.
    const bool barriers_before_;
    int thread_depth_ = 0;  // thread loops around the current node
    Scope<Expr> lets_;  // the kernel's lets around the current node

    Stmt visit(const LetStmt *op) override {
        Expr value = mutate(op->value);
        lets_.push(op->name, value);
        Stmt body = mutate(op->body);
        lets_.pop(op->name);
        return LetStmt::make(op->name, value, body);
    }

    /** e as a constant through the lets in scope, or undefined. */
    Expr constant_extent(const Expr &e) {
        Expr c = resolve_through_lets(e, lets_);
        return as_const_int(c) ? c : Expr();
    }

    Stmt visit(const For *op) override {
        if (op->for_type == ForType::GPUBlock) {
            throw CompileError(describe_loop(op->name) + " is a GPU block loop inside the code of kernel " + kernel_ +
                               ": block loops must be the outermost loops of a GPU loop nest, around the thread "
                               "loops. Reorder the loops so that the block loops are outside.");
        }
        if (op->for_type != ForType::GPUThread) {
            // A serial loop at block level or inside a thread: its body may hold thread loops.
            return IRMutator::visit(op);
        }
        if (thread_depth_ > 0) {
            throw CompileError(describe_loop(op->name) + " is a GPU thread loop inside another thread loop's "
                               "code, not directly inside it. The thread loops of a stage must be adjacent; reorder "
                               "them.");
        }
        // The chain of directly nested thread loops, outermost first.
        std::vector<const For *> chain{op};
        Stmt inner = op->body;
        while (const For *f = inner.as<For>()) {
            if (f->for_type != ForType::GPUThread) break;
            chain.push_back(f);
            inner = f->body;
        }
        if (chain.size() > 3) {
            throw CompileError(describe_loop(chain.back()->name) + " would be a fourth GPU thread dimension of "
                               "kernel " + kernel_ + "; a workgroup has at most three (x, y, z). Fuse thread loops.");
        }
        std::vector<int> extents;
        for (const For *f : chain) {
            Expr c = constant_extent(f->extent);
            if (!c.defined()) {
                throw CompileError(describe_loop(f->name) + " is a GPU thread loop whose extent, " +
                                   to_string(f->extent) + ", is not a constant. Split it by a constant factor "
                                   "(gpu_tile) or give the Func a constant bound().");
            }
            int64_t n = *as_const_int(c);
            if (n > (1 << 16)) {
                throw CompileError(describe_loop(f->name) + " is a GPU thread loop of extent " + std::to_string(n) +
                                   "; a workgroup dimension may have at most 65536 invocations.");
            }
            extents.push_back(int(n));
        }
        // A thread loop whose extent is 0 or negative (a producer's empty
        // region, a where() that never holds) runs no iteration, like the
        // serial loop it replaces: so does the nest. It adds nothing to the
        // workgroup's size, and since every invocation skips it alike, it
        // needs no barrier.
        if (*std::min_element(extents.begin(), extents.end()) < 1) return Evaluate::make(0);
        thread_depth_++;
        Stmt body = mutate(inner);
        thread_depth_--;
        const int n = int(chain.size());
        for (int k = n - 1; k >= 0; k--) {
            const int dim = n - 1 - k;  // the innermost loop is x
            workgroup_size[dim] = std::max(workgroup_size[dim], extents[k]);
            Expr id = gpu_index(intrinsic::gpu_thread_id, dim);
            body = IfThenElse::make(LT::make(id, Expr(extents[k])), body);
            body = LetStmt::make(chain[k]->name, Add::make(chain[k]->min, id), body);
        }
        // The dimensions this nest does not use run it once: another nest
        // may give the workgroup more dimensions, and repeating an update
        // would apply it again. DropFullGuards removes these guards where
        // the workgroup has no such dimension.
        for (int dim = n; dim < 3; dim++) {
            body = IfThenElse::make(LT::make(gpu_index(intrinsic::gpu_thread_id, dim), Expr(1)), body);
        }
        if (barriers_) {
            Stmt barrier = Evaluate::make(Call::make(Int(32), intrinsic::gpu_barrier, {}, CallType::Intrinsic));
            body = Block::make(body, barrier);
            if (barriers_before_) body = Block::make(barrier, body);
        }
        return body;
    }

    Stmt visit(const Store *op) override {
        Stmt s = IRMutator::visit(op);
        if (thread_depth_ > 0) return s;
        // Block-level code runs in every invocation; one of them stores.
        Expr first = const_true();
        for (int d = 0; d < 3; d++) first = And::make(first, EQ::make(gpu_index(intrinsic::gpu_thread_id, d), 0));
        return IfThenElse::make(first, s);
    }

    Stmt visit(const Allocate *op) override {
        const bool in_thread = thread_depth_ > 0;
        MemoryType m = op->memory_type;
        if (m == MemoryType::Auto) m = in_thread ? MemoryType::Register : MemoryType::GPUShared;
        if (m == MemoryType::Stack && in_thread) m = MemoryType::Register;
        if (m == MemoryType::Heap || m == MemoryType::Stack || (m == MemoryType::GPUShared && in_thread)) {
            throw CompileError("Func storage " + op->name + " is allocated inside GPU kernel " + kernel_ + " with " +
                               (m == MemoryType::GPUShared ? std::string("MemoryType::GPUShared inside a thread loop")
                                                           : std::string("a CPU memory type")) +
                               ". Inside a kernel use store_in(MemoryType::GPUShared) at block level, "
                               "MemoryType::Register, or MemoryType::Auto.");
        }
        if (m == MemoryType::Register && !in_thread) {
            // Block-level code and thread loops run in every invocation, each
            // of which would write and read only its own copy.
            throw CompileError("Func storage " + op->name + " is allocated at block level of GPU kernel " + kernel_ +
                               " with MemoryType::Register, but the whole workgroup computes and reads it there. "
                               "Use MemoryType::GPUShared (or Auto) at block level, or compute the Func at a "
                               "thread loop.");
        }
        // Each extent, or a constant it never exceeds: a producer of a tile
        // whose last tile is cut short (GuardWithIf) gets the full tile's
        // storage, as in Halide; the flat indices inside stay within it.
        std::vector<Expr> extents;
        for (const Expr &e : op->extents) {
            Expr c = constant_upper_bound(e, lets_);
            if (!c.defined() || *as_const_int(c) < 1) {
                throw CompileError("Func storage " + op->name + " is allocated inside GPU kernel " + kernel_ +
                                   " with a size that is not a constant (" + to_string(e) +
                                   ") and has no constant upper bound. Compute it at a loop whose extent is "
                                   "constant, or bound() it.");
            }
            extents.push_back(c);
        }
        if (m == MemoryType::GPUShared) {
            int64_t bytes = op->type.bytes();
            for (const Expr &e : extents) bytes *= *as_const_int(e);
            shared_memory_bytes += bytes;
        }
        Stmt body = mutate(op->body);
        return Allocate::make(op->name, op->type, m, extents, Expr(), body);
    }

    Stmt visit(const Free *op) override { return Evaluate::make(0); }
};

/** Drops thread guards that every invocation passes. */
class DropFullGuards : public IRMutator {
public:
    explicit DropFullGuards(const int *size) : size_(size) {}

protected:
    using IRMutator::visit;
    const int *size_;
    Stmt visit(const IfThenElse *op) override {
        if (const LT *lt = op->condition.as<LT>(); lt && !op->else_case.defined()) {
            const Call *c = lt->a.as<Call>();
            auto n = as_const_int(lt->b);
            if (c && c->is_intrinsic(intrinsic::gpu_thread_id) && n) {
                int dim = int(*as_const_int(c->args[0]));
                if (*n >= size_[dim]) return mutate(op->then_case);
            }
        }
        return IRMutator::visit(op);
    }
};

std::string sanitize(const std::string &s) {
    std::string r;
    for (char c : s) r += std::isalnum((unsigned char)c) ? c : '_';
    return r;
}

class KernelOutliner : public IRMutator {
public:
    KernelOutliner(const std::string &pipeline, const Target &target, std::vector<GPUKernel> &kernels)
        : pipeline_(pipeline), target_(target), kernels_(kernels) {}

protected:
    using IRMutator::visit;
    const std::string &pipeline_;
    const Target &target_;
    std::vector<GPUKernel> &kernels_;

    Stmt visit(const For *op) override {
        if (op->for_type == ForType::GPUThread) {
            check_device_api(op, target_);
            throw CompileError(describe_loop(op->name) + " is a GPU thread loop outside every GPU block loop. "
                               "Thread loops run inside a workgroup: mark an outer loop with gpu_blocks() (or use "
                               "gpu_tile()).");
        }
        if (op->for_type != ForType::GPUBlock) return IRMutator::visit(op);
        return outline(op);
    }

    Stmt outline(const For *outer) {
        // The nest of block loops, with the LetStmts between them.
        std::vector<const For *> blocks;
        std::vector<std::vector<const LetStmt *>> lets_inside;  // lets directly inside blocks[i]
        const For *loop = outer;
        while (true) {
            check_device_api(loop, target_);
            blocks.push_back(loop);
            std::vector<const LetStmt *> lets;
            Stmt inner = loop->body;
            while (const LetStmt *l = inner.as<LetStmt>()) {
                lets.push_back(l);
                inner = l->body;
            }
            const For *next = inner.as<For>();
            if (next && next->for_type == ForType::GPUBlock) {
                lets_inside.push_back(lets);
                loop = next;
                continue;
            }
            lets_inside.push_back({});
            break;
        }
        if (blocks.size() > 3) {
            throw CompileError(describe_loop(blocks[3]->name) + " would be a fourth GPU block dimension; a kernel "
                               "has at most three (x, y, z). Fuse block loops.");
        }
        const std::string name =
            sanitize(pipeline_ + "_k" + std::to_string(kernels_.size()) + "_" + blocks.front()->name);

        // Grid extents, evaluated on the host outside the nest.
        const int n = int(blocks.size());
        std::map<std::string, Expr> between;
        std::set<std::string> kernel_names;
        Expr grid[3] = {Expr(1), Expr(1), Expr(1)};
        for (int k = 0; k < n; k++) {
            Expr extent = simplify(substitute(between, blocks[k]->extent));
            for (const std::string &v : kernel_names) {
                if (expr_uses_var(extent, v)) {
                    throw CompileError(describe_loop(blocks[k]->name) + " is a GPU block loop whose extent depends on "
                                       "the outer block loop " + v + "; block loop extents must not vary.");
                }
            }
            grid[n - 1 - k] = extent;
            kernel_names.insert(blocks[k]->name);
            for (const LetStmt *l : lets_inside[k]) {
                between[l->name] = substitute(between, l->value);
                kernel_names.insert(l->name);
            }
        }

        // The body: thread loops become invocation indices.
        Stmt innermost = blocks.back()->body;
        HasSharedAllocation shared;
        innermost.accept(&shared);
        HasBlockLevelStore block_stores;
        innermost.accept(&block_stores);
        LowerThreadLoops threads(name, shared.found, block_stores.found);
        Stmt body = threads.mutate(innermost);
        body = DropFullGuards(threads.workgroup_size).mutate(body);
        for (int k = n - 1; k >= 0; k--) {
            if (k < n - 1) {
                for (auto it = lets_inside[k].rbegin(); it != lets_inside[k].rend(); ++it) {
                    body = LetStmt::make((*it)->name, (*it)->value, body);
                }
            }
            body = LetStmt::make(blocks[k]->name,
                                 Add::make(blocks[k]->min, gpu_index(intrinsic::gpu_block_id, n - 1 - k)), body);
        }

        GPUKernel kernel;
        kernel.name = name;
        for (int d = 0; d < 3; d++) kernel.workgroup_size[d] = threads.workgroup_size[d];
        kernel.shared_memory_bytes = threads.shared_memory_bytes;
        kernel.loop = describe_loop(blocks.front()->name);
        KernelArguments uses;
        body.accept(&uses);
        std::vector<Expr> launch_args{StringImm::make(name), grid[0], grid[1], grid[2]};
        for (const std::string &b : uses.buffer_order) kernel.args.push_back(uses.buffers.at(b));
        for (const std::string &v : uses.scalar_order) {
            Type t = uses.scalars.at(v);
            GPUKernelArgument a;
            a.name = v;
            a.type = t;
            if (t.bits() < 32) {
                // Push constants are 32 or 64 bits wide: widen, narrow inside.
                a.type = t.is_float() ? Float(32) : t.is_int() ? Int(32) : UInt(32);
                a.name = v + ".widened";
                body = LetStmt::make(v, Cast::make(t, Variable::make(a.type, a.name)), body);
            }
            launch_args.push_back(a.type == t ? Variable::make(t, v) : Cast::make(a.type, Variable::make(t, v)));
            kernel.args.push_back(a);
        }
        kernel.body = body;
        kernels_.push_back(kernel);
        return Evaluate::make(Call::make(Int(32), intrinsic::gpu_launch, launch_args, CallType::Intrinsic));
    }
};

}  // namespace

void check_kernels_fit_device(const std::vector<GPUKernel> &kernels, const GPUDeviceLimits &device) {
    const std::string on = " on the Vulkan device '" + device.name + "'";
    for (const GPUKernel &k : kernels) {
        const int *size = k.workgroup_size;
        const std::string shape =
            std::to_string(size[0]) + "x" + std::to_string(size[1]) + "x" + std::to_string(size[2]);
        for (int d = 0; d < 3; d++) {
            if (size[d] > device.max_workgroup_size[d]) {
                throw CompileError("The GPU kernel of " + k.loop + " runs workgroups of " + shape + " invocations, but " +
                                   std::string("xyz").substr(d, 1) + " may be at most " +
                                   std::to_string(device.max_workgroup_size[d]) + on +
                                   " (maxComputeWorkGroupSize). Use smaller gpu_threads/gpu_tile factors.");
            }
        }
        const int64_t invocations = int64_t(size[0]) * size[1] * size[2];
        if (invocations > device.max_workgroup_invocations) {
            throw CompileError("The GPU kernel of " + k.loop + " runs workgroups of " + shape + " = " +
                               std::to_string(invocations) + " invocations, but at most " +
                               std::to_string(device.max_workgroup_invocations) + " are allowed" + on +
                               " (maxComputeWorkGroupInvocations). Use smaller gpu_threads/gpu_tile factors.");
        }
        if (k.shared_memory_bytes > device.max_shared_memory_bytes) {
            throw CompileError("The GPU kernel of " + k.loop + " keeps " + std::to_string(k.shared_memory_bytes) +
                               " bytes of Funcs in workgroup shared memory, but at most " +
                               std::to_string(device.max_shared_memory_bytes) + " bytes are available" + on +
                               " (maxComputeSharedMemorySize). Use smaller tiles, compute the Funcs at a thread "
                               "loop (registers), or store_in(MemoryType::Heap) outside the kernel.");
        }
    }
}

bool has_gpu_loops(const Stmt &s) {
    HasGPULoops h;
    s.accept(&h);
    return h.found;
}

Stmt extract_gpu_kernels(const Stmt &s, const std::string &pipeline_name, const Target &target,
                         std::vector<GPUKernel> &kernels) {
    if (!has_gpu_loops(s)) return s;
    return KernelOutliner(pipeline_name, target, kernels).mutate(s);
}

}  // namespace internal
}  // namespace loom
