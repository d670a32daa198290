#ifndef LOOM_TEST_FUZZ_FUZZ_MODEL_H
#define LOOM_TEST_FUZZ_FUZZ_MODEL_H

// The schedule fuzzer's description of a random pipeline and of a random
// schedule for it. Both are plain data, independent of Loom's objects, so
// that they can be printed (as C++-ish text, for reproducing a failure) and
// built into Loom Funcs any number of times (once unscheduled for the
// reference, once scheduled).
//
//     std::mt19937 rng(seed);
//     fuzz::PipelineDesc p = fuzz::generate_pipeline(rng);
//     fuzz::ScheduleDesc s = fuzz::generate_schedule(p, rng);
//     fuzz::BuiltPipeline b = fuzz::build_pipeline(p);
//     fuzz::apply_schedule(s, b);          // CompileError for illegal ones
//     loom::Buffer<> out = fuzz::realize_output(p, b);

#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "codegen/llvm/CodeGen_LLVM.h"
#include "ir/LoweredFunc.h"
#include "loom/Loom.h"

namespace fuzz {

using loom::internal::LoweredFunc;

enum class ElemType { I32, U8, F32 };

loom::Type loom_type(ElemType t);
const char *cpp_type_name(ElemType t);

// ---- Expressions --------------------------------------------------------------

enum class Op {
    Const,      // ival (integers) or fval (floats)
    Var,        // index 0: x, 1: y (Int(32))
    RVar,       // index 0: r.x, 1: r.y of the Func's RDom (Int(32))
    Call,       // Func `index` at kids (index expressions, Int(32))
    SelfCall,   // the Func being updated, at kids
    InputRead,  // raw input buffer `index` at kids (already clamped)
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Min,
    Max,
    Select,  // kids[0] < kids[1] ? kids[2] : kids[3]
    Clamp,   // clamp(kids[0], kids[1], kids[2])
    Cast,    // to `type`, from kids[0]
};

struct ENode;
using ENodePtr = std::shared_ptr<const ENode>;

struct ENode {
    Op op = Op::Const;
    ElemType type = ElemType::I32;
    int64_t ival = 0;
    double fval = 0;
    int index = 0;
    // An upper bound on |value| (for integer types), kept by the generator
    // so no int32 arithmetic can overflow and no float->int cast can go out
    // of range.
    double bound = 0;
    std::vector<ENodePtr> kids;
};

ENodePtr make_int(int64_t v, ElemType t = ElemType::I32);
ENodePtr make_float(double v);
ENodePtr make_var(int index);
ENodePtr make_rvar(int index);
ENodePtr make_node(Op op, ElemType t, std::vector<ENodePtr> kids, double bound);
ENodePtr make_cast(ElemType t, const ENodePtr &e);

/** e as C++-ish text; funcs and inputs name the callees. */
std::string to_text(const ENode &e, const std::vector<std::string> &funcs, const std::vector<std::string> &inputs,
                    const std::string &self);

// ---- Pipelines ----------------------------------------------------------------

struct InputDesc {
    ElemType type = ElemType::I32;
    int width = 0, height = 0, min_x = 0, min_y = 0;
    uint32_t fill_seed = 0;
    // An ImageParam read only through a Boundary::None wrapper, without a
    // clamp. Its buffer is exactly the region bounds inference asks for
    // (width, height and mins are unused), filled from the coordinates, so
    // a region inferred too small fails and one too large is reported.
    bool raw = false;
};

enum class FuncKind {
    Pointwise,     // f(x, y) = e, with reads at small offsets (a stencil)
    InputWrapper,  // f(x, y) = BoundaryConditions::<bc>(input)(x, y), or input(x, y) (Boundary::None)
    Window,        // f(x, y) = init; f(x, y) = f(x, y) op e(r)  (RDom over a small box)
    Histogram,     // f(x, y) = init; f(clamp(idx(r, y)), y) += w
    Scan,          // f(x, y) = init; f(r, y) = f(r - 1, y) + g(r, y)  (or along y)
};

enum class Boundary { RepeatEdge, ConstantExterior, RepeatImage, MirrorImage, MirrorInterior, None };
const char *boundary_name(Boundary b);

struct UpdateDesc {
    std::vector<ENodePtr> lhs;  // the two left-hand side arguments
    ENodePtr value;
    // Which pure vars (0: x, 1: y) stay pure in this update, innermost first.
    std::vector<int> pure_vars;
};

struct FuncDesc {
    std::string name;
    FuncKind kind = FuncKind::Pointwise;
    ElemType type = ElemType::I32;
    ENodePtr pure;                     // undefined for InputWrapper
    std::vector<UpdateDesc> updates;   // Window, Histogram and Scan have one
    std::vector<std::pair<int, int>> rdom;  // {min, extent} per RVar
    // RDom::where(where[0] < where[1]) when not empty: a predicate of RVars
    // and a pure Var the update keeps (the points of the domain an update
    // visits then depend on the pure Var too).
    std::vector<ENodePtr> where;
    int input = -1;                    // InputWrapper
    Boundary boundary = Boundary::RepeatEdge;
    double bound = 0;                  // |value| bound
    // Funcs this one reads, per stage (0: pure, 1...: updates).
    std::vector<std::vector<int>> reads;
};

struct PipelineDesc {
    uint64_t seed = 0;
    std::vector<InputDesc> inputs;
    std::vector<FuncDesc> funcs;  // producers first; the last is the output
    int out_width = 0, out_height = 0, out_min_x = 0, out_min_y = 0;

