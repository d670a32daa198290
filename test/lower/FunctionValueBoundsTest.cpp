// compute_function_value_bounds (lower/FunctionValueBounds.h) on pipelines
// built with the public Func API: the interval each realized Func's values
// lie in, and the Funcs it leaves out (absent from the map: their calls keep
// the range of their type).
#include <gtest/gtest.h>

#include "ir/IREquality.h"
#include "ir/IRPrinter.h"
#include "ir/IRUtil.h"
#include "ir/Simplify.h"
#include "loom/Loom.h"
#include "lower/FunctionValueBounds.h"
#include "lower/Stages.h"

using namespace loom;
using namespace loom::internal;

namespace {

FuncValueBounds value_bounds_of(const Func &out) {
    PipelineStages p = build_pipeline_stages({out.function()});
    return compute_function_value_bounds(p);
}

std::string show(const Expr &e) { return e.defined() ? to_string(e) : std::string("(unbounded)"); }

::testing::AssertionResult has_bounds(const FuncValueBounds &b, const std::string &name, const Expr &min,
                                      const Expr &max, int element = 0) {
    auto it = b.find({name, element});
    if (it == b.end()) return ::testing::AssertionFailure() << name << "[" << element << "] has no value bounds";
    auto same = [](const Expr &x, const Expr &y) {
        if (!x.defined() || !y.defined()) return x.defined() == y.defined();
        return equal(simplify(x), simplify(y));
    };
    if (same(it->second.min, min) && same(it->second.max, max)) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << name << ": got [" << show(it->second.min) << ", "
                                         << show(it->second.max) << "], want [" << show(min) << ", " << show(max)
                                         << "]";
}

TEST(FunctionValueBounds, PureDefinitionsInDependencyOrder) {
    Var x("x");
    Param<int> n("n");
    Func a("a"), b("b"), c("c"), out("out");
    a(x) = cast<uint8_t>(x) % 5;           // [0, 4]
    b(x) = cast<int>(a(x)) * 3 - 1;        // [-1, 11], from a's bounds
    c(x) = x % n;                          // symbolic in a Param
    out(x) = b(x) + c(x);
    a.compute_root();
    b.compute_root();
    c.compute_root();
    FuncValueBounds v = value_bounds_of(out);
    EXPECT_TRUE(has_bounds(v, "a", UIntImm::make(UInt(8), 0), UIntImm::make(UInt(8), 4)));
    EXPECT_TRUE(has_bounds(v, "b", Expr(-1), Expr(11)));
    ASSERT_TRUE(v.count({"c", 0}));
    EXPECT_TRUE(is_const(v.at({"c", 0}).min, 0)) << show(v.at({"c", 0}).min);
    EXPECT_TRUE(v.at({"c", 0}).max.defined());
}

TEST(FunctionValueBounds, UpdatesWidenAndSelfReadsMustStayInside) {
    Var x("x");
    RDom r(0, 3, "r");
    Func widened("widened"), stays("stays"), grows("grows"), shrinks("shrinks"), out("out");
    widened(x) = x % 4;
    widened(r) = 10 + r;                      // [0, 3] and [10, 12]
    stays(x) = x % 4;
    stays(x) = clamp(stays(x) * 2, 0, 5);     // inside [0, 5] once widened
    grows(x) = x % 4;
    grows(r) = grows(r) + 1;                  // [1, 4], then [1, 5], ...: only the min holds
    shrinks(x) = x % 4;
    shrinks(x) = shrinks(x) - x % 3;          // only the max holds
    out(x) = widened(x) + stays(x) + grows(x) + shrinks(x);
    for (Func *f : {&widened, &stays, &grows, &shrinks}) f->compute_root();
    FuncValueBounds v = value_bounds_of(out);
    EXPECT_TRUE(has_bounds(v, "widened", Expr(0), Expr(12)));
    EXPECT_TRUE(has_bounds(v, "stays", Expr(0), Expr(5)));
    EXPECT_TRUE(has_bounds(v, "grows", Expr(0), Expr()));
    EXPECT_TRUE(has_bounds(v, "shrinks", Expr(), Expr(3)));
}

TEST(FunctionValueBounds, OneSidedBoundsAreKept) {
    Var x("x");
    Param<int> n("n");
    Func below("below"), above("above"), neither("neither"), out("out");
    below(x) = max(x * 3, 0);
    above(x) = min(x, n);
    neither(x) = x * 2;
    out(x) = below(x) + above(x) + neither(x);
    for (Func *f : {&below, &above, &neither}) f->compute_root();
    FuncValueBounds v = value_bounds_of(out);
    EXPECT_TRUE(has_bounds(v, "below", Expr(0), Expr()));
    EXPECT_TRUE(has_bounds(v, "above", Expr(), n));
    EXPECT_FALSE(v.count({"neither", 0}));
}

TEST(FunctionValueBounds, EachTupleElementHasItsOwnBounds) {
    Var x("x");
    RDom r(0, 4, "r");
    Func pair("pair"), counted("counted"), inlined("inlined"), out("out");
    pair(x) = Tuple(x % 3, cast<uint8_t>(x) % 5, x);
    // Element 1 reads element 0: bounded by its final bounds.
    counted(x) = Tuple(x % 2, 0);
    counted(r) = Tuple(counted(r)[0] + 1, clamp(counted(r)[0], 0, 7) + 10);
    inlined(x) = x % 7;
    out(x) = pair(x)[0] + cast<int>(pair(x)[1]) + pair(x)[2] + counted(x)[0] + counted(x)[1] + inlined(x);
    pair.compute_root();
    counted.compute_root();
    FuncValueBounds v = value_bounds_of(out);
    EXPECT_TRUE(has_bounds(v, "pair", Expr(0), Expr(2), 0));
    EXPECT_TRUE(has_bounds(v, "pair", UIntImm::make(UInt(8), 0), UIntImm::make(UInt(8), 4), 1));
    EXPECT_FALSE(v.count({"pair", 2}));
    EXPECT_TRUE(has_bounds(v, "counted", Expr(0), Expr(), 0));
    EXPECT_TRUE(has_bounds(v, "counted", Expr(0), Expr(17), 1));
    EXPECT_FALSE(v.count({"inlined", 0}));
}

TEST(FunctionValueBounds, EndpointsFromBufferFieldsAreKept) {
    Var x("x");
    ImageParam shape(Int(32), 2, "shape");
    Func in_rows("in_rows"), out("out");
    in_rows(x) = clamp(x, shape.dim(1).min(), shape.dim(1).max());
    out(x) = in_rows(x);
    in_rows.compute_root();
    FuncValueBounds v = value_bounds_of(out);
    const Expr min = shape.dim(1).min(), max = shape.dim(1).max();
    ASSERT_TRUE(v.count({"in_rows", 0}));
    const Interval &b = v.at({"in_rows", 0});
    // clamp(x, lo, hi) is max(min(x, hi), lo): [lo, max(hi, lo)].
    EXPECT_TRUE(b.min.defined() && b.max.defined()) << show(b.min) << ", " << show(b.max);
    EXPECT_TRUE(equal(simplify(b.min), simplify(min))) << show(b.min);
    EXPECT_TRUE(equal(simplify(b.max), simplify(Max::make(max, min)))) << show(b.max);
}

}  // namespace
