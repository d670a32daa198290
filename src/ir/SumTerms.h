#ifndef LOOM_IR_SUM_TERMS_H
#define LOOM_IR_SUM_TERMS_H

/** \file
 * A sum (a tree of Add and Sub) as its signed terms, and back: for passes
 * that regroup a sum's terms (loop-invariant ones together, broadcast ones
 * apart). Regrouping an integer sum is exact in wrapping arithmetic.
 */

#include <vector>

#include "ir/IR.h"

namespace loom {
namespace internal {

/** A term of a sum: +e or -e. */
struct SumTerm {
    Expr e;
    bool negative = false;
};

/** Appends the terms of e (through Add and Sub), each negated if `negative`
 * says the sum is. */
void flatten_sum(const Expr &e, bool negative, std::vector<SumTerm> &terms);

/** The terms added up left to right, or a zero of type t for none. */
Expr sum_of(Type t, const std::vector<SumTerm> &terms);

}  // namespace internal
}  // namespace loom

#endif
