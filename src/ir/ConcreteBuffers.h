#ifndef LOOM_IR_CONCRETE_BUFFERS_H
#define LOOM_IR_CONCRETE_BUFFERS_H

/** \file
 * A loom::Buffer read directly by a pipeline (Halide's embedded Buffer<>)
 * and an ImageParam are both buffer Parameters with memory bound to them.
 * Halide treats the first as a constant of the pipeline: memoize() keys
 * nothing of it, and ahead-of-time compilation embeds it in the object.
 * This records which Parameters are a Buffer's, without a field in the
 * widely included ParameterContents.
 */

#include "loom/internal/Parameter.h"

namespace loom {
namespace internal {

/** Records p, the Parameter of a concrete Buffer (its memory bound by
 * buffer_parameter() for the Buffer's lifetime). */
void note_concrete_buffer_parameter(const Parameter &p);

/** True if p was recorded by note_concrete_buffer_parameter (and is still
 * that Buffer's: a later Parameter at the same address is not). */
bool is_concrete_buffer_parameter(const Parameter &p);

}  // namespace internal
}  // namespace loom

#endif
