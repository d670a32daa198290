#ifndef LOOM_IR_MONOTONIC_H
#define LOOM_IR_MONOTONIC_H

/** \file
 * Whether an expression grows, shrinks or stays put as one variable grows:
 * the question bounds inference asks before narrowing a region with a
 * branch condition (BoxesTouched.cpp).
 */

#include <string>

#include "ir/IR.h"

namespace loom {
namespace internal {

enum class Monotonic {
    Constant,    ///< does not depend on the variable
    Increasing,  ///< never decreases as the variable increases
    Decreasing,  ///< never increases as the variable increases
    Unknown,     ///< anything else, or not provable
};

/** How e changes with the variable `var`, assuming (as the simplifier and
 * bounds inference do) that Int(32) and Int(64) arithmetic does not
 * overflow. Conservative: Unknown whenever a node is not understood
 * (loads, calls of other kinds, modulus, narrowing or unsigned arithmetic
 * on the variable, a select whose condition uses it). */
Monotonic monotonic_in(const Expr &e, const std::string &var);

}  // namespace internal
}  // namespace loom

#endif
