// What a generator stub can be given and what it can pass through, as in
// Halide: Inputs and Outputs added by configure() (configured.stub.h, made
// by loom_add_stub), a Buffer for an Input<Buffer<>> (read directly, with
// its shape), a Func for an Input whose type() and dimensions() the
// generator reads, and scalar Inputs of the 16-bit float types
// (Input<float16_t>, Input<bfloat16_t>) through the JIT, a stub and a
// static library. Each result is compared with a plain C++ loop.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "aot/AotTestSupport.h"
#include "brighten.stub.h"
#include "configured.stub.h"
#include "gens/TestGenerators.h"
#include "lang/GeneratorDriver.h"
#include "lang/LangTestUtil.h"
#include "loom/Loom.h"

using namespace loom;
using internal::build_generator_stub;
using internal::StubInput;
using internal::StubInputBuffer;

namespace {

uint8_t brighten_add(uint8_t in, float gain, int offset) {
    float v = (float)in * gain + (float)offset;
    return (uint8_t)std::min(std::max(v, 0.0f), 255.0f);
}

}  // namespace

/** Reads its open Input's type() and dimensions() in generate():
 * out(x[, y]) = int32(in(x[, y])) * (bits of in's type) + dimensions. */
class StubTypeReader : public loom::Generator<StubTypeReader> {
public:
    Input<Buffer<>> in{"in"};
    Output<Buffer<int32_t>> out{"out"};
    void generate() {
        const int k = in.type().bits();
        if (in.dimensions() == 2) {
            out(x, y) = loom::cast<int32_t>(in(x, y)) * k + in.dimensions();
        } else {
            out(x) = loom::cast<int32_t>(in(x)) * k + in.dimensions();
        }
    }
    Var x{"x"}, y{"y"};
};
LOOM_REGISTER_GENERATOR(StubTypeReader, stub_type_reader)

/** Reads its Input's shape: out(x) = in(x) * 2 + in.dim(0).min() + in.width(). */
class StubWidthReader : public loom::Generator<StubWidthReader> {
public:
    Input<Buffer<int32_t>> in{"in", 1};
    Output<Buffer<int32_t>> out{"out", 1};
    void generate() { out(x) = in(x) * 2 + in.dim(0).min() + in.width(); }
    Var x{"x"};
};
LOOM_REGISTER_GENERATOR(StubWidthReader, stub_width_reader)

/** Scalar Inputs of the 16-bit float types:
 * out(x) = in(x) * scale + float16(shift) (Float(16) arithmetic). */
class HalfInputs : public loom::Generator<HalfInputs> {
public:
    Input<Buffer<float16_t>> in{"in", 1};
    Input<float16_t> scale{"scale", float16_t(1.0f)};
    Input<bfloat16_t> shift{"shift"};
    Output<Buffer<float16_t>> out{"out", 1};
    void generate() { out(x) = in(x) * scale + loom::cast<float16_t>(shift); }
    Var x{"x"};
};
LOOM_REGISTER_GENERATOR(HalfInputs, stub_half_inputs)

/** An array of Float(16) scalars: out(x) = in(x) * k[0] + k[1]. */
class HalfArray : public loom::Generator<HalfArray> {
public:
    Input<Buffer<float16_t>> in{"in", 1};
    Input<float16_t[2]> k{"k", float16_t(1.0f)};
    Output<Buffer<float16_t>> out{"out", 1};
    void generate() { out(x) = in(x) * k[0] + k[1]; }
    Var x{"x"};
};
LOOM_REGISTER_GENERATOR(HalfArray, stub_half_array)

namespace {

float16_t half_input(int x) { return float16_t((float)x * 0.3f - 2.0f); }

float16_t half_reference(int x, float16_t scale, bfloat16_t shift) {
    return half_input(x) * scale + float16_t(float(shift));
}

}  // namespace

