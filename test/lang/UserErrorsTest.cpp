// User errors Halide reports that Loom once accepted silently: a Param read
// without a value, queries on an undefined LoopLevel, and tail strategies
// that are illegal for the split they are given to. Each is a CompileError
// that names the thing and says what to do.

#include <gtest/gtest.h>

#include "LangTestUtil.h"
#include "loom/Loom.h"

using namespace loom;

namespace {

TEST(ParamWithoutValue, RealizeNamesTheParam) {
    Var x("x");
    Param<int> offset("offset");
    Func f("f");
    f(x) = x + offset;
    EXPECT_COMPILE_ERROR(f.realize({4}), "Param offset has no value", "offset.set(value)");
    offset.set(3);
    Buffer<int> out = f.realize({4});
    EXPECT_EQ(out(2), 5);
}

TEST(ParamWithoutValue, GetThrows) {
    Param<float> gain("gain");
    EXPECT_COMPILE_ERROR(gain.get(), "Param gain has no value");
    gain.set(2.5f);
    EXPECT_EQ(gain.get(), 2.5f);
    Param<> dynamic(Int(16), "dynamic");
    EXPECT_COMPILE_ERROR(dynamic.get<int16_t>(), "Param dynamic has no value");
    Param<int> given("given", 0);
    EXPECT_EQ(given.get(), 0);  // a value given at construction, even 0, is a value
}

TEST(ParamWithoutValue, UnreadParamNeedsNoValue) {
    // Only Params the pipeline reads are its arguments.
    Var x("x");
    Param<int> unused("unused");
    Func f("f");
    f(x) = x * 2;
    Buffer<int> out = f.realize({4});
    EXPECT_EQ(out(3), 6);
}

TEST(UndefinedLoopLevel, QueriesThrow) {
    LoopLevel undefined;
    EXPECT_FALSE(undefined.defined());
    EXPECT_EQ(undefined.to_string(), "undefined");
    EXPECT_COMPILE_ERROR(undefined.is_inlined(), "LoopLevel::is_inlined() of an undefined LoopLevel",
                         "LoopLevel::inlined()");
    EXPECT_COMPILE_ERROR(undefined.is_root(), "is_root()");
    EXPECT_COMPILE_ERROR(undefined.func(), "func()");
    EXPECT_COMPILE_ERROR(undefined.var(), "var()");
    EXPECT_COMPILE_ERROR(undefined.stage_index(), "stage_index()");
    EXPECT_TRUE(LoopLevel::inlined().defined());
    EXPECT_TRUE(LoopLevel::inlined().is_inlined());
    EXPECT_NE(undefined, LoopLevel::inlined());
}

TEST(UndefinedLoopLevel, SchedulingWithItThrows) {
    Var x("x");
    Func f("f"), g("g");
    f(x) = x;
    g(x) = f(x) + 1;
    EXPECT_COMPILE_ERROR(f.compute_at(LoopLevel()), "Func f", "undefined LoopLevel", "LoopLevel::root()");
    EXPECT_COMPILE_ERROR(f.store_at(LoopLevel()), "Func f", "undefined LoopLevel");
    EXPECT_COMPILE_ERROR(f.compute_with(LoopLevel()), "compute_with", "undefined LoopLevel");
    // Nothing was changed by the refused calls.
    Buffer<int> out = g.realize({4});
    EXPECT_EQ(out(3), 4);
}

TEST(IllegalComputeWith, InlinedFuncIsNotSilentlyIgnored) {
    // Halide refuses compute_with on a Func computed inline; Loom used to drop it.
    Func f("f"), g("g"), h("h");
    Var x("x"), y("y");
    f(x, y) = x + y;
    g(x, y) = x - y;
    h(x, y) = f(x, y) + g(x, y);
    f.compute_root();
    g.compute_with(f, y);
    EXPECT_COMPILE_ERROR(h.realize({8, 8}), "Func 'g' is computed inline", "compute_with(f, y)",
                         "compute_root() or compute_at()");
    g.compute_root();
    Buffer<int> out = h.realize({8, 8});
    EXPECT_EQ(out(5, 3), 10);
}

TEST(IllegalTailStrategy, PredicatedSplitOfAnInnerLoop) {
    Func f("f");
    Var x("x"), xo("xo"), xi("xi"), xio("xio"), xii("xii");
    f(x) = x;
    f.split(x, xo, xi, 2);
    EXPECT_COMPILE_ERROR(f.split(xi, xio, xii, 4, TailStrategy::PredicateLoads), "Var xi", "PredicateLoads",
                         "comes from the inner loop of an earlier split", "GuardWithIf");
    EXPECT_COMPILE_ERROR(f.split(xi, xio, xii, 4, TailStrategy::PredicateStores), "PredicateStores");
    // A Var of the definition may take one.
    Func g("g");
    g(x) = x * 2;
    g.split(x, xo, xi, 4, TailStrategy::PredicateStores);
    Buffer<int> out = g.realize({21});
    for (int i = 0; i < 21; i++) EXPECT_EQ(out(i), 2 * i);
}

TEST(IllegalTailStrategy, SplitOfAPredicatedSplit) {
    Func f("f");
    Var x("x"), xo("xo"), xi("xi"), xio("xio"), xii("xii");
    f(x) = x;
    f.split(x, xo, xi, 8, TailStrategy::PredicateStores);
    EXPECT_COMPILE_ERROR(f.split(xi, xio, xii, 9), "Var xi", "PredicateLoads or PredicateStores",
                         "can't be split again");
    EXPECT_COMPILE_ERROR(f.split(xo, xio, xii, 2), "Var xo");
}

TEST(IllegalTailStrategy, RoundUpOfAnInnerLoopInAnUpdate) {
    Func f("f"), g("g");
    Var x("x"), xo("xo"), xi("xi"), xio("xio"), xii("xii");
    f(x) = x;
    f(x) += 1;
    f.compute_root();
    f.update().split(x, xo, xi, 8);
    EXPECT_COMPILE_ERROR(f.update().split(xi, xio, xii, 9, TailStrategy::RoundUp), "update", "Var xi", "RoundUp",
                         "twice", "GuardWithIf");
    // Auto picks GuardWithIf there, so every point is updated once.
    f.update().split(xi, xio, xii, 3);
    g(x) = f(x);
    Buffer<int> out = g.realize({10});
    for (int i = 0; i < 10; i++) EXPECT_EQ(out(i), i + 1) << i;
}

TEST(IllegalTailStrategy, SplitsOfTheOuterLoopInAnUpdateAreLegal) {
    Func f("f"), g("g");
    Var x("x"), xo("xo"), xi("xi"), xoo("xoo"), xoi("xoi");
    f(x) = x;
    f(x) += 1;
    f.compute_root();
    f.update().split(x, xo, xi, 8, TailStrategy::GuardWithIf).split(xo, xoo, xoi, 3, TailStrategy::GuardWithIf);
    g(x) = f(x);
    Buffer<int> out = g.realize({20});
    for (int i = 0; i < 20; i++) EXPECT_EQ(out(i), i + 1) << i;
}

}  // namespace
