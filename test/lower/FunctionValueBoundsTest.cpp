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
                                      const Expr &max) {
    auto it = b.find(name);
    if (it == b.end()) return ::testing::AssertionFailure() << name << " has no value bounds";
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
    ASSERT_TRUE(v.count("c"));
    EXPECT_TRUE(is_const(v.at("c").min, 0)) << show(v.at("c").min);
    EXPECT_TRUE(v.at("c").max.defined());
}

TEST(FunctionValueBounds, UpdatesWidenAndSelfReadsMustStayInside) {
    Var x("x");
    RDom r(0, 3, "r");
    Func widened("widened"), stays("stays"), grows("grows"), out("out");
    widened(x) = x % 4;
    widened(r) = 10 + r;                      // [0, 3] and [10, 12]
    stays(x) = x % 4;
    stays(x) = clamp(stays(x) * 2, 0, 5);     // inside [0, 5] once widened
    grows(x) = x % 4;
    grows(r) = grows(r) + 1;                  // [1, 4], then [1, 5], ...: no bound holds
    out(x) = widened(x) + stays(x) + grows(x);
    for (Func *f : {&widened, &stays, &grows}) f->compute_root();
    FuncValueBounds v = value_bounds_of(out);
    EXPECT_TRUE(has_bounds(v, "widened", Expr(0), Expr(12)));
    EXPECT_TRUE(has_bounds(v, "stays", Expr(0), Expr(5)));
    EXPECT_FALSE(v.count("grows"));
}

TEST(FunctionValueBounds, TuplesAndInlinedFuncsAreLeftOut) {
    Var x("x");
    Func pair("pair"), inlined("inlined"), out("out");
    pair(x) = Tuple(x % 3, x % 5);
    inlined(x) = x % 7;
    out(x) = pair(x)[0] + inlined(x);
    pair.compute_root();
    FuncValueBounds v = value_bounds_of(out);
    EXPECT_FALSE(v.count("pair"));
    EXPECT_FALSE(v.count("inlined"));
}

}  // namespace
