// Bounds of a fused loop's variables relaxed over an enclosing loop
// (issue 12: a fused Func computed inside a loop of its consumer), and the
// simplifier facts they need: regions are exact, not the sum of
// independently bounded terms.
#include <gtest/gtest.h>

#include "common/LoopNestBuilders.h"

#include "ir/Bounds.h"
#include "ir/IR.h"
#include "ir/IREquality.h"
#include "ir/IRPrinter.h"
#include "ir/IRUtil.h"
#include "ir/Simplify.h"
#include "loom/IROperator.h"

using namespace loom;
using namespace loom::internal;

namespace {

using loom_test::interval_is;
using loom_test::loop;
using loom_test::read_input;
using loom_test::var;

::testing::AssertionResult simplifies_to(const Expr &in, const Expr &want) {
    Expr got = simplify(in), wanted = simplify(want);
    if (equal(got, wanted)) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "simplify(" << in << ")\n  got:  " << got << "\n  want: " << wanted;
}

// A split by 4 of a loop of e points ends at ((e + 3) / 4) * 4 - 1, never
// before e - 1 (Euclidean division rounds down): a GuardWithIf tail's
// last point min(that, e - 1) is e - 1.
TEST(FusedLoopBounds, RoundedUpMultipleIsAtLeastTheValue) {
    Expr e = var("e");
    EXPECT_TRUE(simplifies_to(min(((e + 3) / 4) * 4 - 1, e - 1), e - 1));
    EXPECT_TRUE(simplifies_to(max(((e + 3) / 4) * 4, e), ((e + 3) / 4) * 4));
    EXPECT_TRUE(simplifies_to((e / 8) * 8 <= e, const_true()));
    EXPECT_TRUE(simplifies_to((e / 8) * 8 > e - 8, const_true()));
    // Not decided where the bound is not implied: (e / 8) * 8 may be e.
    Expr undecided = simplify((e / 8) * 8 < e);
    EXPECT_FALSE(is_const(undecided)) << undecided;
}

// for t in [0, 6): the fused loop over rows [lo, hi] of X columns, with
// lo = min(2 t, t + 3) and hi = max(2 t + 3, 8), X = min(t, 2) + 1. The row
// read is xy / max(X, 1) + lo, its last value
// select(X >= 1, max(hi - lo + 1, 0), 0) + lo - 1: the select and the min
// in lo read t in opposite directions. Rows [0, 13] are read (t = 5).
TEST(FusedLoopBounds, FusedRowsPerIterationWithAMinStartAreExact) {
    for (bool split : {false, true}) {
        Expr t = var("t"), xy = var("xy"), X = min(t, 2) + 1;
        Expr lo = var("lo"), hi = var("hi");
        Expr extent = select(X >= 1, max(hi - lo + 1, 0), 0) * max(X, 1);
        Stmt body;
        if (!split) {
            body = loop("xy", 0, extent, read_input({xy % max(X, 1), xy / max(X, 1) + lo}));
        } else {
            // The fused loop split by 4 with a GuardWithIf tail.
            Expr xyo = var("xyo"), xyi = var("xyi"), e = var("e");
            Stmt read = read_input({xy % max(X, 1), xy / max(X, 1) + lo});
            read = LetStmt::make("xy", xyo * 4 + xyi, IfThenElse::make(xy <= e - 1, read));
            body = loop("xyo", 0, (e + 3) / 4, loop("xyi", 0, 4, read));
            body = LetStmt::make("e", extent, body);
        }
        body = LetStmt::make("hi", max(t * 2 + 3, 8), body);
        body = LetStmt::make("lo", min(t * 2, t + 3), body);
        auto boxes = boxes_required(loop("t", 0, 6, body));
        ASSERT_EQ(boxes["in"].size(), 2u);
        EXPECT_TRUE(interval_is(boxes["in"][1], 0, 13)) << (split ? "split" : "whole");
        EXPECT_TRUE(interval_is(boxes["in"][0], 0, 2)) << (split ? "split" : "whole");
    }
}

}  // namespace
