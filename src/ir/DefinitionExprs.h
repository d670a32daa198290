#ifndef LOOM_IR_DEFINITION_EXPRS_H
#define LOOM_IR_DEFINITION_EXPRS_H

/** \file
 * Every expression of a Func's definitions, for the walks that look for the
 * Funcs it calls (the call graph, cycles of calls).
 */

#include "ir/Function.h"

namespace loom {
namespace internal {

/** Calls fn(const Expr &) on each defined Expr of f's definitions, stage by
 * stage: the arguments, the values, the predicate, then the RDom's bounds,
 * predicate and loop condition. */
template<typename Fn>
void for_each_definition_expr(const FunctionContents &f, Fn &&fn) {
    auto visit = [&](const Expr &e) {
        if (e.defined()) fn(e);
    };
    for (int s = 0; s < f.stages(); s++) {
        const Definition &d = f.stage(s);
        for (const Expr &e : d.args) visit(e);
        for (const Expr &e : d.values) visit(e);
        visit(d.predicate);
        if (!d.rdom.defined()) continue;
        for (const ReductionVariable &rv : d.rdom.domain()) {
            visit(rv.min);
            visit(rv.extent);
        }
        visit(d.rdom.predicate());
        visit(d.rdom.loop_condition());
    }
}

}  // namespace internal
}  // namespace loom

#endif
