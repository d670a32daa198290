// Generator stubs: the headers the driver writes with -e cpp_stub (made at
// build time by loom_add_stub, test/CMakeLists.txt) used from C++ -- from a
// JIT program and from another generator's generate() -- against plain C++
// loops; and the mistakes a stub call can make.

#include <gtest/gtest.h>

#include <cmath>

#include "aot/AotTestSupport.h"
#include "array_sum.stub.h"
#include "brighten.stub.h"
#include "func_inputs.stub.h"
#include "gens/TestGenerators.h"
#include "lang/GeneratorDriver.h"
#include "lang/LangTestUtil.h"
#include "loom/Loom.h"
#include "two_outputs.stub.h"

using namespace loom;

namespace {

// brighten: clamp(in * gain (then + or * offset), 0, 255) as uint8.
uint8_t brighten_reference(uint8_t in, float gain, int offset, bool multiply) {
    float v = (float)in * gain;
    v = multiply ? v * (float)offset : v + (float)offset;
    return (uint8_t)std::min(std::max(v, 0.0f), 255.0f);
}

int source_value(int x, int y) { return (x * 7 + y * 13) % 97; }

}  // namespace

/** A generator that uses brighten through its stub, with an Output named
 * like brighten's: out(x, y) = brighten(in + 1)(x, y) / 2. */
class StubUser : public loom::Generator<StubUser> {
public:
    GeneratorParam<int> offset{"offset", 2};
    Input<Buffer<uint8_t>> input{"input", 2};
    Output<Buffer<uint8_t>> output{"output", 2};

    void generate() {
        Func shifted("shifted");
        shifted(x, y) = input(x, y) + loom::cast<uint8_t>(1);
        loom_stub::brighten::Inputs in;
        in.input = shifted;
        in.gain = 1.25f;
        loom_stub::brighten::GeneratorParams gp;
        gp.offset = offset;
        gp.mode = "multiply";
        gp.vectorize = false;
        bright = loom_stub::brighten::generate(GeneratorContext(get_target()), in, gp).output;
        output(x, y) = bright(x, y) / 2;
    }
    void schedule() { bright.compute_root(); }

    Func bright;
    Var x{"x"}, y{"y"};
};
LOOM_REGISTER_GENERATOR(StubUser, stub_user)

/** Reads its input's width: can't be given a Func through a stub. */
class ShapeReader : public loom::Generator<ShapeReader> {
public:
    Input<Buffer<int32_t>> in{"in", 1};
    Output<Buffer<int32_t>> out{"out", 1};
    void generate() { out(x) = in(x) + in.width(); }
    Var x{"x"};
};
LOOM_REGISTER_GENERATOR(ShapeReader, stub_shape_reader)

/** Reads its Input only through Funcs of an RDom's where() predicate and
 * loop_while() condition: out(x) = x + the sum of r in [0, 8) where in(r)
 * > 0, stopping at the first r with in(r) == 9. */
class PredicateReader : public loom::Generator<PredicateReader> {
public:
    Input<Buffer<int32_t>> in{"in", 1};
    Output<Buffer<int32_t>> out{"out", 1};
    void generate() {
        Func positive("positive"), not_nine("not_nine");
        positive(x) = in(x) > 0;
        not_nine(x) = in(x) != 9;
        RDom r(0, 8, "r");
        r.where(positive(r));
        r.loop_while(not_nine(r));
        out(x) = x;
        out(x) += r;
    }
    Var x{"x"};
};
LOOM_REGISTER_GENERATOR(PredicateReader, stub_predicate_reader)

TEST(GeneratorStub, BrightenFromAJitProgram) {
    Var x("x"), y("y");
    Func src("src");
    src(x, y) = loom::cast<uint8_t>((x * 7 + y * 13) % 97);
    Param<float> gain("gain");
    gain.set(1.5f);
    loom_stub::brighten::Inputs in;
    in.input = src;
    in.gain = gain;
    loom_stub::brighten::GeneratorParams gp;
    EXPECT_EQ(gp.offset, 10);  // the GeneratorParams' defaults
    EXPECT_EQ(gp.mode, "add");
    EXPECT_TRUE(gp.vectorize);
    gp.offset = 3;
    gp.mode = "multiply";
    loom_stub::brighten::Outputs out = loom_stub::brighten::generate(GeneratorContext(), in, gp);
    Buffer<uint8_t> result = out.get_pipeline().realize({37, 19})[0];
    for (int yy = 0; yy < 19; yy++)
        for (int xx = 0; xx < 37; xx++)
            ASSERT_EQ(result(xx, yy), brighten_reference((uint8_t)source_value(xx, yy), 1.5f, 3, true)) << xx << "," << yy;
    // A new value of the caller's Param reaches the stub's pipeline without rebuilding it.
    gain.set(0.5f);
    result = out.get_pipeline().realize({37, 19})[0];
    EXPECT_EQ(result(5, 3), brighten_reference((uint8_t)source_value(5, 3), 0.5f, 3, true));
}

