#ifndef LOOM_LANG_CONSTRAINT_GENERATION_H
#define LOOM_LANG_CONSTRAINT_GENERATION_H

/** \file
 * Buffer constraints are compiled into a pipeline (loom/Dimension.h). An
 * output buffer's belong to its Func, whose change marks the pipelines of
 * that Func stale; an input's belong to an ImageParam, which no Func owns,
 * so every change to one advances this counter and the JIT recompiles
 * pipelines compiled before it.
 */

#include <cstdint>

namespace loom {
namespace internal {

uint64_t input_constraint_generation();
void advance_input_constraint_generation();

}  // namespace internal
}  // namespace loom

#endif
