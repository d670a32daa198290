// Tests of the fuzzer itself: its pipelines and schedules are reproducible
// from the seed, and every directive it makes is one Loom accepts (checked
// when the directive is given, without compiling anything).

#include <gtest/gtest.h>

#include <iostream>
#include <set>

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

namespace {

/** Which of issue 12's patterns a pipeline and its schedule use. */
struct Patterns {
    bool where_on_pure_var = false;     // an RDom::where() that mentions a pure Var
    bool guarded_update_split = false;  // a split of an update's pure Var with GuardWithIf
    bool register_block = false;        // a Func computed in a loop, a whole loop vectorized or unrolled
    bool fused_vector_loops = false;    // compute_with of a Func with whole vectorized/unrolled loops
    bool align_strategy = false;        // compute_with with a LoopAlignStrategy
    bool split_sliding_producer = false;  // storage outside the compute loop, and the producer split
};

bool mentions_var(const fuzz::ENode &e) {
    if (e.op == fuzz::Op::Var) return true;
    for (const fuzz::ENodePtr &k : e.kids) {
        if (mentions_var(*k)) return true;
    }
    return false;
}

Patterns patterns_of(const fuzz::PipelineDesc &p, const fuzz::ScheduleDesc &s) {
    using fuzz::SchedKind;
    Patterns u;
    for (const fuzz::FuncDesc &f : p.funcs) {
        if (!f.where.empty() && (mentions_var(*f.where[0]) || mentions_var(*f.where[1]))) u.where_on_pure_var = true;
    }
    std::set<int> computed_at, stored_out, split_pure, whole_loops;
    for (const fuzz::SchedOp &o : s.ops) {
        if (o.kind == SchedKind::ComputeAt) computed_at.insert(o.func);
        if (o.kind == SchedKind::StoreRoot || o.kind == SchedKind::StoreAt) stored_out.insert(o.func);
        if (o.kind == SchedKind::Split && o.stage == 0) split_pure.insert(o.func);
        if (o.kind == SchedKind::Split && o.stage > 0 && o.tail == loom::TailStrategy::GuardWithIf) {
            u.guarded_update_split = true;
        }
        if (o.kind == SchedKind::Vectorize || o.kind == SchedKind::Unroll) whole_loops.insert(o.func);
    }
    for (int f : whole_loops) u.register_block = u.register_block || computed_at.count(f);
    for (int f : stored_out) u.split_sliding_producer = u.split_sliding_producer || split_pure.count(f);
    for (const fuzz::SchedOp &o : s.ops) {
        if (o.kind != SchedKind::ComputeWith) continue;
        u.align_strategy = u.align_strategy || o.align >= 0;
        u.fused_vector_loops = u.fused_vector_loops || (whole_loops.count(o.func) && whole_loops.count(o.at_func));
    }
    return u;
}

}  // namespace

// Issue 12's patterns are drawn often enough that a campaign of a few
// thousand pipelines meets each many times, and Loom accepts the schedules
// that use them (directives and lowering). Counted over the CI seeds
// (4 Funcs at most); the first 8 schedules with per-tile, fused or
// sliding patterns are lowered, not run (the CI shards run them all).
TEST(FuzzGenerator, DrawsTheTightRegionPatternsAndLoomLowersThem) {
    int where = 0, guarded = 0, block = 0, fused_vector = 0, align = 0, sliding = 0, lowered = 0;
    for (uint32_t seed = 1000; seed < 1320; seed++) {
        std::mt19937 rng(seed);
        fuzz::GeneratorOptions options;
        options.max_stages = 4;
        fuzz::PipelineDesc p = fuzz::generate_pipeline(rng, options);
        fuzz::ScheduleDesc s = fuzz::generate_schedule(p, rng);
        Patterns u = patterns_of(p, s);
        where += u.where_on_pure_var;
        guarded += u.guarded_update_split;
        block += u.register_block;
        fused_vector += u.fused_vector_loops;
        align += u.align_strategy;
        sliding += u.split_sliding_producer;
        // Lowering costs; the CI shards run all of these seeds anyway.
        if (!(u.register_block || u.fused_vector_loops || u.split_sliding_producer) || ++lowered > 8) continue;
        fuzz::BuiltPipeline b = fuzz::build_pipeline(p);
        try {
            fuzz::apply_schedule(s, b);
            fuzz::lower_pipeline(b);
        } catch (const loom::CompileError &e) {
            ADD_FAILURE() << "seed " << seed << ": " << e.what() << "\n" << p.to_text() << s.to_text(p);
        }
    }
    std::cout << "[fuzz] of the 320 CI pipelines: " << where << " where() on a pure Var, " << guarded
              << " GuardWithIf update splits, " << block << " per-tile Funcs with whole vectorized/unrolled loops, "
              << fused_vector << " compute_with of such loops, " << align << " compute_with with a LoopAlignStrategy, "
              << sliding << " split producers stored outside their compute loop\n";
    EXPECT_GE(where, 10);
    EXPECT_GE(guarded, 10);
    EXPECT_GE(block, 5);
    EXPECT_GE(align, 3);
    EXPECT_GE(sliding, 10);
}
