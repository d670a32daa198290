#ifndef LOOM_ONNX_GPU_SCHEDULE_H
#define LOOM_ONNX_GPU_SCHEDULE_H

// GPU schedules for the importer's Funcs when the target has Vulkan
// (docs/ONNX.md, "On Vulkan"). A separate path from the CPU schedules: each
// place that schedules a Func asks here first, and gives its CPU schedule
// only where this answers false (the GPU path is off, or the Func stays on
// the host). Every stage that goes to the GPU has its pure Vars fused into
// one loop split into GPU blocks and threads; RVar loops run serially in
// each invocation, and the iterations of a Loop stay a host loop around the
// kernels (one launch per stage and iteration, and a real early exit).

#include <set>
#include <string>
#include <vector>

#include "loom/Func.h"
#include "loom/RDom.h"
#include "loom/Target.h"

namespace loom::onnx::detail {

/** While alive, and when `target` has vulkan, the Funcs the importer builds
 * on this thread get GPU schedules; it records which Funcs went where. */
class GpuScheduleScope {
public:
    explicit GpuScheduleScope(const Target &target);
    ~GpuScheduleScope();
    GpuScheduleScope(const GpuScheduleScope &) = delete;
    GpuScheduleScope &operator=(const GpuScheduleScope &) = delete;
    /** One line per kind of decision, for CompiledModel::loop_notes(): the
     * Funcs with GPU kernels, and those left on the host with the reason. */
    std::vector<std::string> notes() const;

    struct State;

private:
    State *previous_;
    State *state_;
};

/** A Func computed at the root: in every stage, those of its pure Vars
 * `args` (Loom order, as its definitions name them) that the stage has
 * fused and split into GPU blocks and threads, about `elements` in all (0:
 * not known); a stage with none of them stays on the host. False, with
 * nothing scheduled, where the GPU path is off, the Func is `foldable` (it
 * reads no graph input: the importer may realize it with the CPU JIT when
 * compiling, Importer::fold), a stage uses a type the GPU path leaves to
 * the host, or a reduction would run more than 65,535 terms in one
 * invocation; the caller then gives its CPU schedule. */
bool gpu_schedule_root(Func f, const std::vector<Var> &args, int64_t elements, bool foldable);

/** Update `update` of a loop's state whose element dims are the pure Vars
 * `element_vars` (Loom order; the iteration is an RVar `step`, kept
 * outermost as a host loop): the elements as GPU blocks and threads, one
 * launch per iteration, and update 0 (the initial value) likewise; `shape`
 * bounds the Vars (ONNX order). False, with nothing scheduled, where the
 * GPU path is off or the state uses a type it leaves to the host. */
bool gpu_schedule_state_update(Func state, int update, const std::vector<Var> &element_vars, const RVar &step,
                               const std::vector<int64_t> &shape);

/** Update `update` of a loop's state over RVars (an element may read any
 * element of the previous iteration): the innermost element RVar as GPU
 * blocks and threads where Loom sees its iterations are independent (true
 * without it where Loom does not: the update then runs on the host). */
bool gpu_schedule_state_rvar(Func state, int update, const RVar &inner, int64_t extent);

/** A body reduction computed once per iteration (compute_at the state's
 * step RVar): its pure Vars but the iteration (`pure`, Loom order, the
 * iteration last) as GPU blocks and threads in each stage, its RVars serial
 * in each invocation; a reduction to one element runs in one invocation.
 * False, with nothing scheduled, as for gpu_schedule_root. */
bool gpu_schedule_step_func(Func f, const std::vector<Var> &pure, const Func &state, const RVar &step);

}  // namespace loom::onnx::detail

#endif
