#ifndef LOOM_VAR_H
#define LOOM_VAR_H

/** \file
 * Var: a named pure variable, the coordinates Funcs are defined over.
 *
 *     Var x("x"), y;              // y gets a unique name "v<N>"
 *     f(x, y) = x + y;
 *
 * The implicit variables `_0` ... `_9` and the placeholder `_` let a
 * definition leave some dimensions unnamed, as in Halide:
 *
 *     g(_) = f(_) + 1;            // g has as many dimensions as f
 *     h(x, _) = f(_) * x;         // h(x, _0, _1, ...) = f(_0, _1, ...) * x
 *
 * `_` in a call to a defined Func stands for the Func's remaining
 * dimensions; on the left of a pure definition it stands for every implicit
 * variable used on the right.
 */

#include <string>

#include "loom/Expr.h"

namespace loom {

class Var {
public:
    /** A Var with a unique name "v<N>". */
    Var();
    explicit Var(const std::string &name);

    const std::string &name() const { return name_; }
    bool same_as(const Var &other) const { return name_ == other.name_; }

    /** The implicit variable `_n` (named "_n"). */
    static Var implicit(int n);
    /** n if name is "_n" for a number n, else -1. */
    static int implicit_index(const std::string &name);
    static bool is_implicit(const std::string &name) { return implicit_index(name) >= 0; }
    /** The loop level outside all of a Func's loops (Halide's
     * Var::outermost(), named "__outermost"): f.compute_at(g,
     * Var::outermost()) computes f once per realization of g, inside g's
     * production but around all of g's loops; also for store_at,
     * hoist_storage and LoopLevel(g, Var::outermost()). */
    static Var outermost();
    /** Whether this is the placeholder `_`. */
    bool is_placeholder() const { return name_ == "_"; }

    /** An Int(32) Variable with this name. */
    operator Expr() const;

private:
    std::string name_;
};

/** The placeholder for "the remaining dimensions". */
inline const Var _("_");
/** Implicit variables, what `_` expands to. */
inline const Var _0("_0"), _1("_1"), _2("_2"), _3("_3"), _4("_4"), _5("_5"), _6("_6"), _7("_7"), _8("_8"),
    _9("_9");

}  // namespace loom

#endif
