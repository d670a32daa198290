// GeneratorParam: parsing the string form of every value type, ranges,
// enums, and the errors, which name the generator and the parameter.

#include <gtest/gtest.h>

#include <limits>

#include "lang/LangTestUtil.h"
#include "loom/Generator.h"

namespace {

using namespace loom;

enum class Color { Red, Green, Blue };

class AllParams : public Generator<AllParams> {
public:
    GeneratorParam<int8_t> i8{"i8", 0};
    GeneratorParam<int16_t> i16{"i16", 0};
    GeneratorParam<int32_t> i32{"i32", 7};
    GeneratorParam<int64_t> i64{"i64", 0};
    GeneratorParam<uint8_t> u8{"u8", 0};
    GeneratorParam<uint16_t> u16{"u16", 0};
    GeneratorParam<uint32_t> u32{"u32", 0};
    GeneratorParam<uint64_t> u64{"u64", 0};
    GeneratorParam<int> ranged{"ranged", 4, 1, 16};
    GeneratorParam<float> f32{"f32", 0.5f};
    GeneratorParam<double> f64{"f64", 0.25};
    GeneratorParam<float> franged{"franged", 1.0f, 0.0f, 2.0f};
    GeneratorParam<bool> flag{"flag", false};
    GeneratorParam<Type> type{"type", UInt(8)};
    GeneratorParam<std::string> label{"label", "none"};
    GeneratorParam<Color> color{"color", Color::Green, {{"red", Color::Red}, {"green", Color::Green}, {"blue", Color::Blue}}};
    Output<Buffer<int>> out{"out", 1};

