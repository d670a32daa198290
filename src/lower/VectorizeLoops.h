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
 * A body guarded per lane by linear tests (a GuardWithIf or ShiftInwards
 * tail: lets and ifs without else at the top of the body whose conditions
 * compare a ramp with a scalar) becomes: if every lane passes (one scalar
 * test of the first or last lane), the vector body without the guards; else
 * the original serial loop, which runs only for the last, partial vector.
 * That is smaller and much quicker to compile than masked code (masked
 * 8- and 16-bit accesses are scalarised lane by lane on AVX2).
 *
 * Any other if whose condition differs between lanes (a boundary test, a
 * data-dependent condition) becomes: if every lane's condition holds, the plain vector
 * body; else, if some lane's does, the vector body with its loads and stores
 * predicated by the condition (masked lanes touch no memory); an else branch
 * is handled the same way with the negated condition.
 *
 * Lanes of a loop over a pure Var of a stage (after splits and renames; not
 * fused with an RVar) are independent by construction: each lane writes its
 * own coordinate of that dimension of the Func, and the front end requires
 * every recursive call to read the Func at that same coordinate. Such loops
 * are widened even when the body reads the Func elsewhere (recurrences such
 * as f(r, y) = f(r - 1, y) + g(r, y) vectorized over y). Lowering passes the
 * loop names and their Funcs' buffers in (independent_lane_buffers); other
 * buffers written in such a loop, and every buffer of other vectorized loops
 * (RVars, and IR built without the front end), are checked from their
 * accesses instead.
 *
 * A loop whose body cannot be widened correctly stays a serial loop (correct,
 * just not vectorized): a store at an index that does not depend on the loop
 * variable, and, for checked buffers, two different store indices into one
 * buffer or a buffer both read and written at different indices (a
 * dependence between lanes); for any loop a side effect (print, an extern
 * call), an allocation (a Func computed inside the vectorized loop), an
 * inner loop whose bounds depend on the loop variable, or a body that
 * already holds vectors (nested vectorized loops: the inner one is
 * vectorized, the outer runs serially); and for a Func whose storage is
 * folded (fold_storage), whose lanes may share a slot.
 */

#include <map>
#include <set>
#include <string>

#include "ir/IR.h"
#include "loom/Target.h"
#include "lower/Stages.h"

namespace loom {
namespace internal {

/** \throws CompileError naming the loop when a vectorized loop's extent is
 * not a constant (after substituting the lets around it), or is huge. */
Stmt vectorize_loops(const Stmt &s, const Target &target);

/** As above; `independent` maps the name of each vectorized loop over a pure
 * Var to the buffers of its Func, whose lanes need no check. */
Stmt vectorize_loops(const Stmt &s, const Target &target,
                     const std::map<std::string, std::set<std::string>> &independent);

/** The vectorized loops of the pipeline over pure Vars (not RVars, not fused
 * with one), each with the storage of its Func; Funcs with a folded
 * dimension are left out. */
std::map<std::string, std::set<std::string>> independent_lane_buffers(
    const PipelineStages &pipeline, const std::map<std::pair<std::string, int>, Expr> &folds);

}  // namespace internal
}  // namespace loom

#endif
