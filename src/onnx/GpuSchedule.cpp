// GPU schedules for the importer's Funcs (GpuSchedule.h, docs/ONNX.md "On
// Vulkan"). The check of which types a stage uses walks its definitions with
// libLoom's IR visitor (src/ir; this file alone includes it, as Importer.cpp
// declares loom::internal::substitute): the public API has no way to list
// the types an Expr uses, and a kernel's types decide whether it may run on
// the device at all.

#include "GpuSchedule.h"

#include <map>

#include "ir/Function.h"
#include "ir/IR.h"
#include "ir/IRVisitor.h"

namespace loom::onnx::detail {

struct GpuScheduleScope::State {
    Target target;
    std::vector<std::string> on_gpu;
    std::map<std::string, std::vector<std::string>> on_host;  // reason -> Funcs
};

namespace {

thread_local GpuScheduleScope::State *current = nullptr;

/** Threads per workgroup: 64, or fewer for a loop known to be shorter. */
int threads_for(int64_t extent) {
    if (extent <= 0) return 64;  // not known here
    int n = 1;
    while (n < 64 && n < extent) n *= 2;
    return n;
}

/** Why a type keeps a stage on the host, or "" when kernels may use it. */
std::string type_refused(const Type &t, const Target &target, bool in_memory) {
    const Type e = t.element_of();
    if (e.is_handle()) return "a handle value";
    if (e.is_bool()) return in_memory && !target.has_feature(Target::VkInt8) ? "bool buffers without vk_int8" : "";
    if (e.is_float()) {
        if (e.bits() == 64) return "float64 (GLSL.std.450 has no float64 transcendental functions)";
        if (e.bits() == 16 && !target.has_feature(Target::VkFloat16)) return "float16 without vk_float16";
        return "";
    }
    if (e.bits() == 64) return "64-bit integers (lavapipe compares int64 with constants wrongly)";
    if (e.bits() == 8 && !target.has_feature(Target::VkInt8)) return "8-bit integers without vk_int8";
    if (e.bits() == 16 && !target.has_feature(Target::VkInt16)) return "16-bit integers without vk_int16";
    return "";
}

/** The first type a Func's stages use that kernels may not, looking through
 * the Funcs inlined into them. */
class TypeCheck : public internal::IRGraphVisitor {
public:
    explicit TypeCheck(const Target &target) : target_(target) {}
    std::string refused;

    void check_function(const internal::FunctionContents &f) {
        if (!checked_.insert(&f).second) return;
        for (const Type &t : f.output_types) note(t, true);
        for (int s = 0; s < f.stages() && refused.empty(); s++) {
            const internal::Definition &d = f.stage(s);
            for (const Expr &e : d.args) include(e);
            for (const Expr &e : d.values) include(e);
            if (d.predicate.defined()) include(d.predicate);
        }
    }

