#include "lower/StageLoopNest.h"

#include "loom/Error.h"

namespace loom {
namespace internal {

namespace {

Expr var(const std::string &name) { return Variable::make(Int(32), name); }

}  // namespace

Stmt build_stage_loop_nest(const Stage &stage) {
    Stmt body = Provide::make(stage.func, stage.values, stage.args);
    if (stage.predicate.defined()) body = IfThenElse::make(stage.predicate, body);

    for (const Dim &d : stage.dims) {
        body = For::make(d.var, var(d.var + ".loop_min"), var(d.var + ".loop_extent"), d.for_type, d.device_api,
                         body);
    }
    // Loop bounds: pure vars span the region bounds inference finds for this
    // stage; reduction variables span their RDom.
    for (const Dim &d : stage.dims) {
        Expr min, extent;
        if (d.is_rvar) {
            for (const ReductionVariable &rv : stage.rvars) {
                if (rv.var == d.var) {
                    min = rv.min;
                    extent = rv.extent;
                }
            }
            if (!min.defined()) throw InternalError("no reduction variable for loop " + d.var);
        } else {
            min = var(d.var + ".min");
            extent = Add::make(Sub::make(var(d.var + ".max"), min), Expr(1));
        }
        body = LetStmt::make(d.var + ".loop_extent", extent, body);
        body = LetStmt::make(d.var + ".loop_min", min, body);
    }
    return body;
}

}  // namespace internal
}  // namespace loom
