#ifndef LOOM_LANG_DERIVATIVE_UPDATES_H
#define LOOM_LANG_DERIVATIVE_UPDATES_H

/** \file
 * How propagate_adjoints (src/lang/Derivative.cpp) differentiates an update
 * definition of a Func f: which earlier value of f each read of f in the
 * update sees, and the Funcs that recompute those earlier values.
 */

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "ir/Function.h"
#include "ir/Interval.h"
#include "ir/Scope.h"
#include "loom/Func.h"

namespace loom {
namespace internal {

/** Which value of f a read of f inside one of f's updates sees. */
enum class SelfRead {
    /** The point the iteration writes, before it writes it (f(x) = f(x) * g). */
    SamePoint,
    /** A point an earlier iteration of the same update wrote: a scan such as
     * f(r) = a * f(r - 1) + in(r). */
    Earlier,
    /** A point no iteration has written yet, so f's value before the update:
     * one the update never writes (f(x, 1) = f(x, 0) * 2), or one a later
     * iteration of the RDom writes (f(r) = f(r + 1) * in(r), each iteration
     * reading the value its successor will replace). */
    Unwritten,
};

/** An update stage of f, as propagate_adjoints differentiates it. */
struct UpdateAnalysis {
    /** Every element of f's Tuple is f(p)[i] + rest, or - rest, or f(p)[i]
     * itself (rest zero), with rest not reading f: the adjoint of f's earlier
     * value is that of its later value. */
    bool additive = false;
    /** Per Tuple element: rest when additive (times sign); the whole value
     * otherwise. */
    std::vector<Expr> values;
    std::vector<Expr> signs;
    struct Read {
        std::vector<Expr> args;
        SelfRead kind = SelfRead::SamePoint;
        /** Earlier: per RVar of the update's RDom, the iteration that wrote
         * the point read minus the iteration that reads it (constants). */
        std::vector<int64_t> shift;
    };
    /** Each distinct read of f in value (by its coordinates), when not additive. */
    std::vector<Read> reads;

    bool has_earlier_reads() const;
    /** The read of f at args (one of reads). */
    const Read &read_at(const std::vector<Expr> &args) const;
    SelfRead kind_of(const std::vector<Expr> &args) const { return read_at(args).kind; }
};

/** Whether stage s (>= 1) of f adds to or subtracts from each element of f's
 * value at the point it writes (or leaves it as it is); sets rest and sign,
 * one per Tuple element, if so. */
bool is_additive_update(const FunctionContents &f, int s, std::vector<Expr> &rest, std::vector<Expr> &sign);

/** Analyzes update stage s (>= 1) of f, whose pure Vars and RVars range over
 * scope. \throws CompileError for an update Loom can't differentiate: one
 * that may write a point more than once and is not additive, or that reads f
 * where a later iteration may write. */
UpdateAnalysis analyze_update(const FunctionContents &f, int s, const Scope<Interval> &scope);

/** f's value after stage `last` (0: the pure definition): f itself for its
 * last stage, otherwise a new Func, computed at the root, with f's
 * definitions up to that stage. */
Func value_after_stage(const FunctionPtr &f, int last);

/** f(args), element i of it if f is a Tuple. */
Expr call_element(const Func &f, const std::vector<Expr> &args, int i);

/** e, a derivative of stage s of f, with each read of f replaced by a read
 * of value_after(s - 1) (reads that see f's value before the stage) or
 * value_after(s) (Earlier reads, which see f's value within the stage), as
 * analysis says; value_after is called only for the values e reads. */
Expr read_stage_values(const Expr &e, const FunctionContents &f, const UpdateAnalysis &analysis, int s,
                       const std::function<Func(int)> &value_after);

/** Whether e reads f. */
bool reads_func(const Expr &e, const FunctionContents &f);

}  // namespace internal
}  // namespace loom

#endif
