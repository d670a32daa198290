// loom::internal::TailStrategy::ShiftInwards (the default tail of a pure split/vectorize):
// the last block is shifted back with one min(), with no per-iteration guard;
// a Func computed inside such a tile gets a constant-size region; with
// fewer points than the factor an intermediate Func computes the whole block
// (its storage and inputs grow to match) and an output is rejected by its
// region check.
#include "lower/LoopShapingUtil.h"

#include "ir/IRUtil.h"
#include "ir/IRVisitor.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"

using namespace shaping_test;

namespace {

/** What the body of the loop named `loop` contains. */
struct LoopContents : IRVisitor {
    std::string loop;
    int inside = 0;
    bool found = false;
    int ifs = 0, predicated_stores = 0, vector_stores = 0;
    using IRVisitor::visit;
    void visit(const For *op) override {
        bool match = op->name == loop;
        found = found || match;
        inside += match;
        IRVisitor::visit(op);
        inside -= match;
    }
    void visit(const IfThenElse *op) override {
        ifs += inside > 0;
        IRVisitor::visit(op);
    }
    void visit(const Store *op) override {
        if (inside > 0 && op->predicate.defined() && !is_const_one(op->predicate)) predicated_stores++;
        if (inside > 0 && op->value.type().lanes() > 1) vector_stores++;
        IRVisitor::visit(op);
    }
};

LoopContents contents_of(const Stmt &s, const std::string &loop) {
    LoopContents c;
    c.loop = loop;
    s.accept(&c);
    return c;
}

/** The value of the LetStmt `name` (undefined if there is none). */
Expr let_value(const Stmt &s, const std::string &name) {
    struct Find : IRVisitor {
        std::string name;
        Expr value;
        using IRVisitor::visit;
        void visit(const LetStmt *op) override {
            if (op->name == name) value = op->value;
            IRVisitor::visit(op);
        }
    } find;
    find.name = name;
    s.accept(&find);
    return find.value;
}

/** The extents of the Allocate of `name`. */
std::vector<Expr> allocation_extents(const Stmt &s, const std::string &name) {
    struct Find : IRVisitor {
        std::string name;
        std::vector<Expr> extents;
        using IRVisitor::visit;
        void visit(const Allocate *op) override {
            if (op->name == name) extents = op->extents;
            IRVisitor::visit(op);
        }
    } find;
    find.name = name;
    s.accept(&find);
    return find.extents;
}

TEST(ShiftInwards, VectorizedLoopHasNoPerIterationGuard) {
    for (loom::internal::TailStrategy tail : {loom::internal::TailStrategy::ShiftInwards, loom::internal::TailStrategy::Auto}) {
        FunctionPtr f = make_func("f", {"x"}, v("x") * 3 + 1);
        Sched(f).split("x", "xo", "xi", 8, tail).vectorize("xi");
        LoweredFunc lf = lower({f}, "pipeline", Target());
        LoopContents c = contents_of(lf.body, "f.s0.xo");
        ASSERT_TRUE(c.found) << lf.body;
        EXPECT_EQ(c.ifs, 0) << lf.body;
        EXPECT_EQ(c.predicated_stores, 0) << lf.body;
        EXPECT_GE(c.vector_stores, 1) << lf.body;
        Runtime::Buffer<int> out = realize_1d(f, 21, 3);
        for (int x = 3; x < 24; x++) EXPECT_EQ(out(x), x * 3 + 1);
    }
}

TEST(ShiftInwards, GuardWithIfStillGuards) {
    FunctionPtr f = make_func("f", {"x"}, v("x") * 3 + 1);
    Sched(f).split("x", "xo", "xi", 8, loom::internal::TailStrategy::GuardWithIf);
    LoweredFunc lf = lower({f}, "pipeline", Target());
    EXPECT_GE(contents_of(lf.body, "f.s0.xo").ifs, 1) << lf.body;
}

// P5 of PERFORMANCE.md: a Func computed per tile of a shifted split needs
// exactly the tile, so its storage has a constant size and its loops a
// constant extent that can be unrolled.
TEST(ShiftInwards, ProducerPerTileHasConstantSize) {
    Parameter in(Int(32), true, 2, "in");
    Expr x = v("x"), y = v("y");
    FunctionPtr prod = make_func("prod", {"x", "y"}, image(in, {x, y}) * 2);
    FunctionPtr out = make_func("out", {"x", "y"}, call(prod, {x, y}) + 1);
    Sched(out).split("x", "xo", "xi", 16).split("y", "yo", "yi", 4).reorder({"xi", "yi", "xo", "yo"});
    Sched(prod).unroll("x").unroll("y");
    prod.get()->schedule.compute_level = LoopLevel::at("out", "xo");
    prod.get()->schedule.store_level = LoopLevel::at("out", "xo");
    LoweredFunc lf = lower({out}, "pipeline", Target());
    std::vector<Expr> extents = allocation_extents(lf.body, "prod");
    ASSERT_FALSE(extents.empty()) << lf.body;
    Expr size = extents[0];
    for (size_t i = 1; i < extents.size(); i++) size = size * extents[i];
    EXPECT_EQ(as_const_int(simplify(size)).value_or(-1), 16 * 4) << lf.body;
    // The tails in both dimensions overlap the previous tile.
    Runtime::Buffer<int> input(std::vector<int>{37, 10});
    input.for_each_element([&](int a, int b) { input(a, b) = a + 100 * b; });
    Runtime::Buffer<int> result(37, 10);
    ASSERT_EQ(run(lf, {input.raw_buffer(), result.raw_buffer()}), 0);
    result.for_each_element([&](int a, int b) { EXPECT_EQ(result(a, b), (a + 100 * b) * 2 + 1); });
}

// An intermediate Func with fewer points than the factor computes one whole
// block, starting before its first point; its storage grows to hold it.
TEST(ShiftInwards, IntermediateSmallerThanFactorComputesOneBlock) {
    FunctionPtr f = make_func("f", {"x"}, v("x") * 5);
    FunctionPtr g = make_func("g", {"x"}, call(f, {v("x")}) + 1);
    Sched(f).split("x", "xo", "xi", 8).vectorize("xi");
    f.get()->schedule.compute_level = LoopLevel::root();
    f.get()->schedule.store_level = LoopLevel::root();
    std::string ir;
    Runtime::Buffer<int> out = realize_1d(g, 5, 2, {}, &ir);
    for (int x = 2; x < 7; x++) EXPECT_EQ(out(x), x * 5 + 1);
    LoweredFunc lf = lower({g}, "pipeline", Target());
    Expr extent = let_value(lf.body, "f.x.extent_realized");
    ASSERT_TRUE(extent.defined()) << lf.body;
    // max(5, 8) points over a 5-point output, whatever the output's size.
    Expr at5 = simplify(substitute("g.extent.0", Expr(5), extent));
    EXPECT_EQ(as_const_int(at5).value_or(-1), 8) << extent;
}

// An output cannot grow: its region check reports the shifted block.
TEST(ShiftInwards, OutputSmallerThanFactorIsReported) {
    FunctionPtr f = make_func("f", {"x"}, v("x"));
    Sched(f).split("x", "xo", "xi", 8).vectorize("xi");
    LoweredFunc lf = lower({f}, "pipeline", Target());
    Runtime::Buffer<int> out(5);
    EXPECT_LT(run(lf, {out.raw_buffer()}), 0);
    Runtime::Buffer<int> big(8);
    EXPECT_EQ(run(lf, {big.raw_buffer()}), 0);
}

// In folded storage the extra points would overwrite live rows, so the tail
// is guarded there instead.
TEST(ShiftInwards, FoldedStorageKeepsTheGuard) {
    Expr x = v("x"), y = v("y");
    FunctionPtr f = make_func("f", {"x", "y"}, x + 10 * y);
    FunctionPtr g = make_func("g", {"x", "y"}, call(f, {x, y}) + call(f, {x, y + 1}));
    Sched(f).split("y", "yo", "yi", 3, loom::internal::TailStrategy::ShiftInwards);
    f.get()->schedule.compute_level = LoopLevel::at("g", "y");
    f.get()->schedule.store_level = LoopLevel::root();
    f.get()->schedule.storage_folds.push_back(StorageFold{"y", Expr(2)});
    Runtime::Buffer<int> out = realize_2d(g, 6, 9, 0, 1);
    out.for_each_element([&](int a, int b) { EXPECT_EQ(out(a, b), 2 * (a + 10 * b) + 10); });
}

}  // namespace
