#ifndef LOOM_LOWER_LOWER_GPU_LAUNCHES_H
#define LOOM_LOWER_LOWER_GPU_LAUNCHES_H

/** \file
 * Turns the gpu_launch sites that extract_gpu_kernels left into calls of
 * the Vulkan runtime, and keeps the host and device copies of every buffer a
 * kernel touches coherent through the buffers' dirty bits:
 * - a launch initializes its kernel's module (once), copies each of its
 *   buffers to the device (the runtime copies only when the host side is
 *   newer or there is no device allocation yet), dispatches, and marks the
 *   buffers it writes device-dirty;
 * - a host statement that reads or writes such a buffer first copies it to
 *   the host (when device-dirty), and marks it host-dirty if it wrote it;
 * - an allocation that a kernel touches gets a loom_buffer_t
 *   ("<name>.buffer", intrinsic make_device_buffer) and its device memory is
 *   freed where the allocation ends; when only kernels touch it, it has no
 *   host memory at all.
 * Outputs that a kernel wrote stay device-dirty: the caller copies them back
 * (the JIT's realize() does).
 */

#include <vector>

#include "ir/GPUKernel.h"
#include "ir/IR.h"

namespace loom {
namespace internal {

namespace intrinsic {
/** (kernel name) -> Int(32): loom_vulkan_initialize_kernels for the kernel's
 * embedded SPIR-V and its module state (code generation provides both). */
constexpr const char *gpu_initialize_kernel = "gpu_initialize_kernel";
/** (kernel name) -> Handle: the kernel's module state. */
constexpr const char *gpu_kernel_state = "gpu_kernel_state";
/** (value...) -> Handle: a pointer to a stack struct of the values in order
 * (C layout), valid until the function returns. */
constexpr const char *make_struct = "make_struct";
/** (host Handle or null, type code, type bits, elements) -> Handle: a
 * one-dimensional loom_buffer_t on the stack over elements elements. */
constexpr const char *make_device_buffer = "make_device_buffer";
/** (b.buffer, host_dirty, device_dirty) -> Int(32) 0: sets both dirty bits. */
constexpr const char *buffer_set_dirty = "buffer_set_dirty";
}  // namespace intrinsic

Stmt lower_gpu_launches(const Stmt &s, const std::vector<GPUKernel> &kernels);

}  // namespace internal
}  // namespace loom

#endif
