#ifndef LOOM_LAMBDA_H
#define LOOM_LAMBDA_H

/** \file
 * lambda(): a Func from an Expr without naming it.
 *
 *     Func gradient = lambda(x, y, x + y);
 *     Func any = lambda(_0 * 2);          // over the implicit variables used
 */

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

inline Func lambda(const Var &x, const Expr &e) {
    Func f;
    f(x) = e;
    return f;
}

inline Func lambda(const Var &x, const Var &y, const Expr &e) {
    Func f;
    f(x, y) = e;
    return f;
}

inline Func lambda(const Var &x, const Var &y, const Var &z, const Expr &e) {
    Func f;
    f(x, y, z) = e;
    return f;
}

inline Func lambda(const Var &x, const Var &y, const Var &z, const Var &w, const Expr &e) {
    Func f;
    f(x, y, z, w) = e;
    return f;
}

inline Func lambda(const Var &x, const Var &y, const Var &z, const Var &w, const Var &v, const Expr &e) {
    Func f;
    f(x, y, z, w, v) = e;
    return f;
}

}  // namespace loom

#endif
