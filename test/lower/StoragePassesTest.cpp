// The storage passes after bounds inference, one at a time: sliding_window
// (the new min of a stage that slides, and the window it reports) and
// storage_folding (the folded extent), on pipelines built on the compiler's
// Function representation; then the whole pipeline against a C++ loop.
#include "lower/LoopShapingUtil.h"

#include "ir/IRUtil.h"
#include "ir/IRVisitor.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "lower/BoundsInference.h"
#include "lower/ComputeWith.h"
#include "lower/ScheduleChecks.h"
#include "lower/ScheduleFunctions.h"
#include "lower/SlidingWindow.h"
#include "lower/Stages.h"
#include "lower/StorageFolding.h"

using namespace shaping_test;

namespace {

struct StoragePasses {
    Stmt bounds, slid, folded;
    SlidWindows windows;
    StorageFolds folds;
};

StoragePasses run_storage_passes(const FunctionPtr &out) {
    check_schedules({out});
    PipelineStages p = build_pipeline_stages({out});
    find_fused_groups(p);
    StoragePasses r;
    r.bounds = bounds_inference(schedule_functions(p), p).stmt;
    r.slid = sliding_window(r.bounds, p, &r.windows);
    r.folded = storage_folding(r.slid, p, r.windows, &r.folds);
    return r;
}

/** The value of the first definition (LetStmt) of `name` in s. */
Expr let_value(const Stmt &s, const std::string &name) {
    struct Find : IRVisitor {
        std::string name;
        Expr value;
        using IRVisitor::visit;
        void visit(const LetStmt *op) override {
            if (op->name == name && !value.defined()) value = op->value;
            IRVisitor::visit(op);
        }
    } find;
    find.name = name;
    s.accept(&find);
    EXPECT_TRUE(find.value.defined()) << "no definition of " << name << " in\n" << s;
    return find.value;
}

/** e with `values` written in, then every definition of s it still names,
 * simplified: a constant when the values pin everything down. */
int64_t evaluate(const Stmt &s, Expr e, const std::map<std::string, Expr> &values) {
    std::map<std::string, Expr> lets;
    struct Collect : IRVisitor {
        std::map<std::string, Expr> *lets;
        using IRVisitor::visit;
        void visit(const LetStmt *op) override {
            lets->emplace(op->name, op->value);
            IRVisitor::visit(op);
        }
    } collect;
    collect.lets = &lets;
    s.accept(&collect);
    for (int round = 0; round < 20; round++) {
        e = substitute(values, e);
        for (const auto &[name, value] : lets) {
            if (!values.count(name) && expr_uses_var(e, name)) e = substitute(name, value, e);
        }
    }
    e = simplify(e);
    auto c = as_const_int(e);
    EXPECT_TRUE(c.has_value()) << "not a constant: " << e;
    return c.value_or(-1);
}

/** g(x, y) = x * 7 + y * y read at rows y - 1, y, y + 1 by f, g stored at
 * the root and computed per row of f. */
struct Stencil {
    FunctionPtr g = make_func("g", {"x", "y"}, v("x") * 7 + v("y") * v("y"));
    FunctionPtr f = make_func("f", {"x", "y"},
                              call(g, {v("x"), v("y") - 1}) + call(g, {v("x"), v("y")}) + call(g, {v("x"), v("y") + 1}));
    Stencil() {
        g.get()->schedule.compute_level = LoopLevel::at("f", "y");
        g.get()->schedule.store_level = LoopLevel::root();
    }
    void expect_values() {
        Runtime::Buffer<int> out = realize_2d(f, 6, 9, 0, -3);
        auto G = [](int x, int y) { return x * 7 + y * y; };
        for (int y = -3; y < 6; y++)
            for (int x = 0; x < 6; x++) EXPECT_EQ(out(x, y), G(x, y - 1) + G(x, y) + G(x, y + 1)) << x << "," << y;
    }
};

/** Exact rows of g that iteration y of f's loop computes: [min, max]. */
std::pair<int64_t, int64_t> rows_computed(const Stmt &s, int y, int first_y) {
    std::map<std::string, Expr> at = {{"f.s0.y", Expr(y)}, {"f.s0.y.min", Expr(first_y)},
                                      {"f.s0.y.loop_min", Expr(first_y)}};
    return {evaluate(s, let_value(s, "g.s0.y.min"), at), evaluate(s, let_value(s, "g.s0.y.max"), at)};
}

}  // namespace

