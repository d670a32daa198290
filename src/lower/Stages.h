#ifndef LOOM_LOWER_STAGES_H
#define LOOM_LOWER_STAGES_H

/** \file
 * The first step of lowering: find every Func the outputs depend on, order
 * them producers-first, inline the Funcs scheduled inline, and rewrite each
 * definition of the remaining Funcs into a Stage whose variables carry their
 * loop names ("f.s1.x", "f.s1.r$x"). Later passes read only this.
 */

#include <map>
#include <string>
#include <vector>

#include "ir/Function.h"
#include "ir/IRVisitor.h"

namespace loom {
namespace internal {

/** One definition of a realized Func, with variables renamed to loop names. */
/** Collects the Funcs an Expr calls directly (include() each Expr), by
 * name. RDom::trip_count() counts as a call of the Func whose loop it
 * counts: it reads what that Func's loop writes. */
struct FindFuncCalls : IRGraphVisitor {
    std::vector<std::pair<std::string, FunctionPtr>> calls;
    using IRGraphVisitor::visit;
    void visit(const Call *op) override;
};

/** A specialization of a Stage (Stage::specialize): these loops run
 * instead of the stage's own when condition holds (lower/Specialize.h). */
struct StageSpecialization {
    Expr condition;                      // undefined: specialize_fail
    std::string failure_message;
    std::vector<Dim> dims;               // as Stage::dims, loop names
    std::vector<Split> splits;           // as Stage::splits, loop names
    DeviceAPI single_thread_device_api = DeviceAPI::None;
    std::vector<StageSpecialization> specializations;
};

struct Stage {
    std::string func;
    int index = 0;                      // 0 = pure definition, n = update n-1
    std::string prefix;                 // "f.s1."
    std::vector<Expr> args;             // left-hand side coordinates
    std::vector<Expr> values;           // one per Tuple element, calls to inline Funcs replaced
    Expr predicate;                     // RDom::where, undefined = always
    std::vector<std::string> pure_vars; // loop names of the Func's pure vars ("f.s1.x")
    std::vector<ReductionVariable> rvars;  // loop names, min, extent
    std::vector<Dim> dims;              // loops, innermost first, loop names
    std::vector<Split> splits;          // the schedule's splits, in order, loop names
    LoopLevel compute_with;             // as scheduled (user's var name), or inlined
    /** compute_with's LoopAlignStrategy per loop name ("f.s1.x"); others: the default. */
    std::map<std::string, LoopAlignStrategy> compute_with_align;
    LoopAlignStrategy compute_with_align_default = LoopAlignStrategy::Auto;
    /** RDom::loop_while: the loop over `exit_loop` (the outermost RVar's
     * loop name) runs while this holds; undefined = to the end. */
    Expr loop_condition;
    std::string exit_loop;
    /** RDom::trip_count(): the buffer the loop over `exit_loop` writes its
     * trip count to (empty: nobody reads it). */
    std::string trip_count_buffer;
    DeviceAPI single_thread_device_api = DeviceAPI::None;  // gpu_single_thread
    /** Tested in order before dims/splits above are used. */
    std::vector<StageSpecialization> specializations;
};

/** A stage of a realized Func. */
struct StageRef {
    std::string func;
    int stage = 0;
    bool operator==(const StageRef &o) const { return func == o.func && stage == o.stage; }
    bool operator<(const StageRef &o) const { return func != o.func ? func < o.func : stage < o.stage; }
};

/** Stages whose outer loops compute_with fuses (see lower/ComputeWith.h). */
struct FusedGroup {
    StageRef parent;
    /** In the order they run inside the innermost fused loop. */
    std::vector<StageRef> children;
    /** How many loops are fused, counted from the outermost. */
    int depth = 0;
};

struct PipelineStages {
    std::vector<FunctionPtr> outputs;
    /** Every Func reachable from the outputs, by name, including inlined ones. */
    std::map<std::string, FunctionPtr> env;
    /** Names of the Funcs that are realized (not inlined), producers first. */
    std::vector<std::string> order;
    std::map<std::string, std::vector<Stage>> stages;
    /** compute_with groups (find_fused_groups fills them in). */
    std::vector<FusedGroup> fused_groups;

    /** \throws InternalError when `name` is not a Func of the pipeline. */
    const FunctionContents &func(const std::string &name) const;
    bool is_output(const std::string &name) const;
};

/** \throws CompileError when a Func is called without a definition, or a
 * pipeline output is undefined. */
PipelineStages build_pipeline_stages(const std::vector<FunctionPtr> &outputs);

/** Every Func reachable from the outputs, inlined ones too, as references
 * that do not keep them alive (for the JIT cache's staleness check).
 * \throws CompileError as build_pipeline_stages does for a Func called
 * without a definition. */
std::vector<FunctionPtr> pipeline_functions(const std::vector<FunctionPtr> &outputs);

/** "the definition of Func 'f'" or "update 1 of Func 'f'", for messages. */
std::string stage_description(const std::string &func, int index);

/** Name of the storage of Tuple element `value_index` of func: "f" for
 * single-valued Funcs, "f.0", "f.1", ... for Tuples. */
std::string storage_name(const FunctionContents &f, int value_index);

}  // namespace internal
}  // namespace loom

#endif