    using internal::IRGraphVisitor::include;
    void include(const Expr &e) override {
        if (!refused.empty() || !e.defined()) return;
        note(e.type(), false);
        internal::IRGraphVisitor::include(e);
    }

protected:
    using internal::IRGraphVisitor::visit;
    void visit(const internal::Call *op) override {
        if (op->is_intrinsic(internal::intrinsic::trip_count)) {
            if (refused.empty()) refused = "reads a loop's trip count (RDom::trip_count), which the host keeps";
            return;
        }
        if (op->call_type == internal::CallType::Func || op->call_type == internal::CallType::Image)
            note(op->type, true);
        internal::IRGraphVisitor::visit(op);
        const internal::FunctionContents *callee = op->func.get();
        if (op->call_type == internal::CallType::Func && callee && callee->can_be_inlined()) check_function(*callee);
    }

private:
    void note(const Type &t, bool in_memory) {
        if (refused.empty()) refused = type_refused(t, target_, in_memory);
    }
    const Target &target_;
    std::set<const internal::FunctionContents *> checked_;
};

/** The RVar iterations one invocation runs serially in the stage of f that
 * runs the most (every RVar loop sits inside the thread loops), or -1 where
 * an extent is not a constant. */
int64_t serial_iterations(const internal::FunctionContents &f) {
    int64_t most = 0;
    for (int s = 0; s < f.stages(); s++) {
        const internal::Definition &d = f.stage(s);
        if (!d.rdom.defined()) continue;
        int64_t n = 1;
        for (const internal::ReductionVariable &v : d.rdom.domain()) {
            const internal::IntImm *e = v.extent.as<internal::IntImm>();
            if (!e) return -1;
            n *= std::max<int64_t>(e->value, 0);
        }
        most = std::max(most, n);
    }
    return most;
}

/** Lavapipe ends every shader invocation after 65,535 loop iterations in
 * all, without an error (docs/SCHEDULING.md); a GPU thread that runs that
 * long is a poor schedule anyway. */
constexpr int64_t max_serial_iterations = 65535;

/** Whether f may run on the GPU; records it on the host with the reason if
 * not. `serial_rvars`: its RVar loops would run inside each invocation. */
bool kernel_ok(const Func &f, bool serial_rvars) {
    const internal::FunctionContents &contents = *f.function().get();
    TypeCheck check(current->target);
    check.check_function(contents);
    std::string refused = check.refused;
    if (refused.empty() && serial_rvars) {
        int64_t n = serial_iterations(contents);
        if (n < 0 || n > max_serial_iterations)
            refused = "a reduction of more than 65,535 terms in one invocation, or of a size known only at run time";
    }
    if (refused.empty()) return true;
    current->on_host[refused].push_back(f.name());
    return false;
}

/** The Vars among `vars` that stage `stage` of f has as pure arguments (an
 * update may have an RVar where the pure definition has a Var). */
std::vector<Var> pure_vars_of_stage(const Func &f, int stage, const std::vector<Var> &vars) {
    std::set<std::string> names;
    for (const Expr &e : f.function().get()->stage(stage).args) {
        if (const internal::Variable *v = e.as<internal::Variable>()) names.insert(v->name);
    }
    std::vector<Var> kept;
    for (const Var &v : vars) {
        if (names.count(v.name())) kept.push_back(v);
    }
    return kept;
}

/** One pure loop of `vars` (fused, innermost first) as GPU blocks and
 * threads of stage `stage` of f; a stage without any of them stays on the
 * host (returns false). */
bool tile_vars(Func f, int stage, const std::vector<Var> &all_vars, int64_t elements) {
    const std::vector<Var> vars = pure_vars_of_stage(f, stage, all_vars);
    if (vars.empty()) return false;
    Stage s = stage == 0 ? Stage(f) : f.update(stage - 1);
    VarOrRVar x = vars[0];
    for (size_t k = 1; k < vars.size(); k++) {
        Var fused(f.name() + "_gpu_fused" + std::to_string(k));
        s.fuse(x, vars[k], fused);
        x = fused;
    }
    Var bx(f.name() + "_gpu_block"), tx(f.name() + "_gpu_thread");
    s.gpu_tile(x, bx, tx, threads_for(elements), TailStrategy::GuardWithIf);
    return true;
}

int64_t product(const std::vector<int64_t> &extents) {
    int64_t n = 1;
    for (int64_t e : extents) n *= std::max<int64_t>(e, 1);
    return n;
}

}  // namespace

GpuScheduleScope::GpuScheduleScope(const Target &target) : previous_(current), state_(nullptr) {
    if (!target.has_feature(Target::Vulkan)) {
        current = nullptr;
        return;
    }
    state_ = new State{target, {}, {}};
    current = state_;
}

GpuScheduleScope::~GpuScheduleScope() {
    current = previous_;
    delete state_;
}

std::vector<std::string> GpuScheduleScope::notes() const {
    std::vector<std::string> lines;
    if (!state_) return lines;
    auto list = [](const std::vector<std::string> &names) {
        std::string s;
        for (const std::string &n : names) s += (s.empty() ? "" : ", ") + n;
        return s;
    };
    if (!state_->on_gpu.empty()) lines.push_back("Vulkan: GPU kernels for " + list(state_->on_gpu));
    for (const auto &[why, names] : state_->on_host) lines.push_back("Vulkan: on the host (" + why + "): " + list(names));
    return lines;
}

bool gpu_schedule_root(Func f, const std::vector<Var> &args, int64_t elements, bool foldable) {
    if (!current) return false;
    if (foldable) {
        current->on_host["reads no graph input: the CPU JIT folds it when compiling"].push_back(f.name());
        return false;
    }
    if (!kernel_ok(f, true)) return false;
    f.compute_root();
    const int stages = f.function().get()->stages();
    std::string host_stages;
    for (int s = 0; s < stages; s++) {
        if (!tile_vars(f, s, args, elements)) host_stages += (host_stages.empty() ? "" : ", ") + std::to_string(s);
    }
    current->on_gpu.push_back(f.name());
    if (!host_stages.empty())
        current->on_host["a stage with no pure dimension, e.g. a scan along the only axis"].push_back(
            f.name() + " stage " + host_stages);
    return true;
}

bool gpu_schedule_state_update(Func state, int update, const std::vector<Var> &element_vars, const RVar &step,
                               const std::vector<int64_t> &shape) {
    if (!current || element_vars.empty()) return false;
    if (!kernel_ok(state, false)) return false;
    std::vector<VarOrRVar> order(element_vars.begin(), element_vars.end());
    order.push_back(step);
    state.update(update).reorder(order);
    for (size_t k = 0; k < element_vars.size(); k++)
        state.bound(element_vars[k], 0, (int)shape[shape.size() - 1 - k]);
    tile_vars(state, update + 1, element_vars, product(shape));
    // The initial value (update 0, at iteration 0) over the same Vars.
    if (update > 0) tile_vars(state, 1, element_vars, product(shape));
    current->on_gpu.push_back(state.name() + " (each iteration)");
    return true;
}

bool gpu_schedule_state_rvar(Func state, int update, const RVar &inner, int64_t extent) {
    if (!current) return false;
    if (!kernel_ok(state, false)) return false;
    try {
        Var bx(state.name() + "_gpu_block"), tx(state.name() + "_gpu_thread");
        state.update(update).gpu_tile(inner, bx, tx, threads_for(extent), TailStrategy::GuardWithIf);
    } catch (const CompileError &) {
        // An element reads others of the previous iteration, and Loom does
        // not see that those are not written by this one.
        current->on_host["Loom does not see that the elements of an iteration are independent"].push_back(
            state.name());
        return true;
    }
    current->on_gpu.push_back(state.name() + " (each iteration)");
    return true;
}

bool gpu_schedule_step_func(Func f, const std::vector<Var> &pure, const Func &state, const RVar &step) {
    if (!current) return false;
    if (!kernel_ok(f, true)) return false;
    f.compute_at(state, step);
    const int stages = f.function().get()->stages();
    std::vector<Var> vars(pure.begin(), pure.end() - (pure.empty() ? 0 : 1));
    for (int s = 0; s < stages; s++) {
        if (vars.empty()) {
            Stage st = s == 0 ? Stage(f) : f.update(s - 1);
            st.gpu_single_thread();
        } else {
            tile_vars(f, s, vars, 0);
        }
    }
    current->on_gpu.push_back(f.name());
    return true;
}

}  // namespace loom::onnx::detail
