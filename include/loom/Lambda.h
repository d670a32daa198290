#ifndef LOOM_LAMBDA_H
#define LOOM_LAMBDA_H

/** \file
 * lambda(): a Func from an Expr without naming it.
 *
 *     Func gradient = lambda(x, y, x + y);
 *     Func any = lambda(_0 * 2);          // over the implicit variables used
 */

#include <vector>

#include "loom/Expr.h"
#include "loom/Func.h"
#include "loom/Var.h"

namespace loom {

/** f(_) = e. */
inline Func lambda(const Expr &e) {
    Func f;
    f(_) = e;
    return f;
}

/** lambda(x, y, ..., e): f(x, y, ...) = e, with any number of Vars. */
template<typename... Rest>
Func lambda(const Var &x, const Rest &...rest) {
    static_assert(sizeof...(Rest) >= 1, "lambda(x, ..., e) needs the Vars and then the value");
    std::vector<Expr> all = {Expr(x), Expr(rest)...};
    Expr value = all.back();
    all.pop_back();
    Func f;
    f(all) = value;
    return f;
}

}  // namespace loom

#endif
