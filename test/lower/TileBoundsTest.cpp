// Bounds inference over tile loops: a producer computed at a tile (split)
// loop, or whose region depends on an outer loop, needs exactly the union of
// its per-tile regions, and the inputs exactly what the pipeline reads.
// Regions are checked by the bounds query (an input with a NULL host pointer
// gets the region the pipeline needs) and by running with an input of
// exactly that size.
#include "lower/LoopShapingUtil.h"

#include "ir/IRUtil.h"
#include "ir/IRVisitor.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"

using namespace shaping_test;

namespace {

struct Region {
    std::vector<int> min, extent;
};

/** The region of `input` the pipeline needs for an output of the given
 * mins and extents (asked through the bounds query). */
Region query_input_region(const LoweredFunc &lf, const Parameter &input, const std::vector<int> &out_min,
                          const std::vector<int> &out_extent) {
    std::vector<loom_dimension_t> dims(input.dimensions());
    loom_buffer_t query = {};
    query.type = input.type().to_runtime();
    query.dimensions = input.dimensions();
    query.dim = dims.data();
    Runtime::Buffer<int> out(out_extent);
    out.set_min(out_min);
    EXPECT_EQ(run(lf, {&query, out.raw_buffer()}), 0) << lf.body;
    Region r;
    for (const loom_dimension_t &d : dims) {
        r.min.push_back(d.min);
        r.extent.push_back(d.extent);
    }
    return r;
}

/** An input buffer of exactly the region, filled with 1000*y + x. */
Runtime::Buffer<int> exact_input(const Region &r) {
    Runtime::Buffer<int> in(r.extent);
    in.set_min(r.min);
    in.for_each_element([&](int x, int y) { in(x, y) = 1000 * y + x; });
    return in;
}

/** The constant extent of loop `name` (or -1 if it is not a constant). */
int64_t loop_extent(const Stmt &s, const std::string &name) {
    struct Find : IRVisitor {
        std::string name;
        Expr extent;
        using IRVisitor::visit;
        void visit(const For *op) override {
            if (op->name == name) extent = op->extent;
            IRVisitor::visit(op);
        }
    } find;
    find.name = name;
    s.accept(&find);
    if (!find.extent.defined()) return -2;
    auto c = as_const_int(simplify(find.extent));
    return c ? *c : -1;
}

// The reproduction of the bug: f is computed per block of 32 rows of g and
// reads one row further down; the pipeline reads rows 1..128 of the input.
TEST(TileBounds, ProducerAtSplitLoopNeedsExactlyTheInputRows) {
    for (loom::internal::TailStrategy tail : {loom::internal::TailStrategy::Auto, loom::internal::TailStrategy::GuardWithIf, loom::internal::TailStrategy::RoundUp}) {
        Parameter in(Int(32), true, 2, "in");
        FunctionPtr f = make_func("f", {"x", "y"}, image(in, {v("x"), v("y") + 1}));
        FunctionPtr g = make_func("g", {"x", "y"}, call(f, {v("x"), v("y")}));
        Sched(g).split("y", "yo", "yi", 32, tail);
        f.get()->schedule.compute_level = LoopLevel::at("g", "yo");
        f.get()->schedule.store_level = LoopLevel::at("g", "yo");
        LoweredFunc lf = lower({g}, "pipeline", Target());
        Region r = query_input_region(lf, in, {0, 0}, {64, 128});
        EXPECT_EQ(r.min, (std::vector<int>{0, 1}));
        EXPECT_EQ(r.extent, (std::vector<int>{64, 128}));
        Runtime::Buffer<int> input = exact_input(r);
        Runtime::Buffer<int> out(64, 128);
        ASSERT_EQ(run(lf, {input.raw_buffer(), out.raw_buffer()}), 0);
        for (int y = 0; y < 128; y += 7)
            for (int x = 0; x < 64; x += 5) EXPECT_EQ(out(x, y), 1000 * (y + 1) + x);
    }
}

// A tail block: 100 rows in blocks of 32, and f's own RoundUp split by 5
// rounds each block of f up to a multiple of 5 rows. Shifted inwards, the
// last block is rows 68..99, so f computes 68..102 and reads input row 103.
// Guarded, it is rows 96..99, so f computes 96..100 and reads row 101
// (bounds inference splits the blocks' range where min(32 t + 31, 99)
// switches operands, ir/BoxesTouched.cpp; interval arithmetic over all
// blocks at once asked for more).
TEST(TileBounds, TailBlockAndRoundUpInsideTheTile) {
    struct Case {
        loom::internal::TailStrategy tail;
        int last_input_row;
    };
    for (Case c : {Case{loom::internal::TailStrategy::ShiftInwards, 103}, Case{loom::internal::TailStrategy::GuardWithIf, 101}}) {
        Parameter in(Int(32), true, 2, "in");
        FunctionPtr f = make_func("f", {"x", "y"}, image(in, {v("x"), v("y") + 1}));
        FunctionPtr g = make_func("g", {"x", "y"}, call(f, {v("x"), v("y")}));
        Sched(g).split("y", "yo", "yi", 32, c.tail);
        Sched(f).split("y", "yo", "yi", 5, loom::internal::TailStrategy::RoundUp);
        f.get()->schedule.compute_level = LoopLevel::at("g", "yo");
        f.get()->schedule.store_level = LoopLevel::at("g", "yo");
        LoweredFunc lf = lower({g}, "pipeline", Target());
        Region r = query_input_region(lf, in, {0, 0}, {16, 100});
        EXPECT_EQ(r.min, (std::vector<int>{0, 1}));
        EXPECT_EQ(r.extent, (std::vector<int>{16, c.last_input_row}));
        Runtime::Buffer<int> input = exact_input(r);
        Runtime::Buffer<int> out(16, 100);
        ASSERT_EQ(run(lf, {input.raw_buffer(), out.raw_buffer()}), 0);
        for (int y = 0; y < 100; y++) EXPECT_EQ(out(3, y), 1000 * (y + 1) + 3);
    }
}

// 2-D tiles with a stencil producer per tile, at a nonzero output min.
TEST(TileBounds, StencilPerTileNeedsExactlyTheStencilFootprint) {
    for (loom::internal::TailStrategy tail : {loom::internal::TailStrategy::Auto, loom::internal::TailStrategy::GuardWithIf}) {
        Parameter in(Int(32), true, 2, "in");
        Expr x = v("x"), y = v("y");
        FunctionPtr f = make_func("f", {"x", "y"}, image(in, {x - 1, y}) + image(in, {x + 1, y + 2}));
        FunctionPtr g = make_func("g", {"x", "y"}, call(f, {x, y}) + call(f, {x + 1, y}));
        Sched(g).split("x", "xo", "xi", 8, tail).split("y", "yo", "yi", 8, tail).reorder({"xi", "yi", "xo", "yo"});
        f.get()->schedule.compute_level = LoopLevel::at("g", "xo");
        f.get()->schedule.store_level = LoopLevel::at("g", "xo");
        LoweredFunc lf = lower({g}, "pipeline", Target());
        Region r = query_input_region(lf, in, {3, -2}, {30, 20});
        // x: 3 - 1 .. 32 + 1 + 1; y: -2 .. 17 + 2.
        EXPECT_EQ(r.min, (std::vector<int>{2, -2}));
        EXPECT_EQ(r.extent, (std::vector<int>{33, 22}));
        Runtime::Buffer<int> input = exact_input(r);
        Runtime::Buffer<int> out(30, 20);
        out.set_min({3, -2});
        ASSERT_EQ(run(lf, {input.raw_buffer(), out.raw_buffer()}), 0);
        out.for_each_element([&](int a, int b) {
            int expect = input(a - 1, b) + input(a + 1, b + 2) + input(a, b) + input(a + 2, b + 2);
            EXPECT_EQ(out(a, b), expect) << a << ", " << b;
        });
    }
}

// The matmul shape: a panel Func computed at root is read per output tile
// through x / 4; over all tiles it needs panels 0..7 of 32 columns, not 15.
TEST(TileBounds, PanelReadThroughTileLoopsHasExactExtent) {
    Parameter in(Int(32), true, 2, "in");
    Expr x = v("x"), y = v("y");
    FunctionPtr packed = make_func("packed", {"pi", "po"}, image(in, {v("po") * 4 + v("pi"), Expr(0)}));
    FunctionPtr prod = make_func("prod", {"x", "y"}, call(packed, {x % 4, x / 4}) + y);
    FunctionPtr out = make_func("out", {"x", "y"}, call(prod, {x, y}));
    out.get()->schedule.bounds.push_back(Bound{"x", Expr(0), Expr(32)});
    Sched(out).split("x", "xo", "xi", 4).split("y", "yo", "yi", 2).reorder({"xi", "yi", "xo", "yo"});
    prod.get()->schedule.compute_level = LoopLevel::at("out", "xo");
    prod.get()->schedule.store_level = LoopLevel::at("out", "xo");
    packed.get()->schedule.compute_level = LoopLevel::root();
    packed.get()->schedule.store_level = LoopLevel::root();
    LoweredFunc lf = lower({out}, "pipeline", Target());
    EXPECT_EQ(loop_extent(lf.body, "packed.s0.po"), 8) << lf.body;
    Region r = query_input_region(lf, in, {0, 0}, {32, 6});
    EXPECT_EQ(r.min, (std::vector<int>{0, 0}));
    EXPECT_EQ(r.extent, (std::vector<int>{32, 1}));
    Runtime::Buffer<int> input = exact_input(r);
    Runtime::Buffer<int> result(32, 6);
    ASSERT_EQ(run(lf, {input.raw_buffer(), result.raw_buffer()}), 0);
    result.for_each_element([&](int a, int b) { EXPECT_EQ(result(a, b), a + b); });
}

// Two levels: h per block of 16 rows of the output, f per row of h.
TEST(TileBounds, NestedComputeAtThroughTwoSplits) {
    Parameter in(Int(32), true, 2, "in");
    Expr x = v("x"), y = v("y");
    FunctionPtr f = make_func("f", {"x", "y"}, image(in, {x, y - 2}) + image(in, {x, y + 3}));
    FunctionPtr h = make_func("h", {"x", "y"}, call(f, {x, y}) + call(f, {x, y + 1}));
    FunctionPtr g = make_func("g", {"x", "y"}, call(h, {x, y}));
    Sched(g).split("y", "yo", "yi", 16);
    Sched(h).split("y", "yo", "yi", 4);
    h.get()->schedule.compute_level = LoopLevel::at("g", "yo");
    h.get()->schedule.store_level = LoopLevel::at("g", "yo");
    f.get()->schedule.compute_level = LoopLevel::at("h", "yo");
    f.get()->schedule.store_level = LoopLevel::at("h", "yo");
    LoweredFunc lf = lower({g}, "pipeline", Target());
    Region r = query_input_region(lf, in, {0, 5}, {8, 64});
    EXPECT_EQ(r.min, (std::vector<int>{0, 3}));
    EXPECT_EQ(r.extent, (std::vector<int>{8, 70}));  // rows 3 .. 68 + 4
    Runtime::Buffer<int> input = exact_input(r);
    Runtime::Buffer<int> out(8, 64);
    out.set_min({0, 5});
    ASSERT_EQ(run(lf, {input.raw_buffer(), out.raw_buffer()}), 0);
    out.for_each_element([&](int a, int b) {
        EXPECT_EQ(out(a, b), input(a, b - 2) + input(a, b + 3) + input(a, b - 1) + input(a, b + 4));
    });
}

}  // namespace

