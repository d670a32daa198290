// Generators through the JIT: the pipeline a generator builds, checked against
// plain C++ loops; argument metadata; schedule(); and the errors.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "gens/TestGenerators.h"
#include "lang/LangTestUtil.h"

namespace {

using namespace loom;
using loom_test::Brighten;
using loom_test::TwoOutputs;
using loom_test::TypedAxpy;

/** Brighten vectorizes its output by the natural vector size (up to 64
 * uint8 lanes) with the default ShiftInwards tail, which, as in Halide,
 * needs images at least that wide. */
Buffer<uint8_t> ramp_image(int w, int h) {
    Buffer<uint8_t> b(w, h);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) b(x, y) = uint8_t((x * 7 + y * 13) % 256);
    }
    return b;
}

uint8_t brighten_reference(uint8_t in, float gain, int offset, bool add) {
    float v = float(in) * gain;
    v = add ? v + float(offset) : v * float(offset);
    return uint8_t(std::min(std::max(v, 0.0f), 255.0f));
}

void check_brighten(Brighten &g, const Buffer<uint8_t> &in, float gain, int offset, bool add) {
    g.input.set(in);
    g.gain.set(gain);
    Buffer<uint8_t> out = g.realize({in.width(), in.height()})[0];
    for (int y = 0; y < in.height(); y++) {
        for (int x = 0; x < in.width(); x++) {
            ASSERT_EQ(out(x, y), brighten_reference(in(x, y), gain, offset, add)) << "at " << x << ", " << y;
        }
    }
}

TEST(Generator, BrightenDefaults) {
    Brighten g;
    EXPECT_EQ(g.name(), "brighten");
    check_brighten(g, ramp_image(77, 5), 1.5f, 10, true);
}

TEST(Generator, BrightenParamsFromStrings) {
    Brighten g;
    g.set_generator_param_values({{"mode", "multiply"}, {"offset", "3"}, {"vectorize", "false"}});
    check_brighten(g, ramp_image(19, 4), 0.5f, 3, false);
}

TEST(Generator, RerunWithNewInputsDoesNotRebuild) {
    Brighten g;
    Buffer<uint8_t> a = ramp_image(64, 3);
    check_brighten(g, a, 1.0f, 10, true);
    Pipeline first = g.build_pipeline();
    check_brighten(g, ramp_image(90, 2), 2.0f, 10, true);
    EXPECT_EQ(g.build_pipeline().outputs()[0].name(), first.outputs()[0].name());
}

TEST(Generator, CreatedFromRegistry) {
    std::unique_ptr<GeneratorBase> g = GeneratorRegistry::create("brighten");
    EXPECT_EQ(g->name(), "brighten");
    auto *b = dynamic_cast<Brighten *>(g.get());
    ASSERT_NE(b, nullptr);
    b->set_generator_param("offset", "-20");
    check_brighten(*b, ramp_image(69, 9), 1.25f, -20, true);

    std::vector<std::string> names = GeneratorRegistry::enumerate();
    EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
    EXPECT_NE(std::find(names.begin(), names.end(), "typed_axpy"), names.end());
    EXPECT_COMPILE_ERROR(GeneratorRegistry::create("brigthen"), "'brigthen'", "brighten", "typed_axpy");
}

TEST(Generator, ArgumentsInDeclarationOrderOutputsLast) {
    TypedAxpy g;
    std::vector<Argument> args = g.arguments();
    ASSERT_EQ(args.size(), 4u);
    EXPECT_EQ(args[0].name, "a");
    EXPECT_EQ(args[0].kind, Argument::InputBuffer);
    EXPECT_EQ(args[0].type, Float(32));
    EXPECT_EQ(args[0].dimensions, 1);
    EXPECT_EQ(args[1].name, "scale");
    EXPECT_EQ(args[1].kind, Argument::InputScalar);
    EXPECT_EQ(args[1].type, Float(32));
    EXPECT_EQ(args[2].name, "b");
    EXPECT_EQ(args[2].kind, Argument::InputBuffer);
    EXPECT_EQ(args[3].name, "out");
    EXPECT_EQ(args[3].kind, Argument::OutputBuffer);
    EXPECT_FALSE(args[3].type.defined());  // Output<Buffer<>>: known once generate() has run
    EXPECT_EQ(g.input_arguments().size(), 3u);

    g.set_generator_param("type", "int16");
    g.build_pipeline();
    EXPECT_EQ(g.arguments()[3].type, Int(16));
}

