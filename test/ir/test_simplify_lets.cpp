// Let substitution (docs/PERFORMANCE.md P5): values cheap to recompute
// (constants, variables, v*c1 + c2, and broadcasts/ramps of those) are
// substituted into the body and into later lets, unused lets disappear, and
// other values stay bound. Also the modulus-remainder rules of P6 on ramps.
#include <gtest/gtest.h>

#include "ir/IR.h"
#include "ir/IREquality.h"
#include "ir/IRPrinter.h"
#include "ir/ModulusRemainder.h"
#include "ir/Simplify.h"
#include "loom/IROperator.h"

using namespace loom;
using namespace loom::internal;

namespace {

Expr var(const std::string &name, Type t = Int(32)) { return Variable::make(t, name); }

const Expr x = var("x"), y = var("y"), k = var("k"), xo = var("out.s0.xo");

Expr bc(Expr e, int lanes = 8) { return Broadcast::make(std::move(e), lanes); }

::testing::AssertionResult simplifies_to(const Expr &in, const Expr &want) {
    Expr got = simplify(in);
    if (equal(got, want)) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "simplify(" << in << ")\n  got:  " << got << "\n  want: " << want;
}

::testing::AssertionResult stmt_simplifies_to(const Stmt &in, const Stmt &want) {
    Stmt got = simplify(in);
    if (equal(got, want)) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "simplify(\n" << in << ")\n got:\n" << got << "\n want:\n" << want;
}

Stmt store(const std::string &buf, Expr value, Expr index) { return Store::make(buf, value, index); }

Stmt loop(const std::string &name, Expr min, Expr extent, Stmt body) {
    return For::make(name, min, extent, ForType::Serial, DeviceAPI::None, body);
}

}  // namespace

// ---------------------------------------------------------------- P5

TEST(SimplifyLets, RealizedExtentOfATileIsAConstant) {
    // From the matmul tile: the accumulator's extent is 16 x 4, whatever xo is.
    Expr min_x = var("prod.x.min_realized"), ext_x = var("prod.x.extent_realized");
    Expr min_y = var("prod.y.min_realized"), ext_y = var("prod.y.extent_realized");
    Expr yo = var("out.s0.yo");
    Stmt body = Allocate::make("prod", Float(32), MemoryType::Auto, {ext_x, ext_y}, Expr(),
                               store("prod", FloatImm::make(Float(32), 0), (xo * 16 - min_x) + (yo * 4 - min_y) * ext_x));
    Stmt s = LetStmt::make(
        "prod.x.min_realized", xo * 16,
        LetStmt::make("prod.x.extent_realized", xo * 16 - min_x + 16,
                      LetStmt::make("prod.y.min_realized", yo * 4,
                                    LetStmt::make("prod.y.extent_realized", yo * 4 + 4 - min_y, body))));
    Stmt want = Allocate::make("prod", Float(32), MemoryType::Auto, {Expr(16), Expr(4)}, Expr(),
                               store("prod", FloatImm::make(Float(32), 0), Expr(0)));
    EXPECT_TRUE(stmt_simplifies_to(s, want));
}

TEST(SimplifyLets, TailGuardOfAConstantSizeBlockIsDecided) {
    // prev0 = min + 8, max = min + 15: prev0 <= max - 7 always holds.
    Expr min = var("p.min"), prev0 = var("p.prev0"), max = var("p.max");
    Stmt guard = IfThenElse::make(prev0 <= max + -7, store("buf", 1, prev0), store("buf", 2, prev0));
    Stmt s = LetStmt::make("p.min", xo * 16,
                           LetStmt::make("p.prev0", min + 8, LetStmt::make("p.max", min + 15, guard)));
    EXPECT_TRUE(stmt_simplifies_to(s, store("buf", 1, xo * 16 + 8)));
    // The same with a free min.
    Stmt free = LetStmt::make("p.prev0", var("m") + 8, LetStmt::make("p.max", var("m") + 15, guard));
    EXPECT_TRUE(stmt_simplifies_to(free, store("buf", 1, var("m") + 8)));
}

TEST(SimplifyLets, TileOfTwoLoopVariablesHasAConstantExtent) {
    // The matmul tile's rows: min = yo*32 + yi*4 (two loop variables).
    Expr yo = var("out.s0.yo"), yi = var("out.s0.yi");
    Expr min_y = var("prod.y.min_realized"), ext_y = var("prod.y.extent_realized"), s1_min = var("prod.s1.y.min");
    Stmt body = Allocate::make("prod", Float(32), MemoryType::Auto, {Expr(16), ext_y}, Expr(),
                               LetStmt::make("prod.s1.y.min", yo * 32 + yi * 4,
                                             store("prod", FloatImm::make(Float(32), 0), s1_min * 16 - min_y * 16 + 8)));
    Stmt s = LetStmt::make("prod.y.min_realized", yo * 32 + yi * 4,
                           LetStmt::make("prod.y.extent_realized", yo * 32 + yi * 4 - min_y + 4, body));
    Stmt want = Allocate::make("prod", Float(32), MemoryType::Auto, {Expr(16), Expr(4)}, Expr(),
                               store("prod", FloatImm::make(Float(32), 0), Expr(8)));
    EXPECT_TRUE(stmt_simplifies_to(s, want));
}

TEST(SimplifyLets, ChainsOfAffineLetsCollapse) {
    Expr a = var("a"), b = var("b"), c = var("c");
    Expr e = Let::make("a", x * 4, Let::make("b", a + 3, Let::make("c", b * 2, c + 1)));
    EXPECT_TRUE(simplifies_to(e, x * 8 + 7));
    Expr sub = Let::make("a", 10 - x, a * 2);
    EXPECT_TRUE(simplifies_to(sub, 20 - x * 2));
}

