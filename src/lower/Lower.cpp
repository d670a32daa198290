#include "lower/Lower.h"

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <set>

#include "ir/IRPrinter.h"

#include "ir/Simplify.h"
#include "lower/BoundSmallAllocations.h"
#include "lower/BoundsInference.h"
#include "lower/BufferArguments.h"
#include "lower/BufferConstraints.h"
#include "lower/CheckRandomCalls.h"
#include "lower/ComputeWith.h"
#include "lower/DenseStridedAccesses.h"
#include "lower/EmulateBFloat16.h"
#include "lower/ExternStages.h"
#include "lower/ExtractGPUKernels.h"
#include "lower/ForkAsyncProducers.h"
#include "lower/HoistLoopInvariants.h"
#include "lower/HoistStorage.h"
#include "lower/InjectDebugLogging.h"
#include "lower/InjectDebugToFile.h"
#include "lower/InjectProfiling.h"
#include "lower/InjectPrefetch.h"
#include "lower/InjectTracing.h"
#include "lower/LargeBuffers.h"
#include "lower/LoopExits.h"
#include "lower/LowerAtomics.h"
#include "lower/LowerGPULaunches.h"
#include "lower/LoopNest.h"
#include "lower/MapLoopsToGPU.h"
#include "lower/Memoize.h"
#include "lower/PartitionLoops.h"
#include "lower/ResolveTargetQueries.h"
#include "lower/ScanOutputs.h"
#include "lower/ScheduleChecks.h"
#include "lower/ScheduleFunctions.h"
#include "lower/ShrinkAllocations.h"
#include "lower/SlidingWindow.h"
#include "lower/Specialize.h"
#include "lower/Stages.h"
#include "lower/StorageFlattening.h"
#include "lower/StorageFolding.h"
#include "lower/StorageSizes.h"
#include "lower/TrimNoOps.h"
#include "lower/UnrollLoops.h"
#include "lower/VectorizeLoops.h"

namespace loom {
namespace internal {

namespace {

/** LOOM_DEBUG_LOWER=1 prints the statement after each pass to stderr;
 * LOOM_DEBUG_LOWER=time prints how long each step took instead (the time
 * since the previous line, or since lower() began). */
class PassLog {
public:
    PassLog() : last_(std::chrono::steady_clock::now()) {}

