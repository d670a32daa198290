// Lowering tests built directly on the compiler's Function representation
// (no front end), run through the reference interpreter.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

#include "codegen/llvm/CodeGen_LLVM.h"
#include "ir/Function.h"
#include "ir/FunctionGroup.h"
#include "ir/IRPrinter.h"
#include "ir/Interpreter.h"
#include "lower/Lower.h"
#include "lower/LoopShapingUtil.h"
#include "loom/Error.h"
#include "loom/IROperator.h"
#include "loom/runtime/Buffer.h"

using namespace loom;
using namespace loom::internal;

namespace {

using loom_test::call;
using loom_test::make_func;
using loom_test::v;
using shaping_test::run;  // JIT and interpreter must agree

}  // namespace

TEST(Lower, InlineChainWritesOutput) {
    FunctionPtr g = make_func("g", {"x", "y"}, v("x") * 2 + v("y"));
    FunctionPtr f = make_func("f", {"x", "y"}, call(g, {v("x") + 1, v("y")}) + 1);
    LoweredFunc lf = lower({f}, "pipeline", Target());
    ASSERT_EQ(lf.args.size(), 1u);
    EXPECT_EQ(lf.args[0].name, "f");
    Runtime::Buffer<int> out(5, 3);
    ASSERT_EQ(run(lf, {out.raw_buffer()}), 0) << lf.body;
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 5; x++) EXPECT_EQ(out(x, y), (x + 1) * 2 + y + 1);
}

TEST(Lower, ComputeRootStencilSizesIntermediate) {
    FunctionPtr g = make_func("g", {"x"}, v("x") * v("x"));
    g.get()->schedule.compute_level = LoopLevel::root();
    g.get()->schedule.store_level = LoopLevel::root();
    FunctionPtr f = make_func("f", {"x"}, call(g, {v("x") - 1}) + call(g, {v("x") + 2}));
    LoweredFunc lf = lower({f}, "pipeline", Target());
    Runtime::Buffer<int> out(10);
    out.set_min({-3});
    ASSERT_EQ(run(lf, {out.raw_buffer()}), 0) << lf.body;
    for (int x = -3; x < 7; x++) EXPECT_EQ(out(x), (x - 1) * (x - 1) + (x + 2) * (x + 2));
}

TEST(Lower, UpdateWithReductionDomain) {
    // f(x) = x; f(r) = f(r) + f(r - 1) for r in [1, 8)  (a prefix sum)
    FunctionPtr f = make_func("f", {"x"}, v("x"));
    ReductionDomain rdom({{"r", Expr(1), Expr(7)}});
    Expr r = Variable::make(Int(32), "r", rdom);
    Definition update;
    update.args = {r};
    update.values = {call(f.weakened(), {r}) + call(f.weakened(), {r - 1})};
    update.rdom = rdom;
    f.get()->updates.push_back(update);
    LoweredFunc lf = lower({f}, "pipeline", Target());
    Runtime::Buffer<int> out(8);
    ASSERT_EQ(run(lf, {out.raw_buffer()}), 0) << lf.body;
    int expected = 0;
    for (int x = 0; x < 8; x++) {
        expected += x;
        EXPECT_EQ(out(x), expected);
    }
}

TEST(Lower, OutputTooSmallForScatterIsReported) {
    FunctionPtr f = make_func("f", {"x"}, v("x"));
    ReductionDomain rdom({{"r", Expr(0), Expr(20)}});
    Expr r = Variable::make(Int(32), "r", rdom);
    Definition update;
    update.args = {r};
    update.values = {Expr(7)};
    update.rdom = rdom;
    f.get()->updates.push_back(update);
    LoweredFunc lf = lower({f}, "pipeline", Target());
    Runtime::Buffer<int> out(8);
    EXPECT_EQ(run(lf, {out.raw_buffer()}), loom_error_code_buffer_too_small);
}

TEST(Lower, UndefinedFuncIsACompileError) {
    FunctionPtr made = FunctionGroup::make_function();
    FunctionContents *g = made.get();
    g->name = "g";
    g->args = {"x"};
    g->output_types = {Int(32)};
    FunctionPtr f = make_func("f", {"x"}, Call::make(Int(32), "g", {v("x")}, CallType::Func, made));
    try {
        lower({f}, "pipeline", Target());
        FAIL() << "expected CompileError";
    } catch (const CompileError &e) {
        EXPECT_NE(std::string(e.what()).find("'g'"), std::string::npos) << e.what();
    }
}

