#ifndef LOOM_IR_NAMES_BOUND_H
#define LOOM_IR_NAMES_BOUND_H

/** \file
 * The names a statement binds anywhere inside it: what code placed before
 * the statement (a hoisted let, a trace tag) must not read.
 */

#include <set>
#include <string>

#include "ir/IR.h"

namespace loom {
namespace internal {

/** Every name a Let, LetStmt, For or Allocate inside s binds. */
std::set<std::string> names_bound_in(const Stmt &s);

}  // namespace internal
}  // namespace loom

#endif
