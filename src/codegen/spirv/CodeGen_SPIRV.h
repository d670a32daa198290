#ifndef LOOM_CODEGEN_SPIRV_CODEGEN_SPIRV_H
#define LOOM_CODEGEN_SPIRV_CODEGEN_SPIRV_H

/** \file
 * Compiles one GPU kernel, outlined from the lowered program by
 * lower/ExtractGPUKernels, to a SPIR-V module for Vulkan: one GLCompute entry
 * point named after the kernel, validated by SPIRV-Tools before it is
 * returned.
 *
 * The kernel's interface (what the runtime's loom_vulkan_run binds):
 * - Buffer arguments are StorageBuffer descriptors in set 0, binding i for the
 *   i-th buffer argument in `args` order (scalars do not take a binding). Each
 *   is a Block struct holding one runtime array of the element type; Load and
 *   Store nodes naming the argument index that array (the index is in
 *   elements, relative to the start of the buffer, exactly as on the host).
 * - Scalar arguments are the members of one push-constant Block, in `args`
 *   order, each at the next offset aligned to its own size (C struct layout).
 *   Scalars are 32 or 64 bits wide (lowering widens narrower ones). Past
 *   LOOM_VULKAN_MAX_PUSH_CONSTANT_BYTES (128, what every device has) the same
 *   Block is a Uniform buffer at the binding after the last storage buffer
 *   (std140 lays scalars out as C does); the runtime fills it.
 * - The workgroup size is `workgroup_size` (LocalSize execution mode).
 * - Bool buffer elements are bytes (0 or 1), as on the host: a bool buffer
 *   needs 8-bit storage, i.e. vk_int8. Bools in registers and in
 *   kernel-local (Function or Workgroup) arrays are OpTypeBool.
 * - A scalar narrower than 32 bits, should one arrive, travels as a 32-bit
 *   member (int32 for signed, uint32 for unsigned and bool, float32 for
 *   float16) and is converted back inside the kernel.
 * - Modules for vk_v12 and vk_v13 carry the SignedZeroInfNanPreserve
 *   execution mode for each float width they use, so that the driver keeps
 *   IEEE signed zeros, NaN and infinity like the CPU back end; a device
 *   must report shaderSignedZeroInfNanPreserveFloat{16,32,64} for them (the
 *   runtime refuses the module by name otherwise, and host-vulkan reports
 *   vk_v12/vk_v13 only where float32 keeps them).
 *   Vulkan 1.0 modules leave that to the driver.
 *
 * Conventions of the kernel body:
 * - gpu_block_id(d) and gpu_thread_id(d) (PureIntrinsic, Int(32), d an
 *   IntImm 0..2) are WorkgroupId and LocalInvocationId component d.
 * - Evaluate(gpu_barrier()) (Intrinsic, Int(32)) is a workgroup control and
 *   memory barrier.
 * - An Allocate with MemoryType::GPUShared is a Workgroup array; any other
 *   Allocate inside a kernel is a Function-storage array. Their extents are
 *   constants.
 * - There are no AssertStmts, buffer_get_* intrinsics, Handle values or
 *   Extern calls other than the math functions (sinf, expf, ... and their
 *   double versions).
 */

#include <cstdint>
#include <string>
#include <vector>

#include "ir/GPUKernel.h"
#include "loom/Target.h"

namespace loom {
namespace internal {

/** The kernel as SPIR-V words (a complete module, validated).
 * \throws CompileError when the kernel uses a type the target does not
 * enable (e.g. Float(64) without vk_float64), naming the kernel and type.
 * \throws InternalError carrying the validator's message if the module the
 * code generator built is invalid. */
std::vector<uint32_t> compile_kernel_to_spirv(const GPUKernel &kernel, const Target &target);

/** Runs SPIRV-Tools' validator for the Vulkan environment the target asks
 * for (1.0, 1.2 with vk_v12, 1.3 with vk_v13); empty when valid, else the
 * validator's message. */
std::string validate_spirv(const std::vector<uint32_t> &words, const Target &target);

/** SPIRV-Tools' disassembly of a module, for compile_to_assembly and
 * LOOM_DEBUG_SPIRV. */
std::string disassemble_spirv(const std::vector<uint32_t> &words);

}  // namespace internal
}  // namespace loom

#endif
