#ifndef LOOM_IR_MODULUS_REMAINDER_H
#define LOOM_IR_MODULUS_REMAINDER_H

/** \file
 * Modulus-remainder analysis: facts of the form "every value (every lane) of
 * an integer expression is modulus*k + remainder for some integer k". The
 * simplifier uses the same analysis (its ExprInfo) to decide divisions and
 * remainders, e.g. ramp(x*16, 1, 8) % 16 -> ramp(0, 1, 8); code generation
 * can use it to prove vector accesses aligned.
 */

#include <cstdint>

#include "ir/IR.h"
#include "ir/Scope.h"

namespace loom {
namespace internal {

/** value == modulus*k + remainder for some k, remainder in [0, modulus).
 * modulus 1 says nothing; modulus 0 says the value is exactly `remainder`. */
struct ModulusRemainder {
    int64_t modulus = 1, remainder = 0;
    bool operator==(const ModulusRemainder &o) const { return modulus == o.modulus && remainder == o.remainder; }
    bool operator!=(const ModulusRemainder &o) const { return !(*this == o); }
};

/** The alignment of an integer expression, through constants, + - *, division
 * and remainder by constants, min/max/select, Lets and Ramps; scope gives what
 * is known about free variables. Values of Int(32)/Int(64) are assumed not to
 * overflow; other integer types keep only what survives wrapping. A
 * non-integer expression yields {1, 0}. */
ModulusRemainder modulus_remainder(const Expr &e,
                                   const Scope<ModulusRemainder> &scope = Scope<ModulusRemainder>());

}  // namespace internal
}  // namespace loom

#endif
