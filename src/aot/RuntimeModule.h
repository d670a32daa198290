#ifndef LOOM_AOT_RUNTIME_MODULE_H
#define LOOM_AOT_RUNTIME_MODULE_H

/** \file
 * Puts the Loom runtime into a pipeline's LLVM module, so that a static
 * library needs nothing but libc, libpthread and libm.
 *
 * The runtime is the portable C core of src/runtime, compiled to bitcode per
 * triple when libLoom is built (cmake/LoomRuntime.cmake). Every definition it
 * exports becomes weak (weak_odr for functions: a copy may be inlined; plain
 * weak for variables: their values are never assumed) and hidden: two Loom
 * libraries in one program then share one copy of the runtime, its handlers
 * and its thread pool, without duplicate-symbol errors, and a shared object
 * built from one exports none of it.
 */

#include "loom/Target.h"

namespace llvm {
class Module;
}

namespace loom {
namespace internal {

/** \throws CompileError unless libLoom carries runtime bitcode for t,
 * naming the targets it has one for. */
void require_aot_runtime(const Target &t);

/** Links the runtime for t into m (whose triple and data layout are t's).
 * \throws CompileError if there is no runtime for t (naming the targets
 * there are); InternalError if the bitcode cannot be read or linked. */
void link_aot_runtime(llvm::Module &m, const Target &t);

}  // namespace internal
}  // namespace loom

#endif
