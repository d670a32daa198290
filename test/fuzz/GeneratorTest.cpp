// Tests of the fuzzer itself: its pipelines and schedules are reproducible
// from the seed, and every directive it makes is one Loom accepts (checked
// when the directive is given, without compiling anything).

#include <gtest/gtest.h>

#include <iostream>

#include "fuzz/FuzzModel.h"

namespace {

std::string generate_text(uint32_t seed, int max_stages) {
    std::mt19937 rng(seed);
    fuzz::GeneratorOptions options;
    options.max_stages = max_stages;
    fuzz::PipelineDesc p = fuzz::generate_pipeline(rng, options);
    fuzz::ScheduleDesc s = fuzz::generate_schedule(p, rng);
    return p.to_text() + s.to_text(p);
}

TEST(FuzzGenerator, SameSeedSamePipelineAndSchedule) {
    for (uint32_t seed = 1; seed <= 20; seed++) {
        EXPECT_EQ(generate_text(seed, 6), generate_text(seed, 6)) << "seed " << seed;
    }
    EXPECT_NE(generate_text(1, 6), generate_text(2, 6));
}

TEST(FuzzGenerator, EveryDirectiveIsAccepted) {
    for (uint32_t seed = 1; seed <= 200; seed++) {
        std::mt19937 rng(seed);
        fuzz::PipelineDesc p = fuzz::generate_pipeline(rng);
        fuzz::ScheduleDesc s = fuzz::generate_schedule(p, rng);
        ASSERT_GE(p.funcs.size(), 2u);
        fuzz::BuiltPipeline b = fuzz::build_pipeline(p);
        try {
            fuzz::apply_schedule(s, b);
        } catch (const loom::CompileError &e) {
            ADD_FAILURE() << "seed " << seed << ": " << e.what() << "\n" << p.to_text() << s.to_text(p);
        }
    }
}

TEST(FuzzGenerator, EveryFuncIsReadByALaterOne) {
    for (uint32_t seed = 1; seed <= 200; seed++) {
        std::mt19937 rng(seed);
        fuzz::PipelineDesc p = fuzz::generate_pipeline(rng);
        for (int f = 0; f + 1 < (int)p.funcs.size(); f++) {
            bool read = false;
            for (int c = f + 1; c < (int)p.funcs.size(); c++) {
                for (const std::vector<int> &stage : p.funcs[c].reads) {
                    for (int r : stage) read = read || r == f;
                }
            }
            EXPECT_TRUE(read) << "seed " << seed << ": " << p.funcs[f].name << " is never read\n" << p.to_text();
        }
    }
}

}  // namespace

// compute_with is generated where it is certainly legal; that happens often
// enough for the CI subset to contain some, and Loom accepts each (also when
// the pipeline is lowered: CompileErrors from the fusion checks come there).
TEST(FuzzGenerator, SomeSchedulesFuseLoopsWithComputeWith) {
    int with = 0;
    for (uint32_t seed = 1000; seed < 1320; seed++) {
        std::mt19937 rng(seed);
        fuzz::GeneratorOptions options;
        options.max_stages = 4;
        fuzz::PipelineDesc p = fuzz::generate_pipeline(rng, options);
        fuzz::ScheduleDesc s = fuzz::generate_schedule(p, rng);
        bool fused = false;
        for (const fuzz::SchedOp &o : s.ops) fused = fused || o.kind == fuzz::SchedKind::ComputeWith;
        if (!fused) continue;
        with++;
        fuzz::BuiltPipeline b = fuzz::build_pipeline(p);
        try {
            fuzz::apply_schedule(s, b);
            fuzz::lower_pipeline(b);
        } catch (const loom::CompileError &e) {
            ADD_FAILURE() << "seed " << seed << ": " << e.what() << "\n" << p.to_text() << s.to_text(p);
        }
    }
    std::cout << "[fuzz] " << with << " of the 320 CI schedules use compute_with\n";
    EXPECT_GE(with, 5);
}