TEST(Generator, TypeParamChoosesOutputType) {
    TypedAxpy g;
    g.set_generator_param("type", "int32");
    Buffer<float> a(10), b(10);
    for (int i = 0; i < 10; i++) {
        a(i) = 0.75f * i;
        b(i) = 10.0f - i;
    }
    g.a.set(a);
    g.b.set(b);
    g.scale.set(3.0f);
    Buffer<int32_t> out = g.realize({10})[0];
    for (int i = 0; i < 10; i++) EXPECT_EQ(out(i), int32_t(a(i) * 3.0f + b(i))) << i;
}

TEST(Generator, TupleAndSecondOutput) {
    TwoOutputs g;
    std::vector<Argument> args = g.arguments();
    ASSERT_EQ(args.size(), 5u);
    EXPECT_EQ(args[2].name, "sum_diff.0");
    EXPECT_EQ(args[3].name, "sum_diff.1");
    EXPECT_EQ(args[4].name, "prod");
    EXPECT_EQ(args[4].kind, Argument::OutputBuffer);

    Buffer<int32_t> a(8);
    for (int i = 0; i < 8; i++) a(i) = i * i - 5;
    g.a.set(a);
    g.b.set(3);
    Realization r = g.realize({8});
    ASSERT_EQ(r.size(), 3u);
    Buffer<int32_t> sum = r[0], diff = r[1], prod = r[2];
    for (int i = 0; i < 8; i++) {
        EXPECT_EQ(sum(i), a(i) + 3);
        EXPECT_EQ(diff(i), a(i) - 3);
        EXPECT_EQ(prod(i), a(i) * 3);
    }
}

std::string loop_nest_of(GeneratorBase &g) {
    Pipeline p = g.build_pipeline();
    testing::internal::CaptureStdout();
    p.print_loop_nest();
    return testing::internal::GetCapturedStdout();
}

TEST(Generator, ScheduleIsApplied) {
    Brighten vectorized;
    vectorized.set_target(Target("x86-64-linux-avx2"));
    EXPECT_NE(loop_nest_of(vectorized).find("vectorized"), std::string::npos) << loop_nest_of(vectorized);
    EXPECT_EQ(vectorized.natural_vector_size<uint8_t>(), 32);

    Brighten plain;
    plain.set_generator_param("vectorize", "false");
    EXPECT_EQ(loop_nest_of(plain).find("vectorized"), std::string::npos) << loop_nest_of(plain);
}

// ---- Errors -------------------------------------------------------------------------

class LeavesOutputUndefined : public Generator<LeavesOutputUndefined> {
public:
    Input<Buffer<float>> in{"in", 2};
    Output<Buffer<float>> result{"result", 2};
    void generate() {}
};
LOOM_REGISTER_GENERATOR(LeavesOutputUndefined, leaves_output_undefined)

class ReadsInputWrongly : public Generator<ReadsInputWrongly> {
public:
    Input<Buffer<float>> in{"in", 2};
    Output<Buffer<float>> result{"result", 1};
    void generate() { result(x) = in(x); }
    Var x;
};
LOOM_REGISTER_GENERATOR(ReadsInputWrongly, reads_input_wrongly)

class WrongOutputShape : public Generator<WrongOutputShape> {
public:
    GeneratorParam<bool> wrong_type{"wrong_type", false};
    Output<Buffer<uint8_t>> result{"result", 2};
    void generate() {
        if (wrong_type) {
            result(x, y) = x + y;
        } else {
            result(x, y, c) = cast<uint8_t>(x);
        }
    }
    Var x, y, c;
};
LOOM_REGISTER_GENERATOR(WrongOutputShape, wrong_output_shape)

class NoOutputs : public Generator<NoOutputs> {
public:
    Input<float> in{"in"};
    void generate() {}
};

class DuplicateNames : public Generator<DuplicateNames> {
public:
    GeneratorParam<int> size{"size", 1};
    Input<Buffer<float>> in{"size", 1};
    Output<Buffer<float>> out{"out", 1};
    void generate() { out(x) = in(x); }
    Var x;
};

class BadSchedule : public Generator<BadSchedule> {
public:
    Output<Buffer<int>> out{"out", 1};
    void generate() { out(x) = x; }
    void schedule() { out.vectorize(y, 4); }
    Var x{"x"}, y{"y"};
};
LOOM_REGISTER_GENERATOR(BadSchedule, bad_schedule)

