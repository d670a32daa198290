// Splits, fuses, renames and loop orders (StageLoopNest): each schedule is
// lowered and run through the JIT and the interpreter, and compared with a
// plain C++ reference and with the same pipeline unscheduled.
#include "LoopShapingUtil.h"

#include "ir/IRUtil.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "lower/StageLoopNest.h"
#include "lower/Stages.h"

using namespace shaping_test;

namespace {

int F(int x, int y) { return x * 3 + y * 100 - (x ^ y); }

/** f(x, y) = x*3 + y*100 - (x ^ y). */
FunctionPtr simple_func() {
    Expr x = v("x"), y = v("y");
    Expr xor_xy = Call::make(Int(32), intrinsic::bitwise_xor, {x, y}, CallType::PureIntrinsic);
    return make_func("f", {"x", "y"}, x * 3 + y * 100 - xor_xy);
}

void expect_matches_reference(const Runtime::Buffer<int> &out, int w, int h, int min_x, int min_y) {
    for (int y = min_y; y < min_y + h; y++)
        for (int x = min_x; x < min_x + w; x++) ASSERT_EQ(out(x, y), F(x, y)) << x << ", " << y;
}

struct Shape {
    int w, h, min_x, min_y;
};
const Shape kShapes[] = {{16, 3, 0, 0}, {10, 4, -3, 2}, {3, 2, 5, -1}, {1, 1, 0, 0}, {17, 5, 7, 0}};

TEST(LoopShapingSplit, TailStrategiesMatchReference) {
    for (loom::internal::TailStrategy tail : {loom::internal::TailStrategy::Auto, loom::internal::TailStrategy::GuardWithIf, loom::internal::TailStrategy::ShiftInwards,
                              loom::internal::TailStrategy::PredicateLoads, loom::internal::TailStrategy::PredicateStores}) {
        FunctionPtr f = simple_func();
        Sched(f).split("x", "xo", "xi", 4, tail);
        const bool shifts = tail == loom::internal::TailStrategy::Auto || tail == loom::internal::TailStrategy::ShiftInwards;
        for (const Shape &s : kShapes) {
            SCOPED_TRACE("tail " + std::to_string((int)tail) + " width " + std::to_string(s.w));
            if (shifts && s.w < 4) {
                // The shifted block would start before the output's min.
                LoweredFunc lf = lower({f}, "pipeline", Target());
                Runtime::Buffer<int> out(s.w, s.h);
                out.set_min({s.min_x, s.min_y});
                EXPECT_EQ(run(lf, {out.raw_buffer()}), loom_error_code_buffer_too_small);
                continue;
            }
            expect_matches_reference(realize_2d(f, s.w, s.h, s.min_x, s.min_y), s.w, s.h, s.min_x, s.min_y);
        }
    }
}

TEST(LoopShapingSplit, RoundUpOnDivisibleExtent) {
    FunctionPtr f = simple_func();
    Sched(f).split("x", "xo", "xi", 4, loom::internal::TailStrategy::RoundUp).split("y", "yo", "yi", 2, loom::internal::TailStrategy::RoundUp);
    expect_matches_reference(realize_2d(f, 16, 6, -4, 3), 16, 6, -4, 3);
}

TEST(LoopShapingSplit, RoundUpPastTheOutputIsReported) {
    // The output is 10 wide; rounding up to 12 writes past it, which the
    // buffer checks catch before anything runs.
    FunctionPtr f = simple_func();
    Sched(f).split("x", "xo", "xi", 4, loom::internal::TailStrategy::RoundUp);
    LoweredFunc lf = lower({f}, "pipeline", Target());
    Runtime::Buffer<int> out(10, 2);
    EXPECT_EQ(run(lf, {out.raw_buffer()}), loom_error_code_buffer_too_small);
}

TEST(LoopShapingSplit, SplitKeepsTheOldNameForTheOuterLoop) {
    // split(x, x, xi) as vectorize(x, 8) does, then split the inner loop
    // again reusing its name.
    FunctionPtr f = simple_func();
    Sched(f).split("x", "x", "xi", 8).split("xi", "xio", "xi", 3, loom::internal::TailStrategy::GuardWithIf);
    for (const Shape &s : kShapes) {
        if (s.w < 8) continue;  // the first split shifts inwards: at least 8 points
        expect_matches_reference(realize_2d(f, s.w, s.h, s.min_x, s.min_y), s.w, s.h, s.min_x, s.min_y);
    }
}

TEST(LoopShapingSplit, SymbolicFactor) {
    Parameter factor(Int(32), false, 0, "factor");
    FunctionPtr f = simple_func();
    Sched(f).split("x", "xo", "xi", Variable::make(Int(32), "factor", factor), loom::internal::TailStrategy::GuardWithIf);
    LoweredFunc lf = lower({f}, "pipeline", Target());
    for (int k : {1, 3, 7, 20}) {
        Runtime::Buffer<int> out(11, 3);
        int32_t value = k;
        ASSERT_EQ(run(lf, {&value, out.raw_buffer()}), 0);
        expect_matches_reference(out, 11, 3, 0, 0);
    }
}

TEST(LoopShapingSplit, FuseRenameAndReorder) {
    FunctionPtr f = simple_func();
    Sched(f).reorder({"y", "x"}).fuse("y", "x", "yx").split("yx", "t", "ti", 5, loom::internal::TailStrategy::GuardWithIf);
    for (const Shape &s : kShapes) expect_matches_reference(realize_2d(f, s.w, s.h, s.min_x, s.min_y), s.w, s.h, s.min_x, s.min_y);

    FunctionPtr g = simple_func();
    Sched(g).rename("x", "col").split("col", "co", "ci", 3).reorder({"y", "ci", "co"});
    for (const Shape &s : kShapes) {
        if (s.w < 3) continue;  // the split shifts inwards: at least 3 points
        expect_matches_reference(realize_2d(g, s.w, s.h, s.min_x, s.min_y), s.w, s.h, s.min_x, s.min_y);
    }
}

TEST(LoopShapingSplit, TiledIntermediateMatchesUnscheduled) {
    // g at root with a 2D tiling, read by a stencil of f.
    auto build = [](bool scheduled) {
        FunctionPtr g = make_func("g", {"x", "y"}, v("x") * v("x") - v("y") * 7);
        g.get()->schedule.compute_level = LoopLevel::root();
        g.get()->schedule.store_level = LoopLevel::root();
        if (scheduled) {
            Sched(g).split("x", "xo", "xi", 4).split("y", "yo", "yi", 3).reorder({"xi", "yi", "xo", "yo"});
        }
        return make_func("f", {"x", "y"},
                         call(g, {v("x") - 1, v("y")}) + call(g, {v("x") + 1, v("y") + 2}) * 2);
    };
    auto plain = realize_2d(build(false), 13, 7, -2, 1);
    auto tiled = realize_2d(build(true), 13, 7, -2, 1);
    auto G = [](int x, int y) { return x * x - y * 7; };
    for (int y = 1; y < 8; y++) {
        for (int x = -2; x < 11; x++) {
            ASSERT_EQ(tiled(x, y), G(x - 1, y) + G(x + 1, y + 2) * 2);
            ASSERT_EQ(tiled(x, y), plain(x, y));
        }
    }
}

TEST(LoopShapingSplit, ComputeAtAnOuterSplitLoop) {
    // g computed per block of 4 columns of f.
    auto build = [](bool scheduled) {
        FunctionPtr g = make_func("g", {"x"}, v("x") * 5 + 1);
        FunctionPtr f = make_func("f", {"x"}, call(g, {v("x")}) + call(g, {v("x") + 1}));
        if (scheduled) {
            g.get()->schedule.compute_level = LoopLevel::at("f", "xo");
            g.get()->schedule.store_level = LoopLevel::at("f", "xo");
            Sched(f).split("x", "xo", "xi", 4);
        } else {
            g.get()->schedule.compute_level = LoopLevel::root();
            g.get()->schedule.store_level = LoopLevel::root();
        }
        return f;
    };
    for (int w : {4, 9}) {  // f shifts its last block inwards: at least 4 points
        auto a = realize_1d(build(true), w, -3), b = realize_1d(build(false), w, -3);
        for (int x = -3; x < w - 3; x++) {
            ASSERT_EQ(a(x), (x * 5 + 1) + ((x + 1) * 5 + 1));
            ASSERT_EQ(a(x), b(x));
        }
    }
}

/** f(x) = x; f(r) = f(r) + f(r - 1) for r in [1, n): a prefix sum, order matters. */
FunctionPtr prefix_sum(int n) {
    FunctionPtr f = make_func("f", {"x"}, v("x"));
    ReductionDomain rdom({{"r", Expr(1), Expr(n - 1)}});
    Expr r = Variable::make(Int(32), "r", rdom);
    add_update(f, {r}, call(f.weakened(), {r}) + call(f.weakened(), {r - 1}), rdom);
    return f;
}

TEST(LoopShapingSplit, SplitReductionVariableKeepsOrder) {
    for (loom::internal::TailStrategy tail : {loom::internal::TailStrategy::Auto, loom::internal::TailStrategy::GuardWithIf, loom::internal::TailStrategy::ShiftInwards}) {
        FunctionPtr f = prefix_sum(12);
        Sched(f, 1).split("r", "ro", "ri", 5, tail);
        auto out = realize_1d(f, 12);
        int expected = 0;
        for (int x = 0; x < 12; x++) {
            expected += x;
            ASSERT_EQ(out(x), expected) << x;
        }
    }
}

TEST(LoopShapingSplit, UpdateOfPureVarIsGuarded) {
    // An update over a pure var: ShiftInwards would apply it twice to some
    // points, so it is guarded instead.
    FunctionPtr f = make_func("f", {"x"}, v("x"));
    add_update(f, {v("x")}, call(f.weakened(), {v("x")}) * 2 + 1);
    Sched(f, 1).split("x", "xo", "xi", 4, loom::internal::TailStrategy::ShiftInwards);
    auto out = realize_1d(f, 10, 2);
    for (int x = 2; x < 12; x++) ASSERT_EQ(out(x), x * 2 + 1);
}

TEST(LoopShapingSplit, RoundUpOfAnInnerVarInAnUpdateIsGuarded) {
    // Rounding xi (extent 5) up to 6 would reach the first point of the next
    // block, which the update would then apply twice.
    for (int w : {7, 10, 12, 3}) {
        FunctionPtr f = make_func("f", {"x"}, v("x"));
        add_update(f, {v("x")}, call(f.weakened(), {v("x")}) * 2 + 1);
        Sched(f, 1).split("x", "xo", "xi", 5, loom::internal::TailStrategy::GuardWithIf).split("xi", "xio", "xii", 3, loom::internal::TailStrategy::RoundUp);
        auto out = realize_1d(f, w, -4);
        for (int x = -4; x < w - 4; x++) ASSERT_EQ(out(x), x * 2 + 1) << w;
    }
}

TEST(LoopShapingSplit, RoundUpOnReductionVariableIsACompileError) {
    FunctionPtr f = prefix_sum(8);
    Sched(f, 1).split("r", "ro", "ri", 4, loom::internal::TailStrategy::RoundUp);
    try {
        lower({f}, "pipeline", Target());
        FAIL() << "expected CompileError";
    } catch (const CompileError &e) {
        std::string m = e.what();
        EXPECT_NE(m.find("'f'"), std::string::npos) << m;
        EXPECT_NE(m.find("'r'"), std::string::npos) << m;
        EXPECT_NE(m.find("RoundUp"), std::string::npos) << m;
    }
}

TEST(LoopShapingSplit, BadSchedulesAreCompileErrors) {
    {
        FunctionPtr f = simple_func();
        Sched(f).split("x", "xo", "xi", 0);
        EXPECT_THROW(lower({f}, "pipeline", Target()), CompileError);
    }
    {
        // A loop order naming a variable that was split away.
        FunctionPtr f = simple_func();
        Sched(f).split("x", "xo", "xi", 4);
        f.get()->init.schedule.dims[0].var = "x";
        try {
            lower({f}, "pipeline", Target());
            FAIL() << "expected CompileError";
        } catch (const CompileError &e) {
            EXPECT_NE(std::string(e.what()).find("'x'"), std::string::npos) << e.what();
        }
    }
}

TEST(LoopShapingSplit, SplitsWithoutALoopOrderGetTheDefaultOrder) {
    FunctionPtr f = simple_func();
    Split s;
    s.old_var = "x";
    s.outer = "xo";
    s.inner = "xi";
    s.factor = 3;
    f.get()->init.schedule.splits.push_back(s);
    f.get()->init.schedule.dims.clear();  // no loop order: lowering derives it from the splits
    expect_matches_reference(realize_2d(f, 8, 3, 1, 1), 8, 3, 1, 1);
}

// ---- the bounds API for bounds inference ----------------------------------

/** e with f.s0.x.min = min and f.s0.x.max = max, as a constant. */
int64_t evaluate(const Expr &e, int min, int max) {
    Expr r = substitute("f.s0.x.min", Expr(min), e);
    r = substitute("f.s0.x.max", Expr(max), r);
    auto c = as_const_int(simplify(r));
    EXPECT_TRUE(c.has_value()) << r;
    return c.value_or(0);
}

TEST(LoopShapingSplit, ComputedRegionGrowsOnlyForRoundUp) {
    for (loom::internal::TailStrategy tail : {loom::internal::TailStrategy::RoundUp, loom::internal::TailStrategy::GuardWithIf, loom::internal::TailStrategy::Auto}) {
        FunctionPtr f = make_func("f", {"x"}, v("x"));
        Sched(f).split("x", "xo", "xi", 4, tail).split("xi", "xio", "xii", 3, loom::internal::TailStrategy::RoundUp);
        PipelineStages p = build_pipeline_stages({f});
        Box box = stage_computed_region(p.stages.at("f")[0]);
        ASSERT_EQ(box.size(), 1u);
        EXPECT_EQ(evaluate(box[0].min, 5, 14), 5);
        // RoundUp: 10 points round up to 3 blocks of 4, whose inner loops
        // round 4 up to 6 points: the last block reaches 5 + 8 + 5.
        EXPECT_EQ(evaluate(box[0].max, 5, 14), tail == loom::internal::TailStrategy::RoundUp ? 18 : 14);
    }
}

TEST(LoopShapingSplit, LoopBoundsAreListedInOrder) {
    FunctionPtr f = make_func("f", {"x"}, v("x"));
    Sched(f).split("x", "xo", "xi", 4);
    PipelineStages p = build_pipeline_stages({f});
    auto lets = stage_loop_bounds(p.stages.at("f")[0]);
    std::map<std::string, Expr> env;
    for (const auto &[name, value] : lets) {
        Expr resolved = value;
        for (auto it = env.rbegin(); it != env.rend(); ++it) resolved = substitute(it->first, it->second, resolved);
        env[name] = resolved;
    }
    ASSERT_TRUE(env.count("f.s0.xo.loop_extent"));
    EXPECT_EQ(evaluate(env["f.s0.xo.loop_extent"], 0, 9), 3);
    EXPECT_EQ(evaluate(env["f.s0.xi.loop_extent"], 0, 9), 4);
    EXPECT_EQ(evaluate(env["f.s0.xo.loop_min"], 0, 9), 0);
    EXPECT_EQ(evaluate(env["f.s0.x.loop_max"], 0, 9), 9);
}

}  // namespace
