// Every mistake a definition can make throws CompileError at definition time,
// naming the Func and the Var (or RDom) involved.

#include <gtest/gtest.h>

#include "lang/LangTestUtil.h"
#include "loom/Loom.h"

using namespace loom;

namespace {

TEST(DefinitionError, WrongArgumentCountInCall) {
    Var x("x"), y("y");
    Func f("f_args");
    f(x, y) = x + y;
    Func g("g_args");
    EXPECT_COMPILE_ERROR(g(x) = f(x), "f_args", "2", "1");
    EXPECT_COMPILE_ERROR(g(x) = f(x, y, x), "f_args", "3");
}

TEST(DefinitionError, WrongArgumentCountInUpdate) {
    Var x("x"), y("y");
    Func f("f_upd_args");
    f(x, y) = x + y;
    EXPECT_COMPILE_ERROR(f(x) = 3, "f_upd_args");
}

TEST(DefinitionError, PureArgumentNotAVar) {
    Var x("x");
    Func f("f_notvar");
    EXPECT_COMPILE_ERROR(f(x + 1) = x, "f_notvar", "not a Var");
    EXPECT_FALSE(f.defined());
    Func g("g_const");
    EXPECT_COMPILE_ERROR(g(0) = 1, "g_const");
}

TEST(DefinitionError, PureArgumentRepeated) {
    Var x("xrep");
    Func f("f_repeat");
    EXPECT_COMPILE_ERROR(f(x, x) = x, "f_repeat", "xrep");
}

TEST(DefinitionError, RDomInPureDefinition) {
    Var x("x");
    RDom r(0, 10, "rpure");
    Func f("f_rdom_rhs");
    EXPECT_COMPILE_ERROR(f(x) = x + r, "f_rdom_rhs", "rpure");
    Func g("g_rdom_lhs");
    EXPECT_COMPILE_ERROR(g(r) = 0, "g_rdom_lhs", "rpure");
}

TEST(DefinitionError, ParamAsPureArgument) {
    Param<int> p("pidx");
    Func f("f_param_lhs");
    EXPECT_COMPILE_ERROR(f(p) = 1, "f_param_lhs");
}

TEST(DefinitionError, RedefinitionReplacingPureDefinition) {
    Var x("x");
    Func f("f_redef");
    f(x) = x;
    EXPECT_COMPILE_ERROR(f(x) = x * 2, "f_redef");
    // Referring to f, using an RDom or a non-pure argument makes it an update.
    EXPECT_NO_THROW(f(x) = f(x) * 2);
    EXPECT_NO_THROW(f(0) = 5);
    EXPECT_EQ(f.num_update_definitions(), 2);
}

TEST(DefinitionError, UpdateMovesPureVar) {
    Var x("xm"), y("ym");
    Func f("f_moved");
    f(x, y) = x + y;
    EXPECT_COMPILE_ERROR(f(y, x) = f(x, y) + 1, "f_moved", "ym");
    EXPECT_COMPILE_ERROR(f(x + 1, y) = f(x, y) + 1, "f_moved", "xm");
    EXPECT_COMPILE_ERROR(f(x, 0) = f(x, 1) + y, "f_moved", "ym");
}

TEST(DefinitionError, UpdateWithOtherVarAtPurePosition) {
    Var x("x"), z("zother");
    Func f("f_other");
    f(x) = x;
    EXPECT_COMPILE_ERROR(f(z) = f(z) + 1, "f_other", "zother");
}

TEST(DefinitionError, RecursiveCallMustKeepPureVars) {
    Var x("xr"), y("yr");
    Func f("f_rec");
    f(x, y) = x + y;
    EXPECT_COMPILE_ERROR(f(x, y) = f(x + 1, y), "f_rec", "xr");
}

TEST(DefinitionError, UndefinedVariableOnRightHandSide) {
    Var x("x"), y("yfree");
    Func f("f_free");
    EXPECT_COMPILE_ERROR(f(x) = x + y, "Undefined variable yfree", "f_free");
    Func g("g_free");
    g(x) = x;
    EXPECT_COMPILE_ERROR(g(0) = y, "yfree", "g_free");
}

TEST(DefinitionError, TupleSizeMismatch) {
    Var x("x");
    Func f("f_tsize");
    f(x) = Tuple(x, x * 2);
    EXPECT_COMPILE_ERROR(f(0) = Tuple(1, 2, 3), "f_tsize", "3", "2");
    EXPECT_COMPILE_ERROR(f(0) = 1, "f_tsize");
}

TEST(DefinitionError, UpdateTypeMismatch) {
    Var x("x");
    Func f("f_type");
    f(x) = x;
    EXPECT_COMPILE_ERROR(f(x) += 0.5f, "f_type", "float32", "int32");
    EXPECT_COMPILE_ERROR(f(x) = cast<uint8_t>(f(x)), "f_type", "uint8");
    Func g("g_ttype");
    g(x) = Tuple(x, cast<float>(x));
    EXPECT_COMPILE_ERROR(g(x) = Tuple(g(x)[0], g(x)[0]), "g_ttype", "element 1");
}

TEST(DefinitionError, TupleFuncUsedAsExpr) {
    Var x("x");
    Func f("f_tuple_expr");
    f(x) = Tuple(x, x);
    Func g("g_tuple_user");
    EXPECT_COMPILE_ERROR(g(x) = f(x) + 1, "f_tuple_expr", "[i]");
    EXPECT_COMPILE_ERROR(Expr e = f(x)[2], "f_tuple_expr", "2");
    Func h("h_single");
    h(x) = x;
    EXPECT_COMPILE_ERROR(Expr e = h(x)[0], "h_single");
}

TEST(DefinitionError, CallOfUndefinedFunc) {
    Var x("x");
    Func f("f_undef"), g("g_caller");
    EXPECT_COMPILE_ERROR(g(x) = f(x), "f_undef");
}

TEST(DefinitionError, TwoRDomsInOneUpdate) {
    Var x("x");
    RDom r1(0, 3, "rone"), r2(0, 4, "rtwo");
    Func f("f_two_rdoms");
    f(x) = 0;
    EXPECT_COMPILE_ERROR(f(r1) += r2, "f_two_rdoms", "rone", "rtwo");
}

TEST(DefinitionError, FloatCoordinates) {
    Var x("x");
    Func f("f_float_coord");
    f(x) = x;
    Func g("g_float_coord");
    EXPECT_COMPILE_ERROR(g(x) = f(cast<float>(x)), "f_float_coord", "float32");
    Buffer<int> b(std::vector<int>{4}, "b_float_coord");
    EXPECT_COMPILE_ERROR(g(x) = b(x * 0.5f), "b_float_coord");
}

TEST(DefinitionError, ImplicitVarsWithoutPlaceholder) {
    Var x("x");
    Func f("f_impl_src");
    f(x) = x;
    Func g("g_no_placeholder");
    EXPECT_COMPILE_ERROR(g(x) = f(_) + x, "g_no_placeholder", "_");
}

TEST(DefinitionError, InvalidFuncNames) {
    EXPECT_COMPILE_ERROR(Func bad{std::string()}, "name");
    EXPECT_COMPILE_ERROR(Func bad_dot{"a.b"}, "a.b");
}

TEST(DefinitionError, FailedDefinitionLeavesFuncUsable) {
    Var x("x"), y("y");
    Func f("f_after_error");
    EXPECT_COMPILE_ERROR(f(x) = x + y, "f_after_error");
    EXPECT_FALSE(f.defined());
    f(x) = x * 3;
    EXPECT_TRUE(f.defined());
    EXPECT_EQ(f.dimensions(), 1);
}

TEST(DefinitionError, WhereAfterUse) {
    Var x("x");
    RDom r(0, 10, "rfrozen");
    r.where(r.x > 2);  // fine before use
    Func f("f_where");
    f(x) = 0;
    f(r) += 1;
    EXPECT_COMPILE_ERROR(r.where(r.x < 8), "rfrozen", "where");
}

TEST(DefinitionError, BoundOnNonPureVar) {
    Var x("x"), z("zbound");
    Func f("f_bound");
    f(x) = x;
    EXPECT_COMPILE_ERROR(f.bound(z, 0, 10), "f_bound", "zbound");
    EXPECT_COMPILE_ERROR(f.bound(x, 0.5f, 10), "f_bound", "float32");
}

TEST(DefinitionError, UpdateIndexOutOfRange) {
    Var x("x");
    Func f("f_update_index");
    f(x) = x;
    EXPECT_COMPILE_ERROR(f.update(0), "f_update_index", "update(0)");
}

}  // namespace
