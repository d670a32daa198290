#ifndef LOOM_VAR_OR_RVAR_H
#define LOOM_VAR_OR_RVAR_H

/** \file
 * VarOrRVar: a loop of a stage named by a Var or an RVar, the argument type
 * of the scheduling calls. Var, RVar and one-dimensional RDoms convert to it
 * implicitly:
 *
 *     f.update(0).split(r, ro, ri, 4).vectorize(ri).reorder(x, ro);
 *
 * Loops are found by name; the names split(), fuse() and rename() give to
 * new loops are the names of the Vars or RVars passed in.
 */

#include <string>

#include "loom/RDom.h"
#include "loom/Var.h"

namespace loom {

struct VarOrRVar {
    VarOrRVar(const std::string &name, bool is_rvar) : var(name), rvar(name), is_rvar(is_rvar) {}
    VarOrRVar(const Var &v) : var(v), rvar(v.name()), is_rvar(false) {}
    VarOrRVar(const RVar &r) : var(r.name()), rvar(r), is_rvar(true) {}
    /** \throws CompileError unless the RDom has one dimension. */
    VarOrRVar(const RDom &r) : VarOrRVar(RVar(r)) {}

    const std::string &name() const { return is_rvar ? rvar.name() : var.name(); }

    Var var;
    RVar rvar;
    bool is_rvar;
};

}  // namespace loom

#endif
