#ifndef LOOM_TUPLE_H
#define LOOM_TUPLE_H

/** \file
 * Tuple: several Exprs a Func computes together at each point.
 *
 *     f(x) = Tuple(x, cast<float>(x) / 2);   // or f(x) = {x, cast<float>(x) / 2};
 *     Expr a = f(x)[0], b = f(x)[1];
 *     Realization r = f.realize({10});       // r[0] is int32, r[1] is float32
 *
 * Every update of a Tuple-valued Func must give the same number of values of
 * the same types, else CompileError.
 */

#include <cstddef>
#include <utility>
#include <vector>

#include "loom/Expr.h"

namespace loom {

class FuncRef;

class Tuple {
public:
    explicit Tuple(const Expr &e) : exprs_{e} {}
    template<typename... Args>
    Tuple(const Expr &a, const Expr &b, Args &&...rest) : exprs_{a, b, Expr(std::forward<Args>(rest))...} {}
    explicit Tuple(const std::vector<Expr> &exprs) : exprs_(exprs) {}
    /** The values of a call to a (Tuple-valued) Func. */
    explicit Tuple(const FuncRef &call);

    size_t size() const { return exprs_.size(); }
    Expr &operator[](size_t i) { return exprs_.at(i); }
    const Expr &operator[](size_t i) const { return exprs_.at(i); }
    const std::vector<Expr> &as_vector() const { return exprs_; }

private:
    std::vector<Expr> exprs_;
};

/** Element-wise select between two Tuples of the same size. */
Tuple select(const Expr &condition, const Tuple &true_value, const Tuple &false_value);

}  // namespace loom

#endif
