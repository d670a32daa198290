#ifndef LOOM_DEVICE_API_H
#define LOOM_DEVICE_API_H

/** \file
 * Where a loop runs and where a Func's storage lives (Halide's DeviceAPI and
 * MemoryType).
 *
 *     f.gpu_tile(x, y, xo, yo, xi, yi, 16, 16, TailStrategy::Auto, DeviceAPI::Vulkan);
 *     g.compute_at(f, xo).store_in(MemoryType::GPUShared);
 */

#include <cstdint>

namespace loom {

/** The API a loop's iterations run on. Default_GPU is the Target's GPU API
 * (vulkan); a GPU schedule with it on a Target without one is a
 * CompileError. */
enum class DeviceAPI : uint8_t { None, Host, Default_GPU, Vulkan };

/** Where a Func's storage is allocated. Auto lets Loom choose: the heap or
 * the stack on the CPU; on a GPU, workgroup shared memory for a Func
 * computed at a block loop and registers for one computed at a thread loop.
 * Heap on a GPU is device memory. */
enum class MemoryType : uint8_t { Auto, Heap, Stack, Register, GPUShared };

}  // namespace loom

#endif
