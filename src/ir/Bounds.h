#ifndef LOOM_IR_BOUNDS_H
#define LOOM_IR_BOUNDS_H

/** \file
 * Interval arithmetic over Exprs, and the regions of Funcs and input buffers
 * that a piece of IR touches. This is the core of bounds inference.
 */

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ir/IR.h"
#include "ir/Interval.h"
#include "ir/Scope.h"

namespace loom {
namespace internal {

/** Bounds of e when each free variable named in scope ranges over its
 * interval (variables not in scope are treated as symbolic constants). The
 * result may be unbounded (undefined min/max) when no bound can be found,
 * e.g. for a value loaded from memory of a wide type. Results are simplified. */
Interval bounds_of_expr_in_scope(const Expr &e, const Scope<Interval> &scope);

/** The values each Func computed out of line may hold, by Func name and
 * Tuple element (lower/FunctionValueBounds.h computes them).
 * An undefined endpoint is unbounded on that side. */
using FuncValueBounds = std::map<std::pair<std::string, int>, Interval>;

/** While one is alive, bounds_of_expr_in_scope on this thread bounds a call
 * of a Func named in `bounds` (CallType::Func, by its Tuple element) by that
 * interval, intersected with the range of its type, instead of by the range
 * of its type alone. The boxes below use it too. Nested guards: the
 * innermost is used. Halide passes the same map as an argument; a guard
 * keeps every caller of the box functions unchanged. */
class WithFuncValueBounds {
public:
    explicit WithFuncValueBounds(const FuncValueBounds &bounds);
    ~WithFuncValueBounds();
    WithFuncValueBounds(const WithFuncValueBounds &) = delete;
    WithFuncValueBounds &operator=(const WithFuncValueBounds &) = delete;

private:
    const FuncValueBounds *outer_;
};

/** A multi-dimensional region: one Interval per dimension. */
using Box = std::vector<Interval>;

/** Per-dimension union; a box with no dimensions is empty. */
void merge_boxes(Box &a, const Box &b);
Box box_union(const Box &a, const Box &b);

/** Which Funcs and buffers the box functions below report, by name; an
 * empty filter means all. Asking only for the names needed is the same
 * result restricted to them, for less work. */
using BoxFilter = std::function<bool(const std::string &)>;

/** For each Func (CallType::Func, by name) and input buffer (CallType::Image,
 * by parameter name) called in e or s, the box of coordinates it may be
 * called at, with loop variables (For) and lets inside s accounted for and
 * free variables bounded by scope. Provide nodes count as "required" for the
 * Func they write only in boxes_provided. Calls under a false-predicate or
 * select branch are still counted (conservative).
 *
 * Lets are substituted, not bounded, and each loop relaxes its variable
 * only after everything inside it is accounted for, so a loop whose min and
 * extent both depend on an outer loop spans at most the largest value of
 * min + extent - 1, not the largest min plus the largest extent
 * (BoxesTouched.cpp). A branch condition v <= e (<, >=, >, ==, &&) on a
 * variable v narrows v inside the then-case. */
std::map<std::string, Box> boxes_required(const Expr &e, const Scope<Interval> &scope = Scope<Interval>(),
                                          const BoxFilter &wanted = BoxFilter());
std::map<std::string, Box> boxes_required(const Stmt &s, const Scope<Interval> &scope = Scope<Interval>(),
                                          const BoxFilter &wanted = BoxFilter());
/** The coordinates written by Provide nodes, per Func. */
std::map<std::string, Box> boxes_provided(const Stmt &s, const Scope<Interval> &scope = Scope<Interval>(),
                                          const BoxFilter &wanted = BoxFilter());

}  // namespace internal
}  // namespace loom

#endif
