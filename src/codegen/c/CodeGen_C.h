#ifndef LOOM_CODEGEN_C_CODEGEN_C_H
#define LOOM_CODEGEN_C_CODEGEN_C_H

/** \file
 * The C back end (OutputFileType::c_source, compile_to_c): lowered pipelines
 * as one C++ source file that any C++17 compiler builds, defining for each
 * function the same symbols as the object file (NAME, NAME_argv and
 * NAME_metadata, with the ABI of the generated header) and calling the Loom
 * runtime (loom_malloc/loom_free, loom_error, loom_print, loom_do_par_for).
 *
 * Every value is a named C++ variable; a vector is a loom_vec<T, lanes>
 * (an array in a struct) computed lane by lane, so the code is portable and
 * its results are those of the LLVM back end: integer arithmetic wraps,
 * division is Euclidean, float -> int conversion saturates, shifts follow
 * the interpreter; a Float(16) value (loom_f16, its bits) is computed in
 * float and rounded to half after every operation, as the LLVM back end
 * does. Heap allocations are freed by a destructor on every return. A
 * parallel loop's body is a lambda that loom_do_par_for runs.
 *
 * What it cannot express it refuses with a CompileError naming it: GPU
 * schedules, tracing, async, atomics, memoize, extern stages, buffers
 * embedded in the object, 32-bit targets and large_buffers.
 */

#include <string>
#include <vector>

#include "ir/LoweredFunc.h"
#include "loom/Target.h"

namespace loom {
namespace internal {

/** The C++ source of funcs for target. `what` names the public call in
 * messages. \throws CompileError for what the C back end refuses. */
std::string codegen_c(const std::vector<const LoweredFunc *> &funcs, const Target &target, const std::string &what);

/** The helpers every generated source starts with (CodeGen_C_Preamble.cpp):
 * loom_vec and the arithmetic of Loom's IR on C++ scalars. */
const char *c_backend_preamble();

}  // namespace internal
}  // namespace loom

#endif