    const FuncDesc &output() const { return funcs.back(); }
    int output_index() const { return (int)funcs.size() - 1; }
    std::string to_text() const;
};

/** Limits of the generator (the CI subset uses smaller pipelines than a
 * long campaign can afford). */
struct GeneratorOptions {
    int max_stages = 6;  // Funcs besides the input wrappers: 2..max_stages
    // No F32 values anywhere (the GPU fuzzer compares bit for bit, and
    // Vulkan's float division and conversions are not correctly rounded).
    bool integers_only = false;
};

PipelineDesc generate_pipeline(std::mt19937 &rng, const GeneratorOptions &options = {});

// ---- Schedules ----------------------------------------------------------------

enum class SchedKind {
    ComputeRoot,
    ComputeAt,  // at_func / at_stage / vars[0] (at_rvar)
    StoreRoot,
    StoreAt,
    Split,          // vars: old, outer, inner; factor; tail
    Fuse,           // vars: inner, outer, fused
    Reorder,        // vars: innermost first
    Tile,           // vars: x, y, xo, yo, xi, yi; factor, factor2; tail
    Vectorize,      // vars[0] (a loop of constant extent)
    VectorizeSplit, // vars[0], factor, tail
    Unroll,         // vars[0] (a loop of constant extent)
    UnrollSplit,    // vars[0], factor, tail
    UnrollCascade,  // vars[0], cascade
    Parallel,       // vars[0]
    ParallelTask,   // vars[0], factor (task size), tail
    Bound,          // vars[0], bound_min, factor (extent)
    FoldStorage,    // vars[0], factor
    ComputeWith,    // func's stage fused into at_func's stage at_stage down to its loop vars[0]
    // GPU schedules (generate_gpu_schedule):
    GpuTile1D,        // vars: x, bx, tx; factor; tail
    GpuTile2D,        // vars: x, y, bx, by, tx, ty; factor, factor2; tail
    GpuBlocks,        // vars: 1 or 2 loops, innermost (x) first
    GpuThreads,       // vars: 1 or 2 loops, innermost (x) first
    GpuSingleThread,  // the whole stage in one invocation
    StoreIn,          // factor: a loom::MemoryType
};

struct SchedOp {
    SchedKind kind = SchedKind::ComputeRoot;
    int func = 0, stage = 0;
    std::vector<std::string> vars;
    std::vector<bool> rvars;  // per entry of vars: is it an RVar
    int factor = 0, factor2 = 0, bound_min = 0;
    std::vector<int> cascade;
    loom::TailStrategy tail = loom::TailStrategy::Auto;
    int at_func = -1, at_stage = -1;  // ComputeAt / StoreAt
    int align = -1;  // ComputeWith: a loom::LoopAlignStrategy, or -1 for none given
};

struct ScheduleDesc {
    std::vector<SchedOp> ops;
    std::string to_text(const PipelineDesc &p) const;
};

ScheduleDesc generate_schedule(const PipelineDesc &p, std::mt19937 &rng);
/** A random legal schedule for a Vulkan target: some stages on the GPU
 * (gpu_tile, gpu_blocks + gpu_threads, gpu_single_thread), producers in
 * workgroup shared memory or registers, the other stages on the CPU
 * (GPUScheduleGenerator.cpp). */
ScheduleDesc generate_gpu_schedule(const PipelineDesc &p, std::mt19937 &rng);

// ---- Building and running -------------------------------------------------------

struct BuiltPipeline {
    std::vector<loom::Buffer<>> inputs;       // undefined for raw inputs
    std::map<int, loom::ImageParam> params;   // the raw inputs, by index
    std::vector<loom::Func> funcs;
};

/** A region of a 2-D input: min and extent per dimension. */
struct InputRegion {
    int min[2] = {0, 0}, extent[2] = {0, 0};
    bool operator==(const InputRegion &o) const {
        return min[0] == o.min[0] && min[1] == o.min[1] && extent[0] == o.extent[0] && extent[1] == o.extent[1];
    }
    /** No point: an extent of 0 or less in either dimension (bounds
     * inference derives the other dimension of such a region from empty
     * ones, so it may be anything). */
    bool empty() const;
    /** Every point of o is in this region; true for an empty o. */
    bool contains(const InputRegion &o) const;
    std::string to_text() const;
};

/** The Loom Funcs of p over its (freshly filled) inputs. Inputs are shared:
 * pass the buffers of an earlier build to reuse them. */
BuiltPipeline build_pipeline(const PipelineDesc &p, const std::vector<loom::Buffer<>> &inputs = {});
/** \throws loom::CompileError if Loom rejects a directive. */
void apply_schedule(const ScheduleDesc &s, BuiltPipeline &b);
/** b's output Func lowered for the JIT target, after the same schedule
 * checks as realize(). One lowering serves the bounds query and both back
 * ends (the lowered program does not depend on the back end).
 * \throws loom::CompileError if Loom rejects the schedule. */
LoweredFunc lower_pipeline(BuiltPipeline &b);
/** The same, for `target` (a Vulkan target for GPU schedules). */
LoweredFunc lower_pipeline(BuiltPipeline &b, const loom::Target &target);
/** The region of each raw input (by index) that b's pipeline (lowered as
 * lf) asks for to realize p's output box (a bounds query, on the
 * interpreter, or on jit when given: the interpreter runs no GPU code). */
std::map<int, InputRegion> query_raw_input_regions(const PipelineDesc &p, BuiltPipeline &b, const LoweredFunc &lf,
                                                   const loom::internal::JITPipeline *jit = nullptr);
/** The bounding box of the points of each raw input (by index) that p's
 * unscheduled pipeline (under `schedule`, when given) really reads when
 * it realizes its output box: its raw wrappers computed at the root with
 * trace_loads, run on the interpreter, every load recorded. The inputs of
 * p are `inputs`. */
std::map<int, InputRegion> touched_raw_input_regions(const PipelineDesc &p, const std::vector<loom::Buffer<>> &inputs,
                                                     const ScheduleDesc &schedule = {});
/** The Funcs with update definitions other than the output. Unscheduled,
 * each is computed at the innermost loop of its consumer (Halide's rule),
 * over the box of all its consumer's calls at that point, so again for
 * every point of the consumer's loops: a reduction read by a reduction
 * multiplies their domains (fuzz seed 920027: 15 s on the interpreter),
 * and one read at (x + 1, y) and (2y + 2, x + 2) is computed over a box
 * of up to 60 x 30 points for each point (seed 971339: 9 s). The
 * fuzzer's reference computes them at the root. */
std::vector<int> reductions_computed_per_point(const PipelineDesc &p);
/** A schedule that computes each Func of `funcs` at the root and nothing else. */
ScheduleDesc compute_at_root(const std::vector<int> &funcs);
/** Binds each raw input to a new buffer of exactly its region, filled from
 * the coordinates (the same values wherever two regions overlap). */
void bind_raw_inputs(const PipelineDesc &p, BuiltPipeline &b, const std::map<int, InputRegion> &regions);
/** Whether a schedule may make the pipeline compute points outside the
 * regions its consumers need (RoundUp, ShiftInwards, Auto), and so read
 * more of its inputs than the unscheduled pipeline. */
bool may_compute_extra_points(const ScheduleDesc &s);
/** s with every tail that computes extra points (RoundUp, ShiftInwards,
 * Auto) replaced by GuardWithIf, and whole-loop vectorize/unroll dropped
 * (they need the constant extents those tails give, and change no
 * region): the same loops over exactly the points each consumer needs.
 * The region check's rule: the regions this schedule asks for must be
 * exactly the unscheduled pipeline's, and s's must contain them. */
ScheduleDesc guard_every_tail(const ScheduleDesc &s);
/** Realizes the output over p's output box with the current JIT backend. */
loom::Buffer<> realize_output(const PipelineDesc &p, BuiltPipeline &b);
/** Runs b's pipeline, lowered as lf, over p's output box: on the
 * interpreter, or as the LLVM code jit (compile_jit(lf, ...)) when given,
 * binding the arguments as realize() does. An output its GPU kernels wrote
 * is copied back to the host.
 * \throws loom::RuntimeError if the pipeline reports an error. */
loom::Buffer<> run_lowered(const PipelineDesc &p, BuiltPipeline &b, const LoweredFunc &lf,
                           const loom::internal::JITPipeline *jit);
/** "" when a and b hold the same bits, else where they first differ. */
std::string compare_buffers(const loom::Buffer<> &expected, const loom::Buffer<> &actual);

}  // namespace fuzz

#endif
