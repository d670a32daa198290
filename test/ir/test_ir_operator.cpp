// Halide's implicit type rules and the language's operator functions.
#include <gtest/gtest.h>

#include "ir/IR.h"
#include "ir/IRUtil.h"
#include "loom/Error.h"
#include "loom/IROperator.h"

using namespace loom;
using namespace loom::internal;

namespace {

Expr var(Type t, const std::string &name = "v") { return Variable::make(t, name); }

// The message of the CompileError that f throws, or "" if it does not throw.
template<typename F>
std::string compile_error_of(F f) {
    try {
        f();
    } catch (const CompileError &e) {
        return e.what();
    }
    return "";
}

}  // namespace

// ---------------------------------------------------------------- coercion table

struct CoercionCase {
    const char *what;
    Expr result;
    Type expected;
};

TEST(IROperatorTest, CoercionTable) {
    Expr u8 = var(UInt(8)), u16 = var(UInt(16)), u32 = var(UInt(32));
    Expr i8 = var(Int(8)), i16 = var(Int(16)), i32 = var(Int(32));
    Expr f32 = var(Float(32)), f64 = var(Float(64));
    Expr b = var(Bool());
    std::vector<CoercionCase> cases = {
        {"u8 + 1", u8 + 1, UInt(8)},
        {"1 + u8", 1 + u8, UInt(8)},
        {"u8 + i32", u8 + i32, Int(32)},
        {"i16 * u8", i16 * u8, Int(16)},
        {"u32 + i8", u32 + i8, Int(32)},
        {"u8 + u16", u8 + u16, UInt(16)},
        {"i8 - i32", i8 - i32, Int(32)},
        {"i32 + f32", i32 + f32, Float(32)},
        {"u16 * f64", u16 * f64, Float(64)},
        {"f32 + f64", f32 + f64, Float(64)},
        {"f32 + 0.5 (double literal)", f32 + 0.5, Float(32)},
        {"f64 * 0.5f", f64 * 0.5f, Float(64)},
        {"i32 + 0.5f", i32 + 0.5f, Float(32)},
        {"i32 + 0.5 (double literal)", i32 + 0.5, Float(64)},
        {"u8 / 2", u8 / 2, UInt(8)},
        {"i16 % 3", i16 % 3, Int(16)},
        {"f32 * 2", f32 * 2, Float(32)},
        {"u8 < 3", u8 < 3, Bool()},
        {"f32 >= i32", f32 >= i32, Bool()},
        {"b == true-ish 1", b == 1, Bool()},
        {"Expr(3) + u8 (Int(32) Expr, not a literal)", Expr(3) + u8, Int(32)},
        {"min(u8, 3)", min(u8, 3), UInt(8)},
        {"max(i16, u8)", max(i16, u8), Int(16)},
        {"max(i32, 0.5f)", max(i32, 0.5f), Float(32)},
        {"-u8", -u8, UInt(8)},
    };
    for (const CoercionCase &c : cases) EXPECT_EQ(c.result.type(), c.expected) << c.what;
}

TEST(IROperatorTest, LiteralTakesTheOtherOperandsType) {
    Expr u8 = var(UInt(8));
    Expr e = u8 + 1;
    const Add *add = e.as<Add>();
    ASSERT_NE(add, nullptr);
    EXPECT_TRUE(add->a.same_as(u8));
    ASSERT_NE(add->b.as<UIntImm>(), nullptr);
    EXPECT_EQ(add->b.as<UIntImm>()->value, 1u);

    Expr f = var(Float(32)) * 2;
    ASSERT_NE(f.as<Mul>()->b.as<FloatImm>(), nullptr);
    EXPECT_EQ(f.as<Mul>()->b.type(), Float(32));
}

TEST(IROperatorTest, LiteralThatDoesNotFitIsAnError) {
    Expr u8 = var(UInt(8), "pixel");
    std::string msg = compile_error_of([&] { return 300 + u8; });
    EXPECT_NE(msg.find("300"), std::string::npos) << msg;
    EXPECT_NE(msg.find("uint8"), std::string::npos) << msg;
    EXPECT_NE(msg.find("pixel"), std::string::npos) << msg;
    EXPECT_THROW(u8 + -1, CompileError);
    EXPECT_THROW(var(Int(8)) * 200, CompileError);
    EXPECT_THROW(min(u8, 256), CompileError);
    EXPECT_NO_THROW(var(Int(8)) * -128);
}

TEST(IROperatorTest, IntegerMixedWithFloatCastsTheInteger) {
    Expr i = var(Int(32), "i");
    Expr e = i + var(Float(32), "f");
    const Add *add = e.as<Add>();
    ASSERT_NE(add, nullptr);
    ASSERT_NE(add->a.as<Cast>(), nullptr);
    EXPECT_EQ(add->a.type(), Float(32));
}

