#ifndef LOOM_IR_FUNCTION_H
#define LOOM_IR_FUNCTION_H

/** \file
 * The compiler's picture of a Func: its pure definition, its update
 * definitions, and the schedule of each stage. The front end (src/lang)
 * builds these; lowering (src/lower) reads them.
 *
 * Naming: stage s of Func f has loop variables named "f.s<s>.<var>", e.g.
 * "blur.s0.x"; the pure definition is stage 0, update n is stage n + 1.
 */

#include <map>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ir/IR.h"
#include "loom/Schedule.h"

namespace loom {
namespace internal {

/** How a split handles an extent that its factor does not divide (see
 * loom::TailStrategy in include/loom/Schedule.h for each strategy's meaning).
 * The front end resolves Auto when the directive is given, with Halide's
 * defaults, so Splits it records never hold Auto: ShiftInwards in a pure
 * definition; in an update, GuardWithIf for loops that come from RVars and
 * RoundUp for pure Vars. It also refuses RoundUp, PredicateLoads and
 * PredicateStores on RVar loops and ShiftInwards in updates. Lowering should
 * treat a remaining Auto (from Splits built elsewhere) the same way. */
enum class TailStrategy : uint8_t {
    Auto, RoundUp, GuardWithIf, ShiftInwards, PredicateLoads, PredicateStores
};

/** compute_with's alignment of a fused loop (loom::LoopAlignStrategy in
 * include/loom/Schedule.h, same order; Auto means NoAlign). */
enum class LoopAlignStrategy : uint8_t { AlignStart, AlignEnd, NoAlign, Auto };

/** One loop transformation of a stage: a split (old -> outer, inner by
 * factor), a rename (old -> outer), or a fuse (outer, inner -> old). */
struct Split {
    enum Kind : uint8_t { SplitVar, RenameVar, FuseVars };
    Kind kind = SplitVar;
    std::string old_var, outer, inner;
    Expr factor;
    TailStrategy tail = TailStrategy::Auto;
    /** An aligned split (Func::split with align): tiles start at align plus
     * multiples of factor. Undefined: at old's min. */
    Expr align;
};

/** A loop of a stage's nest, innermost first in StageSchedule::dims. */
struct Dim {
    std::string var;
    ForType for_type = ForType::Serial;
    DeviceAPI device_api = DeviceAPI::None;
    bool is_rvar = false;
    /** For unrolled loops: the cascade of unroll factors (e.g. {8, 4, 1}),
     * empty for a plain unroll of a constant-extent loop. */
    std::vector<int> unroll_cascade;
    /** Func::partition: whether partition_loops may (Auto), must not (Never)
     * or must (Always) partition this loop. */
    Partition partition = Partition::Auto;
};

/** Where a Func is computed or stored: inlined, at the root of the pipeline,
 * or inside loop `var` of stage `stage` of Func `func`. */
struct LoopLevel {
    enum Kind : uint8_t { Inlined, Root, At };
    Kind kind = Inlined;
    std::string func;
    std::string var;
    int stage = -1;  // -1: the last stage of func

