// The schedule fuzzer's reference run computes the unscheduled pipeline's
// reductions at the root (fuzz::reductions_computed_per_point): unscheduled,
// each is computed again at every point of its consumer, which made some
// campaign pipelines spend 8-30 s in the reference alone. These tests check
// that the rooted reference computes the same values, bit for bit, as the
// unscheduled pipeline, so that the fuzzer's check did not change.

#include <gtest/gtest.h>

#include <algorithm>

#include "fuzz/FuzzModel.h"

namespace {

/** p's output computed on the interpreter under schedule s (empty: the
 * unscheduled pipeline), its raw inputs bound to the regions it asks for. */
loom::Buffer<> run_reference(const fuzz::PipelineDesc &p, const fuzz::ScheduleDesc &s,
                             const std::vector<loom::Buffer<>> &inputs) {
    fuzz::BuiltPipeline b = fuzz::build_pipeline(p, inputs);
    fuzz::apply_schedule(s, b);
    fuzz::LoweredFunc lowered = fuzz::lower_pipeline(b);
    fuzz::bind_raw_inputs(p, b, fuzz::query_raw_input_regions(p, b, lowered));
    return fuzz::run_lowered(p, b, lowered, nullptr);
}

fuzz::PipelineDesc pipeline_of_seed(uint64_t seed) {
    std::mt19937 rng((uint32_t)seed);
    fuzz::GeneratorOptions options;
    options.max_stages = 4;  // the fuzzer's default
    fuzz::PipelineDesc p = fuzz::generate_pipeline(rng, options);
    p.seed = seed;
    return p;
}

TEST(FuzzReference, TheReductionsAtTheRootAreTheNonOutputFuncsWithUpdates) {
    int with_reductions = 0;
    for (uint64_t seed = 1000; seed < 1040; seed++) {
        const fuzz::PipelineDesc p = pipeline_of_seed(seed);
        const std::vector<int> roots = fuzz::reductions_computed_per_point(p);
        for (int f = 0; f < (int)p.funcs.size(); f++) {
            const bool listed = std::find(roots.begin(), roots.end(), f) != roots.end();
            const bool wanted = f != p.output_index() && !p.funcs[f].updates.empty();
            EXPECT_EQ(listed, wanted) << "seed " << seed << ", Func " << p.funcs[f].name;
        }
        const fuzz::ScheduleDesc s = fuzz::compute_at_root(roots);
        ASSERT_EQ(s.ops.size(), roots.size());
        for (size_t i = 0; i < roots.size(); i++) {
            EXPECT_EQ(s.ops[i].kind, fuzz::SchedKind::ComputeRoot);
            EXPECT_EQ(s.ops[i].func, roots[i]);
        }
        with_reductions += !roots.empty();
    }
    EXPECT_GE(with_reductions, 10) << "the generator should make reductions feeding other Funcs";
}

// The seeds of the CI shards 0 and 1. (The campaign seeds whose unscheduled
// run was slow, 920027 and 971339, take 8-15 s unscheduled; they run as
// ScheduleFuzz.OnceSlowSeedsMatchTheUnscheduledResult with the rooted
// reference.)
TEST(FuzzReference, ReductionsAtTheRootComputeWhatTheUnscheduledPipelineComputes) {
    int compared = 0;
    for (uint64_t seed = 1000; seed < 1080; seed++) {
        const fuzz::PipelineDesc p = pipeline_of_seed(seed);
        const std::vector<int> roots = fuzz::reductions_computed_per_point(p);
        if (roots.empty()) continue;
        const fuzz::BuiltPipeline inputs = fuzz::build_pipeline(p);
        const loom::Buffer<> unscheduled = run_reference(p, {}, inputs.inputs);
        const loom::Buffer<> rooted = run_reference(p, fuzz::compute_at_root(roots), inputs.inputs);
        EXPECT_EQ(fuzz::compare_buffers(unscheduled, rooted), "") << "seed " << seed << "\n" << p.to_text();
        compared++;
    }
    EXPECT_GE(compared, 20);
}

}  // namespace
