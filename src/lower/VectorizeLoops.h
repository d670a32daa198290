#ifndef LOOM_LOWER_VECTORIZE_LOOPS_H
#define LOOM_LOWER_VECTORIZE_LOOPS_H

/** \file
 * Turns each vectorized loop (ForType::Vectorized) of constant extent n into
 * straight-line vector code: the loop variable becomes Ramp(min, 1, n) and
 * every expression that depends on it is widened lane by lane (scalars are
 * broadcast; a load or store at a Ramp index is a dense vector access, at
 * any other vector index a gather or scatter; math calls become vector
 * calls). A let whose value becomes a Ramp or Broadcast binds its scalar
 * base, so indices built from it stay Ramps; a let of any other vector value
 * is substituted into its uses (the simplifier's bounds reasoning does not
 * handle vector-typed variables).
 *
 * An if whose condition differs between lanes (a GuardWithIf tail, a
 * boundary test) becomes: if every lane's condition holds, the plain vector
 * body; else, if some lane's does, the vector body with its loads and stores
 * predicated by the condition (masked lanes touch no memory); an else branch
 * is handled the same way with the negated condition.
 *
 * A loop whose body cannot be widened correctly stays a serial loop (correct,
 * just not vectorized): a store at an index that does not depend on the loop
 * variable, two different store indices into one buffer, a buffer both read
 * and written at different indices (a dependence between lanes), a side
 * effect (print, an extern call), an allocation, an inner loop whose bounds
 * depend on the loop variable, or a body that already holds vectors (nested
 * vectorized loops: the inner one is vectorized, the outer runs serially).
 */

#include "ir/IR.h"
#include "loom/Target.h"

namespace loom {
namespace internal {

/** \throws CompileError naming the loop when a vectorized loop's extent is
 * not a constant (after substituting the lets around it), or is huge. */
Stmt vectorize_loops(const Stmt &s, const Target &target);

}  // namespace internal
}  // namespace loom

#endif
