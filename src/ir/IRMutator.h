#ifndef LOOM_IR_IR_MUTATOR_H
#define LOOM_IR_IR_MUTATOR_H

/** \file
 * IRMutator rebuilds an IR tree bottom-up. Each visit() by default mutates the
 * node's children and returns the original node when none changed (so
 * unchanged subtrees stay shared), or a new node built with make().
 *
 *     struct ReplaceX : IRMutator {
 *         using IRMutator::visit;
 *         Expr visit(const Variable *v) override { return v->name == "x" ? Expr(0) : Expr(v); }
 *     };
 *     Expr e2 = ReplaceX().mutate(e);
 */

#include <map>
#include <vector>

#include "ir/IR.h"

namespace loom {
namespace internal {

struct IRMutator {
    virtual ~IRMutator() = default;
    virtual Expr mutate(const Expr &e);
    virtual Stmt mutate(const Stmt &s);
    /** Mutates each element; returns whether any changed. */
    bool mutate_exprs(const std::vector<Expr> &in, std::vector<Expr> &out);

protected:
    virtual Expr visit(const IntImm *);
    virtual Expr visit(const UIntImm *);
    virtual Expr visit(const FloatImm *);
    virtual Expr visit(const StringImm *);
    virtual Expr visit(const Cast *);
    virtual Expr visit(const Reinterpret *);
    virtual Expr visit(const Variable *);
    virtual Expr visit(const Add *);
    virtual Expr visit(const Sub *);
    virtual Expr visit(const Mul *);
    virtual Expr visit(const Div *);
    virtual Expr visit(const Mod *);
    virtual Expr visit(const Min *);
    virtual Expr visit(const Max *);
    virtual Expr visit(const EQ *);
    virtual Expr visit(const NE *);
    virtual Expr visit(const LT *);
    virtual Expr visit(const LE *);
    virtual Expr visit(const GT *);
    virtual Expr visit(const GE *);
    virtual Expr visit(const And *);
    virtual Expr visit(const Or *);
    virtual Expr visit(const Not *);
    virtual Expr visit(const Select *);
    virtual Expr visit(const Load *);
    virtual Expr visit(const Ramp *);
    virtual Expr visit(const Broadcast *);
    virtual Expr visit(const Call *);
    virtual Expr visit(const Let *);
    virtual Expr visit(const Shuffle *);
    virtual Expr visit(const VectorReduce *);
    virtual Stmt visit(const LetStmt *);
    virtual Stmt visit(const AssertStmt *);
    virtual Stmt visit(const ProducerConsumer *);
    virtual Stmt visit(const For *);
    virtual Stmt visit(const While *);
    virtual Stmt visit(const Store *);
    virtual Stmt visit(const Provide *);
    virtual Stmt visit(const Allocate *);
    virtual Stmt visit(const Free *);
    virtual Stmt visit(const Realize *);
    virtual Stmt visit(const Block *);
    virtual Stmt visit(const IfThenElse *);
    virtual Stmt visit(const Evaluate *);
    virtual Stmt visit(const Fork *);
};

/** An IRMutator that remembers the result for each node it has mutated, so
 * shared subtrees are mutated once. */
struct IRGraphMutator : IRMutator {
    Expr mutate(const Expr &e) override;
    Stmt mutate(const Stmt &s) override;

protected:
    std::map<Expr, Expr, ExprCompare> expr_replacements_;
    std::map<const IRNode *, Stmt> stmt_replacements_;
};

}  // namespace internal
}  // namespace loom

#endif
