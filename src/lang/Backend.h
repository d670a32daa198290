#ifndef LOOM_LANG_BACKEND_H
#define LOOM_LANG_BACKEND_H

/** \file
 * Switches and counters of the JIT front end, for tests and tools.
 *
 * - The back end realize() runs pipelines with: the LLVM JIT (default), the
 *   reference interpreter of the lowered IR, or the GPU conformance mode
 *   (Vulkan): the LLVM JIT on a Vulkan target, with every loop nest that
 *   admits it moved onto the GPU (lower/MapLoopsToGPU.h), so that tests
 *   written for the CPU check the GPU path against the same reference. A
 *   pipeline whose GPU version does not compile (a type the device lacks, a
 *   print in a loop, ...) runs on the CPU instead, and gpu_fallback_reason()
 *   says why. $LOOM_JIT_BACKEND ("llvm", "interpreter" or "vulkan") sets the
 *   initial choice. Compiled pipelines are cached per back end.
 * - jit_compile_count(): how many times a pipeline has been lowered and
 *   compiled, so tests can prove a realize() did not recompile.
 * - The definition generation: a counter that every definition or
 *   scheduling call advances, recording the new value in the Function it
 *   changed. A cached pipeline is recompiled when one of its own Funcs
 *   changed after it was compiled; defining or scheduling other Funcs leaves
 *   it alone. Front-end code that changes a Function (new scheduling
 *   directives too) must call mark_changed() on it.
 */

#include <cstdint>
#include <string>

namespace loom {
namespace internal {

enum class Backend { LLVM, Interpreter, Vulkan };

void set_jit_backend(Backend backend);
Backend jit_backend();
const char *backend_name(Backend backend);

/** Vulkan conformance mode: how many pipelines compiled so far had GPU
 * kernels, and why the latest one that fell back to the CPU did ("" if
 * none has). */
int gpu_kernel_pipeline_count();
std::string gpu_fallback_reason();
void count_gpu_kernel_pipeline();
void set_gpu_fallback_reason(const std::string &reason);

/** Lowerings + compilations done so far by realize/compile_jit. */
int jit_compile_count();
/** Counts one more (called by the JIT cache when it compiles). */
void count_jit_compile();

struct FunctionContents;

/** The latest generation handed out. */
uint64_t definition_generation();
/** Advances the generation and records it as f's latest change. */
void mark_changed(FunctionContents &f);

}  // namespace internal
}  // namespace loom

#endif