    void generate() { out(x) = x + i32; }
    Var x{"x"};
};
LOOM_REGISTER_GENERATOR(AllParams, all_params)

TEST(GeneratorParam, Defaults) {
    AllParams g;
    EXPECT_EQ(g.name(), "all_params");
    EXPECT_EQ(int(g.i32), 7);
    EXPECT_EQ(float(g.f32), 0.5f);
    EXPECT_FALSE(g.flag);
    EXPECT_EQ(Type(g.type), UInt(8));
    EXPECT_EQ(std::string(g.label), "none");
    EXPECT_EQ(g.color, Color::Green);
}

TEST(GeneratorParam, ParsesIntegers) {
    AllParams g;
    g.set_generator_param("i8", "-128");
    g.set_generator_param("i16", "32767");
    g.set_generator_param("i32", "+42");
    g.set_generator_param("i64", "-9223372036854775808");
    g.set_generator_param("u8", "255");
    g.set_generator_param("u16", "65535");
    g.set_generator_param("u32", "4294967295");
    g.set_generator_param("u64", "18446744073709551615");
    g.set_generator_param("ranged", "16");
    EXPECT_EQ(g.i8.value(), -128);
    EXPECT_EQ(g.i16.value(), 32767);
    EXPECT_EQ(g.i32.value(), 42);
    EXPECT_EQ(g.i64.value(), std::numeric_limits<int64_t>::min());
    EXPECT_EQ(g.u8.value(), 255);
    EXPECT_EQ(g.u16.value(), 65535);
    EXPECT_EQ(g.u32.value(), 4294967295u);
    EXPECT_EQ(g.u64.value(), std::numeric_limits<uint64_t>::max());
    EXPECT_EQ(g.ranged.value(), 16);
}

TEST(GeneratorParam, IntegerErrors) {
    AllParams g;
    EXPECT_COMPILE_ERROR(g.set_generator_param("i32", "abc"), "all_params", "'i32'", "integer", "'abc'");
    EXPECT_COMPILE_ERROR(g.set_generator_param("i32", "12x"), "'i32'", "'12x'");
    EXPECT_COMPILE_ERROR(g.set_generator_param("i32", ""), "'i32'");
    EXPECT_COMPILE_ERROR(g.set_generator_param("i32", "1.5"), "'i32'", "'1.5'");
    EXPECT_COMPILE_ERROR(g.set_generator_param("i8", "128"), "all_params", "'i8'", "128", "[-128, 127]");
    EXPECT_COMPILE_ERROR(g.set_generator_param("i32", "2147483648"), "'i32'", "2147483648");
    EXPECT_COMPILE_ERROR(g.set_generator_param("i64", "9223372036854775808"), "'i64'", "64 bits");
    EXPECT_COMPILE_ERROR(g.set_generator_param("u8", "256"), "'u8'", "[0, 255]");
    EXPECT_COMPILE_ERROR(g.set_generator_param("u8", "-1"), "'u8'", "non-negative", "'-1'");
    EXPECT_COMPILE_ERROR(g.set_generator_param("ranged", "0"), "'ranged'", "0", "[1, 16]");
    EXPECT_COMPILE_ERROR(g.set_generator_param("ranged", "17"), "'ranged'", "[1, 16]");
    // A failed set leaves the value alone.
    EXPECT_EQ(g.i32.value(), 7);
    EXPECT_EQ(g.ranged.value(), 4);
}

TEST(GeneratorParam, ParsesFloats) {
    AllParams g;
    g.set_generator_param("f32", "1.25");
    g.set_generator_param("f64", "-3e-2");
    g.set_generator_param("franged", "2");
    EXPECT_EQ(g.f32.value(), 1.25f);
    EXPECT_EQ(g.f64.value(), -3e-2);
    EXPECT_EQ(g.franged.value(), 2.0f);
    EXPECT_EQ(g.f32.value_string(), "1.25");
    g.set_generator_param("f32", "0.1");
    EXPECT_EQ(g.f32.value_string(), "0.1");  // printed as the float it is, parsable back
    EXPECT_COMPILE_ERROR(g.set_generator_param("f32", "fast"), "all_params", "'f32'", "number", "'fast'");
    EXPECT_COMPILE_ERROR(g.set_generator_param("f64", "1.0.0"), "'f64'");
    EXPECT_COMPILE_ERROR(g.set_generator_param("f64", " 1"), "'f64'");
    EXPECT_COMPILE_ERROR(g.set_generator_param("franged", "2.5"), "'franged'", "[0, 2]");
    EXPECT_COMPILE_ERROR(g.set_generator_param("f32", "1e300"), "'f32'");
}

TEST(GeneratorParam, ParsesBools) {
    AllParams g;
    g.set_generator_param("flag", "true");
    EXPECT_TRUE(g.flag);
    g.set_generator_param("flag", "0");
    EXPECT_FALSE(g.flag);
    g.set_generator_param("flag", "1");
    EXPECT_TRUE(g.flag);
    g.set_generator_param("flag", "false");
    EXPECT_FALSE(g.flag);
    EXPECT_COMPILE_ERROR(g.set_generator_param("flag", "yes"), "all_params", "'flag'", "true or false", "'yes'");
    EXPECT_COMPILE_ERROR(g.set_generator_param("flag", "True"), "'flag'");
}

TEST(GeneratorParam, ParsesTypes) {
    AllParams g;
    const std::vector<std::pair<std::string, Type>> cases = {
        {"bool", Bool()},      {"int8", Int(8)},       {"int16", Int(16)},     {"int32", Int(32)},
        {"int64", Int(64)},    {"uint8", UInt(8)},     {"uint16", UInt(16)},   {"uint32", UInt(32)},
        {"uint64", UInt(64)},  {"float16", Float(16)}, {"float32", Float(32)}, {"float64", Float(64)},
    };
    for (const auto &[text, type] : cases) {
        g.set_generator_param("type", text);
        EXPECT_EQ(g.type.value(), type) << text;
        EXPECT_EQ(g.type.value_string(), text);
    }
    EXPECT_COMPILE_ERROR(g.set_generator_param("type", "float"), "all_params", "'type'", "'float'", "float32",
                         "uint8");
    EXPECT_COMPILE_ERROR(g.set_generator_param("type", "int"), "'type'", "int32");
}

TEST(GeneratorParam, ParsesStringsAndEnums) {
    AllParams g;
    g.set_generator_param("label", "hello world");
    EXPECT_EQ(g.label.value(), "hello world");
    g.set_generator_param("color", "blue");
    EXPECT_EQ(g.color.value(), Color::Blue);
    EXPECT_EQ(g.color.value_string(), "blue");
    EXPECT_EQ(g.color.default_string(), "green");
    EXPECT_COMPILE_ERROR(g.set_generator_param("color", "purple"), "all_params", "'color'", "'purple'",
                         "blue, green, red");
    EXPECT_EQ(g.color.value(), Color::Blue);
}

TEST(GeneratorParam, SetInCpp) {
    AllParams g;
    g.ranged = 8;
    g.color = Color::Red;
    EXPECT_EQ(g.ranged.value(), 8);
    EXPECT_EQ(g.color.value_string(), "red");
    EXPECT_COMPILE_ERROR(g.ranged = 99, "all_params", "'ranged'", "[1, 16]");
}

TEST(GeneratorParam, UnknownParamListsValidOnes) {
    AllParams g;
    EXPECT_COMPILE_ERROR(g.set_generator_param("colour", "red"), "all_params", "'colour'", "color", "i32", "target");
}

TEST(GeneratorParam, TargetParam) {
    AllParams g;
    g.set_generator_param("target", "x86-64-linux-avx2");
    EXPECT_EQ(g.get_target().to_string(), "x86-64-linux-avx2");
    EXPECT_EQ(g.natural_vector_size<float>(), 8);
    EXPECT_EQ(g.natural_vector_size<uint8_t>(), 32);
    EXPECT_COMPILE_ERROR(g.set_generator_param("target", "x86-64-linux-avx9"), "all_params", "avx9");
}

TEST(GeneratorParam, Listing) {
    AllParams g;
    g.set_generator_param("i32", "3");
    std::vector<GeneratorParamInfo> params = g.generator_params();
    ASSERT_EQ(params.size(), 16u);
    EXPECT_EQ(params[0].name, "i8");
    EXPECT_EQ(params[0].type, "int8");
    EXPECT_EQ(params[2].name, "i32");
    EXPECT_EQ(params[2].default_value, "7");
    EXPECT_EQ(params[2].value, "3");
    EXPECT_EQ(params[12].type, "bool");
    EXPECT_EQ(params[12].default_value, "false");
    EXPECT_EQ(params[13].type, "Type");
    EXPECT_EQ(params[13].default_value, "uint8");
    EXPECT_EQ(params[15].type, "enum {blue, green, red}");
}

TEST(GeneratorParam, FrozenOnceBuilt) {
    AllParams g;
    g.set_generator_param("i32", "5");
    Buffer<int> out = g.realize({4})[0];
    EXPECT_EQ(out(3), 8);
    EXPECT_COMPILE_ERROR(g.set_generator_param("i32", "6"), "all_params", "'i32'", "after the pipeline was built");
    EXPECT_COMPILE_ERROR(g.set_generator_param("target", "host"), "all_params", "target");
}

TEST(GeneratorParam, OutsideAGenerator) {
    EXPECT_COMPILE_ERROR(GeneratorParam<int>("lonely", 1), "'lonely'", "member", "Generator");
    EXPECT_COMPILE_ERROR(Input<float>("lonely_input"), "Input", "Generator");
    EXPECT_COMPILE_ERROR((Output<Buffer<int>>("lonely_output", 1)), "Output", "Generator");
}

}  // namespace

namespace {

using namespace loom;

// Numeric GeneratorParams are usable where the API takes an Expr and in
// arithmetic with ints, Vars and Exprs (the header's own example).
class ParamsAsExprs : public Generator<ParamsAsExprs> {
public:
    GeneratorParam<int> vector_width{"vector_width", 8};
    GeneratorParam<float> gain{"gain", 2.0f};
    Input<Buffer<float>> input{"input", 1};
    Output<Buffer<float>> output{"output", 1};
    Var x{"x"};

    void generate() {
        Expr offset = vector_width;
        int twice = vector_width * 2;
        output(x) = input(x) * gain + vector_width * x + offset + twice;
    }
    void schedule() { output.vectorize(x, vector_width); }
};

TEST(GeneratorParam, ConvertsToExpr) {
    ParamsAsExprs g;
    Buffer<float> in(32);
    for (int i = 0; i < 32; i++) in(i) = float(i) * 0.5f;
    g.input.set(in);
    Buffer<float> out = g.realize({32})[0];
    for (int i = 0; i < 32; i++) EXPECT_EQ(out(i), in(i) * 2.0f + 8 * i + 8 + 16) << i;
}

}  // namespace