TEST(IROperatorTest, VectorsAndScalars) {
    Expr x = var(Int(32), "x");
    Expr v = Ramp::make(x, Expr(1), 4);
    Expr s = v + x;
    EXPECT_EQ(s.type(), Int(32, 4));
    EXPECT_NE(s.as<Add>()->b.as<Broadcast>(), nullptr);
    EXPECT_EQ((v * 2).type(), Int(32, 4));
    EXPECT_EQ((v + var(Float(32))).type(), Float(32, 4));
    EXPECT_EQ((var(UInt(8)) + Ramp::make(var(Int(16)), Expr((int16_t)1), 8)).type(), Int(16, 8));
    EXPECT_EQ((v < 3).type(), Bool(4));
    EXPECT_THROW(v + Ramp::make(x, Expr(1), 8), CompileError);
}

TEST(IROperatorTest, DivisionAndModulusBuildNodes) {
    Expr x = var(Int(32), "x");
    EXPECT_NE((x / 3).as<Div>(), nullptr);
    EXPECT_NE((x % 3).as<Mod>(), nullptr);
    EXPECT_NE((var(Float(32)) / 3).as<Div>(), nullptr);
}

TEST(IROperatorTest, CompoundAssignment) {
    Expr e = var(UInt(8));
    e += 1;
    e *= 2;
    EXPECT_EQ(e.type(), UInt(8));
    EXPECT_NE(e.as<Mul>(), nullptr);
    // Like Halide, the left side keeps its type.
    e -= var(Int(32));
    EXPECT_EQ(e.type(), UInt(8));
    EXPECT_THROW(e += 256, CompileError);
    Expr f = var(Float(32));
    f /= 2;
    EXPECT_EQ(f.type(), Float(32));
}

TEST(IROperatorTest, LogicalOperatorsNeedBooleans) {
    Expr x = var(Int(32), "x");
    Expr c = x < 3;
    EXPECT_EQ((c && x > 1).type(), Bool());
    EXPECT_EQ((c || true).type(), Bool());
    EXPECT_EQ((!c).type(), Bool());
    EXPECT_THROW(!x, CompileError);
    EXPECT_THROW(x && c, CompileError);
    EXPECT_THROW(x + Expr(), CompileError);
}

TEST(IROperatorTest, BitwiseAndShifts) {
    Expr u8 = var(UInt(8)), i32 = var(Int(32));
    Expr a = u8 & 0xF;
    EXPECT_EQ(a.type(), UInt(8));
    ASSERT_NE(a.as<Call>(), nullptr);
    EXPECT_TRUE(a.as<Call>()->is_intrinsic(intrinsic::bitwise_and));
    EXPECT_EQ((u8 | i32).type(), Int(32));
    EXPECT_TRUE((u8 ^ u8).as<Call>()->is_intrinsic(intrinsic::bitwise_xor));
    EXPECT_TRUE((~u8).as<Call>()->is_intrinsic(intrinsic::bitwise_not));
    EXPECT_EQ((u8 << 2).type(), UInt(8));
    EXPECT_TRUE((u8 << 2).as<Call>()->is_intrinsic(intrinsic::shift_left));
    EXPECT_TRUE((i32 >> i32).as<Call>()->is_intrinsic(intrinsic::shift_right));
    EXPECT_EQ((i32 >> u8).type(), Int(32));
    EXPECT_THROW(var(Float(32)) & i32, CompileError);
    EXPECT_THROW(~var(Float(32)), CompileError);
    EXPECT_THROW(u8 & 300, CompileError);
}

TEST(IROperatorTest, CastAndReinterpret) {
    Expr x = var(Int(32), "x");
    EXPECT_TRUE(cast(Int(32), x).same_as(x));
    Expr c = cast<uint8_t>(x);
    ASSERT_NE(c.as<Cast>(), nullptr);
    EXPECT_EQ(c.type(), UInt(8));
    // Constants fold.
    ASSERT_NE(cast<float>(Expr(2)).as<FloatImm>(), nullptr);
    EXPECT_EQ(*as_const_uint(cast<uint8_t>(Expr(300))), 44u);
    EXPECT_EQ(*as_const_int(cast<int>(Expr(-2.7f))), -2);
    EXPECT_EQ(*as_const_uint(cast<bool>(Expr(5))), 1u);
    // A scalar type applied to a vector keeps the lanes.
    EXPECT_EQ(cast<float>(Ramp::make(x, Expr(1), 4)).type(), Float(32, 4));
    EXPECT_EQ(reinterpret<uint32_t>(var(Float(32))).type(), UInt(32));
    EXPECT_THROW(reinterpret<uint16_t>(var(Float(32))), CompileError);
}

TEST(IROperatorTest, Select) {
    Expr x = var(Int(32), "x"), u8 = var(UInt(8), "u");
    Expr c = x > 0;
    EXPECT_EQ(select(c, u8, 0).type(), UInt(8));
    EXPECT_EQ(select(c, var(Float(32)), 0.5).type(), Float(32));
    EXPECT_EQ(select(c, x, x < 5, 1, 2).type(), Int(32));
    std::string msg = compile_error_of([&] { return select(x, x, x); });
    EXPECT_NE(msg.find("boolean"), std::string::npos) << msg;
    EXPECT_THROW(select(c, u8, 256), CompileError);
    // A vector condition broadcasts scalar values.
    Expr v = Ramp::make(x, Expr(1), 4);
    EXPECT_EQ(select(v > 0, 1, 2).type(), Int(32, 4));
}