TEST(GeneratorStubInputs, InputsAndOutputsAddedByConfigure) {
    // configured.stub.h was written with configured's defaults: extra_inputs=1, with_scale=false.
    Var x("x");
    Func a("a");
    a(x) = x * 3;
    Buffer<int32_t> extra(12);
    for (int i = 0; i < 12; i++) extra(i) = 100 - i * i;
    loom_stub::configured::Inputs in;
    in.a = a;
    in.extra0 = extra;  // added by configure(); a Buffer
    loom_stub::configured::GeneratorParams gp;
    EXPECT_EQ(gp.extra_inputs, 1);
    loom_stub::configured::Outputs out = loom_stub::configured::generate(GeneratorContext(), in, gp);
    Realization r = out.realize({12});  // out, then twice (added by configure())
    ASSERT_EQ(r.size(), 2u);
    for (int i = 0; i < 12; i++) {
        EXPECT_EQ(Buffer<int32_t>(r[0])(i), i * 3 + 100 - i * i) << i;
        EXPECT_EQ(Buffer<int32_t>(r[1])(i), 2 * (i * 3 + 100 - i * i)) << i;
    }
    // twice alone, used by the caller.
    Func doubled("doubled");
    doubled(x) = out.twice(x) + 1;
    Buffer<int32_t> d = doubled.realize({5});
    for (int i = 0; i < 5; i++) EXPECT_EQ(d(i), 2 * (i * 3 + 100 - i * i) + 1) << i;
}

TEST(GeneratorStubInputs, ConfigureWithOtherGeneratorParamsThanTheStubs) {
    Var x("x");
    Func a("a"), e("e");
    a(x) = x;
    e(x) = -x;
    loom_stub::configured::Inputs in;
    in.a = a;
    in.extra0 = e;
    loom_stub::configured::GeneratorParams scaled;
    scaled.with_scale = true;  // configure() adds 'scale', which this stub does not have
    EXPECT_COMPILE_ERROR(loom_stub::configured::generate(GeneratorContext(), in, scaled),
                         "Generator 'configured' (used as a stub): Input 'scale' is not given a value",
                         "configure() added it", "-e cpp_stub");
    loom_stub::configured::GeneratorParams none;
    none.extra_inputs = 0;  // configure() adds no 'extra0'
    EXPECT_COMPILE_ERROR(loom_stub::configured::generate(GeneratorContext(), in, none), "has no Input 'extra0'",
                         "GeneratorParams it was written for");
    // A stub whose Outputs differ from the generator's.
    EXPECT_COMPILE_ERROR(build_generator_stub("configured", GeneratorContext(), {},
                                              {StubInput("a", a), StubInput("extra0", e)}, {"out"}),
                         "has the Outputs 'out', 'twice'", "written for 'out'");
}

TEST(GeneratorStubInputs, TheStubHeaderHasTheConfiguredMembers) {
    std::unique_ptr<GeneratorBase> g = GeneratorRegistry::create("configured");
    g->set_generator_param("extra_inputs", "2");
    g->set_generator_param("with_scale", "true");
    const std::string text = internal::cpp_stub_text(*g, "loom_stub::configured");
    EXPECT_NE(text.find("loom::internal::StubInputBuffer extra0;"), std::string::npos) << text;
    EXPECT_NE(text.find("loom::internal::StubInputBuffer extra1;"), std::string::npos) << text;
    EXPECT_NE(text.find("loom::Expr scale;  // int32"), std::string::npos) << text;
    EXPECT_NE(text.find("loom::Func twice;"), std::string::npos) << text;
    // The GeneratorParams default to the values the stub is written for.
    EXPECT_NE(text.find("int32_t extra_inputs{2};"), std::string::npos) << text;
    EXPECT_NE(text.find("bool with_scale{true};"), std::string::npos) << text;
    EXPECT_NE(text.find("{\"out\", \"twice\"}"), std::string::npos) << text;
    // Input<Func> stays a Func; arrays are vectors of Funcs.
    std::unique_ptr<GeneratorBase> f = GeneratorRegistry::create("func_inputs");
    const std::string func_text = internal::cpp_stub_text(*f, "loom_stub::func_inputs");
    EXPECT_NE(func_text.find("loom::Func in;"), std::string::npos) << func_text;
}