    static LoopLevel inlined() { return LoopLevel(); }
    static LoopLevel root() {
        LoopLevel l;
        l.kind = Root;
        return l;
    }
    static LoopLevel at(const std::string &func, const std::string &var, int stage = -1) {
        LoopLevel l;
        l.kind = At;
        l.func = func;
        l.var = var;
        l.stage = stage;
        return l;
    }
    bool is_inlined() const { return kind == Inlined; }
    bool is_root() const { return kind == Root; }
};

/** A user-given bound on a pure dimension: Func::bound / bound_extent. */
struct Bound {
    std::string var;
    Expr min;     // undefined for bound_extent
    Expr extent;
};

/** Storage folding of one dimension into a circular buffer of `factor`
 * slots (Func::fold_storage). */
struct StorageFold {
    std::string var;
    Expr factor;
    bool fold_forward = true;
};

/** Func::align_bounds (remainder defined) and Func::align_extent (remainder
 * undefined): the region computed in dimension `var` is widened so that its
 * extent is a multiple of `modulus` (and its min is `remainder` mod it). */
struct BoundAlignment {
    std::string var;
    Expr modulus;
    Expr remainder;
};

/** Func::align_storage (alignment) and Func::bound_storage (bound) of one
 * storage dimension; either may be undefined. */
struct StorageDim {
    std::string var;
    Expr alignment;
    Expr bound;
};

/** Func::prefetch / Stage::prefetch: at the top of each iteration of loop
 * `at` of the stage, prefetch the region of `name` (a Func, or the buffer
 * `param`) that the body of `at` reads `offset` iterations ahead in loop
 * `from` (at or outside `at`). Vars by the user's names. */
struct PrefetchDirective {
    std::string name;
    Parameter param;  // defined for an ImageParam or Buffer
    std::string at, from;
    Expr offset;
    PrefetchBoundStrategy strategy = PrefetchBoundStrategy::GuardWithIf;
};

struct StageSchedule {
    /** Applied in order; each names vars by the user's names (no prefix). */
    std::vector<Split> splits;
    /** The loops after the splits, innermost first, by the user's names (the
     * Stages pass adds the "f.s<k>." prefix). */
    std::vector<Dim> dims;
    /** compute_with: fuse this stage's loops with those of another stage, up
     * to and including loop `var` of that stage (LoopLevel::At), or none. */
    LoopLevel compute_with = LoopLevel::inlined();
    /** compute_with's LoopAlignStrategy per fused loop (the user's var name);
     * loops not listed use compute_with_align_default. */
    std::vector<std::pair<std::string, LoopAlignStrategy>> compute_with_align;
    LoopAlignStrategy compute_with_align_default = LoopAlignStrategy::Auto;
    /** gpu_single_thread: the stage's loops run in one invocation of a
     * kernel of one workgroup on this API (None: not asked for). */
    DeviceAPI single_thread_device_api = DeviceAPI::None;
    /** Stage::atomic(): the update's stores are atomic read-modify-writes,
     * so its RVar loops may run in parallel or vectorized although
     * iterations write the same elements (lower/LowerAtomics.h). */
    bool atomic = false;
    bool override_associativity_test = false;
    /** Stage::prefetch, in call order (lower/InjectPrefetch.h). */
    std::vector<PrefetchDirective> prefetches;
    /** Whether the user scheduled this stage explicitly (for diagnostics). */
    bool touched = false;
};

/** Stage::specialize(condition): the stage's loop nest with this schedule
 * runs instead of the stage's own when condition holds (Halide's
 * Specialization). specialize_fail(message) is the last one, with an
 * undefined condition: reaching it is a run-time error with message. */
struct Specialization {
    Expr condition;                 // undefined: specialize_fail
    std::string failure_message;    // specialize_fail only
    StageSchedule schedule;
    /** Specializations of this specialization, tested inside it. */
    std::vector<Specialization> specializations;
};

/** One definition: f(args) = values, for all points of rdom where predicate. */
struct Definition {
    std::vector<Expr> args;    // pure: Variables of the pure args; update: any Exprs
    std::vector<Expr> values;  // one per Tuple element
    ReductionDomain rdom;      // undefined if the definition has no RVars
    Expr predicate;            // from RDom::where, undefined = always
    StageSchedule schedule;
    /** Tested in order before the schedule above is used (see Specialization). */
    std::vector<Specialization> specializations;
    bool defined() const { return !values.empty(); }
};

struct FuncSchedule {
    LoopLevel compute_level = LoopLevel::inlined();
    LoopLevel store_level = LoopLevel::inlined();
    std::vector<Bound> bounds;
    std::vector<std::string> storage_order;  // reorder_storage, empty = pure arg order
    std::vector<StorageFold> storage_folds;  // fold_storage
    std::vector<BoundAlignment> bound_alignments;  // align_bounds, align_extent
    std::vector<StorageDim> storage_dims;  // align_storage, bound_storage
    /** hoist_storage: where the allocation is made (inlined: at the store
     * level), sized for every iteration of the loops down to the store level. */
    LoopLevel hoist_storage_level = LoopLevel::inlined();
    MemoryType memory_type = MemoryType::Auto;
    /** Func::memoize(): the realization is cached across runs of the
     * pipeline (lower/Memoize.h); eviction_key is undefined or an integer
     * or handle Expr, given to loom_memoization_cache_evict. */
    bool memoized = false;
    Expr memoize_eviction_key;
    /** Func::async(): produced by a thread of its own, concurrently with its
     * consumers (lower/ForkAsyncProducers.h). */
    bool async = false;
    /** Func::ring_buffer(extent): the hoisted storage holds extent copies of
     * the region one production writes, used in turn. Undefined: one. */
    Expr ring_buffer;
    /** Func::debug_to_file(filename): after each production, the runtime
     * writes the Func's storage to this file (lower/InjectDebugToFile.h).
     * Empty: none. */
    std::string debug_file;
};

class FunctionGroup;

struct FunctionContents {
    std::string name;
    std::vector<std::string> args;  // names of the pure Vars
    std::vector<Type> output_types;  // one per Tuple element
    Definition init;
    std::vector<Definition> updates;
    FuncSchedule schedule;
    /** The front end's cache of the compiled pipeline when this Func is
     * realized on its own (see src/lang). Opaque to the compiler. */
    std::shared_ptr<void> jit_cache;
    /** The other Funcs whose definitions call this one (weak). As in
     * Halide, an update can't be added once another Func uses this one,
     * unless that Func is part of the update (a recurrence: the update reads
     * a Func that reads this one, e.g. state(r + 1) = step(r)). */
    std::vector<FunctionPtr> users;
    /** Func::in and Func::clone_in (src/lang/Wrappers.h): the Func each
     * consumer calls instead of this one, by consumer name ("" for in(),
     * every consumer without its own). Weak: the consumers' calls keep a
     * wrapper alive. */
    struct Wrapper {
        FunctionPtr func;
        bool is_clone = false;
    };
    std::map<std::string, Wrapper> wrappers;
    /** Func::trace_loads/trace_stores/trace_realizations/add_trace_tag
     * (lower/InjectTracing.cpp). */
    bool trace_loads = false;
    bool trace_stores = false;
    bool trace_realizations = false;
    std::vector<std::string> trace_tags;
    /** Func::output_buffer(s)(): one buffer Parameter per Tuple element,
     * made on first use, holding the constraints on the output buffers. */
    std::vector<Parameter> output_buffers;
    /** Keeps `name` unique among the live Funcs (src/lang/UniqueName.h). */
    std::shared_ptr<const void> name_lease;
    /** The definition generation of this Func's latest definition or
     * scheduling change (src/lang/Backend.h); a compiled pipeline that
     * contains the Func is stale once it moves. */
    uint64_t generation = 0;
    /** The group that owns this Func (src/ir/FunctionGroup.h), and a token
     * that lives exactly as long as it does: weak FunctionPtrs watch it. */
    FunctionGroup *group = nullptr;
    std::shared_ptr<const void> lifetime;

    bool defined() const { return init.defined(); }
    int dimensions() const { return (int)args.size(); }
    int outputs() const { return (int)output_types.size(); }
    int stages() const { return 1 + (int)updates.size(); }
    const Definition &stage(int s) const { return s == 0 ? init : updates.at(s - 1); }
    Definition &stage(int s) { return s == 0 ? init : updates.at(s - 1); }
    /** Whether this Func can be inlined into its callers: it has no update
     * definitions and is scheduled inline. */
    bool can_be_inlined() const { return updates.empty() && schedule.compute_level.is_inlined(); }
};

/** Loop variable name of stage `stage` of f, e.g. "f.s1.r$x". */
inline std::string stage_var_name(const std::string &func, int stage, const std::string &var) {
    return func + ".s" + std::to_string(stage) + "." + var;
}

}  // namespace internal
}  // namespace loom

#endif