TEST(GeneratorStub, TwoInstancesInOnePipelineWithTheCallersOutputName) {
    Var x("x"), y("y");
    Func src("src");
    src(x, y) = loom::cast<uint8_t>((x * 7 + y * 13) % 97);
    loom_stub::brighten::Inputs in;
    in.input = src;
    in.gain = 1.0f;
    loom_stub::brighten::GeneratorParams add, twice;
    add.offset = 5;
    add.vectorize = false;
    twice.offset = 2;
    twice.mode = "multiply";
    twice.vectorize = false;
    Func a = loom_stub::brighten::generate(GeneratorContext(), in, add).output;
    Func b = loom_stub::brighten::generate(GeneratorContext(), in, twice).output;
    EXPECT_NE(a.name(), b.name());
    Func output("output");  // the name brighten's Output has too
    output(x, y) = loom::cast<int32_t>(a(x, y)) - loom::cast<int32_t>(b(x, y));
    Buffer<int32_t> result = output.realize({20, 10});
    for (int yy = 0; yy < 10; yy++)
        for (int xx = 0; xx < 20; xx++) {
            const uint8_t s = (uint8_t)source_value(xx, yy);
            ASSERT_EQ(result(xx, yy), (int)brighten_reference(s, 1.0f, 5, false) - (int)brighten_reference(s, 1.0f, 2, true));
        }
}

TEST(GeneratorStub, ArraysOfInputsAndOutputs) {
    Var x("x");
    std::vector<Func> planes(3), weights(2);
    for (int i = 0; i < 3; i++) {
        planes[i] = Func("plane" + std::to_string(i));
        planes[i](x) = loom::cast<uint8_t>(x * (i + 1) % 50);
    }
    for (int k = 0; k < 2; k++) {
        weights[k] = Func("weight" + std::to_string(k));
        weights[k](x) = x - 4 * k;
    }
    loom_stub::array_sum::Inputs in;
    in.planes = planes;  // sizes planes.size from the vector
    in.weights = weights;
    loom_stub::array_sum::Outputs out = loom_stub::array_sum::generate(GeneratorContext(), in);
    ASSERT_EQ(out.outs.size(), 2u);
    ASSERT_EQ(out.total.size(), 1u);
    Realization r = out.realize({16});
    ASSERT_EQ(r.size(), 3u);
    for (int xx = 0; xx < 16; xx++) {
        int s = 0;
        for (int i = 0; i < 3; i++) s += xx * (i + 1) % 50;
        EXPECT_EQ(Buffer<int32_t>(r[0])(xx), s * xx);
        EXPECT_EQ(Buffer<int32_t>(r[1])(xx), s * (xx - 4));
        EXPECT_EQ(Buffer<int32_t>(r[2])(xx), s);
    }
}

TEST(GeneratorStub, OpenInputTypeFromTheFuncAndALoopLevelParam) {
    Var x("x"), y("y");
    Func in16("in16"), bias("bias");
    in16(x, y) = loom::cast<uint16_t>(x * 300 + y);
    bias(x) = -x;
    loom_stub::func_inputs::Inputs in;
    in.in = in16;  // in.type and in.dim come from the Func: uint16, 2
    in.bias = bias;
    loom_stub::func_inputs::GeneratorParams gp;
    gp.level = LoopLevel::root();
    Func out = loom_stub::func_inputs::generate(GeneratorContext(), in, gp).out;
    Buffer<int32_t> result = out.realize({12, 7});
    for (int yy = 0; yy < 7; yy++)
        for (int xx = 0; xx < 12; xx++) ASSERT_EQ(result(xx, yy), (int)(uint16_t)(xx * 300 + yy) * 3 - xx);
}

TEST(GeneratorStub, TupleOutputAndAScalarExpr) {
    Var x("x");
    Func a("a");
    a(x) = x * x;
    loom_test_stubs::TwoOutputsStub::Inputs in;
    in.a = a;
    in.b = 7;  // an int constant for an Input<int32_t>
    loom_test_stubs::TwoOutputsStub::Outputs out = loom_test_stubs::TwoOutputsStub::generate(GeneratorContext(), in);
    Realization r = out.get_pipeline().realize({9});
    ASSERT_EQ(r.size(), 3u);
    for (int xx = 0; xx < 9; xx++) {
        EXPECT_EQ(Buffer<int32_t>(r[0])(xx), xx * xx + 7);
        EXPECT_EQ(Buffer<int32_t>(r[1])(xx), xx * xx - 7);
        EXPECT_EQ(Buffer<int32_t>(r[2])(xx), xx * xx * 7);
    }
}

