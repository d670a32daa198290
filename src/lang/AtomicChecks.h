#ifndef LOOM_LANG_ATOMIC_CHECKS_H
#define LOOM_LANG_ATOMIC_CHECKS_H

/** \file
 * Stage::atomic()'s checks of an update definition (Halide's rules): the
 * update can be made atomic (one read-modify-write per store, or for a Tuple
 * that reads the Func the lock of the element, lower/LowerAtomics.h) when
 * its left-hand side does not read the Func, and its values and predicates
 * read the Func only at the element being written.
 */

#include <string>

#include "ir/Function.h"

namespace loom {
namespace internal {

/** Throws CompileError naming `stage_name` when stage `stage` of f can't be
 * made atomic. The pure definition (stage 0) always can. */
void check_atomic_update(const FunctionContents &f, int stage, const std::string &stage_name);

/** When an RVar loop of an atomic update is parallelized or vectorized:
 * throws CompileError unless the update assigns a value that does not read
 * f or is an associative and commutative reduction (lang/Associativity.h). */
void check_atomic_associative(const FunctionContents &f, int stage, const std::string &stage_name);

}  // namespace internal
}  // namespace loom

#endif
