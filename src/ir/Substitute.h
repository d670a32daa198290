#ifndef LOOM_IR_SUBSTITUTE_H
#define LOOM_IR_SUBSTITUTE_H

/** \file
 * Replaces free Variables by name (respecting shadowing by Let/LetStmt/For),
 * or replaces whole subexpressions that are structurally equal to `find`.
 */

#include <map>
#include <string>

#include "ir/IR.h"

namespace loom {
namespace internal {

Expr substitute(const std::string &name, const Expr &replacement, const Expr &e);
Stmt substitute(const std::string &name, const Expr &replacement, const Stmt &s);
Expr substitute(const std::map<std::string, Expr> &replacements, const Expr &e);
Stmt substitute(const std::map<std::string, Expr> &replacements, const Stmt &s);
/** Replaces every subexpression equal to find. */
Expr substitute(const Expr &find, const Expr &replacement, const Expr &e);
Stmt substitute(const Expr &find, const Expr &replacement, const Stmt &s);

/** Whether e (or s) refers to a free variable with this name, or to the
 * host-pointer symbol of that name through a Load or Store. */
bool expr_uses_var(const Expr &e, const std::string &name);
bool stmt_uses_var(const Stmt &s, const std::string &name);

/** Inlines all Let expressions (substituting their values). */
Expr substitute_in_all_lets(const Expr &e);

}  // namespace internal
}  // namespace loom

#endif
