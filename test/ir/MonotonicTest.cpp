// monotonic_in: the direction an expression moves in as one variable grows.
#include <gtest/gtest.h>

#include "ir/IR.h"
#include "ir/Monotonic.h"
#include "loom/IROperator.h"

using namespace loom;
using namespace loom::internal;

namespace {

Expr ivar(const std::string &name) { return Variable::make(Int(32), name); }

TEST(Monotonic, AffineSumsAndDifferences) {
    Expr x = ivar("x"), y = ivar("y");
    EXPECT_EQ(monotonic_in(x, "x"), Monotonic::Increasing);
    EXPECT_EQ(monotonic_in(y, "x"), Monotonic::Constant);
    EXPECT_EQ(monotonic_in(x * 3 + y - 7, "x"), Monotonic::Increasing);
    EXPECT_EQ(monotonic_in(y - x * 2, "x"), Monotonic::Decreasing);
    EXPECT_EQ(monotonic_in(x * -4, "x"), Monotonic::Decreasing);
    EXPECT_EQ(monotonic_in(x * 0 + y, "x"), Monotonic::Constant);
    EXPECT_EQ(monotonic_in(x - x, "x"), Monotonic::Unknown);  // not simplified: no claim
}

TEST(Monotonic, MinMaxDivisionAndCasts) {
    Expr x = ivar("x"), y = ivar("y");
    EXPECT_EQ(monotonic_in(min(x + 1, y), "x"), Monotonic::Increasing);
    EXPECT_EQ(monotonic_in(max(min(x, 23), 6), "x"), Monotonic::Increasing);
    EXPECT_EQ(monotonic_in(min(x, 10 - x), "x"), Monotonic::Unknown);
    EXPECT_EQ(monotonic_in(x / 4, "x"), Monotonic::Increasing);
    EXPECT_EQ(monotonic_in(x / -4, "x"), Monotonic::Decreasing);
    EXPECT_EQ(monotonic_in(y / x, "x"), Monotonic::Unknown);
    EXPECT_EQ(monotonic_in(x % 4, "x"), Monotonic::Unknown);
    EXPECT_EQ(monotonic_in(cast(Int(64), x) * 2, "x"), Monotonic::Increasing);
    EXPECT_EQ(monotonic_in(cast(Int(16), x), "x"), Monotonic::Unknown);  // narrowing wraps
}

TEST(Monotonic, UnsignedArithmeticWrapsSoIsNotTrusted) {
    Expr u = Variable::make(UInt(32), "u");
    EXPECT_EQ(monotonic_in(u + 1, "u"), Monotonic::Unknown);
    EXPECT_EQ(monotonic_in(cast(Int(32), ivar("x") + 1) , "x"), Monotonic::Increasing);
}

TEST(Monotonic, SelectsAndLets) {
    Expr x = ivar("x"), y = ivar("y");
    EXPECT_EQ(monotonic_in(select(y > 0, x, x * 2), "x"), Monotonic::Increasing);
    EXPECT_EQ(monotonic_in(select(y > 0, x, -x), "x"), Monotonic::Unknown);
    EXPECT_EQ(monotonic_in(select(x > 0, x, x), "x"), Monotonic::Unknown);
    EXPECT_EQ(monotonic_in(Let::make("t", y * 2, x + ivar("t")), "x"), Monotonic::Increasing);
    EXPECT_EQ(monotonic_in(Let::make("t", x * 2, ivar("t")), "x"), Monotonic::Unknown);
}

}  // namespace
