#ifndef LOOM_IR_GPU_KERNEL_H
#define LOOM_IR_GPU_KERNEL_H

/** \file
 * A GPU kernel outlined from a lowered pipeline (lower/ExtractGPUKernels):
 * its arguments, workgroup size and body. The SPIR-V code generator
 * (codegen/spirv/CodeGen_SPIRV.h) documents the conventions of the body and
 * the binding of the arguments.
 */

#include <cstdint>
#include <string>
#include <vector>

#include "ir/IR.h"

namespace loom {
namespace internal {

namespace intrinsic {
constexpr const char *gpu_block_id = "gpu_block_id";
constexpr const char *gpu_thread_id = "gpu_thread_id";
constexpr const char *gpu_barrier = "gpu_barrier";
}  // namespace intrinsic

struct GPUKernelArgument {
    std::string name;  // Load/Store name of a buffer, Variable name of a scalar
    Type type;         // element type of a buffer, value type of a scalar
    bool is_buffer = false;
    bool read = false;     // buffers: the kernel loads from it
    bool written = false;  // buffers: the kernel stores to it
};

struct GPUKernel {
    std::string name;  // the entry point; unique within its pipeline
    std::vector<GPUKernelArgument> args;
    int workgroup_size[3] = {1, 1, 1};
    /** Workgroup shared memory its allocations take, in bytes. */
    int64_t shared_memory_bytes = 0;
    /** The loop it was outlined from, for messages ("loop x of Func f"). */
    std::string loop;
    Stmt body;
};

}  // namespace internal
}  // namespace loom

#endif