    void operator()(const char *pass, const Stmt &s) {
        const Mode mode = this->mode();
        if (mode == Mode::Statements) std::cerr << "=== after " << pass << ":\n" << s << "\n";
        if (mode != Mode::Times) return;
        const auto now = std::chrono::steady_clock::now();
        std::cerr << "=== " << pass << ": " << std::chrono::duration<double, std::milli>(now - last_).count()
                  << " ms\n";
        last_ = now;
    }

private:
    enum class Mode { Off, Statements, Times };
    static Mode mode() {
        static const Mode m = [] {
            const char *v = std::getenv("LOOM_DEBUG_LOWER");
            if (!v || !*v || std::string(v) == "0") return Mode::Off;
            return std::string(v) == "time" ? Mode::Times : Mode::Statements;
        }();
        return m;
    }
    std::chrono::steady_clock::time_point last_;
};

/** Target features Loom implements on the CPU only, refused for a pipeline
 * with GPU kernels. */
void check_cpu_only_features(const std::string &pipeline_name, const Target &target) {
    const std::pair<Target::Feature, const char *> cpu_only[] = {
        {Target::Profile, "GPU kernels cannot call the profiler"},
        {Target::LargeBuffers, "GPU kernels index with 32-bit arithmetic"},
    };
    for (const auto &[feature, why] : cpu_only) {
        if (!target.has_feature(feature)) continue;
        const std::string name = Target::feature_to_name(feature);
        throw CompileError("Pipeline " + pipeline_name + " has GPU kernels and the target " + target.to_string() +
                           " has " + name + ", which Loom implements on the CPU only (" + why + "). Remove " +
                           name + ", or schedule the pipeline without GPU loops.");
    }
}

}  // namespace

LoweredFunc lower(const std::vector<FunctionPtr> &outputs, const std::string &pipeline_name, const Target &target,
                  const LowerOptions &options) {
    PassLog log_pass;
    // 0. The schedules are legal for this pipeline and target.
    check_schedules(outputs);
    check_extern_stages(outputs);  // define_extern: what the C function can be scheduled with
    // 1. Which Funcs exist, in what order, with inline Funcs substituted.
    PipelineStages pipeline = build_pipeline_stages(outputs);
    check_specializations(pipeline);
    check_async_schedules(pipeline);  // async(), ring_buffer()
    // 1b. compute_with: which stages share which loops (ComputeWithGroups.cpp).
    find_fused_groups(pipeline);
    // 2. The loop nest the schedules ask for, over symbolic bounds.
    std::set<std::string> coordinates;
    Stmt s = schedule_functions(pipeline, &coordinates);
    s = strip_memoize_tags(s);  // memoize_tag(v, ...) is v; lower/Memoize.cpp reads the tags from the Funcs
    s = resolve_target_queries(s, target);
    log_pass("schedule_functions", s);
    // 3. The regions each stage computes and each buffer must cover.
    InferredBounds bounds = bounds_inference(s, pipeline);
    s = resolve_target_queries(bounds.stmt, target);
    log_pass("bounds_inference", s);
    // 3a. Stored outside a loop, a Func computes only what earlier
    // iterations did not, in storage folded to what stays live.
    SlidWindows windows;
    s = sliding_window(s, pipeline, &windows);
    log_pass("sliding_window", s);
    StorageFolds folds;
    s = storage_folding(s, pipeline, windows, &folds);
    s = apply_storage_sizes(s, pipeline);  // bound_storage, align_storage
    log_pass("storage_folding", s);
    s = lower_extern_stages(s, pipeline);  // define_extern: the produce bodies become calls
    log_pass("lower_extern_stages", s);
    // 3b. compute_with: stages share their outer loops.
    s = fuse_compute_with(s, pipeline);
    log_pass("fuse_compute_with", s);
    // 3c. Scan outputs: each is cropped to the rows its loop ran.
    s = crop_scan_outputs(s, pipeline);
    // 3d. Tests only: every loop nest that admits it moves onto the GPU.
    if (options.map_loops_to_gpu) {
        s = map_loops_to_gpu(s, pipeline);
        log_pass("map_loops_to_gpu", s);
    }
    s = inject_tracing(s, pipeline, target);  // Func::trace_*, trace_all: calls of intrinsic::trace
    s = inject_debug_to_file(s, pipeline);    // Func::debug_to_file: loom_debug_to_file after each production
    s = lower_atomics(s, pipeline);  // Stage::atomic: stores in parallel/vectorized loops become atomic
    s = inject_prefetch(s, pipeline);  // Func::prefetch: intrinsic::prefetch loops at the top of loop `at`
    s = memoize_realizations(s, pipeline, pipeline_name);  // Func::memoize: cache lookup around production
    // 4. Multi-dimensional storage becomes flat allocations and buffers.
    s = storage_flattening(s, pipeline, folds);
    s = hoist_storage(s, pipeline);  // hoist_storage: allocations move out to their hoist level
    s = bound_small_allocations(s);  // a varying size with a small constant bound: that constant (stack)
    s = fork_async_producers(s, pipeline, folds, windows);  // async(): producer and consumers at once; ring_buffer()
    s = apply_buffer_constraints(s, pipeline);  // dim(d).set_*: stride 1 in dim 0 by default
    s = substitute_specialization_facts(s);  // specialize(v == c): v is c inside
    log_pass("storage_flattening", s);
    // 4a. Loops that stop early become While loops; trip counts, loads.
    s = lower_loop_exits(s);
    log_pass("lower_loop_exits", s);
    // 4b. Loop shaping: peel boundary iterations, unroll, vectorize.
    s = partition_loops(s, loop_partition_policies(pipeline));  // Func::partition: Never / Always per loop
    log_pass("partition_loops", s);
    if (options.loop_nest) *options.loop_nest = simplify(s);  // a copy to show (stmt_html), not lowered further
    s = unroll_loops(s);
    log_pass("unroll_loops", s);
    s = vectorize_loops(s, target, independent_lane_buffers(pipeline, folds));
    log_pass("vectorize_loops", s);
    // 4c. Tidy the loop nest: invariant values and ifs out of loops, husks
    // of statements that do nothing removed, memory freed after its last use.
    s = hoist_loop_invariants(s);
    log_pass("hoist_loop_invariants", s);
    s = trim_no_ops(s);
    log_pass("trim_no_ops", s);
    s = shrink_allocations(s);
    log_pass("shrink_allocations", s);
    if (target.has_feature(Target::Profile)) s = inject_profiling(s, pipeline, pipeline_name);
    // 5. The arguments, their fields, and the checks that guard every access.
    std::vector<LoweredArgument> args = find_arguments(s, pipeline);
    s = add_buffer_arguments(s, args, bounds, !target.has_feature(Target::NoBoundsQuery),
                             constraint_parameters(args, pipeline));
    s = add_buffer_size_checks(s, args, target);  // under 2^31 bytes, unless large_buffers
    if (target.has_feature(Target::NoAsserts)) s = remove_asserts(s);
    s = inject_debug_logging(s, args, pipeline_name, target);  // the debug feature: calls, checks, allocations
    s = resolve_target_queries(s, target);  // also in the buffer checks' regions
    log_pass("add_buffer_arguments", s);
    s = emulate_bfloat16(s);  // BFloat(16) math in Float(32), values as their UInt(16) bits
    log_pass("emulate_bfloat16", s);
    // 6. Clean up.
    s = simplify(s);
    log_pass("simplify", s);
    s = dense_strided_accesses(s);  // interleaved images: dense loads and stores with shuffles
    log_pass("dense_strided_accesses", s);
    // 7. GPU loop nests become kernels, launched from the host with the
    // copies their buffers need.
    std::vector<GPUKernel> kernels;
    s = extract_gpu_kernels(s, pipeline_name, target, kernels);
    s = lower_gpu_launches(s, kernels);
    if (!kernels.empty()) check_cpu_only_features(pipeline_name, target);
    check_random_calls_resolved(s, kernels);  // random_* outside a Func's definition
    if (!kernels.empty()) log_pass("lower_gpu_launches", s);
    return LoweredFunc{pipeline_name, args, s, std::move(coordinates), std::move(kernels)};
}

std::string loop_nest_text(const std::vector<FunctionPtr> &outputs, const Target &target) {
    check_schedules(outputs);
    check_extern_stages(outputs);
    PipelineStages pipeline = build_pipeline_stages(outputs);
    find_fused_groups(pipeline);
    return describe_loop_nest(fuse_compute_with_for_display(schedule_functions(pipeline), pipeline));
}

}  // namespace internal
}  // namespace loom
