// Float constant folding in the simplifier is IEEE arithmetic in the
// expression's type: a folded a op b equals the C++ float operation, and
// nothing is reassociated, turned into a multiplication by a reciprocal or
// fused, so the back ends and the interpreter see the rounding steps the
// program wrote (fuzz seed 951780's (-0.5f / 3.0f) * m, test/codegen/
// StrictFloatBackendsTest.cpp).

#include <gtest/gtest.h>

#include <cstring>

#include "ir/IR.h"
#include "ir/IREquality.h"
#include "ir/IRPrinter.h"
#include "ir/Simplify.h"

using namespace loom;
using namespace loom::internal;

namespace {

Expr f32(float v) { return FloatImm::make(Float(32), v); }
Expr fvar(const std::string &name) { return Variable::make(Float(32), name); }

uint32_t bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}

// The float a simplified constant expression folds to; fails if it does not fold.
float folded(const Expr &e) {
    Expr s = simplify(e);
    const FloatImm *imm = s.as<FloatImm>();
    EXPECT_NE(imm, nullptr) << e << " -> " << s;
    return imm ? (float)imm->value : 0.0f;
}

TEST(SimplifyFloatFold, FoldsEachOperationInFloat) {
    volatile float a = -0.5f, b = 3.0f, p = 0.1f, q = 0.2f, big = 16777216.0f;
    EXPECT_EQ(bits(folded(Div::make(f32(a), f32(b)))), bits(a / b));
    EXPECT_EQ(bits(folded(Mul::make(f32(p), f32(q)))), bits(p * q));
    EXPECT_EQ(bits(folded(Add::make(f32(p), f32(q)))), bits(p + q));
    EXPECT_EQ(bits(folded(Sub::make(f32(big), f32(1.0f)))), bits(big - 1.0f));
    EXPECT_EQ(bits(folded(Add::make(f32(big), f32(1.0f)))), bits(big + 1.0f));  // 2^24 + 1 rounds to 2^24
    // Nested: each step rounded, as the program wrote it.
    volatile float third = a / b;
    volatile float product = third * 770.0f;
    EXPECT_EQ(bits(folded(Mul::make(Div::make(f32(a), f32(b)), f32(770.0f)))), bits(product));
}

TEST(SimplifyFloatFold, NeitherReassociatesNorFusesNorTakesReciprocals) {
    Expr x = fvar("x"), m = fvar("m");
    // (x * -0.5f) / 3.0f is not x * (-0.5f / 3.0f).
    Expr scaled = Div::make(Mul::make(x, f32(-0.5f)), f32(3.0f));
    EXPECT_TRUE(equal(simplify(scaled), scaled)) << simplify(scaled);
    // x / 3.0f is not x * (1 / 3.0f).
    Expr divided = Div::make(x, f32(3.0f));
    EXPECT_TRUE(equal(simplify(divided), divided)) << simplify(divided);
    // x + c * m keeps its two roundings: no fma() call appears.
    Expr c = Div::make(f32(-0.5f), f32(3.0f));
    Expr sum = simplify(Add::make(x, Mul::make(c, m)));
    const Add *add = sum.as<Add>();
    ASSERT_NE(add, nullptr) << sum;
    EXPECT_TRUE(equal(add->a, x)) << sum;
    const Mul *mul = add->b.as<Mul>();
    ASSERT_NE(mul, nullptr) << sum;
    EXPECT_TRUE(equal(mul->a, m)) << sum;  // commuted: exact
    volatile float a = -0.5f;
    EXPECT_EQ(bits(folded(mul->b)), bits(a / 3.0f));
}

}  // namespace
