#ifndef LOOM_AOT_EMBEDDED_FILES_H
#define LOOM_AOT_EMBEDDED_FILES_H

/** \file
 * Files built into libLoom by cmake/LoomRuntime.cmake: loom_runtime.h (for
 * generated headers) and the runtime's LLVM bitcode for each AOT triple.
 */

#include <string_view>

#include "loom/Target.h"

namespace loom {
namespace internal {

/** The text of include/loom/runtime/loom_runtime.h. */
std::string_view embedded_runtime_header();

/** The runtime's bitcode for t's architecture, or an empty view if libLoom
 * has none for it (Linux only, on x86-64, AArch64, x86-32 (i386) and ARMv7
 * hard-float; or clang was missing when libLoom was built). */
std::string_view embedded_runtime_bitcode(const Target &t);

}  // namespace internal
}  // namespace loom

#endif
