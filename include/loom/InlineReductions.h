#ifndef LOOM_INLINE_REDUCTIONS_H
#define LOOM_INLINE_REDUCTIONS_H

/** \file
 * Inline reductions: sum, product, maximum, minimum, saturating_sum, argmax
 * and argmin of an expression over a reduction domain, usable inside a pure
 * definition.
 *
 *     Func blur;
 *     RDom r(-1, 3, -1, 3);
 *     blur(x, y) = sum(in(x + r.x, y + r.y)) / 9;
 *     Tuple best = argmax(scores(x, r));   // {r where scores is largest, that value}
 *
 * Without an explicit RDom, the RDom is the one whose RVars appear in the
 * expression (a CompileError naming the reduction if none do, or if RVars of
 * two RDoms do). Each call defines a new Func, named after the reduction
 * (or the name given) and made unique, over the expression's free pure Vars:
 *
 *     sum(e):            s(vars) = 0 of e's type;      s(vars) = s(vars) + e over r
 *     product(e):        1;                            s * e
 *     maximum(e):        lowest;                       max(s, e)
 *     minimum(e):        highest;                      min(s, e)
 *     saturating_sum(e): 0;                            saturating_add(s, e)
 *     argmax(e):         {0, ..., 0, lowest};          replaced where e > the value so far
 *     argmin(e):         {0, ..., 0, highest};         replaced where e < the value so far
 *
 * where lowest and highest are e's type's min() and max() for integers, and
 * -inf and +inf for floats (as Halide's Type::min() and max() are). It
 * returns the call s(vars). The result has e's type: a sum of uint8
 * wraps in uint8 (cast e first for a wider sum); saturating_sum clamps at
 * each step. argmax and argmin return a Tuple of the RVars' values at the
 * first extreme in iteration order (r.x innermost), then the extreme value;
 * over an empty domain they return the initial Tuple. A where() predicate
 * on the RDom restricts the points reduced over.
 *
 * With an explicit RDom, only its RVars are reduced over; RVars of other
 * RDoms stay free, so reductions nest:
 *
 *     Expr e = minimum(r1, product(r2, sum(r3, r1 + r2 + r3)));
 *
 * The Func overloads define the given Func instead of a new one
 * (CompileError if it already has a definition).
 */

#include <string>

#include "loom/Expr.h"
#include "loom/Func.h"
#include "loom/RDom.h"
#include "loom/Tuple.h"

namespace loom {

Expr sum(Expr e, const std::string &name = "sum");
Expr sum(Expr e, const Func &f);
Expr sum(const RDom &r, Expr e, const std::string &name = "sum");
Expr sum(const RDom &r, Expr e, const Func &f);

Expr saturating_sum(Expr e, const std::string &name = "saturating_sum");
Expr saturating_sum(Expr e, const Func &f);
Expr saturating_sum(const RDom &r, Expr e, const std::string &name = "saturating_sum");
Expr saturating_sum(const RDom &r, Expr e, const Func &f);

Expr product(Expr e, const std::string &name = "product");
Expr product(Expr e, const Func &f);
Expr product(const RDom &r, Expr e, const std::string &name = "product");
Expr product(const RDom &r, Expr e, const Func &f);

Expr maximum(Expr e, const std::string &name = "maximum");
Expr maximum(Expr e, const Func &f);
Expr maximum(const RDom &r, Expr e, const std::string &name = "maximum");
Expr maximum(const RDom &r, Expr e, const Func &f);

Expr minimum(Expr e, const std::string &name = "minimum");
Expr minimum(Expr e, const Func &f);
Expr minimum(const RDom &r, Expr e, const std::string &name = "minimum");
Expr minimum(const RDom &r, Expr e, const Func &f);

Tuple argmax(Expr e, const std::string &name = "argmax");
Tuple argmax(Expr e, const Func &f);
Tuple argmax(const RDom &r, Expr e, const std::string &name = "argmax");
Tuple argmax(const RDom &r, Expr e, const Func &f);

Tuple argmin(Expr e, const std::string &name = "argmin");
Tuple argmin(Expr e, const Func &f);
Tuple argmin(const RDom &r, Expr e, const std::string &name = "argmin");
Tuple argmin(const RDom &r, Expr e, const Func &f);

}  // namespace loom

#endif