TEST(GeneratorStub, UsedInsideAnotherGeneratorsGenerate) {
    std::unique_ptr<GeneratorBase> g = GeneratorRegistry::create("stub_user");
    g->set_generator_param("offset", "3");
    StubUser &user = static_cast<StubUser &>(*g);
    Buffer<uint8_t> input(23, 11);
    for (int yy = 0; yy < 11; yy++)
        for (int xx = 0; xx < 23; xx++) input(xx, yy) = (uint8_t)source_value(xx, yy);
    user.input.set(input);
    Buffer<uint8_t> result = g->realize({23, 11})[0];
    for (int yy = 0; yy < 11; yy++)
        for (int xx = 0; xx < 23; xx++)
            ASSERT_EQ(result(xx, yy), brighten_reference((uint8_t)(input(xx, yy) + 1), 1.25f, 3, true) / 2);
    // Its arguments are the outer generator's: the stub's Inputs are gone.
    std::vector<Argument> args = g->arguments();
    ASSERT_EQ(args.size(), 2u);
    EXPECT_EQ(args[0].name, "input");
    EXPECT_EQ(args[1].name, "output");
}

TEST(GeneratorStub, AGeneratorUsingAStubCompiledAheadOfTime) {
    // stub_user (brighten inside, through its stub) as a static library, called from a C++ program.
    std::unique_ptr<GeneratorBase> g = GeneratorRegistry::create("stub_user");
    g->set_generator_param("offset", "3");
    loom_test::ScratchDir dir;
    g->compile_to({{OutputFileType::static_library, dir.file("stub_user.a")},
                   {OutputFileType::c_header, dir.file("stub_user.h")}},
                  "stub_user");
    loom_test::write_file(dir.file("main.cpp"), R"(
#include <algorithm>
#include <cstdio>
#include "stub_user.h"
#include "loom/runtime/Buffer.h"
int main() {
    loom::Runtime::Buffer<uint8_t> in(31, 9), out(31, 9);
    for (int y = 0; y < 9; y++)
        for (int x = 0; x < 31; x++) in(x, y) = (uint8_t)((x * 7 + y * 13) % 97);
    int rc = stub_user(in, out);
    int mismatches = 0;
    for (int y = 0; y < 9; y++)
        for (int x = 0; x < 31; x++) {
            float v = (float)(uint8_t)(in(x, y) + 1) * 1.25f;
            v = v * 3.0f;
            uint8_t expected = (uint8_t)((uint8_t)std::min(std::max(v, 0.0f), 255.0f) / 2);
            mismatches += out(x, y) != expected;
        }
    std::printf("rc %d mismatches %d\n", rc, mismatches);
    return rc == 0 && mismatches == 0 ? 0 : 1;
}
)");
    loom_test::CommandResult build = loom_test::run_command(
        "cd '" + dir.path() + "' && c++ -std=c++17 -O1 -I'" + loom_test::repository_root() +
        "/include' -o main main.cpp stub_user.a -lpthread -ldl -lm 2>&1");
    ASSERT_EQ(build.exit_code, 0) << build.output;
    loom_test::CommandResult run = loom_test::run_command("'" + dir.file("main") + "' 2>&1");
    EXPECT_EQ(run.exit_code, 0) << run.output;
    EXPECT_EQ(run.output, "rc 0 mismatches 0\n");
}

TEST(GeneratorStub, TheStubHeaderText) {
    std::unique_ptr<GeneratorBase> g = GeneratorRegistry::create("brighten");
    const std::string text = internal::cpp_stub_text(*g, "ns::Bright");
    EXPECT_NE(text.find("namespace ns {"), std::string::npos) << text;
    EXPECT_NE(text.find("class Bright {"), std::string::npos) << text;
    EXPECT_NE(text.find("loom::internal::StubInputBuffer input;  // uint8, 2 dimensions"), std::string::npos) << text;
    EXPECT_NE(text.find("loom::Expr gain;  // float32"), std::string::npos) << text;
    EXPECT_NE(text.find("int32_t offset{10};"), std::string::npos) << text;
    EXPECT_NE(text.find("std::string mode{\"add\"};"), std::string::npos) << text;
    EXPECT_NE(text.find("bool vectorize{true};"), std::string::npos) << text;
}