TEST(SimplifyLets, ExpensiveValuesStayBound) {
    Expr a = var("a");
    for (Expr value : {x * y, Min::make(x, 5), x / 3, x * y + 2, x + y + k + var("n")}) {
        Expr e = Let::make("a", value, a * a);
        Expr got = simplify(e);
        EXPECT_TRUE(got.as<Let>()) << value << " -> " << got;
    }
    // Unused after simplification: dropped.
    EXPECT_TRUE(simplifies_to(Let::make("a", x * y, a - a + y), y));
    Stmt unused = LetStmt::make("a", x * y, store("buf", a - a, 0));
    EXPECT_TRUE(stmt_simplifies_to(unused, store("buf", 0, 0)));
    // Floats are never recomputed.
    Expr f = var("f", Float(32)), g = var("g", Float(32));
    Expr fl = Let::make("g", f + FloatImm::make(Float(32), 1), g * g);
    EXPECT_TRUE(simplify(fl).as<Let>());
}

TEST(SimplifyLets, NoCaptureByInnerBinders) {
    Expr a = var("a");
    // a = x*2 + 1 must not move under a loop that binds x again.
    Stmt inner = loop("x", 0, 4, store("buf", a, x));
    Stmt s = LetStmt::make("a", x * 2 + 1, inner);
    EXPECT_TRUE(stmt_simplifies_to(s, s));
    // Nor under a Let that binds x.
    Expr e = Let::make("a", x * 2, Let::make("x", y * y, a + x));
    Expr got = simplify(e);
    EXPECT_TRUE(got.as<Let>() && got.as<Let>()->name == "a") << got;
    // Inside the loop over x, a let of x*2 is substituted.
    Stmt in_loop = loop("x", 0, var("n"), LetStmt::make("a", x * 2, store("buf", a, a + 1)));
    EXPECT_TRUE(stmt_simplifies_to(in_loop, loop("x", 0, var("n"), store("buf", x * 2, x * 2 + 1))));
}

TEST(SimplifyLets, VectorLetsOfRampsAreSubstituted) {
    Expr v = var("v", Int(32, 8));
    Expr e = Let::make("v", Ramp::make(x * 16, 1, 8), v % bc(16));
    EXPECT_TRUE(simplifies_to(e, Ramp::make(Expr(0), Expr(1), 8)));
}

// ---------------------------------------------------------------- P6

TEST(SimplifyModulus, AlignedRampDividedAndReducedBecomesDense) {
    // The packed-panel read of the matmul benchmark.
    Expr m = xo * 16;
    Expr r = Ramp::make(m, 1, 8);
    Expr index = r % bc(16) + bc(k * 16) + r / bc(16) * bc(16384);
    EXPECT_TRUE(simplifies_to(r % bc(16), Ramp::make(Expr(0), Expr(1), 8)));
    EXPECT_TRUE(simplifies_to(r / bc(16), bc(xo)));
    EXPECT_TRUE(simplifies_to(index, Ramp::make(k * 16 + xo * 16384, Expr(1), 8)));
    // Through a let the simplifier keeps (a product): the alignment of its
    // value is known inside.
    Expr mv = var("m");
    Expr value = xo * y * 16;
    Expr kept = Let::make("m", value, Ramp::make(mv, 1, 8) % bc(16) + Ramp::make(mv, 1, 8) / bc(16));
    Expr got = simplify(kept);
    EXPECT_TRUE(equal(got, Let::make("m", simplify(value), Ramp::make(mv / 16, 1, 8)))) << got;
}

TEST(SimplifyModulus, RampsThatCrossABlockAreLeftAlone) {
    Expr r = Ramp::make(xo * 16 + 12, 1, 8);  // lanes 12..19 of a block of 16
    EXPECT_TRUE(simplifies_to(r % bc(16), r % bc(16)));
    EXPECT_TRUE(simplifies_to(r / bc(16), r / bc(16)));
    Expr fits = Ramp::make(xo * 16 + 8, 1, 8);  // lanes 8..15
    EXPECT_TRUE(simplifies_to(fits % bc(16), Ramp::make(Expr(8), Expr(1), 8)));
    EXPECT_TRUE(simplifies_to(fits / bc(16), bc(xo)));
    // Negative strides and divisors: lanes 7 down to 0 of a block of 8.
    Expr down = Ramp::make(xo * 8 + 7, -1, 8);
    EXPECT_TRUE(simplifies_to(down % bc(-8), Ramp::make(Expr(7), Expr(-1), 8)));
    EXPECT_TRUE(simplifies_to(down / bc(-8), bc(0 - xo)));
}

TEST(SimplifyModulus, AnalysisOfExpressions) {
    Scope<ModulusRemainder> scope;
    scope.push("m", ModulusRemainder{16, 0});
    auto mr = [&](const Expr &e) { return modulus_remainder(e, scope); };
    EXPECT_EQ(mr(x * 16 + 3), (ModulusRemainder{16, 3}));
    EXPECT_EQ(mr(x * 6 + y * 4), (ModulusRemainder{2, 0}));
    EXPECT_EQ(mr(var("m") + 20), (ModulusRemainder{16, 4}));
    EXPECT_EQ(mr(Let::make("t", x * 8, var("t") * 2 + 1)), (ModulusRemainder{16, 1}));
    EXPECT_EQ(mr(Expr(37)), (ModulusRemainder{0, 37}));
    EXPECT_EQ(mr(x - 5), (ModulusRemainder{1, 0}));
    EXPECT_EQ(mr((x * 32 + 8) / 8), (ModulusRemainder{4, 1}));
    EXPECT_EQ(mr(Select::make(x < y, x * 12 + 2, y * 8 + 6)), (ModulusRemainder{4, 2}));
}