TEST(SlidingWindowPass, LaterIterationsStartAfterThePreviousMax) {
    Stencil p;
    StoragePasses r = run_storage_passes(p.f);
    ASSERT_EQ(r.windows.size(), 1u);
    EXPECT_EQ(evaluate(r.slid, r.windows.at({"g", 1}), {}), 3);
    // Before the pass, every iteration computes its three rows.
    EXPECT_EQ(rows_computed(r.bounds, 4, -3), std::make_pair(int64_t(3), int64_t(5)));
    // After it, the first iteration computes three rows, the others one.
    EXPECT_EQ(rows_computed(r.slid, -3, -3), std::make_pair(int64_t(-4), int64_t(-2)));
    EXPECT_EQ(rows_computed(r.slid, -2, -3), std::make_pair(int64_t(-1), int64_t(-1)));
    EXPECT_EQ(rows_computed(r.slid, 4, -3), std::make_pair(int64_t(5), int64_t(5)));
    p.expect_values();
}

TEST(StorageFoldingPass, FoldsAWindowToAPowerOfTwo) {
    Stencil p;
    StoragePasses r = run_storage_passes(p.f);
    ASSERT_EQ(r.folds.size(), 1u);
    EXPECT_EQ(evaluate(r.folded, r.folds.at({"g", 1}), {}), 4);
    EXPECT_EQ(evaluate(r.folded, let_value(r.folded, "g.y.extent_realized"), {}), 4);
    EXPECT_EQ(evaluate(r.folded, let_value(r.folded, "g.y.min_realized"), {}), 0);
    // Bounds inference alone sized g to every row read (rows -4 to 6 of a
    // 9-row output starting at -3).
    std::map<std::string, Expr> out = {{"f.min.1", Expr(-3)}, {"f.extent.1", Expr(9)}, {"f.min.0", Expr(0)},
                                       {"f.extent.0", Expr(6)}};
    EXPECT_EQ(evaluate(r.bounds, let_value(r.bounds, "g.y.extent_realized"), out), 11);
}

TEST(StorageFoldingPass, KeepsTheUsersFactor) {
    Stencil p;
    p.g.get()->schedule.storage_folds.push_back({"y", Expr(3), true});
    StoragePasses r = run_storage_passes(p.f);
    EXPECT_EQ(evaluate(r.folded, let_value(r.folded, "g.y.extent_realized"), {}), 3);
    p.expect_values();
}

// A split of the sliding dimension: a ShiftInwards tail recomputes up to
// factor - 1 rows before the window, which the window counts, so the fold
// has room for them; GuardWithIf computes exactly the window.
TEST(SlidingWindowPass, SplitProducerSlidesWithRoomForItsTail) {
    using loom::internal::TailStrategy;
    struct Case {
        TailStrategy tail;
        int factor;
        int64_t window, slots;
    };
    for (Case c : {Case{TailStrategy::ShiftInwards, 2, 4, 4}, Case{TailStrategy::GuardWithIf, 4, 3, 4},
                   Case{TailStrategy::Auto, 3, 5, 8}}) {
        SCOPED_TRACE("factor " + std::to_string(c.factor) + ", tail " + std::to_string((int)c.tail));
        Stencil p;
        Sched(p.g).split("y", "yo", "yi", Expr(c.factor), c.tail);
        StoragePasses r = run_storage_passes(p.f);
        ASSERT_EQ(r.windows.count({"g", 1}), 1u);
        EXPECT_EQ(evaluate(r.slid, r.windows.at({"g", 1}), {}), c.window);
        EXPECT_EQ(evaluate(r.folded, let_value(r.folded, "g.y.extent_realized"), {}), c.slots);
        // The window itself is as without the split: one new row.
        EXPECT_EQ(rows_computed(r.slid, 4, -3), std::make_pair(int64_t(5), int64_t(5)));
        p.expect_values();
    }
}