TEST(IROperatorTest, Clamp) {
    Expr u8 = var(UInt(8), "u");
    Expr e = clamp(u8, 10, 200);
    EXPECT_EQ(e.type(), UInt(8));
    ASSERT_NE(e.as<Max>(), nullptr);
    EXPECT_NE(e.as<Max>()->a.as<Min>(), nullptr);
    EXPECT_THROW(clamp(u8, 0, 300), CompileError);
    EXPECT_EQ(clamp(var(Float(32)), 0, 1).type(), Float(32));
    EXPECT_EQ(clamp(var(Int(16)), var(Int(32)), 5).type(), Int(16));
}

TEST(IROperatorTest, AbsAndAbsd) {
    Expr a = abs(var(Int(8)));
    EXPECT_EQ(a.type(), UInt(8));
    ASSERT_NE(a.as<Call>(), nullptr);
    EXPECT_TRUE(a.as<Call>()->is_intrinsic(intrinsic::abs));
    Expr u = var(UInt(16));
    EXPECT_TRUE(abs(u).same_as(u));
    EXPECT_EQ(abs(var(Float(32))).type(), Float(32));
    EXPECT_EQ(absd(var(Int(16)), var(Int(16))).type(), UInt(16));
    EXPECT_EQ(absd(var(Float(64)), var(Float(64))).type(), Float(64));
}

TEST(IROperatorTest, MathFunctionsArePureExternCalls) {
    auto name_of = [](const Expr &e) { return e.as<Call>() ? e.as<Call>()->name : std::string("(not a call)"); };
    Expr s = sin(var(Float(32)));
    const Call *c = s.as<Call>();
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->name, "sinf");
    EXPECT_EQ(c->call_type, CallType::PureExtern);
    EXPECT_EQ(name_of(sin(var(Float(64)))), "sin");
    Expr root = sqrt(var(Int(32)));
    const Call *ci = root.as<Call>();
    ASSERT_NE(ci, nullptr);
    EXPECT_EQ(ci->name, "sqrtf");
    EXPECT_EQ(ci->type, Float(32));
    EXPECT_NE(ci->args[0].as<Cast>(), nullptr);
    EXPECT_EQ(name_of(floor(var(Float(32)))), "floorf");
    EXPECT_EQ(name_of(ceil(var(Float(64)))), "ceil");
    EXPECT_EQ(name_of(round(var(Float(32)))), "nearbyintf");
    EXPECT_EQ(name_of(trunc(var(Float(32)))), "truncf");
    Expr power = pow(var(Float(64)), 2);
    const Call *p = power.as<Call>();
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->name, "pow");
    EXPECT_EQ(p->args[1].type(), Float(64));
    EXPECT_EQ(name_of(atan2(var(Float(32)), var(Float(32)))), "atan2f");
    EXPECT_EQ(sin(Ramp::make(var(Float(32)), Expr(1.0f), 4)).type(), Float(32, 4));
    EXPECT_EQ(fract(var(Float(32))).type(), Float(32));
    EXPECT_EQ(lerp(var(Float(32)), var(Float(32)), 0.25f).type(), Float(32));
    EXPECT_EQ(lerp(var(UInt(8)), var(UInt(8)), var(UInt(8))).type(), UInt(8));
}

TEST(IROperatorTest, FloatPredicates) {
    Expr f = var(Float(32));
    Expr n = is_nan(f);
    EXPECT_EQ(n.type(), Bool());
    EXPECT_TRUE(n.as<Call>()->is_intrinsic(intrinsic::is_nan));
    EXPECT_EQ(is_inf(f).type(), Bool());
    EXPECT_EQ(is_finite(f).type(), Bool());
    EXPECT_THROW(is_nan(var(Int(32))), CompileError);
}

TEST(IROperatorTest, PrintAndPrintWhen) {
    Expr x = var(Int(32), "x");
    Expr p = print(x, "is", 3);
    const Call *c = p.as<Call>();
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->name, intrinsic::print_value);
    EXPECT_EQ(c->type, Int(32));
    ASSERT_EQ(c->args.size(), 3u);
    EXPECT_TRUE(c->args[0].same_as(x));
    ASSERT_NE(c->args[1].as<StringImm>(), nullptr);
    EXPECT_EQ(c->args[1].as<StringImm>()->value, "is");

    Expr w = print_when(x > 0, var(Float(32), "f"), std::string("positive"));
    const Call *cw = w.as<Call>();
    ASSERT_NE(cw, nullptr);
    EXPECT_EQ(cw->name, intrinsic::print_value_when);
    EXPECT_EQ(cw->type, Float(32));
    ASSERT_EQ(cw->args.size(), 3u);
    EXPECT_EQ(cw->args[0].type(), Bool());
    EXPECT_THROW(print_when(x, x), CompileError);

    Expr l = likely(x > 0);
    EXPECT_TRUE(l.as<Call>()->is_intrinsic(intrinsic::likely));
}
