#ifndef LOOM_INTERNAL_WEAKEN_CALLS_H
#define LOOM_INTERNAL_WEAKEN_CALLS_H

/** \file
 * Breaking the reference cycle of a recurrence whose owner is done with it.
 *
 * A Func's definition holds the Funcs it calls (FunctionPtr.h). A state whose
 * update reads a Func that reads the state (state(r + 1) = step(r), step
 * reading state(r): Loom allows this, Halide does not) makes a cycle of
 * strong references, so neither is ever freed. Loom cannot weaken either
 * edge when the update is defined: the program may go on holding only one of
 * the two. An owner that knows when it is done (the ONNX importer, when a
 * compiled model is destroyed) calls weaken_calls_among first.
 */

#include <vector>

#include "loom/Func.h"

namespace loom {
namespace internal {

/** Makes every call among `funcs` in their definitions weak: they no longer
 * keep each other alive, so they are freed with the last outside reference.
 * Call it only when nothing will lower them again unless it holds each of
 * them (a weak call to a freed Func is refused when lowering). */
void weaken_calls_among(const std::vector<Func> &funcs);

}  // namespace internal
}  // namespace loom

#endif