// A RoundUp tail computes whole blocks: the window slides in blocks of the
// factor on one grid from the first iteration's min (here row -4 of g),
// computing up to factor - 1 rows ahead, which the window counts (3 + 3, 8
// slots). An iteration whose max is already computed computes nothing
// (max < min).
TEST(SlidingWindowPass, RoundUpSplitSlidesInWholeBlocks) {
    Stencil p;
    Sched(p.g).split("y", "yo", "yi", Expr(4), loom::internal::TailStrategy::RoundUp);
    StoragePasses r = run_storage_passes(p.f);
    ASSERT_EQ(r.windows.count({"g", 1}), 1u);
    EXPECT_EQ(evaluate(r.slid, r.windows.at({"g", 1}), {}), 6);
    EXPECT_EQ(evaluate(r.folded, let_value(r.folded, "g.y.extent_realized"), {}), 8);
    // Rows -3 .. 5 of f (the last block ends at row 7 of g, where the
    // unslid last iteration's block ends too).
    auto rows = [&](int y) {
        std::map<std::string, Expr> at = {{"f.s0.y", Expr(y)}, {"f.min.1", Expr(-3)}, {"f.extent.1", Expr(9)}};
        return std::make_pair(evaluate(r.slid, let_value(r.slid, "g.s0.y.min"), at),
                              evaluate(r.slid, let_value(r.slid, "g.s0.y.max"), at));
    };
    using Rows = std::pair<int64_t, int64_t>;
    EXPECT_EQ(rows(-3), Rows(-4, -2));  // rounded up: rows -4 to -1
    EXPECT_EQ(rows(-2), Rows(0, -1));   // -1 is done: nothing
    EXPECT_EQ(rows(-1), Rows(0, 0));    // rows 0 to 3
    EXPECT_EQ(rows(2), Rows(4, 3));     // nothing
    EXPECT_EQ(rows(3), Rows(4, 4));     // rows 4 to 7
    EXPECT_EQ(rows(5), Rows(8, 6));     // nothing
    p.expect_values();
}

// An aligned RoundUp split computes blocks from its alignment, not from
// the stage's min: no grid from the first iteration, so no window.
TEST(SlidingWindowPass, AlignedRoundUpSplitIsComputedInFull) {
    Stencil p;
    Sched(p.g).split("y", "yo", "yi", Expr(4), loom::internal::TailStrategy::RoundUp);
    p.g.get()->init.schedule.splits.back().align = Expr(1);
    StoragePasses r = run_storage_passes(p.f);
    EXPECT_TRUE(r.windows.empty());
    EXPECT_TRUE(r.folds.empty());
    p.expect_values();
}

TEST(SlidingWindowPass, FusedDimensionIsComputedInFull) {
    Stencil p;
    Sched(p.g).fuse("x", "y", "t");
    StoragePasses r = run_storage_passes(p.f);
    EXPECT_TRUE(r.windows.empty());
    EXPECT_TRUE(r.folds.empty());
    EXPECT_EQ(rows_computed(r.slid, 4, -3), std::make_pair(int64_t(3), int64_t(5)));
    p.expect_values();
}

// ---- The size and place of the allocation after lowering ----------------------

namespace {

struct AllocationSite {
    std::vector<Expr> extents;
    std::vector<std::string> loops;  // around it, outermost first
};

/** Every allocation of `name` in s (loop partitioning may copy one). */
std::vector<AllocationSite> find_allocations(const Stmt &s, const std::string &name);

AllocationSite find_allocation(const Stmt &s, const std::string &name) {
    std::vector<AllocationSite> sites = find_allocations(s, name);
    EXPECT_EQ(sites.size(), 1u) << "allocations of " << name << " in\n" << s;
    return sites.empty() ? AllocationSite() : sites[0];
}

std::vector<AllocationSite> find_allocations(const Stmt &s, const std::string &name) {
    struct Find : IRVisitor {
        std::string name;
        std::vector<std::string> loops;
        std::vector<AllocationSite> sites;
        using IRVisitor::visit;
        void visit(const For *op) override {
            loops.push_back(op->name);
            IRVisitor::visit(op);
            loops.pop_back();
        }
        void visit(const Allocate *op) override {
            if (op->name == name) sites.push_back({op->extents, loops});
            IRVisitor::visit(op);
        }
    } find;
    find.name = name;
    s.accept(&find);
    return find.sites;
}

/** p(x, y) = x + y read at (x, y) and (x + 1, y) by c, the output. */
struct RowProducer {
    FunctionPtr p = make_func("p", {"x", "y"}, v("x") + v("y"));
    FunctionPtr c = make_func("c", {"x", "y"}, call(p, {v("x"), v("y")}) + call(p, {v("x") + 1, v("y")}));
    std::map<std::string, Expr> output(int w, int h) {
        return {{"c.min.0", Expr(0)}, {"c.min.1", Expr(0)}, {"c.extent.0", Expr(w)}, {"c.extent.1", Expr(h)}};
    }
    void expect_values(int w, int h) {
        Runtime::Buffer<int> out = realize_2d(c, w, h);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) EXPECT_EQ(out(x, y), 2 * (x + y) + 1) << x << "," << y;
    }
};

}  // namespace