TEST(GeneratorStubInputs, TheDriversStubHasTheMembersOfItsCommandLinesGeneratorParams) {
    // `-e cpp_stub extra_inputs=2 with_scale=true` writes the members configure() adds for
    // those values, as cpp_stub_text does for a generator with them set.
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("loom_stub_driver_" + std::to_string(getpid()));
    fs::remove_all(dir);
    std::ostringstream out, err;
    const int code = internal::run_generator_command(
        internal::parse_generator_command(
            {"-g", "configured", "-o", dir.string(), "-e", "cpp_stub", "extra_inputs=2", "with_scale=true"}),
        out, err);
    ASSERT_EQ(code, 0) << err.str();
    const std::string text = loom_test::read_file((dir / "configured.stub.h").string());
    fs::remove_all(dir);
    EXPECT_NE(text.find("loom::internal::StubInputBuffer extra1;"), std::string::npos) << text;
    EXPECT_NE(text.find("loom::Expr scale;  // int32"), std::string::npos) << text;
    EXPECT_NE(text.find("int32_t extra_inputs{2};"), std::string::npos) << text;
}

TEST(GeneratorStubInputs, ABufferForABufferInput) {
    Buffer<uint8_t> image(21, 9);
    for (int y = 0; y < 9; y++)
        for (int x = 0; x < 21; x++) image(x, y) = (uint8_t)((x * 11 + y * 5) % 200);
    loom_stub::brighten::Inputs in;
    in.input = image;
    in.gain = 1.5f;
    loom_stub::brighten::GeneratorParams gp;
    gp.offset = -4;
    gp.vectorize = false;  // vectors wider than the Buffer would read outside it
    Func out = loom_stub::brighten::generate(GeneratorContext(), in, gp).output;
    Buffer<uint8_t> result = out.realize({21, 9});
    for (int y = 0; y < 9; y++)
        for (int x = 0; x < 21; x++) ASSERT_EQ(result(x, y), brighten_add(image(x, y), 1.5f, -4)) << x << "," << y;
}

TEST(GeneratorStubInputs, AGeneratorReadingTheShapeOfABufferInput) {
    Buffer<int32_t> b(10);
    b.set_min(3);
    for (int x = 3; x < 13; x++) b(x) = x * x;
    std::vector<std::vector<Func>> outs =
        build_generator_stub("stub_width_reader", GeneratorContext(), {}, {StubInput("in", StubInputBuffer(b))});
    Buffer<int32_t> result(10);
    result.set_min(3);
    outs[0][0].realize(result);
    for (int x = 3; x < 13; x++) EXPECT_EQ(result(x), x * x * 2 + 3 + 10) << x;

    // A Func has no shape: the message says to pass a Buffer.
    Var x("x");
    Func f("f");
    f(x) = x;
    EXPECT_COMPILE_ERROR(build_generator_stub("stub_width_reader", GeneratorContext(), {}, {StubInput("in", f)}),
                         "reads the buffer shape of Input 'in'", "Give that Input a Buffer instead");
}

TEST(GeneratorStubInputs, AGeneratorReadingTypeAndDimensionsOfAFunc) {
    Var x("x"), y("y");
    Func wide("wide");
    wide(x, y) = loom::cast<uint16_t>(x * 1000 + y);
    std::vector<std::vector<Func>> outs =
        build_generator_stub("stub_type_reader", GeneratorContext(), {}, {StubInput("in", wide)});
    Buffer<int32_t> two_d = outs[0][0].realize({6, 4});
    for (int yy = 0; yy < 4; yy++)
        for (int xx = 0; xx < 6; xx++) EXPECT_EQ(two_d(xx, yy), (xx * 1000 + yy) * 16 + 2) << xx << "," << yy;

    // And from a Buffer: its type and dimensions.
    Buffer<uint8_t> bytes(7);
    for (int i = 0; i < 7; i++) bytes(i) = (uint8_t)(250 + i);  // wraps past 255
    outs = build_generator_stub("stub_type_reader", GeneratorContext(), {}, {StubInput("in", StubInputBuffer(bytes))});
    Buffer<int32_t> one_d = outs[0][0].realize({7});
    for (int i = 0; i < 7; i++) EXPECT_EQ(one_d(i), (int)(uint8_t)(250 + i) * 8 + 1) << i;
}

