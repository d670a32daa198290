// Stage::rfactor misuse: each throws CompileError naming the Func and saying
// why, and leaves the Func as it was.

#include <gtest/gtest.h>

#include "lang/LangTestUtil.h"
#include "loom/Loom.h"

using namespace loom;

namespace {

TEST(RFactorError, NotAssociative) {
    Var x("x"), u("u");
    RDom r(0, 10, "r");
    Func g("rf_g");
    g(x) = x * 3;
    Func f("rf_scaled");
    f(x) = 0;
    f(x) = f(x) * 2 + g(r);
    EXPECT_COMPILE_ERROR(f.update().rfactor(r, u), "rf_scaled.update(0)", "not an associative", "read the Func");
    EXPECT_EQ(f.num_update_definitions(), 1);
}

TEST(RFactorError, Subtraction) {
    Var u("u");
    RDom r(0, 10, "r");
    Func f("rf_sub");
    f() = 100;
    f() -= r;
    EXPECT_COMPILE_ERROR(f.update().rfactor(r, u), "rf_sub", "subtraction", "not associative");
}

TEST(RFactorError, NoCombinationWithTheValueSoFar) {
    Var u("u");
    RDom r(0, 10, "r");
    Func f("rf_assign");
    f() = 0;
    f() = r * 2 + 1 + f() * 0;  // f is read, but scaled
    EXPECT_COMPILE_ERROR(f.update().rfactor(r, u), "rf_assign", "not an associative");
    Func h("rf_other_point");
    Var x("x");
    h(x) = x;
    h(r + 1) = h(r) + r;  // a scan: reads h at another point than it writes
    EXPECT_COMPILE_ERROR(h.update().rfactor(r, u), "rf_other_point", "not an associative");
}

TEST(RFactorError, PureDefinitionOrNoUpdate) {
    Var x("x"), u("u");
    RDom r(0, 4, "r");
    Func f("rf_pure");
    f(x) = x;
    Stage pure = f;
    EXPECT_COMPILE_ERROR(pure.rfactor(r, u), "rf_pure", "pure definition", "update(n)");
    EXPECT_COMPILE_ERROR(f.rfactor(r, u), "rf_pure", "no update definition");
}

TEST(RFactorError, UpdateWithoutRDom) {
    Var x("x"), u("u");
    RDom r(0, 4, "r");
    Func f("rf_nordom");
    f(x) = x;
    f(x) = f(x) + 1;
    EXPECT_COMPILE_ERROR(f.update().rfactor(r, u), "rf_nordom.update(0)", "no RDom");
}

TEST(RFactorError, RVarOfAnotherRDomOrGoneBySplit) {
    Var u("u");
    RDom r(0, 8, "rf_r"), other(0, 8, "rf_other");
    Func f("rf_wrong_rvar");
    f() = 0;
    f() += r;
    EXPECT_COMPILE_ERROR(f.update().rfactor(other, u), "rf_wrong_rvar", "rf_other$x", "not an RVar", "rf_r$x");
    // After a split, the RVars are the split's: the original is gone.
    RVar ro("rf_ro"), ri("rf_ri");
    f.update().split(r, ro, ri, 4);
    EXPECT_COMPILE_ERROR(f.update().rfactor(r, u), "rf_r$x", "not an RVar", "rf_ri, rf_ro");
}

TEST(RFactorError, FusedRVars) {
    Var u("u");
    RDom r(0, 8, 0, 8, "r");
    Func f("rf_fused");
    f() = 0;
    f() += r.x * r.y;
    RVar fused("rf_xy");
    f.update().fuse(r.x, r.y, fused);
    EXPECT_COMPILE_ERROR(f.update().rfactor(fused, u), "rf_fused", "fused", "before fuse");
}

TEST(RFactorError, VarsAndRVarsGivenTwiceOrTaken) {
    Var x("x"), u("u"), v("v");
    RDom r(0, 8, 0, 8, "r");
    Func f("rf_vars");
    f(x) = 0;
    f(x) += r.x * r.y;
    EXPECT_COMPILE_ERROR(f.update().rfactor({{r.x, u}, {r.x, v}}), "rf_vars", "r$x", "twice");
    EXPECT_COMPILE_ERROR(f.update().rfactor({{r.x, u}, {r.y, u}}), "rf_vars", "Var u", "two RVars");
    EXPECT_COMPILE_ERROR(f.update().rfactor(r.y, x), "rf_vars", "Var x", "already a pure Var");
    EXPECT_EQ(f.num_update_definitions(), 1);
}

TEST(RFactorError, NonCommutativeArgminPreservingAnInnerRVar) {
    Var u("u");
    RDom r(0, 8, 0, 8, "r");
    Func f("rf_argmin");
    f() = Tuple(1000, 0);
    f() = select(r.x * r.y % 5 < f()[0], Tuple(r.x * r.y % 5, r.x), Tuple(f()));
    EXPECT_COMPILE_ERROR(f.update().rfactor(r.x, u), "rf_argmin", "not commutative", "outermost");
    // The outer RVar keeps the order: accepted.
    Func intm = f.update().rfactor(r.y, u);
    EXPECT_EQ(intm.dimensions(), 1);
}

TEST(RFactorError, LoopThatStopsEarly) {
    Var u("u");
    RDom r(0, 100, "r");
    r.loop_while(r < 10);
    Func f("rf_while");
    f() = 0;
    f() += r;
    EXPECT_COMPILE_ERROR(f.update().rfactor(r, u), "rf_while", "loop_while");
}

TEST(RFactorError, PredicateReadingTheFunc) {
    Var x("x"), u("u");
    RDom r(0, 8, 0, 8, "r");
    Func f("rf_pred");
    f(x) = 0;
    r.where(f(x) < 20);  // stops adding once the sum reaches 20: the order matters
    f(x) += r.x + r.y;
    EXPECT_COMPILE_ERROR(f.update().rfactor(r.y, u), "rf_pred", "where() predicate reads");
    EXPECT_THROW(f.update().reorder(r.y, r.x), CompileError);
}

TEST(RFactorError, TermReadingTheFuncThroughAnotherFunc) {
    // step reads the running sum: f(x) += step(r, x) is a recurrence through
    // step (each term depends on the ones before), not a reduction that can
    // be reordered; factoring it would also put the intermediate on the
    // cycle f -> step -> f.
    Var x("x"), u("u"), i("i");
    RDom r(0, 8, "r");
    Func f("rf_recur"), step("rf_step");
    f(x) = 1;
    step(i, x) = f(x) / 2 + i;
    f(x) += step(r, x);
    EXPECT_COMPILE_ERROR(f.update().rfactor(r, u), "rf_recur.update(0)", "rf_step", "reads rf_recur");
    EXPECT_EQ(f.num_update_definitions(), 1);
    // The Func is left as it was: it still computes the recurrence.
    Buffer<int> out = f.realize({3});
    int expected = 1;
    for (int k = 0; k < 8; k++) expected += expected / 2 + k;
    for (int xx = 0; xx < 3; xx++) EXPECT_EQ(out(xx), expected) << xx;
}

}  // namespace
