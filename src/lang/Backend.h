#ifndef LOOM_LANG_BACKEND_H
#define LOOM_LANG_BACKEND_H

/** \file
 * Switches and counters of the JIT front end, for tests and tools.
 *
 * - The back end realize() runs pipelines with: the LLVM JIT (default) or
 *   the reference interpreter of the lowered IR. $LOOM_JIT_BACKEND
 *   ("llvm" or "interpreter") sets the initial choice. Compiled pipelines
 *   are cached per back end.
 * - jit_compile_count(): how many times a pipeline has been lowered and
 *   compiled, so tests can prove a realize() did not recompile.
 * - The definition generation: every definition or scheduling call bumps it,
 *   and a cached pipeline compiled at an older generation is recompiled.
 *   Front-end code that changes a Function (new scheduling directives too)
 *   must call bump_definition_generation().
 */

#include <cstdint>

namespace loom {
namespace internal {

enum class Backend { LLVM, Interpreter };

void set_jit_backend(Backend backend);
Backend jit_backend();
const char *backend_name(Backend backend);

/** Lowerings + compilations done so far by realize/compile_jit. */
int jit_compile_count();
/** Counts one more (called by the JIT cache when it compiles). */
void count_jit_compile();

uint64_t definition_generation();
void bump_definition_generation();

}  // namespace internal
}  // namespace loom

#endif
