#ifndef LOOM_LANG_ASSOCIATIVITY_H
#define LOOM_LANG_ASSOCIATIVITY_H

/** \file
 * Which updates rfactor may split: f(args) = combine(f(args), y) where
 * combine is associative and y does not read f (Halide's associativity
 * check). Recognized, element by element of a Tuple:
 * - f + y, f * y, min(f, y), max(f, y), f && y, f || y (y may be a sum,
 *   product, ... of several terms, f anywhere among them);
 * - f unchanged;
 * and, for a whole Tuple, the argmin/argmax form: every element is
 * select(c, f[i], y[i]) (or the branches swapped) with one condition c
 * comparing f[k] with y[k] by <, <=, > or >= (ties go consistently to one
 * side); element k may instead be min(f[k], y[k]) or max(f[k], y[k]) in the
 * matching direction. That form is associative but not commutative. Also complex
 * multiplication of a pair: (f[0] * a - f[1] * b, f[0] * b + f[1] * a).
 */

#include <string>
#include <vector>

#include "ir/Function.h"

namespace loom {
namespace internal {

struct AssociativeOp {
    bool associative = false;
    /** Why not, for the error message (empty when associative). */
    std::string why_not;
    /** One per Tuple element, in terms of the Variables x_names (the value
     * so far) and y_names (what the update combines in). */
    std::vector<Expr> combine;
    std::vector<std::string> x_names, y_names;
    /** combine(identity, y) == y. */
    std::vector<Expr> identities;
    /** What the update combines into f, one per element (no calls to f). */
    std::vector<Expr> y;
    bool commutative = true;
};

/** The update f(args) = values of f, seen as an associative operator; not
 * one if its predicate (RDom::where, may be undefined) reads f, since which
 * terms count then depends on the order. */
AssociativeOp find_associative_op(const FunctionContents &f, const std::vector<Expr> &args,
                                  const std::vector<Expr> &values, const Expr &predicate = Expr());

}  // namespace internal
}  // namespace loom

#endif