// The blur schedule: a producer computed per 64-wide tile of its consumer
// covers exactly 64 columns and 34 rows of every tile. Its loops get those
// constant extents (the region's max is written as min + 63), so its own
// split into vectors of 8 runs exactly 8 vectors with no ShiftInwards clamp.
TEST(TileBounds, PerTileProducerHasConstantLoopExtents) {
    Parameter in(Int(32), true, 2, "in");
    Expr x = v("x"), y = v("y");
    FunctionPtr bx = make_func("bx", {"x", "y"}, image(in, {x, y}) + image(in, {x + 1, y}) + image(in, {x + 2, y}));
    FunctionPtr by = make_func("by", {"x", "y"}, call(bx, {x, y}) + call(bx, {x, y + 2}));
    Sched(by).split("x", "xo", "xi", 64, loom::internal::TailStrategy::Auto)
        .split("y", "yo", "yi", 32, loom::internal::TailStrategy::Auto)
        .reorder({"xi", "yi", "xo", "yo"});
    Sched(bx).split("x", "x", "xv", 8, loom::internal::TailStrategy::Auto).vectorize("xv");
    bx.get()->schedule.compute_level = LoopLevel::at("by", "xo");
    bx.get()->schedule.store_level = LoopLevel::at("by", "xo");
    LoweredFunc lf = lower({by}, "pipeline", Target());
    EXPECT_EQ(loop_extent(lf.body, "bx.s0.x"), 8) << lf.body;
    EXPECT_EQ(loop_extent(lf.body, "bx.s0.y"), 34) << lf.body;

    auto r = query_input_region(lf, in, {0, 0}, {200, 70});
    EXPECT_EQ(r.extent, (std::vector<int>{202, 72}));
    Runtime::Buffer<int> input = exact_input(r);
    Runtime::Buffer<int> out(200, 70);
    ASSERT_EQ(run(lf, {input.raw_buffer(), out.raw_buffer()}), 0);
    out.for_each_element([&](int a, int b) {
        auto BX = [&](int p, int q) { return input(p, q) + input(p + 1, q) + input(p + 2, q); };
        EXPECT_EQ(out(a, b), BX(a, b) + BX(a, b + 2)) << a << ", " << b;
    });
}
