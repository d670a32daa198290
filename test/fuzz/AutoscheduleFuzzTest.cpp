// The autoscheduler on random pipelines (docs/AUTOSCHEDULER.md): each of
// the schedule fuzzer's pipelines (FuzzModel.h), autoscheduled with
// estimates larger than the region it is realized over, must give the
// unscheduled pipeline's result bit for bit, on the interpreter and the JIT.

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "FuzzModel.h"
#include "lang/Backend.h"

namespace {

using namespace loom;
using fuzz::LoweredFunc;

// LOOM_AUTOSCHEDULE_FUZZ_SEED and LOOM_AUTOSCHEDULE_FUZZ_PIPELINES run other
// or more seeds than CI's 24 from 7100000.
uint64_t env_or(const char *name, uint64_t fallback) {
    const char *v = std::getenv(name);
    return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

TEST(AutoscheduleFuzz, RandomPipelinesAutoscheduledMatchTheUnscheduledResult) {
    const uint64_t first = env_or("LOOM_AUTOSCHEDULE_FUZZ_SEED", 7100000);
    const int pipelines = int(env_or("LOOM_AUTOSCHEDULE_FUZZ_PIPELINES", 24));
    int matched = 0;
    for (uint64_t seed = first; seed < first + pipelines; seed++) {
        std::mt19937 rng((unsigned)seed);
        fuzz::GeneratorOptions options;
        options.max_stages = 5;
        fuzz::PipelineDesc p = fuzz::generate_pipeline(rng, options);
        p.seed = seed;
        SCOPED_TRACE("seed " + std::to_string(seed) + "\n" + p.to_text());

        fuzz::BuiltPipeline reference = fuzz::build_pipeline(p);
        LoweredFunc reference_lowered = fuzz::lower_pipeline(reference);
        fuzz::bind_raw_inputs(p, reference, fuzz::query_raw_input_regions(p, reference, reference_lowered));
        Buffer<> expected = fuzz::run_lowered(p, reference, reference_lowered, nullptr);

        fuzz::BuiltPipeline scheduled = fuzz::build_pipeline(p, reference.inputs);
        Func out = scheduled.funcs.back();
        out.set_estimates({{p.out_min_x, 640}, {p.out_min_y, 480}});
        for (auto &[index, param] : scheduled.params) {
            param.dim(0).set_estimate(-16, 700);
            param.dim(1).set_estimate(-16, 540);
        }
        AutoSchedulerResults r =
            Pipeline(out).apply_autoscheduler(Target("x86-64-linux-avx2"), {"LoomHeuristic"});
        SCOPED_TRACE(r.schedule_source);
        LoweredFunc lowered = fuzz::lower_pipeline(scheduled);
        fuzz::bind_raw_inputs(p, scheduled, fuzz::query_raw_input_regions(p, scheduled, lowered));
        Buffer<> interpreted = fuzz::run_lowered(p, scheduled, lowered, nullptr);
        std::string diff = fuzz::compare_buffers(expected, interpreted);
        EXPECT_EQ(diff, "") << "interpreter";

        loom::internal::set_jit_backend(loom::internal::Backend::LLVM);
        Buffer<> compiled = fuzz::realize_output(p, scheduled);
        std::string jit_diff = fuzz::compare_buffers(expected, compiled);
        EXPECT_EQ(jit_diff, "") << "JIT";
        matched += diff.empty() && jit_diff.empty();
    }
    EXPECT_EQ(matched, pipelines);
}

}  // namespace
