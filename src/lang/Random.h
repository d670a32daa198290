#ifndef LOOM_LANG_RANDOM_H
#define LOOM_LANG_RANDOM_H

// The definition-time half of random_float/int/uint (loom/IROperator.h).

#include <string>
#include <vector>

#include "loom/Expr.h"

namespace loom {
namespace internal {

/** e with every intrinsic::random call replaced by a hash of the call's
 * seed and id, of the definition (func_name, stage) and of the definition's
 * coordinates (its pure Vars and RVars, Int(32) Variables). */
Expr replace_random_calls(const Expr &e, const std::string &func_name, int stage,
                          const std::vector<Expr> &coordinates);

}  // namespace internal
}  // namespace loom

#endif