TEST(GeneratorErrors, OutputLeftUndefined) {
    LeavesOutputUndefined g;
    EXPECT_COMPILE_ERROR(g.build_pipeline(), "Generator 'leaves_output_undefined'", "Output 'result'", "not defined");
}

TEST(GeneratorErrors, SecondBuildReportsTheSameError) {
    WrongOutputShape g;
    EXPECT_COMPILE_ERROR(g.build_pipeline(), "Output 'result'", "3");
    EXPECT_COMPILE_ERROR(g.build_pipeline(), "Output 'result'", "3");
}

TEST(GeneratorErrors, InputReadWithWrongDimensions) {
    ReadsInputWrongly g;
    EXPECT_COMPILE_ERROR(g.build_pipeline(), "Generator 'reads_input_wrongly'", "in", "2 dimensions");
}

TEST(GeneratorErrors, OutputDefinedWithOtherShapeOrType) {
    WrongOutputShape dims;
    EXPECT_COMPILE_ERROR(dims.build_pipeline(), "Generator 'wrong_output_shape'", "Output 'result'", "2 dimensions",
                         "3");
    WrongOutputShape type;
    type.set_generator_param("wrong_type", "true");
    EXPECT_COMPILE_ERROR(type.build_pipeline(), "Generator 'wrong_output_shape'", "Output 'result'", "uint8", "int32");
}

TEST(GeneratorErrors, NoOutputs) {
    NoOutputs g;
    EXPECT_COMPILE_ERROR(g.build_pipeline(), "NoOutputs", "no Output");
}

TEST(GeneratorErrors, DuplicateNames) {
    DuplicateNames g;
    EXPECT_COMPILE_ERROR(g.build_pipeline(), "DuplicateNames", "'size'", "GeneratorParam", "Input");
}

TEST(GeneratorErrors, ScheduleErrorNamesGenerator) {
    BadSchedule g;
    EXPECT_COMPILE_ERROR(g.build_pipeline(), "Generator 'bad_schedule'", "y");
}

TEST(GeneratorErrors, InputTypeMismatchAtRun) {
    Brighten g;
    EXPECT_COMPILE_ERROR(g.input.set(Buffer<float>(4, 4)), "input", "uint8", "float32");
}

// ---- Smaller forms ----------------------------------------------------------------

class ScalarOutputAndFuncAssignment : public Generator<ScalarOutputAndFuncAssignment> {
public:
    Input<Buffer<int>> in{"in", 1};
    Output<int> total{"total"};
    Output<Buffer<int>> doubled{"doubled", 1};
    void generate() {
        RDom r(0, 4);
        total() = 0;
        total() += in(r.x);
        Func twice("twice");
        twice(x) = in(x) * 2;
        doubled = twice;
    }
    Var x{"x"};
};

TEST(Generator, ScalarOutputAndFuncAssignment) {
    ScalarOutputAndFuncAssignment g;
    Buffer<int> in(4);
    for (int i = 0; i < 4; i++) in(i) = 10 * i + 1;
    g.in.set(in);
    Buffer<int> total(std::vector<int>{}), doubled(4);
    Realization r(std::vector<Buffer<>>{Buffer<>(total), Buffer<>(doubled)});
    g.realize(r);
    EXPECT_EQ(total(), 1 + 11 + 21 + 31);
    for (int i = 0; i < 4; i++) EXPECT_EQ(doubled(i), in(i) * 2);
    EXPECT_EQ(g.arguments()[1].name, "total");
    EXPECT_EQ(g.arguments()[1].dimensions, 0);
}

class UntypedInput : public Generator<UntypedInput> {
public:
    GeneratorParam<Type> type{"type", Int(16)};
    Input<Buffer<>> in{"in", Int(16), 1};
    Output<Buffer<>> out{"out", Int(16), 1};
    void generate() { out(x) = in(x) + cast(type, 1); }
    Var x;
};

TEST(Generator, UntypedBufferInputAndOutput) {
    UntypedInput g;
    Buffer<int16_t> in(5);
    for (int i = 0; i < 5; i++) in(i) = int16_t(-i);
    g.in.set(in);
    Buffer<int16_t> out = g.realize({5})[0];
    for (int i = 0; i < 5; i++) EXPECT_EQ(out(i), int16_t(1 - i));
    EXPECT_EQ(g.arguments()[0].type, Int(16));
}

}  // namespace