TEST(GeneratorStubInputs, BufferMistakesAreCompileErrors) {
    GeneratorContext ctx;
    Buffer<int16_t> wrong_type(4, 4);
    Buffer<uint8_t> wrong_dims(4);
    EXPECT_COMPILE_ERROR(build_generator_stub("brighten", ctx, {},
                                              {StubInput("input", StubInputBuffer(wrong_type)),
                                               StubInput("gain", Expr(1.0f))}),
                         "Input 'input' has element type uint8", "of type int16", "give it a Buffer of that type");
    EXPECT_COMPILE_ERROR(build_generator_stub("brighten", ctx, {},
                                              {StubInput("input", StubInputBuffer(wrong_dims)),
                                               StubInput("gain", Expr(1.0f))}),
                         "Input 'input' has 2 dimensions, but is bound to", "uffer", "with 1");
    // An empty StubInputBuffer: neither a Func with a definition nor a Buffer.
    EXPECT_COMPILE_ERROR(build_generator_stub("brighten", ctx, {},
                                              {StubInput("input", StubInputBuffer()), StubInput("gain", Expr(1.0f))}),
                         "Input 'input'", "undefined Func");
}

TEST(GeneratorStubInputs, HalfFloatScalarInputsWithTheJit) {
    std::unique_ptr<GeneratorBase> g = GeneratorRegistry::create("stub_half_inputs");
    HalfInputs &h = static_cast<HalfInputs &>(*g);
    Buffer<float16_t> in(30);
    for (int x = 0; x < 30; x++) in(x) = half_input(x);
    h.in.set(in);
    h.scale.set(float16_t(-1.75f));
    h.shift.set(3.3);  // rounded to bfloat16
    Buffer<float16_t> out = g->realize({30})[0];
    for (int x = 0; x < 30; x++) {
        EXPECT_EQ(out(x).to_bits(), half_reference(x, float16_t(-1.75f), bfloat16_t(3.3)).to_bits()) << x;
    }
    std::vector<Argument> args = g->arguments();
    ASSERT_EQ(args.size(), 4u);
    EXPECT_EQ(args[1].type, Float(16));
    EXPECT_EQ(args[2].type, BFloat(16));
}

TEST(GeneratorStubInputs, HalfFloatScalarInputsThroughAStub) {
    Var x("x");
    Func src("src");
    src(x) = loom::cast<float16_t>(loom::cast<float>(x) * 0.3f - 2.0f);
    Param<float16_t> scale("scale", float16_t(0.625f));
    std::vector<std::vector<Func>> outs = build_generator_stub(
        "stub_half_inputs", GeneratorContext(), {},
        {StubInput("in", StubInputBuffer(src)), StubInput("scale", Expr(scale)), StubInput("shift", Expr(-0.5f))});
    Buffer<float16_t> result = outs[0][0].realize({25});
    for (int i = 0; i < 25; i++) {
        const float16_t in_value = float16_t((float)i * 0.3f - 2.0f);
        const float16_t expected = in_value * float16_t(0.625f) + float16_t(float(bfloat16_t(-0.5f)));
        EXPECT_EQ(result(i).to_bits(), expected.to_bits()) << i;
    }
    // An Expr of another type that is not a constant is refused.
    Param<float> f32("f32", 1.0f);
    EXPECT_COMPILE_ERROR(build_generator_stub("stub_half_inputs", GeneratorContext(), {},
                                              {StubInput("in", StubInputBuffer(src)), StubInput("scale", Expr(f32)),
                                               StubInput("shift", Expr(0.0f))}),
                         "Input 'scale' has type float16, but is bound to an Expr of type float32");
}

