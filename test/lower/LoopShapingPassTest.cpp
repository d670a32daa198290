// The loop-shaping passes (unroll_loops, vectorize_loops, partition_loops)
// through lower(): every pipeline runs through the JIT and the interpreter
// and is compared with a plain C++ reference and the unscheduled pipeline;
// the lowered statement is checked for the shape the pass promises.
#include "LoopShapingUtil.h"

#include <cmath>

#include "ir/Simplify.h"
#include "lower/PartitionLoops.h"
#include "lower/UnrollLoops.h"
#include "lower/VectorizeLoops.h"

using namespace shaping_test;

namespace {

bool contains(const std::string &haystack, const std::string &needle) {
    return haystack.find(needle) != std::string::npos;
}

int count(const std::string &haystack, const std::string &needle) {
    int n = 0;
    for (size_t p = haystack.find(needle); p != std::string::npos; p = haystack.find(needle, p + 1)) n++;
    return n;
}

/** f(x, y) = in(x, y) * 3 + x - y, over an input buffer "in". */
struct InputPipeline {
    Parameter in{Int(32), true, 2, "in"};
    FunctionPtr f;
    InputPipeline() { f = make_func("f", {"x", "y"}, image(in, {v("x"), v("y")}) * 3 + v("x") - v("y")); }
};

Runtime::Buffer<int> make_input(int w, int h, int min_x = 0, int min_y = 0) {
    Runtime::Buffer<int> in(w, h);
    in.set_min({min_x, min_y});
    in.for_each_element([&](int x, int y) { in(x, y) = (x * 37 + y * 11) % 23 - 9; });
    return in;
}

// ---- unroll -------------------------------------------------------------

TEST(LoopShapingUnroll, ConstantExtentIsUnrolled) {
    InputPipeline p;
    Sched(p.f).split("x", "xo", "xi", 4, loom::internal::TailStrategy::GuardWithIf).unroll("xi");
    for (int w : {8, 11, 2}) {
        auto in = make_input(w, 3);
        std::string ir;
        auto out = realize_2d(p.f, w, 3, 0, 0, {in.raw_buffer()}, &ir);
        EXPECT_FALSE(contains(ir, "for (f.s0.xi")) << ir;
        // Four copies of the store in xo's steady state, and four guarded
        // ones in its tail (partition_loops splits xo at the guard of the
        // block's last xi, as Halide does).
        EXPECT_EQ(count(ir, "f["), 8) << ir;
        EXPECT_TRUE(contains(ir, "f.s0.xo.steady_end")) << ir;
        for (int y = 0; y < 3; y++)
            for (int x = 0; x < w; x++) ASSERT_EQ(out(x, y), in(x, y) * 3 + x - y);
    }
}

TEST(LoopShapingUnroll, NonConstantExtentIsACompileError) {
    InputPipeline p;
    Sched(p.f).unroll("x");
    try {
        lower({p.f}, "pipeline", Target());
        FAIL() << "expected CompileError";
    } catch (const CompileError &e) {
        std::string m = e.what();
        EXPECT_TRUE(contains(m, "loop x of Func f")) << m;
        EXPECT_TRUE(contains(m, "cascade")) << m;
    }
}

TEST(LoopShapingUnroll, CascadeHandlesAnyExtent) {
    // Blocks of 8 while 8 remain, then of 4, then single iterations.
    InputPipeline p;
    Sched(p.f).unroll("x", {8, 4, 1});
    for (int w : {1, 3, 4, 7, 8, 12, 13, 21, 30}) {
        auto in = make_input(w, 2, -5, 1);
        std::string ir;
        auto out = realize_2d(p.f, w, 2, -5, 1, {in.raw_buffer()}, &ir);
        EXPECT_TRUE(contains(ir, "f.s0.x.block8")) << ir;
        EXPECT_TRUE(contains(ir, "f.s0.x.block4")) << ir;
        EXPECT_EQ(count(ir, "f[") , 8 + 4 + 1) << ir;
        for (int y = 1; y < 3; y++)
            for (int x = -5; x < w - 5; x++) ASSERT_EQ(out(x, y), in(x, y) * 3 + x - y) << w;
    }
}

TEST(LoopShapingUnroll, CascadeWithoutFinalOneLosesNothing) {
    FunctionPtr f = make_func("f", {"x"}, v("x") * v("x"));
    Sched(f).unroll("x", {4, 2});
    for (int w : {0, 1, 5, 7}) {
        if (w == 0) continue;
        auto out = realize_1d(f, w, 3);
        for (int x = 3; x < 3 + w; x++) ASSERT_EQ(out(x), x * x);
    }
}

TEST(LoopShapingUnroll, UnrolledReductionKeepsOrder) {
    FunctionPtr f = make_func("f", {"x"}, v("x"));
    ReductionDomain rdom({{"r", Expr(1), Expr(9)}});
    Expr r = Variable::make(Int(32), "r", rdom);
    add_update(f, {r}, call(f.weakened(), {r}) + call(f.weakened(), {r - 1}) * 2, rdom);
    Sched(f, 1).split("r", "ro", "ri", 3, loom::internal::TailStrategy::GuardWithIf).unroll("ri");
    auto out = realize_1d(f, 10);
    int prev = 0;
    for (int x = 0; x < 10; x++) {
        int expected = x == 0 ? 0 : x + prev * 2;
        ASSERT_EQ(out(x), expected) << x;
        prev = expected;
    }
}

// ---- vectorize ----------------------------------------------------------

TEST(LoopShapingVectorize, DenseVectorCodeForEveryTail) {
    for (loom::internal::TailStrategy tail : {loom::internal::TailStrategy::Auto, loom::internal::TailStrategy::GuardWithIf, loom::internal::TailStrategy::RoundUp}) {
        InputPipeline p;
        Sched(p.f).split("x", "xo", "xi", 8, tail).vectorize("xi");
        // RoundUp needs multiples of 8 and ShiftInwards (Auto) at least 8
        // points of an output (see ShiftInwardsTest); only a guard runs any width.
        const std::vector<int> widths = tail == loom::internal::TailStrategy::RoundUp  ? std::vector<int>{8, 24}
                                        : tail == loom::internal::TailStrategy::Auto ? std::vector<int>{16, 13, 8}
                                                                     : std::vector<int>{16, 13, 5, 1};
        for (int w : widths) {
            SCOPED_TRACE("tail " + std::to_string((int)tail) + " width " + std::to_string(w));
            auto in = make_input(w, 3, 2, -1);
            std::string ir;
            auto out = realize_2d(p.f, w, 3, 2, -1, {in.raw_buffer()}, &ir);
            EXPECT_TRUE(contains(ir, "ramp(")) << ir;
            EXPECT_TRUE(contains(ir, ", 8)")) << ir;
            // Whole vectors are dense; a partial last vector (if any) runs
            // as the scalar loop in the else branch of the every-lane test.
            const size_t serial = ir.find("for (f.s0.xi");
            if (serial != std::string::npos) {
                EXPECT_NE(ir.rfind("} else {", serial), std::string::npos) << ir;
                EXPECT_LT(ir.find("] = ", ir.find("ramp(")), serial) << ir;
            }
            for (int y = -1; y < 2; y++)
                for (int x = 2; x < w + 2; x++) ASSERT_EQ(out(x, y), in(x, y) * 3 + x - y);
        }
    }
}

TEST(LoopShapingVectorize, GuardedTailIsMasked) {
    // Reading exactly the input's extent: the last partial vector must not
    // load past it, so it runs as a scalar loop over its lanes.
    Parameter in(Float(32), true, 1, "in");
    FunctionPtr f = make_func("f", {"x"}, Cast::make(Int(32), image(in, {v("x")}) * 2.5f));
    Sched(f).split("x", "xo", "xi", 8, loom::internal::TailStrategy::GuardWithIf).vectorize("xi");
    LoweredFunc lf = lower({f}, "pipeline", Target());
    std::string ir = text(lf.body);
    EXPECT_TRUE(contains(ir, "if (")) << ir;
    Runtime::Buffer<float> input(11);
    for (int x = 0; x < 11; x++) input(x) = x * 1.5f - 4;
    Runtime::Buffer<int> out(11);
    ASSERT_EQ(run(lf, {input.raw_buffer(), out.raw_buffer()}), 0) << ir;
    for (int x = 0; x < 11; x++) ASSERT_EQ(out(x), (int)(input(x) * 2.5f));
}

TEST(LoopShapingVectorize, SelectCastDivModAndMath) {
    auto build = [](bool scheduled) {
        Expr x = v("x"), y = v("y");
        Expr fx = Cast::make(Float(32), x - 7);
        Expr s = Call::make(Float(32), "sinf", {fx * 0.25f}, CallType::PureExtern);
        Expr e = Call::make(Float(32), "sqrtf", {Cast::make(Float(32), x * x + 1)}, CallType::PureExtern);
        Expr value = Select::make(x % 3 == 0, (x - 9) / 4, (x * y) % 5) + Cast::make(Int(32), s * 100.0f + e);
        FunctionPtr f = make_func("f", {"x", "y"}, value);
        if (scheduled) Sched(f).split("x", "xo", "xi", 4).vectorize("xi");
        return f;
    };
    std::string ir;
    auto vec = realize_2d(build(true), 19, 3, -6, -1, {}, &ir);
    auto plain = realize_2d(build(false), 19, 3, -6, -1);
    EXPECT_TRUE(contains(ir, "ramp(")) << ir;
    for (int y = -1; y < 2; y++) {
        for (int x = -6; x < 13; x++) {
            ASSERT_EQ(vec(x, y), plain(x, y)) << x << "," << y;
            int div = (x - 9) >= 0 ? (x - 9) / 4 : -((3 - (x - 9)) / 4);  // floor division
            int mod = ((x * y) % 5 + 5) % 5;
            int sel = (((x % 3) + 3) % 3 == 0) ? div : mod;
            float s = std::sin((float)(x - 7) * 0.25f);
            float e = std::sqrt((float)(x * x + 1));
            int expected = sel + (int)(s * 100.0f + e);
            ASSERT_NEAR(vec(x, y), expected, 1) << x << "," << y;
        }
    }
}

TEST(LoopShapingVectorize, GatherThroughAClampedIndex) {
    Parameter lut(Int(32), true, 1, "lut");
    Expr index = Call::make(Int(32), "lut", {min(max(v("x") * 3 - 4, 0), 15)}, CallType::Image, FunctionPtr(), 0, lut);
    FunctionPtr f = make_func("f", {"x"}, index + 1);
    Sched(f).split("x", "xo", "xi", 4).vectorize("xi");
    LoweredFunc lf = lower({f}, "pipeline", Target());
    Runtime::Buffer<int> table(16);
    for (int i = 0; i < 16; i++) table(i) = i * i - 3;
    Runtime::Buffer<int> out(9);
    ASSERT_EQ(run(lf, {table.raw_buffer(), out.raw_buffer()}), 0);
    for (int x = 0; x < 9; x++) ASSERT_EQ(out(x), table(std::min(std::max(x * 3 - 4, 0), 15)) + 1);
}

TEST(LoopShapingVectorize, ReductionOverAnInnerLoop) {
    // f(x) = sum over r of g(x, r), x vectorized outside the serial r loop.
    auto build = [](bool scheduled) {
        FunctionPtr f = make_func("f", {"x"}, Expr(0));
        ReductionDomain rdom({{"r", Expr(0), Expr(5)}});
        Expr r = Variable::make(Int(32), "r", rdom);
        add_update(f, {v("x")}, call(f.weakened(), {v("x")}) + v("x") * r - r * r, rdom);
        if (scheduled) Sched(f, 1).split("x", "xo", "xi", 4).reorder({"r", "xi"}).vectorize("xi");
        return f;
    };
    std::string ir;
    auto vec = realize_1d(build(true), 10, -2, {}, &ir);
    auto plain = realize_1d(build(false), 10, -2);
    EXPECT_TRUE(contains(ir, "ramp(")) << ir;
    for (int x = -2; x < 8; x++) {
        int expected = 0;
        for (int r = 0; r < 5; r++) expected += x * r - r * r;
        ASSERT_EQ(vec(x), expected);
        ASSERT_EQ(vec(x), plain(x));
    }
}

TEST(LoopShapingVectorize, DependentLanesStaySerial) {
    // f(r) = f(r - 1) * 2 + r: each lane needs the previous one, so the
    // vectorized loop runs serially.
    FunctionPtr f = make_func("f", {"x"}, Expr(1));
    ReductionDomain rdom({{"r", Expr(1), Expr(15)}});
    Expr r = Variable::make(Int(32), "r", rdom);
    add_update(f, {r}, call(f.weakened(), {r - 1}) * 2 + r, rdom);
    Sched(f, 1).split("r", "ro", "ri", 4, loom::internal::TailStrategy::GuardWithIf).vectorize("ri");
    std::string ir;
    auto out = realize_1d(f, 16, 0, {}, &ir);
    EXPECT_FALSE(contains(ir, "ramp(")) << ir;
    int prev = 1;
    for (int x = 0; x < 16; x++) {
        int expected = x == 0 ? 1 : prev * 2 + x;
        ASSERT_EQ(out(x), expected);
        prev = expected;
    }
}

TEST(LoopShapingVectorize, NonConstantExtentIsACompileError) {
    InputPipeline p;
    Sched(p.f).vectorize("x");
    try {
        lower({p.f}, "pipeline", Target());
        FAIL() << "expected CompileError";
    } catch (const CompileError &e) {
        EXPECT_TRUE(contains(e.what(), "loop x of Func f")) << e.what();
    }
}

TEST(LoopShapingVectorize, VectorizedAndUnrolledTile) {
    auto build = [](bool scheduled) {
        FunctionPtr g = make_func("g", {"x", "y"}, v("x") * 2 - v("y"));
        g.get()->schedule.compute_level = LoopLevel::root();
        g.get()->schedule.store_level = LoopLevel::root();
        FunctionPtr f = make_func("f", {"x", "y"}, call(g, {v("x"), v("y")}) + call(g, {v("x") + 3, v("y") + 1}));
        if (scheduled) {
            Sched(g).split("x", "xo", "xi", 8).split("y", "yo", "yi", 2).reorder({"xi", "yi", "xo", "yo"}).vectorize("xi").unroll("yi");
            Sched(f).split("x", "xo", "xi", 4).vectorize("xi");
        }
        return f;
    };
    auto a = realize_2d(build(true), 21, 5, -3, 2), b = realize_2d(build(false), 21, 5, -3, 2);
    for (int y = 2; y < 7; y++)
        for (int x = -3; x < 18; x++) ASSERT_EQ(a(x, y), b(x, y));
}

// ---- partition ----------------------------------------------------------

TEST(LoopShapingPartition, ClampedStencilHasAClampFreeSteadyState) {
    Parameter in(Int(32), true, 1, "in");
    Expr lo = Variable::make(Int(32), "in.min.0", in);
    Expr hi = lo + Variable::make(Int(32), "in.extent.0", in) - 1;
    auto clamped = [&](Expr e) { return image(in, {min(max(e, lo), hi)}); };
    FunctionPtr f = make_func("f", {"x"}, clamped(v("x") - 1) + clamped(v("x") + 1) * 10);
    LoweredFunc lf = lower({f}, "pipeline", Target());
    std::string ir = text(lf.body);
    EXPECT_TRUE(contains(ir, "steady")) << ir;
    for (int w : {1, 2, 3, 10}) {
        Runtime::Buffer<int> input(w);
        for (int i = 0; i < w; i++) input(i) = i * 7 + 1;
        for (int out_w : {w, w + 3}) {
            Runtime::Buffer<int> out(out_w);
            out.set_min({-1});
            ASSERT_EQ(run(lf, {input.raw_buffer(), out.raw_buffer()}), 0) << ir;
            auto at = [&](int i) { return input(std::min(std::max(i, 0), w - 1)); };
            for (int x = -1; x < out_w - 1; x++) ASSERT_EQ(out(x), at(x - 1) + at(x + 1) * 10) << w << " " << x;
        }
    }
}

TEST(LoopShapingPartition, VectorizedClampedStencilLoadsDenseVectorsInTheSteadyState) {
    // The clamp of a vectorized index (the lanes of a loop inside the one
    // partitioned): the steady blocks of 8 are those whose lanes all stay
    // inside the input, and there the loads are dense ramps, not gathers.
    Parameter in(Int(32), true, 1, "in");
    Expr lo = Variable::make(Int(32), "in.min.0", in);
    Expr hi = lo + Variable::make(Int(32), "in.extent.0", in) - 1;
    auto clamped = [&](Expr e) { return image(in, {min(max(e, lo), hi)}); };
    FunctionPtr f = make_func("f", {"x"}, clamped(v("x") - 1) + clamped(v("x") + 1) * 10);
    Sched(f).split("x", "xo", "xi", 8, loom::internal::TailStrategy::GuardWithIf).vectorize("xi");
    LoweredFunc lf = lower({f}, "pipeline", Target());
    std::string ir = text(lf.body);
    EXPECT_TRUE(contains(ir, "f.s0.xo.steady")) << ir;
    EXPECT_TRUE(contains(ir, "in[ramp(")) << ir;
    for (int w : {1, 3, 8, 10, 37}) {
        Runtime::Buffer<int> input(w);
        for (int i = 0; i < w; i++) input(i) = i * 7 + 1;
        for (int out_w : {w, w + 3, w + 17}) {
            Runtime::Buffer<int> out(out_w);
            out.set_min({-1});
            ASSERT_EQ(run(lf, {input.raw_buffer(), out.raw_buffer()}), 0) << ir;
            auto at = [&](int i) { return input(std::min(std::max(i, 0), w - 1)); };
            for (int x = -1; x < out_w - 1; x++) ASSERT_EQ(out(x), at(x - 1) + at(x + 1) * 10) << w << " " << x;
        }
    }
}

TEST(LoopShapingPartition, FirstAndLastIterationsArePeeled) {
    // is_loop_begin / is_loop_end of the RDom's loop.
    FunctionPtr f = make_func("f", {"x"}, Expr(0));
    ReductionDomain rdom({{"r", Expr(0), Expr(10)}});
    Expr r = Variable::make(Int(32), "r", rdom);
    add_update(f, {r}, Select::make(r == 0, Expr(100), Select::make(r == 9, Expr(200), r * 3)), rdom);
    std::string ir;
    auto out = realize_1d(f, 10, 0, {}, &ir);
    for (int x = 0; x < 10; x++) ASSERT_EQ(out(x), x == 0 ? 100 : x == 9 ? 200 : x * 3);
    // The steady loop runs 8 times and has no select left.
    EXPECT_TRUE(contains(ir, "for (f.s1.r, 1, 8)")) << ir;
    EXPECT_FALSE(contains(ir, "select")) << ir;
}

TEST(LoopShapingPartition, GuardWithIfTailIsPartitioned) {
    InputPipeline p;
    Sched(p.f).split("x", "xo", "xi", 4, loom::internal::TailStrategy::GuardWithIf);
    for (int w : {9, 12, 3}) {
        auto in = make_input(w, 2);
        std::string ir;
        auto out = realize_2d(p.f, w, 2, 0, 0, {in.raw_buffer()}, &ir);
        EXPECT_TRUE(contains(ir, "f.s0.xi.steady")) << ir;
        for (int y = 0; y < 2; y++)
            for (int x = 0; x < w; x++) ASSERT_EQ(out(x, y), in(x, y) * 3 + x - y);
    }
}

// apps/matmul's rows of accumulators: y split by 4 (GuardWithIf) and
// unrolled, around a serial loop over x. The guard of each unrolled row,
// 4 * yo + yi <= max, partitions yo (its steady state has no if), though
// it is a test of c * v with c = 4 inside an inner loop.
TEST(LoopShapingPartition, GuardedUnrolledRowsAroundAnInnerLoopArePartitioned) {
    InputPipeline p;
    Sched(p.f)
        .split("y", "yo", "yi", 4, loom::internal::TailStrategy::GuardWithIf)
        .unroll("yi");
    for (int h : {9, 12, 3}) {
        auto in = make_input(5, h);
        std::string ir;
        auto out = realize_2d(p.f, 5, h, 0, 0, {in.raw_buffer()}, &ir);
        EXPECT_TRUE(contains(ir, "f.s0.yo.steady_end")) << ir;
        EXPECT_EQ(count(ir, "if (f.s0.yo*4"), 4) << ir;  // the tail's guards only
        for (int y = 0; y < h; y++)
            for (int x = 0; x < 5; x++) ASSERT_EQ(out(x, y), in(x, y) * 3 + x - y);
    }
}

/** for (y, 0, h) { for (x, 0, w) { out[x + y * w] = in[clamp(x - 1) + clamp(y - 1) * w] } }, the clamps
 * to [0, w - 1] and [0, h - 1]: a boundary test of each loop. */
Stmt clamped_2d_nest() {
    Expr w = Variable::make(Int(32), "w"), h = Variable::make(Int(32), "h");
    Expr cx = max(min(v("x") - 1, w - 1), 0), cy = max(min(v("y") - 1, h - 1), 0);
    Stmt store = Store::make("out", Load::make(Int(32), "in", cx + cy * w), v("x") + v("y") * w);
    Stmt xs = For::make("x", Expr(0), w, ForType::Serial, DeviceAPI::None, store);
    return For::make("y", Expr(0), h, ForType::Serial, DeviceAPI::None, xs);
}

TEST(LoopShapingPartition, InnerLoopsArePartitionedInTheSteadyStateOnly) {
    // As Halide: y's prologue and epilogue (a few rows) keep the x loop
    // whole; only the steady rows partition it. Partitioning it in all
    // three made the code grow by three per level of a nest (fuzz seed
    // 1232: 1,958 loops).
    std::string t = text(partition_loops(clamped_2d_nest()));
    EXPECT_EQ(count(t, "let y.steady_min = "), 1) << t;
    EXPECT_EQ(count(t, "let x.steady_min = "), 1) << t;
    // y's first and last rows (one each: peeled) loop over all of x.
    EXPECT_EQ(count(t, "for (x, 0, w)"), 2) << t;
    EXPECT_EQ(count(t, "for (x, x.steady_min"), 1) << t;

    // Always on the inner loop partitions it in the prologue and epilogue
    // too.
    std::string always = text(partition_loops(clamped_2d_nest(), {{"x", Partition::Always}}));
    EXPECT_EQ(count(always, "let x.steady_min = "), 3) << always;
    EXPECT_EQ(count(always, "for (x, 0, w)"), 0) << always;
    EXPECT_EQ(count(always, "for (x, x.steady_min"), 3) << always;
}

/** for (xo, 0, n) { for (xi, 0, 8) vectorized { out[xo * 8 + xi] = sum of `terms` reads of in at
 * clamp(xo * 8 + xi + k - terms / 2, 0, 7) } }: tests of the lanes of xi. */
Stmt clamped_sum_of_lanes(int terms) {
    Expr x = v("xo") * 8 + v("xi");
    Expr sum = 0;
    for (int k = 0; k < terms; k++) sum = sum + Load::make(Int(32), "in", max(min(x + (k - terms / 2), 7), 0));
    Stmt lanes = For::make("xi", Expr(0), Expr(8), ForType::Vectorized, DeviceAPI::None, Store::make("out", sum, x));
    return For::make("xo", Expr(0), v("n"), ForType::Serial, DeviceAPI::None, lanes);
}

TEST(LoopShapingPartition, LaneTestsOfALargeBodyOnlyWhenAlways) {
    // kMaxLaneTestBodySize (1000 variables and statements): 100 reads are
    // under it, 600 over it; Always partitions any size.
    EXPECT_TRUE(contains(text(partition_loops(clamped_sum_of_lanes(100))), "xo.steady_min"));
    EXPECT_FALSE(contains(text(partition_loops(clamped_sum_of_lanes(600))), "xo.steady_min"));
    EXPECT_TRUE(contains(text(partition_loops(clamped_sum_of_lanes(600), {{"xo", Partition::Always}})),
                         "xo.steady_min"));
}

TEST(LoopShapingPartition, LaneTestsNotLinearInTheLaneAreBoundedOverTheLanes) {
    // An upsampling's index x / 2 + x % 2 * 2 - 1 over the lanes of xi: the
    // largest lane reads at most 4 * xo + 4, the smallest at least 4 * xo - 1.
    Expr x = v("xo") * 8 + v("xi");
    Expr index = max(min(x / 2 + x % 2 * 2 - 1, v("w") - 1), 0);
    Stmt lanes = For::make("xi", Expr(0), Expr(8), ForType::Vectorized, DeviceAPI::None,
                           Store::make("out", Load::make(Int(32), "in", index), x));
    std::string t = text(partition_loops(For::make("xo", Expr(0), v("n"), ForType::Serial, DeviceAPI::None, lanes)));
    EXPECT_TRUE(contains(t, "xo.steady_min")) << t;
    EXPECT_TRUE(contains(t, "in[(xo*8 + xi)/2 + (xo*8 + xi)%2*2 - 1]")) << t;  // the steady state's read
    // Steady from xo = 1 (4 * 1 - 1 >= 0) while 4 * xo + 4 <= w - 1.
    EXPECT_TRUE(contains(t, "xo.steady_min = min(max(xo.loop_start, 1), xo.loop_end)")) << t;
    EXPECT_TRUE(contains(t, "xo.steady_end = max(min(xo.loop_end, (w + 3)/4 + -1), xo.steady_min)")) << t;
}

/** for (yo, 0, n) TYPE { for (yi, 0, 16) { let y = min(yo * 16, h - 16) + yi; for (x, 0, w) { out[x + y * w] =
 * y } } }: a ShiftInwards split of y, whose clamp is the same for every yi and x. */
Stmt shifted_strips(ForType type) {
    Expr w = v("w"), h = v("h");
    Stmt xs = For::make("x", Expr(0), w, ForType::Serial, DeviceAPI::None, Store::make("out", v("y"), v("x") + v("y") * w));
    Stmt rows = LetStmt::make("y", min(v("yo") * 16, h - 16) + v("yi"), xs);
    Stmt yis = For::make("yi", Expr(0), Expr(16), ForType::Serial, DeviceAPI::None, rows);
    return For::make("yo", Expr(0), v("n"), type, DeviceAPI::None, yis);
}

TEST(LoopShapingPartition, ParallelLoopsAreNotPartitionedOnClampsOncePerTask) {
    // A serial loop is partitioned on the clamp; a parallel one is not (as
    // Halide's likely_if_innermost): the clamp costs once per task, and the
    // last strip was a parallel loop of its own, run on one thread after
    // the others (histogram_equalize's lookup, iir_blur's transposes).
    EXPECT_TRUE(contains(text(partition_loops(shifted_strips(ForType::Serial))), "yo.steady_end")) ;
    std::string t = text(partition_loops(shifted_strips(ForType::Parallel)));
    EXPECT_FALSE(contains(t, "steady")) << t;
    EXPECT_EQ(count(t, "parallel for (yo"), 1) << t;
    // Always still partitions it.
    EXPECT_TRUE(contains(text(partition_loops(shifted_strips(ForType::Parallel), {{"yo", Partition::Always}})),
                         "yo.steady_end"));

    // A test of the lanes of a vectorized loop inside still partitions a
    // parallel loop: its steady blocks load dense vectors.
    Expr x = v("xo") * 8 + v("xi");
    Stmt lanes = For::make("xi", Expr(0), Expr(8), ForType::Vectorized, DeviceAPI::None,
                           Store::make("out", Load::make(Int(32), "in", min(x, v("w") - 1)), x));
    std::string vt = text(partition_loops(For::make("xo", Expr(0), v("n"), ForType::Parallel, DeviceAPI::None, lanes)));
    EXPECT_TRUE(contains(vt, "xo.steady_end")) << vt;

    // A comparison still partitions it: the select is evaluated per x.
    Stmt xs = For::make("x", Expr(0), v("w"), ForType::Serial, DeviceAPI::None,
                        Store::make("out", Select::make(v("y") == 0, Expr(1), Expr(2)), v("x") + v("y") * v("w")));
    std::string st = text(partition_loops(For::make("y", Expr(0), v("h"), ForType::Parallel, DeviceAPI::None, xs)));
    EXPECT_TRUE(contains(st, "y.steady_min")) << st;
}

TEST(LoopShapingPartition, AdjacentSingleTripLoopsAreFused) {
    // Two loops over the same range of at most one iteration, then a loop
    // of exactly one iteration: the first two fuse; the simplifier turns
    // the last into a let.
    Expr n = Variable::make(Int(32), "n");
    Expr once = min(n, 1);
    Stmt a = Store::make("buf", Expr(1), v("i"));
    Stmt b = Store::make("buf", Expr(2), v("j") + 1);
    Stmt s = Block::make(For::make("i", Expr(0), once, ForType::Serial, DeviceAPI::None, a),
                         For::make("j", Expr(0), once, ForType::Serial, DeviceAPI::None, b));
    std::string fused = text(partition_loops(s));
    EXPECT_EQ(count(fused, "for ("), 1) << fused;
    EXPECT_TRUE(contains(fused, "buf[i + 1] = 2")) << fused;

    // Loops of more iterations are not fused: their order matters.
    Stmt twice = Block::make(For::make("i", Expr(0), n, ForType::Serial, DeviceAPI::None, a),
                             For::make("j", Expr(0), n, ForType::Serial, DeviceAPI::None, b));
    EXPECT_EQ(count(text(partition_loops(twice)), "for ("), 2);
}

TEST(LoopShapingPartition, SingleIterationLoopsBecomeLets) {
    FunctionPtr f = make_func("f", {"x", "y"}, v("x") + v("y") * 4);
    std::string ir;
    auto out = realize_2d(f, 5, 1, 0, 7, {}, &ir);
    for (int x = 0; x < 5; x++) ASSERT_EQ(out(x, 7), x + 28);
    // The buffer's extent is only known at run time, so the y loop stays;
    // a constant single-trip loop is gone after simplification.
    Stmt s = For::make("k", Expr(3), Expr(1), ForType::Serial, DeviceAPI::None, Store::make("buf", v("k"), v("k")));
    std::string t = text(simplify(partition_loops(s)));
    EXPECT_FALSE(contains(t, "for (")) << t;
}

// ---- the passes alone ---------------------------------------------------

TEST(LoopShapingPasses, VectorizeWidensLetsAndKeepsRamps) {
    // for (x, 0, 4) vectorized { let t = x * 2 + 1; out[t] = in[t] + x }
    Stmt body = LetStmt::make("t", v("x") * 2 + 1,
                              Store::make("out", Load::make(Int(32), "in", v("t")) + v("x"), v("t")));
    Stmt loop = For::make("x", Expr(0), Expr(4), ForType::Vectorized, DeviceAPI::None, body);
    std::string t = text(vectorize_loops(loop, Target()));
    EXPECT_TRUE(contains(t, "ramp(")) << t;
    EXPECT_FALSE(contains(t, "for (")) << t;
}

TEST(LoopShapingPasses, UnrollSubstitutesTheLoopVariable) {
    Stmt loop = For::make("i", Expr(2), Expr(3), ForType::Unrolled, DeviceAPI::None,
                          Store::make("buf", v("i") * 10, v("i")));
    std::string t = text(simplify(unroll_loops(loop)));
    EXPECT_TRUE(contains(t, "buf[2] = 20")) << t;
    EXPECT_TRUE(contains(t, "buf[4] = 40")) << t;
    EXPECT_FALSE(contains(t, "for (")) << t;
}

}  // namespace
