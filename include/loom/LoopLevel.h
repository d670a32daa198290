#ifndef LOOM_LOOP_LEVEL_H
#define LOOM_LOOP_LEVEL_H

/** \file
 * LoopLevel: a place in the loop nest where a Func can be computed or stored
 * (compute_at, store_at) or where a stage's loops are fused (compute_with).
 *
 *     LoopLevel::inlined()          // substituted into its callers (the default)
 *     LoopLevel::root()             // outside every loop of the pipeline
 *     LoopLevel(g, y)               // inside loop y of every stage of g
 *     LoopLevel(g, y, 0)            // inside loop y of g's pure definition
 *     LoopLevel(g, y, 1)            // inside loop y of g.update(0)
 *
 *     f.compute_at(LoopLevel(g, y));   // same as f.compute_at(g, y)
 *
 * A LoopLevel names its Func and loop by name; whether the loop exists in
 * the Func's loop nest (after splits, fuses and renames) is checked when the
 * pipeline is compiled, with a CompileError naming the Funcs, the stage and
 * the Var.
 *
 * Without a stage index, as in Halide, the level names loop y in each stage
 * of g: a Func computed there is computed in the loop y of every stage that
 * reads it (twice per iteration if both g's pure definition and an update
 * read it), each time the region that stage reads.
 */

#include <string>

#include "loom/VarOrRVar.h"

namespace loom {

class Func;

namespace internal {
struct LoopLevel;
}

class LoopLevel {
public:
    /** An undefined level, as in Halide (it is not the inlined level: use
     * LoopLevel::inlined()). Querying it (is_inlined, is_root, func, var,
     * stage_index) or scheduling with it (compute_at, store_at,
     * compute_with) is a CompileError; defined() says whether it is one. */
    LoopLevel() = default;
    /** Loop `var` of stage `stage_index` of f (0: the pure definition, k:
     * update k - 1; -1: loop `var` of every stage of f that has it, which is
     * what compute_at(f, var) means; for compute_with, -1 is f's last stage). */
    LoopLevel(const Func &f, const VarOrRVar &var, int stage_index = -1);

    static LoopLevel inlined();
    static LoopLevel root();

    bool defined() const { return kind_ != Kind::Undefined; }
    bool is_inlined() const { return checked("is_inlined").kind_ == Kind::Inlined; }
    bool is_root() const { return checked("is_root").kind_ == Kind::Root; }
    /** The Func and loop of an At level ("" for inlined and root). */
    const std::string &func() const { return checked("func").func_; }
    VarOrRVar var() const { return VarOrRVar(checked("var").var_, var_is_rvar_); }
    int stage_index() const { return checked("stage_index").stage_; }

    /** "inlined", "root", "undefined", or "g.s0.y" (stage -1 prints as "g.y"). */
    std::string to_string() const;
    bool operator==(const LoopLevel &other) const;
    bool operator!=(const LoopLevel &other) const { return !(*this == other); }

    /** The compiler's representation (src/ir/Function.h). */
    internal::LoopLevel to_internal() const;
    static LoopLevel from_internal(const internal::LoopLevel &level);

private:
    /** *this; \throws CompileError naming `query` if undefined. */
    const LoopLevel &checked(const char *query) const;

    enum class Kind { Undefined, Inlined, Root, At };
    Kind kind_ = Kind::Undefined;
    std::string func_, var_;
    bool var_is_rvar_ = false;
    int stage_ = -1;
};

}  // namespace loom

#endif
