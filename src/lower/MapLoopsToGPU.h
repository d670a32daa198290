#ifndef LOOM_LOWER_MAP_LOOPS_TO_GPU_H
#define LOOM_LOWER_MAP_LOOPS_TO_GPU_H

/** \file
 * Moves loop nests onto the GPU without a GPU schedule: the GPU conformance
 * mode of the JIT (lang/Backend.h), in which the end-to-end tests written
 * for the CPU run their pipelines on Vulkan and compare with the same C++
 * reference. Not a user-facing schedule.
 *
 * Walking the loop nest from the outside in, the first loop of each path
 * that admits it is split by kThreads into a GPU block loop and a GPU thread
 * loop, guarded as a GuardWithIf tail is:
 *
 *     for (f.s0.y, min, extent)  ->  gpu_block for (f.s0.y.__block, 0, ceil(extent / kThreads))
 *                                      gpu_thread for (f.s0.y.__thread, 0, kThreads)
 *                                        let f.s0.y = min + f.s0.y.__block * kThreads + f.s0.y.__thread
 *                                        if (f.s0.y < min + extent) body
 *
 * A loop admits it when it is serial or parallel, iterates over a pure Var
 * of its stage (never an RVar: iterations of an RVar may depend on each
 * other), its stage is not fused with compute_with, its body has no parallel
 * or GPU loop and no Func storage whose size is not a constant, and no Func
 * is computed in it into storage outside it (store_root with compute_at,
 * sliding windows, folded storage: such iterations hand values to the next).
 * Serial loops that do not admit it are searched inside; parallel ones are
 * left whole, since kernels are not launched from threads. A stage whose
 * loops are all RVars (a reduction to a scalar, a recurrence) runs in one
 * GPU thread, as with gpu_single_thread(), when nothing inside moved. Everything else
 * a kernel cannot hold (a type the device lacks, a print) is found when the
 * kernel is compiled; the JIT then runs the whole pipeline on the CPU.
 *
 * Runs after bounds inference (the region each loop covers is fixed) and
 * before storage flattening.
 */

#include "ir/IR.h"
#include "lower/Stages.h"

namespace loom {
namespace internal {

Stmt map_loops_to_gpu(const Stmt &s, const PipelineStages &pipeline);

}  // namespace internal
}  // namespace loom

#endif