TEST(GeneratorStub, StubNamesFromTheRegistration) {
    EXPECT_EQ(GeneratorRegistry::stub_name_of("brighten"), "loom_stub::brighten");
    EXPECT_EQ(GeneratorRegistry::stub_name_of("two_outputs"), "loom_test_stubs::TwoOutputsStub");
    auto factory = []() -> std::unique_ptr<GeneratorBase> { return std::make_unique<ShapeReader>(); };
    GeneratorRegistry::register_factory("stub_badly_named", typeid(int), factory, "not a-name");
    EXPECT_COMPILE_ERROR(GeneratorRegistry::stub_name_of("stub_badly_named"), "Generator 'stub_badly_named'",
                         "'not a-name' is not a C++ class name");
    EXPECT_COMPILE_ERROR(GeneratorRegistry::stub_name_of("no_such_generator"), "no_such_generator");
}

TEST(GeneratorStub, MistakesAreCompileErrors) {
    using internal::build_generator_stub;
    using internal::StubInput;
    Var x("x"), y("y");
    Func src("src"), wide("wide"), one_d("one_d"), undefined_func("undefined_func");
    src(x, y) = loom::cast<uint8_t>(x);
    wide(x, y) = x;
    one_d(x) = loom::cast<uint8_t>(x);
    GeneratorContext ctx;
    EXPECT_COMPILE_ERROR(build_generator_stub("brighten", ctx, {}, {StubInput("input", undefined_func), StubInput("gain", Expr(1.0f))}),
                         "Generator 'brighten' (used as a stub): Input 'input'", "undefined Func");
    EXPECT_COMPILE_ERROR(build_generator_stub("brighten", ctx, {}, {StubInput("input", one_d), StubInput("gain", Expr(1.0f))}),
                         "Input 'input' has 2 dimensions, but is bound to Func 'one_d' with 1");
    EXPECT_COMPILE_ERROR(build_generator_stub("brighten", ctx, {}, {StubInput("input", wide), StubInput("gain", Expr(1.0f))}),
                         "element type uint8", "'wide' of type int32", "cast it first");
    EXPECT_COMPILE_ERROR(build_generator_stub("brighten", ctx, {}, {StubInput("input", src)}),
                         "Input 'gain' is not given a value");
    EXPECT_COMPILE_ERROR(build_generator_stub("brighten", ctx, {}, {StubInput("input", src), StubInput("gain", Expr(x))}),
                         "Input 'gain' has type float32, but is bound to an Expr of type int32");
    EXPECT_COMPILE_ERROR(build_generator_stub("brighten", ctx, {},
                                              {StubInput("input", src), StubInput("gain", Expr(1.0f)), StubInput("bias", Expr(1))}),
                         "has no Input 'bias'");
    EXPECT_COMPILE_ERROR(build_generator_stub("brighten", ctx, {{"offset", "ten"}}, {StubInput("input", src), StubInput("gain", Expr(1.0f))}),
                         "offset", "ten");
    EXPECT_COMPILE_ERROR(build_generator_stub("no_such_generator", ctx, {}, {}), "no_such_generator");
    Func ints("ints");
    ints(x) = x;
    EXPECT_COMPILE_ERROR(build_generator_stub("stub_shape_reader", ctx, {}, {StubInput("in", ints)}),
                         "reads the buffer shape of Input 'in'", "a Func bound to it does not have");
    std::vector<Func> two_weights = {ints, ints};
    EXPECT_COMPILE_ERROR(build_generator_stub("array_sum", ctx, {},
                                              {StubInput("planes", std::vector<Func>{one_d}),
                                               StubInput("weights", std::vector<Func>{ints})}),
                         "Input 'weights' has 2 elements, but 1 are given");
    (void)two_weights;
}

TEST(GeneratorStub, InputsReadOnlyInWherePredicatesAndLoopConditionsAreBound) {
    using internal::build_generator_stub;
    using internal::StubInput;
    Var x("x");
    Func values("values");
    values(x) = select(x == 6, 9, x % 3 - 1);  // -1 0 1 -1 0 1 9 0: positive at 2 and 5, stop at 6
    std::vector<std::vector<Func>> outputs =
        build_generator_stub("stub_predicate_reader", GeneratorContext(), {}, {StubInput("in", values)});
    ASSERT_EQ(outputs.size(), 1u);
    Buffer<int32_t> result = outputs[0][0].realize({4});
    for (int xx = 0; xx < 4; xx++) EXPECT_EQ(result(xx), xx + 2 + 5) << xx;
}
