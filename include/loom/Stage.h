#ifndef LOOM_STAGE_H
#define LOOM_STAGE_H

/** \file
 * Stage: one definition of a Func, its pure definition (stage 0) or update n
 * (stage n + 1, from Func::update(n)), and the calls that shape its loop
 * nest. Func has the same calls for its pure definition.
 *
 *     Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
 *     blur.tile(x, y, xo, yo, xi, yi, 64, 16).vectorize(xi, 8).parallel(yo);
 *     hist.update(0).unroll(r, {8, 4, 1});   // blocks of 8, then 4, then 1
 *
 * Loops are listed innermost first, as in Halide: a pure definition f(x, y)
 * starts as loops (x, y) with x innermost; an update starts with its RVars
 * innermost (first RVar innermost) and then the pure Vars it keeps.
 *
 * Every call throws CompileError naming the Func, the stage and the Var
 * when the directive is invalid: a loop the stage does not have (or no
 * longer has, because it was split, fused or renamed), a name already in
 * use, a split factor that is not a positive integer, a tail strategy not
 * allowed where it is used, fusing loops that are not adjacent, reordering
 * with a repeated loop, giving a loop two kinds (vectorize then parallel)
 * or the same kind twice, splitting or fusing a loop already marked
 * parallel/vectorized/unrolled, and vectorizing or parallelizing an RVar
 * whose iterations may depend on each other. An RVar counts as independent
 * only when the update writes f(..., r, ...) with r a bare argument, and
 * every read of f in the update reads at r in that same position: then
 * different iterations touch different elements. Reordering two RVar loops
 * that are not independent is refused for the same reason. A directive that
 * throws leaves the schedule unchanged.
 */

#include <initializer_list>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "loom/Expr.h"
#include "loom/LoopLevel.h"
#include "loom/Schedule.h"
#include "loom/VarOrRVar.h"
#include "loom/internal/FunctionPtr.h"

namespace loom {

class Stage {
public:
    Stage(const internal::FunctionPtr &func, int stage) : func_(func), stage_(stage) {}

    /** "f" for the pure definition, "f.update(n)" for update n. */
    std::string name() const;
    int stage_index() const { return stage_; }
    const internal::FunctionPtr &function() const { return func_; }

    /** Splits loop old into outer * factor + inner; inner becomes the
     * innermost of the two. outer may be old itself. */
    Stage &split(const VarOrRVar &old, const VarOrRVar &outer, const VarOrRVar &inner, const Expr &factor,
                 TailStrategy tail = TailStrategy::Auto);
    /** Replaces adjacent loops inner and outer (outer directly outside inner)
     * by one loop fused of extent inner.extent * outer.extent. */
    Stage &fuse(const VarOrRVar &inner, const VarOrRVar &outer, const VarOrRVar &fused);
    /** Gives loop old the name new_name. */
    Stage &rename(const VarOrRVar &old, const VarOrRVar &new_name);
    /** Puts the named loops in this order, innermost first, in the places they
     * held; the other loops stay where they are. */
    Stage &reorder(const std::vector<VarOrRVar> &vars);
    template<typename... Args>
    std::enable_if_t<(std::is_convertible_v<Args, VarOrRVar> && ...), Stage &>
    reorder(const VarOrRVar &x, const VarOrRVar &y, Args &&...rest) {
        return reorder(std::vector<VarOrRVar>{x, y, VarOrRVar(std::forward<Args>(rest))...});
    }
    /** split x and y, then reorder(xi, yi, xo, yo). */
    Stage &tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &xo, const VarOrRVar &yo,
                const VarOrRVar &xi, const VarOrRVar &yi, const Expr &xfactor, const Expr &yfactor,
                TailStrategy tail = TailStrategy::Auto);
    /** The same with x and y reused as the outer loops. */
    Stage &tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &xi, const VarOrRVar &yi,
                const Expr &xfactor, const Expr &yfactor, TailStrategy tail = TailStrategy::Auto);
    /** Any number of dimensions: split previous[i] into outers[i] and
     * inners[i], then put all inners inside all outers. */
    Stage &tile(const std::vector<VarOrRVar> &previous, const std::vector<VarOrRVar> &outers,
                const std::vector<VarOrRVar> &inners, const std::vector<Expr> &factors,
                TailStrategy tail = TailStrategy::Auto);
    /** As above with previous reused as the outer names. */
    Stage &tile(const std::vector<VarOrRVar> &previous, const std::vector<VarOrRVar> &inners,
                const std::vector<Expr> &factors, TailStrategy tail = TailStrategy::Auto);

    /** Marks the loop as a SIMD loop (its extent must be a constant). */
    Stage &vectorize(const VarOrRVar &var);
    /** split(var, var, var_vi, factor) then vectorize(var_vi); factor must be
     * a positive constant. */
    Stage &vectorize(const VarOrRVar &var, const Expr &factor, TailStrategy tail = TailStrategy::Auto);
    /** Unrolls the loop completely (its extent must be a constant). */
    Stage &unroll(const VarOrRVar &var);
    /** split(var, var, var_ui, factor) then unroll(var_ui). */
    Stage &unroll(const VarOrRVar &var, const Expr &factor, TailStrategy tail = TailStrategy::Auto);
    /** A loop of any extent run as unrolled blocks: blocks of factors[0]
     * while that many iterations remain, then of factors[1], and so on.
     * factors must be positive, strictly decreasing, and end with 1, e.g.
     * unroll(x, {8, 4, 1}). */
    Stage &unroll(const VarOrRVar &var, std::initializer_list<int> factors) {
        return unroll(var, std::vector<int>(factors));
    }
    Stage &unroll(const VarOrRVar &var, const std::vector<int> &factors);
    /** Runs the iterations of the loop on the thread pool. */
    Stage &parallel(const VarOrRVar &var);
    /** split(var, var, var_pi, task_size) then parallel(var): each task runs
     * task_size iterations. */
    Stage &parallel(const VarOrRVar &var, const Expr &task_size, TailStrategy tail = TailStrategy::Auto);
    /** Marks the loop as an ordinary sequential loop (the default). */
    Stage &serial(const VarOrRVar &var);

    /** Fuses this stage's loops with those of stage s, from the outermost
     * loop down to s's loop var, matched by position from the outside; in
     * each fused iteration this stage runs after s. Both stages' Funcs must
     * be computed at the same level. */
    Stage &compute_with(const Stage &s, const VarOrRVar &var);
    Stage &compute_with(const LoopLevel &level);

private:
    internal::FunctionPtr func_;
    int stage_;
};

}  // namespace loom

#endif
