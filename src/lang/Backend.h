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
 * - The definition generation: a counter that every definition or
 *   scheduling call advances, recording the new value in the Function it
 *   changed. A cached pipeline is recompiled when one of its own Funcs
 *   changed after it was compiled; defining or scheduling other Funcs leaves
 *   it alone. Front-end code that changes a Function (new scheduling
 *   directives too) must call mark_changed() on it.
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

struct FunctionContents;

/** The latest generation handed out. */
uint64_t definition_generation();
/** Advances the generation and records it as f's latest change. */
void mark_changed(FunctionContents &f);

}  // namespace internal
}  // namespace loom

#endif