TEST(Lower, InputBufferRegionIsChecked) {
    Parameter input(Int(32), true, 1, "input");
    FunctionPtr f = make_func(
        "f", {"x"}, Call::make(Int(32), "input", {v("x") + 1}, CallType::Image, FunctionPtr(), 0, input));
    LoweredFunc lf = lower({f}, "pipeline", Target());
    ASSERT_EQ(lf.args.size(), 2u);
    EXPECT_EQ(lf.args[0].name, "input");
    Runtime::Buffer<int> in(10), out(10);
    for (int i = 0; i < 10; i++) in(i) = i * 3;
    EXPECT_EQ(run(lf, {in.raw_buffer(), out.raw_buffer()}), loom_error_code_buffer_too_small);
    Runtime::Buffer<int> out9(9);
    ASSERT_EQ(run(lf, {in.raw_buffer(), out9.raw_buffer()}), 0);
    for (int i = 0; i < 9; i++) EXPECT_EQ(out9(i), (i + 1) * 3);
}

TEST(Lower, UnboundedInputIndexIsACompileError) {
    Parameter lut(Int(32), true, 1, "lut");
    Parameter idx(Int(32), true, 1, "idx");
    Expr index = Call::make(Int(32), "idx", {v("x")}, CallType::Image, FunctionPtr(), 0, idx);
    FunctionPtr f = make_func("f", {"x"}, Call::make(Int(32), "lut", {index}, CallType::Image, FunctionPtr(), 0, lut));
    try {
        lower({f}, "pipeline", Target());
        FAIL() << "expected CompileError";
    } catch (const CompileError &e) {
        EXPECT_NE(std::string(e.what()).find("lut"), std::string::npos) << e.what();
    }
}

TEST(Lower, BoundsQueryReportsRequiredInputRegion) {
    Parameter input(Int(32), true, 2, "input");
    Expr x = v("x"), y = v("y");
    FunctionPtr f = make_func("f", {"x", "y"},
                              Call::make(Int(32), "input", {x * 2 - 1, y + 3}, CallType::Image, FunctionPtr(), 0, input) +
                                  Call::make(Int(32), "input", {x * 2 + 1, y}, CallType::Image, FunctionPtr(), 0, input));
    LoweredFunc lf = lower({f}, "pipeline", Target());
    loom_dimension_t dims[2] = {};
    loom_buffer_t query = {};
    query.type = loom_type_t{loom_type_int, 32, 1};
    query.dimensions = 2;
    query.dim = dims;
    Runtime::Buffer<int> out(10, 4);
    out.set_min({5, -2});
    ASSERT_EQ(run(lf, {&query, out.raw_buffer()}), 0);
    EXPECT_EQ(dims[0].min, 9);
    EXPECT_EQ(dims[0].extent, 21);  // 2*5-1 .. 2*14+1
    EXPECT_EQ(dims[0].stride, 1);
    EXPECT_EQ(dims[1].min, -2);
    EXPECT_EQ(dims[1].extent, 7);  // -2 .. 1+3
    EXPECT_EQ(dims[1].stride, 21);
    // The answered shape is big enough to run with.
    Runtime::Buffer<int> in(std::vector<int>{21, 7});
    in.set_min({9, -2});
    in.for_each_element([&](int a, int b) { in(a, b) = a * 100 + b; });
    ASSERT_EQ(run(lf, {in.raw_buffer(), out.raw_buffer()}), 0);
    EXPECT_EQ(out(7, 0), in(13, 3) + in(15, 0));
}

TEST(Lower, ComputeAtInnerLoopComputesPerIteration) {
    // g(x, y) = x + 10*y computed per row of f; f(x, y) = g(x-1, y) + g(x+1, y+1)
    FunctionPtr g = make_func("g", {"x", "y"}, v("x") + v("y") * 10);
    FunctionPtr f = make_func("f", {"x", "y"}, call(g, {v("x") - 1, v("y")}) + call(g, {v("x") + 1, v("y") + 1}));
    g.get()->schedule.compute_level = LoopLevel::at("f", "y");
    g.get()->schedule.store_level = LoopLevel::at("f", "y");
    LoweredFunc lf = lower({f}, "pipeline", Target());
    Runtime::Buffer<int> out(6, 4);
    ASSERT_EQ(run(lf, {out.raw_buffer()}), 0) << lf.body;
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 6; x++) EXPECT_EQ(out(x, y), (x - 1 + 10 * y) + (x + 1 + 10 * (y + 1)));
}

