#ifndef LOOM_LOWER_EXTRACT_GPU_KERNELS_H
#define LOOM_LOWER_EXTRACT_GPU_KERNELS_H

/** \file
 * Outlines GPU loop nests into kernels (ir/GPUKernel.h).
 *
 * A kernel is a nest of up to three GPUBlock loops (the innermost is
 * dimension x), with LetStmts allowed between them, and inside it any code
 * whose GPUThread loops (again at most three, directly nested) run as the
 * invocations of a workgroup:
 * - a block loop becomes `let v = min + gpu_block_id(d)`; the host launches
 *   extent_x * extent_y * extent_z workgroups;
 * - a thread loop becomes `let v = min + gpu_thread_id(d)`, guarded by
 *   `gpu_thread_id(d) < extent` when the workgroup is wider than the loop.
 *   The workgroup size is the largest constant extent of each dimension;
 * - code at block level outside thread loops runs in every invocation;
 *   its stores run only in invocation (0, 0, 0);
 * - an Allocate at block level is workgroup shared memory (MemoryType Auto
 *   or GPUShared), one inside a thread loop lives in each invocation's
 *   registers (Auto or Register); when the kernel has shared memory, a
 *   barrier follows each thread loop nest at block level.
 * The free variables of the kernel are its arguments: the buffers it loads
 * or stores, and scalars (widened to 32 bits when narrower). In the host
 * statement the kernel is replaced by
 *   Evaluate(gpu_launch(kernel name, blocks_x, blocks_y, blocks_z))
 * which lower_gpu_launches expands.
 *
 * \throws CompileError naming the Func, the stage and the loop for a GPU
 * schedule that cannot run: a Target without a GPU API, a thread loop
 * outside block loops, a block loop inside a kernel's inner code, more than
 * three block or thread dimensions, a thread loop without a constant extent,
 * an allocation in a kernel without a constant size or with a memory type
 * that can't be there.
 */

#include <string>
#include <vector>

#include "ir/GPUKernel.h"
#include "ir/IR.h"
#include "loom/Target.h"

namespace loom {
namespace internal {

namespace intrinsic {
/** (kernel name, blocks_x, blocks_y, blocks_z): a kernel launch site. */
constexpr const char *gpu_launch = "gpu_launch";
}  // namespace intrinsic

/** True if s has a GPU loop. */
bool has_gpu_loops(const Stmt &s);

Stmt extract_gpu_kernels(const Stmt &s, const std::string &pipeline_name, const Target &target,
                         std::vector<GPUKernel> &kernels);

/** What a GPU device allows a kernel (Vulkan's names in parentheses). */
struct GPUDeviceLimits {
    std::string name;
    int max_workgroup_size[3] = {0, 0, 0};  // maxComputeWorkGroupSize
    int64_t max_workgroup_invocations = 0;  // maxComputeWorkGroupInvocations
    int64_t max_shared_memory_bytes = 0;    // maxComputeSharedMemorySize
};

/** For targets whose device is known when compiling (the JIT): checks each
 * kernel's workgroup size and shared memory against the device.
 * \throws CompileError naming the Func, stage and loop of the kernel, the
 * limit and the device. */
void check_kernels_fit_device(const std::vector<GPUKernel> &kernels, const GPUDeviceLimits &device);

}  // namespace internal
}  // namespace loom

#endif
