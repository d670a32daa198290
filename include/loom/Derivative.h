#ifndef LOOM_DERIVATIVE_H
#define LOOM_DERIVATIVE_H

/** \file
 * Reverse-mode automatic differentiation of a pipeline (Halide's
 * propagate_adjoints).
 *
 *     Func loss;                                  // a scalar Func of floats
 *     loss() = sum(pow(blur(r.x) - target(r.x), 2));
 *     Derivative d = propagate_adjoints(loss);
 *     Func d_input = d(input);                    // d loss / d input(x)
 *     Func d_weight = d(weight);                  // a Param: a Func of no Vars
 *
 * propagate_adjoints(output, adjoint, bounds) takes the adjoint of the
 * output (d loss / d output, a Func over the output's Vars) over the region
 * `bounds` ({min, extent} per dimension) and returns, for every floating-point
 * Func, Buffer, ImageParam and Param the output depends on, a Func of the
 * same Vars whose value at a point is the derivative with respect to that
 * point. The output's adjoint is zero outside `bounds`. The overload taking
 * a Buffer<float> uses the Buffer's region; the one taking only the output
 * requires a Func of no Vars and takes 1 as its adjoint.
 *
 * The adjoint Funcs are ordinary Funcs, each computed at the root by
 * default (they gather from their consumers with update definitions); they
 * may be scheduled like any other Func.
 *
 * What is differentiated: pure definitions and updates, through +, -, *, /,
 * min, max, select, casts between float types, let, and the math functions
 * sqrt, exp, log, pow, sin, cos, tan, asin, acos, atan, atan2, sinh, cosh,
 * tanh, abs, fma, hypot, lerp of floats, and floor/ceil/round/trunc
 * (derivative zero). Integer values have derivative zero. Updates: additive
 * ones (`f(x) += e`, `f(r) -= e`, the inline reduction `sum`); others
 * (products, max, overwrites) where each iteration writes its own point;
 * and updates that read points another iteration of their RDom writes, at a
 * constant offset (a scan reading an earlier iteration's point: its adjoint
 * runs the RDom backwards). Tuple-valued Funcs get Tuple adjoints, one
 * element per element, as in Halide; the output must have one value. A
 * non-additive update that may write a point more than once, one that reads
 * where another iteration writes at a varying distance, or a Func whose
 * region cannot be bounded from `bounds` is a CompileError that names the
 * Func (docs/LANGUAGE.md, "Derivatives").
 */

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "loom/Buffer.h"
#include "loom/Expr.h"
#include "loom/Range.h"
#include "loom/Func.h"
#include "loom/ImageParam.h"
#include "loom/Param.h"

namespace loom {

/** The adjoint Funcs of a pipeline, by the name of what they differentiate. */
class Derivative {
public:
    /** Func name and update index; -1 for the initial definition. */
    using FuncKey = std::pair<std::string, int>;

    explicit Derivative(std::map<FuncKey, Func> adjoints) : adjoints_(std::move(adjoints)) {}

    /** The adjoint of func's value after update update_id (-1: after its
     * pure definition), as in Halide; consumers of func add to the last
     * stage's. Stages joined by an additive update share one Func. An
     * update_id the Func does not have gives an undefined Func. */
    Func operator()(const Func &func, int update_id = -1) const;
    /** The adjoint of an input Buffer, a Func over its dimensions. */
    template<typename T, int Dims>
    Func operator()(const Buffer<T, Dims> &buffer) const {
        return (*this)(buffer.name());
    }
    /** The adjoint of an ImageParam, a Func over its dimensions. */
    Func operator()(const ImageParam &param) const { return (*this)(param.name()); }
    /** The adjoint of a scalar Param, a Func of no Vars. */
    template<typename T>
    Func operator()(const Param<T> &param) const {
        return (*this)(param.name());
    }
    /** The adjoint of the Func, Buffer or Param of that name; an undefined
     * Func (defined() is false) if the output does not depend on it through
     * floating-point values, as in Halide. */
    Func operator()(const std::string &name) const;

private:
    std::map<FuncKey, Func> adjoints_;
};

/** Differentiates output given its adjoint over bounds ({min, extent} per
 * dimension of output). */
Derivative propagate_adjoints(const Func &output, const Func &adjoint,
                              const Region &output_bounds);
/** The same with the adjoint given as a Buffer, over the Buffer's region. */
Derivative propagate_adjoints(const Func &output, const Buffer<float> &adjoint);
/** The derivative of a scalar output (a Func of no Vars), adjoint 1. */
Derivative propagate_adjoints(const Func &output);

}  // namespace loom

#endif
