#ifndef LOOM_RDOM_H
#define LOOM_RDOM_H

/** \file
 * RDom and RVar: reduction domains, the iteration spaces of update
 * definitions.
 *
 *     RDom r(0, 10);                     // one RVar, r.x, 0..9 (r converts to r.x)
 *     f(x) = 0;
 *     f(x) += g(x, r);                   // a sum over r
 *
 *     RDom box(-1, 3, -1, 3, "box");     // box.x and box.y, box.x innermost
 *     RDom all(input);                   // the whole of a Buffer or ImageParam
 *     RDom tri(0, 8, 0, 8);
 *     tri.where(tri.x < tri.y);          // only the points where this holds
 *
 * RVars are iterated in order, the first innermost. where() may be called
 * several times (the predicates are ANDed), but only before the RDom is used
 * in a definition (CompileError after). Mins and extents must be integers;
 * they are cast to Int(32). They are evaluated once, before the loop, and
 * may read Params, Buffers, ImageParams and other Funcs of the pipeline:
 *
 *     Func n;  n() = count(0);           // computed before the loop
 *     RDom r(0, n());                    // as many iterations as n() says
 *
 * Loops that stop early (Halide has no such loop; the ONNX Loop operator
 * does): loop_while(c) ends the loop over the outermost RVar before the
 * first iteration whose condition c, computed from the state the previous
 * iteration left, is false. No later iteration runs. trip_count() is the
 * number of iterations that ran, as an Expr later Funcs can read:
 *
 *     state(i, x) = 0.0f;                // i counts iterations
 *     state(0, x) = init(x);
 *     RDom r(0, max_steps);
 *     r.loop_while(state(r, 0) < 100.0f);   // checked before iteration r
 *     state(r + 1, x) = step(r, x);         // step(i, x) reads state(i, ...)
 *     result(x) = state(r.trip_count(), x); // the last state
 *     state.fold_storage(i, 2);             // keep two states, not all
 */

#include <string>
#include <utility>
#include <vector>

#include "loom/Buffer.h"
#include "loom/Expr.h"
#include "loom/Range.h"
#include "loom/internal/ReductionDomain.h"

namespace loom {

class ImageParam;

/** One variable of a reduction domain. */
class RVar {
public:
    /** An RVar not bound to a domain yet (a name for scheduling). */
    RVar() = default;
    explicit RVar(const std::string &name) : name_(name) {}
    RVar(const internal::ReductionDomain &domain, int index);

    const std::string &name() const { return name_; }
    Expr min() const;
    Expr extent() const;
    const internal::ReductionDomain &domain() const { return domain_; }
    int index() const { return index_; }

    /** An Int(32) Variable carrying the reduction domain. */
    operator Expr() const;

private:
    internal::ReductionDomain domain_;
    int index_ = -1;
    std::string name_;
};

class RDom {
public:
    /** An undefined RDom. */
    RDom() = default;
    /** From one {min, extent} Range per dimension, e.g. RDom({{0, 10}, {0, 5}}). */
    RDom(const Region &region, const std::string &name = "");
    /** RDom(min0, extent0, min1, extent1, ..., [name]). */
    template<typename... Args>
    RDom(const Expr &min, const Expr &extent, Args &&...rest) {
        Region region;
        std::string name;
        collect(region, name, min, extent, std::forward<Args>(rest)...);
        init(region, name);
    }
    /** Every coordinate of a buffer (its mins and extents when this is built). */
    template<typename T, int D>
    explicit RDom(const Buffer<T, D> &buffer) : RDom(region_of(Buffer<>(buffer))) {}
    /** Every coordinate of an ImageParam's buffer (read at run time). */
    explicit RDom(const ImageParam &input);
    explicit RDom(const internal::ReductionDomain &domain);

    bool defined() const { return domain_.defined(); }
    bool same_as(const RDom &other) const { return domain_.same_as(other.domain_); }
    const std::string &name() const { return name_; }
    int dimensions() const { return defined() ? (int)domain_.domain().size() : 0; }
    RVar operator[](int i) const;
    const internal::ReductionDomain &domain() const { return domain_; }

    /** Restricts the domain to the points where predicate holds (ANDed with
     * earlier predicates). \throws CompileError naming the RDom if it has
     * already been used in a definition, or predicate is not boolean. */
    RDom &where(const Expr &predicate);

    /** The loop over the outermost RVar runs while condition holds: before
     * each iteration r the condition is evaluated (it may read the RVar and
     * Funcs, e.g. the state the previous iteration wrote), and the first
     * false value ends the loop; no later iteration runs. Calls are ANDed.
     * The loop stays serial and outermost in its stage: splitting,
     * vectorizing, parallelizing or reordering it inside another loop is
     * a CompileError.
     * \throws CompileError naming the RDom if it has already been used in a
     * definition, or condition is not a boolean scalar. */
    RDom &loop_while(const Expr &condition);

    /** The loop condition given by loop_while (undefined if none). */
    Expr loop_condition() const;

    /** The number of iterations the loop over the outermost RVar ran, the
     * last time it ran (0 before it runs): an Int(32) Expr that Funcs
     * computed after it can read. With a loop_while condition, the
     * iterations before the first false one; without, the extent. */
    Expr trip_count() const;

    /** For one-dimensional RDoms: the RVar (CompileError otherwise). */
    operator Expr() const;
    operator RVar() const;

    /** The first four RVars (undefined beyond dimensions()). */
    RVar x, y, z, w;

private:
    static void collect(Region &, std::string &) {}
    static void collect(Region &, std::string &name, const std::string &n) { name = n; }
    static void collect(Region &, std::string &name, const char *n) { name = n; }
    template<typename... Args>
    static void collect(Region &region, std::string &name, const Expr &min,
                        const Expr &extent, Args &&...rest) {
        region.emplace_back(min, extent);
        collect(region, name, std::forward<Args>(rest)...);
    }
    static Region region_of(const Buffer<> &buffer);
    void init(const Region &region, const std::string &name);

    internal::ReductionDomain domain_;
    std::string name_;
};

}  // namespace loom

#endif