TEST(GeneratorStubInputs, HalfFloatScalarInputsAheadOfTime) {
    std::unique_ptr<GeneratorBase> g = GeneratorRegistry::create("stub_half_inputs");
    loom_test::ScratchDir dir;
    g->compile_to({{OutputFileType::static_library, dir.file("half_inputs.a")},
                   {OutputFileType::c_header, dir.file("half_inputs.h")}},
                  "half_inputs");
    loom_test::write_file(dir.file("main.cpp"), R"(
#include <cstdio>
#include "half_inputs.h"
#include "loom/runtime/Buffer.h"
int main() {
    loom::Runtime::Buffer<loom::float16_t> in(17), out(17);
    for (int x = 0; x < 17; x++) in(x) = loom::float16_t((float)x * 0.3f - 2.0f);
    int rc = half_inputs(in, loom::float16_t(2.75f), loom::bfloat16_t(-0.1f), out);
    std::printf("%d", rc);
    for (int x = 0; x < 17; x++) std::printf(" %u", (unsigned)out(x).to_bits());
    std::printf("\n");
    return 0;
}
)");
    loom_test::CommandResult build = loom_test::run_command(
        "cd '" + dir.path() + "' && c++ -std=c++17 -O1 -I'" + loom_test::repository_root() +
        "/include' -o main main.cpp half_inputs.a -lpthread -ldl -lm 2>&1");
    ASSERT_EQ(build.exit_code, 0) << build.output;
    loom_test::CommandResult run = loom_test::run_command("'" + dir.file("main") + "' 2>&1");
    ASSERT_EQ(run.exit_code, 0) << run.output;
    std::istringstream values(run.output);
    int rc = -1;
    values >> rc;
    EXPECT_EQ(rc, 0) << run.output;
    for (int x = 0; x < 17; x++) {
        unsigned bits = 0;
        values >> bits;
        EXPECT_EQ(bits, half_reference(x, float16_t(2.75f), bfloat16_t(-0.1f)).to_bits()) << x;
    }
}

TEST(GeneratorStubInputs, AnArrayOfHalfFloatInputs) {
    std::unique_ptr<GeneratorBase> g = GeneratorRegistry::create("stub_half_array");
    HalfArray &h = static_cast<HalfArray &>(*g);
    Buffer<float16_t> in(12);
    for (int x = 0; x < 12; x++) in(x) = half_input(x);
    h.in.set(in);
    h.k[0].set(float16_t(1.3f));
    h.k[1].set(-0.2);
    Buffer<float16_t> out = g->realize({12})[0];
    for (int x = 0; x < 12; x++) {
        EXPECT_EQ(out(x).to_bits(), (half_input(x) * float16_t(1.3f) + float16_t(-0.2)).to_bits()) << x;
    }
    std::vector<Argument> args = g->arguments();
    ASSERT_EQ(args.size(), 4u);
    EXPECT_EQ(args[1].name, "k_0");
    EXPECT_EQ(args[2].type, Float(16));
    // Through a stub: a vector of Exprs.
    Var x("x");
    Func src("src");
    src(x) = loom::cast<float16_t>(x);
    std::vector<std::vector<Func>> outs = build_generator_stub(
        "stub_half_array", GeneratorContext(), {},
        {StubInput("in", StubInputBuffer(src)), StubInput("k", std::vector<Expr>{Expr(0.5f), Expr(2.0f)})});
    Buffer<float16_t> r = outs[0][0].realize({8});
    for (int i = 0; i < 8; i++) EXPECT_EQ(float(r(i)), (float)i * 0.5f + 2.0f) << i;
}