TEST(StorageSizes, AlignStoragePadsTheExtent) {
    RowProducer r;
    r.p.get()->schedule.compute_level = LoopLevel::root();
    r.p.get()->schedule.storage_dims.push_back({"x", Expr(16), Expr()});
    LoweredFunc lf = lower({r.c}, "pipeline", Target());
    AllocationSite site = find_allocation(lf.body, "p");
    ASSERT_EQ(site.extents.size(), 2u);
    EXPECT_EQ(evaluate(lf.body, site.extents[0], r.output(13, 5)), 16);  // 14 rounded up
    EXPECT_EQ(evaluate(lf.body, site.extents[0], r.output(16, 5)), 32);  // 17 rounded up
    EXPECT_EQ(evaluate(lf.body, site.extents[1], r.output(13, 5)), 5);
    r.expect_values(13, 5);
}

TEST(StorageSizes, BoundStorageFixesTheExtent) {
    RowProducer r;
    r.p.get()->schedule.compute_level = LoopLevel::at("c", "y");
    r.p.get()->schedule.storage_dims.push_back({"x", Expr(), Expr(32)});
    LoweredFunc lf = lower({r.c}, "pipeline", Target());
    AllocationSite site = find_allocation(lf.body, "p");
    ASSERT_EQ(site.extents.size(), 2u);
    EXPECT_EQ(evaluate(lf.body, site.extents[0], {}), 32);
    r.expect_values(31, 3);
    Runtime::Buffer<int> out(32, 3);
    EXPECT_EQ(run(lf, {out.raw_buffer()}), loom_error_code_buffer_too_small);
}

TEST(HoistStoragePass, AllocationMovesOutToTheHoistLevel) {
    for (int level = 0; level < 3; level++) {
        SCOPED_TRACE(level);
        RowProducer r;
        Sched(r.c).split("y", "yo", "yi", Expr(4));
        r.p.get()->schedule.compute_level = LoopLevel::at("c", "x");
        if (level == 1) r.p.get()->schedule.hoist_storage_level = LoopLevel::at("c", "yo");
        if (level == 2) r.p.get()->schedule.hoist_storage_level = LoopLevel::root();
        LoweredFunc lf = lower({r.c}, "pipeline", Target());
        // c's loops over y may be partitioned into copies, each with p's
        // allocation, in the same place.
        std::vector<AllocationSite> sites = find_allocations(lf.body, "p");
        ASSERT_FALSE(sites.empty()) << lf.body;
        const std::vector<std::vector<std::string>> expected = {{"c.s0.yo", "c.s0.yi", "c.s0.x"}, {"c.s0.yo"}, {}};
        for (const AllocationSite &site : sites) {
            EXPECT_EQ(site.loops, expected[level]) << lf.body;
            // Two points of one row, wherever it is allocated.
            ASSERT_EQ(site.extents.size(), 2u);
            EXPECT_EQ(evaluate(lf.body, site.extents[0] * site.extents[1], r.output(7, 10)), 2);
        }
        if (level == 2) EXPECT_EQ(sites.size(), 1u) << lf.body;
        r.expect_values(7, 10);
    }
}

// Storage whose size changes with the loops between: the hoisted allocation
// takes an upper bound of its size over them. A strip of c needs rows
// yo * 4 .. min(yo * 4 + 3, 9) of p, at most 4; interval arithmetic on
// min(yo * 4 + 3, 9) - yo * 4 + 1 over yo in [0, 2] gave 10 until the
// simplifier moved the sum into the min (min(4, 10 - yo * 4), ir/simplify/
// Simplify_Add.cpp), which is bounded by 4.
TEST(HoistStoragePass, HoistedSizeBoundsEveryIteration) {
    RowProducer r;
    Sched(r.c).split("y", "yo", "yi", Expr(4), loom::internal::TailStrategy::GuardWithIf);
    r.p.get()->schedule.compute_level = LoopLevel::at("c", "yo");
    r.p.get()->schedule.hoist_storage_level = LoopLevel::root();
    LoweredFunc lf = lower({r.c}, "pipeline", Target());
    AllocationSite site = find_allocation(lf.body, "p");
    EXPECT_TRUE(site.loops.empty()) << lf.body;
    ASSERT_EQ(site.extents.size(), 2u);
    EXPECT_EQ(evaluate(lf.body, site.extents[0], r.output(7, 10)), 8);
    EXPECT_EQ(evaluate(lf.body, site.extents[1], r.output(7, 10)), 4);
    r.expect_values(7, 10);
}