TEST(Lower, StoreRootComputeAtRow) {
    FunctionPtr g = make_func("g", {"x", "y"}, v("x") * 3 - v("y"));
    FunctionPtr f = make_func("f", {"x", "y"}, call(g, {v("x"), v("y") - 1}) + call(g, {v("x"), v("y") + 1}));
    g.get()->schedule.compute_level = LoopLevel::at("f", "y");
    g.get()->schedule.store_level = LoopLevel::root();
    LoweredFunc lf = lower({f}, "pipeline", Target());
    Runtime::Buffer<int> out(5, 5);
    ASSERT_EQ(run(lf, {out.raw_buffer()}), 0) << lf.body;
    for (int y = 0; y < 5; y++)
        for (int x = 0; x < 5; x++) EXPECT_EQ(out(x, y), (x * 3 - (y - 1)) + (x * 3 - (y + 1)));
}

TEST(Lower, ComputeAtUnknownLoopIsACompileError) {
    FunctionPtr g = make_func("g", {"x"}, v("x"));
    FunctionPtr f = make_func("f", {"x"}, call(g, {v("x")}));
    g.get()->schedule.compute_level = LoopLevel::at("f", "z");
    g.get()->schedule.store_level = LoopLevel::at("f", "z");
    try {
        lower({f}, "pipeline", Target());
        FAIL() << "expected CompileError";
    } catch (const CompileError &e) {
        // The schedule checks, lowering's first pass, name both Funcs and the loop.
        EXPECT_NE(std::string(e.what()).find("Func g is computed at f.z"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("no loop z"), std::string::npos) << e.what();
    }
}

TEST(Lower, ComputeAtChainOfThree) {
    // h at root, g per row of f, f the output: h's region covers every row's need.
    FunctionPtr h = make_func("h", {"x", "y"}, v("x") * v("y"));
    h.get()->schedule.compute_level = LoopLevel::root();
    h.get()->schedule.store_level = LoopLevel::root();
    FunctionPtr g = make_func("g", {"x", "y"}, call(h, {v("x"), v("y") - 1}) + call(h, {v("x") + 2, v("y")}));
    g.get()->schedule.compute_level = LoopLevel::at("f", "y");
    g.get()->schedule.store_level = LoopLevel::at("f", "y");
    FunctionPtr f = make_func("f", {"x", "y"}, call(g, {v("x"), v("y")}) * 2 + call(g, {v("x") - 1, v("y") + 1}));
    LoweredFunc lf = lower({f}, "pipeline", Target());
    Runtime::Buffer<int> out(7, 3);
    out.set_min({-2, 4});
    ASSERT_EQ(run(lf, {out.raw_buffer()}), 0) << lf.body;
    auto G = [](int x, int y) { return x * (y - 1) + (x + 2) * y; };
    for (int y = 4; y < 7; y++)
        for (int x = -2; x < 5; x++) EXPECT_EQ(out(x, y), G(x, y) * 2 + G(x - 1, y + 1));
}

TEST(Lower, SlidingWindowFoldsStorage) {
    // g stored at root, computed per row of f: each row computes only the
    // new row of g, and g's storage folds to 4 rows.
    FunctionPtr g = make_func("g", {"x", "y"}, v("x") * 7 + v("y") * v("y"));
    FunctionPtr f = make_func("f", {"x", "y"},
                              call(g, {v("x"), v("y") - 1}) + call(g, {v("x"), v("y")}) + call(g, {v("x"), v("y") + 1}));
    g.get()->schedule.compute_level = LoopLevel::at("f", "y");
    g.get()->schedule.store_level = LoopLevel::root();
    LoweredFunc lf = lower({f}, "pipeline", Target());
    std::string text = to_string(lf.body);
    size_t alloc = text.find("allocate g[");
    ASSERT_NE(alloc, std::string::npos) << text;
    std::string line = text.substr(alloc, text.find('\n', alloc) - alloc);
    EXPECT_NE(line.find(" * 4]"), std::string::npos) << "g should keep 4 rows: " << line;
    Runtime::Buffer<int> out(6, 9);
    out.set_min({0, -3});
    ASSERT_EQ(run(lf, {out.raw_buffer()}), 0) << lf.body;
    auto G = [](int x, int y) { return x * 7 + y * y; };
    for (int y = -3; y < 6; y++)
        for (int x = 0; x < 6; x++) EXPECT_EQ(out(x, y), G(x, y - 1) + G(x, y) + G(x, y + 1)) << x << "," << y;
}

TEST(Lower, UserFoldTooSmallIsReported) {
    FunctionPtr g = make_func("g", {"x", "y"}, v("x") + v("y"));
    FunctionPtr f = make_func("f", {"x", "y"}, call(g, {v("x"), v("y") - 2}) + call(g, {v("x"), v("y") + 2}));
    g.get()->schedule.compute_level = LoopLevel::at("f", "y");
    g.get()->schedule.store_level = LoopLevel::root();
    g.get()->schedule.storage_folds.push_back({"y", Expr(2), true});
    LoweredFunc lf = lower({f}, "pipeline", Target());
    Runtime::Buffer<int> out(4, 4);
    EXPECT_EQ(run(lf, {out.raw_buffer()}), loom_error_code_buffer_too_small);
}

TEST(Lower, ReorderStorageMakesNamedDimensionInnermost) {
    FunctionPtr g = make_func("g", {"x", "y"}, v("x") * 10 + v("y"));
    g.get()->schedule.compute_level = LoopLevel::root();
    g.get()->schedule.storage_order = {"y", "x"};
    FunctionPtr f = make_func("f", {"x", "y"}, call(g, {v("y"), v("x")}) + call(g, {v("x"), v("y")}));
    LoweredFunc lf = lower({f}, "pipeline", Target());
    std::string text = to_string(lf.body);
    // y has stride 1 in g's storage: g's index is x * extent(y) + y.
    EXPECT_NE(text.find("g.x.min_realized)*g.y.extent_realized"), std::string::npos) << text;
    Runtime::Buffer<int> out(6, 6);
    ASSERT_EQ(run(lf, {out.raw_buffer()}), 0) << lf.body;
    for (int y = 0; y < 6; y++)
        for (int x = 0; x < 6; x++) EXPECT_EQ(out(x, y), y * 10 + x + x * 10 + y);
}

namespace {

/** A chain of n compute_root Funcs, each reading the previous one at three
 * clamped points, so each Func's region depends on both ends of its
 * consumer's. */
FunctionPtr clamped_chain(int n) {
    FunctionPtr prev = make_func("chain0", {"x"}, v("x") * 3);
    for (int i = 1; i <= n; i++) {
        Expr at = v("x");
        Expr value = call(prev, {clamp(at - 1, 0, 40)}) + call(prev, {clamp(at + 2, 0, 40)}) + call(prev, {at / 2});
        FunctionPtr f = make_func("chain" + std::to_string(i), {"x"}, value);
        prev.get()->schedule.compute_level = LoopLevel::root();
        prev.get()->schedule.store_level = LoopLevel::root();
        prev = f;
    }
    return prev;
}

int chain_reference(int depth, int x) {
    if (depth == 0) return x * 3;
    auto c = [](int v) { return std::min(std::max(v, 0), 40); };
    // x / 2 rounds towards negative infinity in Loom.
    int half = x >= 0 ? x / 2 : -((-x + 1) / 2);
    return chain_reference(depth - 1, c(x - 1)) + chain_reference(depth - 1, c(x + 2)) +
           chain_reference(depth - 1, half);
}

}  // namespace

// Each Func's bounds are written in terms of its consumer's bounds, by name:
// substituting every definition into the next would make the lowered code
// (and the compile time) grow exponentially with the length of the chain.
TEST(Lower, BoundsOfAChainOfFuncsGrowLinearly) {
    auto size = [](int n) { return shaping_test::text(lower({clamped_chain(n)}, "chain", Target()).body).size(); };
    size_t four = size(4), eight = size(8), twelve = size(12);
    EXPECT_LT(eight, 3 * four) << four << " -> " << eight;
    EXPECT_LT(twelve, 2 * eight) << eight << " -> " << twelve;

    LoweredFunc lf = lower({clamped_chain(6)}, "chain", Target());
    Runtime::Buffer<int> out(12);
    out.set_min({-4});
    ASSERT_EQ(run(lf, {out.raw_buffer()}), 0) << lf.body;
    for (int x = -4; x < 8; x++) EXPECT_EQ(out(x), chain_reference(6, x)) << x;
}
