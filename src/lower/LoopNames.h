#ifndef LOOM_LOWER_LOOP_NAMES_H
#define LOOM_LOWER_LOOP_NAMES_H

/** \file
 * Reading a loop's name ("f.s1.x") back for messages, and resolving a loop
 * extent through the LetStmts around it (and bounding it by a constant),
 * for the loop-shaping passes.
 */

#include <cstdint>
#include <optional>
#include <string>

#include "ir/IR.h"
#include "ir/Scope.h"

namespace loom {
namespace internal {

/** "f.s1.xi" -> "loop xi of update 0 of Func f"; other names are quoted. */
std::string describe_loop(const std::string &loop);

/** e with the LetStmt values in scope substituted (transitively), simplified:
 * a loop extent written as "x.loop_extent" becomes 8 when the let says so. */
Expr resolve_through_lets(const Expr &e, const Scope<Expr> &lets);

/** The largest value e can take whatever its free variables are (through
 * the lets in scope), if that is a constant: min(x, x_max) - x + 3 is at
 * most 3. Undefined when there is no constant bound. */
Expr constant_upper_bound(const Expr &e, const Scope<Expr> &lets);

/** How many copies an unrolled or vectorized loop makes: its extent if that
 * is a constant (through the lets in scope); otherwise the constant upper
 * bound of its extent, with `body` replaced by that body guarded by
 * `loop < min + extent` (as Halide's bound_constant_extent_loops: a sliding
 * window's first iteration, a producer per tile of a GuardWithIf tail).
 * std::nullopt, body unchanged, when the extent has no constant bound. */
std::optional<int64_t> bounded_extent(const For *loop, const Scope<Expr> &lets, Stmt &body);

}  // namespace internal
}  // namespace loom

#endif
