// Input<Func>/Output<Func>, Input and Output arrays, configure() with
// add_input/add_output, GeneratorParam<LoopLevel>, shapes set from strings:
// run through the JIT against plain C++ loops, and their errors.

#include <gtest/gtest.h>

#include "gens/FuncIOGenerators.h"
#include "gens/TestGenerators.h"
#include "ir/IRUtil.h"
#include "lang/LangTestUtil.h"

namespace {

using namespace loom;
using loom_test::ArraySum;
using loom_test::Configured;
using loom_test::FuncInputs;

Buffer<int32_t> bias_buffer(int w) {
    Buffer<int32_t> b(w);
    for (int x = 0; x < w; x++) b(x) = x * 5 - 7;
    return b;
}

TEST(GeneratorFuncIO, InputFuncTypeAndDimsFromStrings) {
    FuncInputs g;
    g.set_generator_param("in.type", "uint8");
    g.set_generator_param("in.dim", "2");
    g.set_generator_param("level", "out.y");
    EXPECT_EQ(g.level.value().to_string(), "out.y");
    Buffer<uint8_t> in(9, 4);
    for (int y = 0; y < 4; y++) {
        for (int x = 0; x < 9; x++) in(x, y) = uint8_t(x * 30 + y);
    }
    g.in.set(in);
    g.bias.set(bias_buffer(9));
    Buffer<int32_t> out = g.realize({9, 4})[0];
    for (int y = 0; y < 4; y++) {
        for (int x = 0; x < 9; x++) ASSERT_EQ(out(x, y), int(in(x, y)) * 3 + x * 5 - 7) << x << ", " << y;
    }
    std::vector<Argument> args = g.arguments();
    ASSERT_EQ(args.size(), 3u);
    EXPECT_EQ(args[0].name, "in");
    EXPECT_EQ(args[0].type, UInt(8));
    EXPECT_EQ(args[0].dimensions, 2);
    EXPECT_EQ(args[2].name, "out");
    EXPECT_EQ(args[2].kind, Argument::OutputBuffer);
}

TEST(GeneratorFuncIO, LoopLevelParamValues) {
    for (const std::string &text : {"root", "inline", "inlined", "helper.x", "out.y"}) {
        FuncInputs g;
        g.set_generator_param("level", text);
        std::string expected = text == std::string("inline") ? "inlined" : text;
        if (text == std::string("helper.x")) continue;  // parses, but helper can't be computed inside itself
        EXPECT_EQ(g.level.value().to_string(), expected);
        g.set_generator_param("in.type", "int16");
        g.set_generator_param("in.dim", "2");
        Buffer<int16_t> in(5, 3);
        for (int y = 0; y < 3; y++) {
            for (int x = 0; x < 5; x++) in(x, y) = int16_t(x - 2 * y);
        }
        g.in.set(in);
        g.bias.set(bias_buffer(5));
        Buffer<int32_t> out = g.realize({5, 3})[0];
        for (int y = 0; y < 3; y++) {
            for (int x = 0; x < 5; x++) ASSERT_EQ(out(x, y), (x - 2 * y) * 3 + x * 5 - 7) << text;
        }
    }
    FuncInputs g;
    EXPECT_EQ(g.generator_params()[0].type, "LoopLevel");
    EXPECT_EQ(g.generator_params()[0].default_value, "inlined");
}

TEST(GeneratorFuncIO, Arrays) {
    ArraySum g;
    g.set_generator_param("planes.size", "3");
    const int w = 11;
    std::vector<Buffer<uint8_t>> planes;
    for (int i = 0; i < 3; i++) {
        Buffer<uint8_t> p(w);
        for (int x = 0; x < w; x++) p(x) = uint8_t(x * (i + 1) + 40 * i);
        planes.push_back(p);
        g.planes[i].set(p);
    }
    Buffer<int32_t> w0(w), w1(w);
    for (int x = 0; x < w; x++) {
        w0(x) = x - 3;
        w1(x) = 2;
    }
    g.weights[0].set(w0);
    g.weights[1].set(w1);
    Realization r = g.realize({w});
    ASSERT_EQ(r.size(), 3u);
    Buffer<int32_t> o0 = r[0], o1 = r[1], total = r[2];
    for (int x = 0; x < w; x++) {
        int s = planes[0](x) + planes[1](x) + planes[2](x);
        ASSERT_EQ(total(x), s) << x;
        ASSERT_EQ(o0(x), s * (x - 3)) << x;
        ASSERT_EQ(o1(x), s * 2) << x;
    }
    std::vector<std::string> names;
    for (const Argument &a : g.arguments()) names.push_back(a.name);
    EXPECT_EQ(names, (std::vector<std::string>{"planes_0", "planes_1", "planes_2", "weights_0", "weights_1", "outs_0",
                                               "outs_1", "total_0"}));
}

TEST(GeneratorFuncIO, ConfigureAddsInputsAndOutputs) {
    Configured g;
    g.set_generator_param("extra_inputs", "2");
    g.set_generator_param("with_scale", "true");
    g.build_pipeline();
    ASSERT_EQ(g.extras.size(), 2u);
    ASSERT_NE(g.scale, nullptr);
    std::vector<std::string> names;
    for (const Argument &a : g.arguments()) names.push_back(a.name);
    EXPECT_EQ(names, (std::vector<std::string>{"a", "extra0", "extra1", "scale", "out", "twice"}));
    Buffer<int32_t> a(6), e0(6), e1(6);
    for (int x = 0; x < 6; x++) {
        a(x) = x;
        e0(x) = 10 * x;
        e1(x) = -3;
    }
    g.a.set(a);
    g.extras[0]->set(e0);
    g.extras[1]->set(e1);
    g.scale->set(4);
    Realization r = g.realize({6});
    Buffer<int32_t> out = r[0], twice = r[1];
    for (int x = 0; x < 6; x++) {
        ASSERT_EQ(out(x), (x + 10 * x - 3) * 4);
        ASSERT_EQ(twice(x), (x + 10 * x - 3) * 8);
    }
}

TEST(GeneratorFuncIO, OutputFuncShapeFromDefinitionOrStrings) {
    class Open : public Generator<Open> {
    public:
        Input<Buffer<float>> in{"in", 1};
        Output<Func> out{"out"};
        void generate() { out(x) = in(x) * 2.0f; }
        Var x{"x"};
    };
    {
        Open g;
        Buffer<float> in(4);
        for (int x = 0; x < 4; x++) in(x) = float(x) + 0.5f;
        g.in.set(in);
        Buffer<float> out = g.realize({4})[0];
        for (int x = 0; x < 4; x++) EXPECT_EQ(out(x), (float(x) + 0.5f) * 2.0f);
        EXPECT_EQ(g.arguments()[1].dimensions, 1);
    }
    {
        Open g;
        g.set_generator_param("out.type", "int32");
        EXPECT_COMPILE_ERROR(g.build_pipeline(), "Output 'out'", "int32", "float32");
    }
    {
        Open g;
        g.set_generator_param("out.dim", "2");
        EXPECT_COMPILE_ERROR(g.build_pipeline(), "Output 'out'", "2 dimensions");
    }
}

TEST(GeneratorFuncIO, InputBufferShapeFromStrings) {
    loom_test::OpenBuffers g;
    EXPECT_EQ(g.shape_params(), (std::vector<std::string>{"in.type", "in.dim", "k.dim", "out.type", "out.dim"}));
    g.set_generator_param_values({{"in.type", "float32"}, {"in.dim", "2"}, {"k.dim", "1"}});
    Buffer<float> in(6, 3);
    Buffer<int16_t> k(6);
    for (int x = 0; x < 6; x++) {
        k(x) = int16_t(-x);
        for (int y = 0; y < 3; y++) in(x, y) = float(x * y) + 0.75f;
    }
    g.in.set(in);
    g.k.set(k);
    Buffer<int32_t> out = g.realize({6, 3})[0];
    for (int y = 0; y < 3; y++) {
        for (int x = 0; x < 6; x++) ASSERT_EQ(out(x, y), x * y - x) << x << ", " << y;
    }
    EXPECT_EQ(g.arguments()[0].type, Float(32));
    EXPECT_EQ(g.arguments()[2].dimensions, 2);
    EXPECT_COMPILE_ERROR(g.set_generator_param("in.dim", "3"), "can't be changed after");
    {
        loom_test::OpenBuffers h;
        EXPECT_COMPILE_ERROR(h.set_generator_param("k.type", "uint8"), "Input 'k'", "declares its type");
        h.set_generator_param("in.type", "uint8");
        EXPECT_COMPILE_ERROR(h.build_pipeline(), "Input 'in'", "no dimension count", "in.dim=N");
    }
    {
        loom_test::Brighten b;
        EXPECT_COMPILE_ERROR(b.set_generator_param("input.dim", "3"), "Input 'input'", "declares its dimensions");
    }
}

TEST(GeneratorFuncIO, TupleOutputFuncTypesFromStrings) {
    class Pair : public Generator<Pair> {
    public:
        Input<Buffer<int32_t>> in{"in", 1};
        Output<Func> out{"out", 1};
        void generate() { out(x) = Tuple(in(x) * 2, cast<float>(in(x)) * 0.5f); }
        Var x{"x"};
    };
    Pair g;
    EXPECT_EQ(g.shape_params(), (std::vector<std::string>{"out.type"}));
    g.set_generator_param("out.type", "int32,float32");
    Buffer<int32_t> in(4);
    for (int x = 0; x < 4; x++) in(x) = 3 * x - 1;
    g.in.set(in);
    Realization r = g.realize({4});
    Buffer<int32_t> doubled = r[0];
    Buffer<float> halved = r[1];
    for (int x = 0; x < 4; x++) {
        EXPECT_EQ(doubled(x), (3 * x - 1) * 2);
        EXPECT_EQ(halved(x), float(3 * x - 1) * 0.5f);
    }
    std::vector<Argument> args = g.arguments();
    ASSERT_EQ(args.size(), 3u);
    EXPECT_EQ(args[1].name, "out.0");
    EXPECT_EQ(args[2].type, Float(32));
    Pair h;
    h.set_generator_param("out.type", "int32,int32");
    EXPECT_COMPILE_ERROR(h.build_pipeline(), "Output 'out'", "Tuple {int32, int32}");
}

TEST(GeneratorFuncIO, ScalarArrays) {
    class Poly : public Generator<Poly> {
    public:
        Input<Buffer<int32_t>> in{"in", 1};
        Input<int32_t[]> coeffs{"coeffs", 0, -100, 100};  // coeffs.size=N
        Input<float[2]> gains{"gains", 1.0f};
        Output<Buffer<float>> out{"out", 1};
        void generate() {
            Expr v = 0;
            for (size_t i = coeffs.size(); i-- > 0;) v = v * in(x) + coeffs[i];
            out(x) = cast<float>(v) * gains[0] + gains[1];
        }
        Var x{"x"};
    };
    Poly g;
    EXPECT_EQ(g.shape_params(), (std::vector<std::string>{"coeffs.size"}));
    g.set_generator_param("coeffs.size", "3");
    Buffer<int32_t> in(6);
    for (int x = 0; x < 6; x++) in(x) = x - 2;
    g.in.set(in);
    g.coeffs[0].set(5);
    g.coeffs[1].set(-1);
    g.coeffs[2].set(2);
    g.gains[0].set(0.5f);  // gains[1] keeps its default 1
    Buffer<float> out = g.realize({6})[0];
    for (int x = 0; x < 6; x++) {
        int t = x - 2;
        EXPECT_EQ(out(x), float(5 - t + 2 * t * t) * 0.5f + 1.0f) << x;
    }
    std::vector<std::string> names;
    for (const Argument &a : g.arguments()) names.push_back(a.name);
    EXPECT_EQ(names, (std::vector<std::string>{"in", "coeffs_0", "coeffs_1", "coeffs_2", "gains_0", "gains_1", "out"}));
    EXPECT_EQ(g.arguments()[1].kind, Argument::InputScalar);
    EXPECT_EQ(g.arguments()[4].type, Float(32));
    {
        Poly h;
        EXPECT_COMPILE_ERROR(h.build_pipeline(), "Input 'coeffs'", "no size yet", "coeffs.size=N");
    }
    {
        Poly h;
        EXPECT_COMPILE_ERROR(h.set_generator_param("gains.size", "3"), "Input 'gains'", "declares its array size");
        EXPECT_COMPILE_ERROR(h.set_generator_param("coeffs.type", "int8"), "Input 'coeffs'", "declares its type");
        EXPECT_COMPILE_ERROR(h.gains[2], "Input 'gains'", "index 2 is out of range");
        EXPECT_COMPILE_ERROR(h.gains.resize(4), "can't be resized");
    }
}

TEST(GeneratorFuncIO, EstimatesFeedTheAutoscheduler) {
    class Estimated : public Generator<Estimated> {
    public:
        Input<Buffer<uint8_t>> in{"in", 1};
        Input<Func> scale{"scale", Int(32), 1};
        Output<Buffer<int32_t>> out{"out", 1};
        Output<Func> copy{"copy", Int(32), 1};
        void generate() {
            out(x) = cast<int32_t>(in(x)) * scale(x);
            copy(x) = out(x) + 1;
        }
        void schedule() {
            if (!using_autoscheduler()) out.compute_root();
            in.set_estimates({{0, 1024}});
            scale.set_estimates({{0, 1024}});
            out.set_estimates({{0, 1024}});
            copy.set_estimates({{0, 1000}});
        }
        Var x{"x"};
    };
    for (const char *scheduler : {"", "Adams2019"}) {
        Estimated g;
        g.set_generator_param("autoscheduler", scheduler);
        g.set_generator_param("auto_schedule", "false");
        Buffer<uint8_t> in(5);
        Buffer<int32_t> scale(5);
        for (int x = 0; x < 5; x++) {
            in(x) = uint8_t(x + 1);
            scale(x) = 3 - x;
        }
        g.in.set(in);
        g.scale.set(scale);
        Realization r = g.realize({5});
        Buffer<int32_t> out = r[0], copy = r[1];
        for (int x = 0; x < 5; x++) {
            EXPECT_EQ(out(x), (x + 1) * (3 - x));
            EXPECT_EQ(copy(x), (x + 1) * (3 - x) + 1);
        }
        // The estimates are recorded on the buffers (Input<Func> and Output<Func> included).
        EXPECT_EQ(*internal::as_const_int(g.in.dim(0).extent_estimate()), 1024);
        EXPECT_EQ(*internal::as_const_int(g.scale.param().dim(0).extent_estimate()), 1024);
        EXPECT_EQ(*internal::as_const_int(g.copy.output_buffer().dim(0).extent_estimate()), 1000);
        EXPECT_EQ(g.autoscheduler_results() != nullptr, std::string(scheduler) == "Adams2019");
    }
}

TEST(GeneratorFuncIO, Errors) {
    {
        FuncInputs g;  // in.type and in.dim never set
        EXPECT_COMPILE_ERROR(g.build_pipeline(), "Generator 'func_inputs'", "Input 'in'", "no type", "in.type=");
    }
    {
        FuncInputs g;
        g.set_generator_param("in.type", "uint8");
        EXPECT_COMPILE_ERROR(g.build_pipeline(), "Input 'in'", "no dimension count", "in.dim=");
    }
    {
        FuncInputs g;
        EXPECT_COMPILE_ERROR(g.set_generator_param("bias.type", "uint8"), "Input 'bias'", "declares its type");
        EXPECT_COMPILE_ERROR(g.set_generator_param("bias.dim", "2"), "Input 'bias'", "declares its dimensions");
        EXPECT_COMPILE_ERROR(g.set_generator_param("in.size", "2"), "Input 'in'", "is not an array");
        EXPECT_COMPILE_ERROR(g.set_generator_param("in.dim", "two"), "Input 'in'", "two");
        EXPECT_COMPILE_ERROR(g.set_generator_param("in.dim", "17"), "Input 'in'", "[0, 16]");
        EXPECT_COMPILE_ERROR(g.set_generator_param("in.type", "uint8,int32"), "Input 'in'", "one type");
        EXPECT_COMPILE_ERROR(g.set_generator_param("in.colour", "red"), "Input 'in'", "no 'colour'");
        EXPECT_COMPILE_ERROR(g.set_generator_param("nope.type", "uint8"), "no GeneratorParam 'nope.type'", "in.type",
                             "in.dim");
        EXPECT_COMPILE_ERROR(g.set_generator_param("level", "out"), "GeneratorParam 'level'", "not a LoopLevel",
                             "FUNC.VAR");
        EXPECT_COMPILE_ERROR(g.set_generator_param("level", "a.b.c"), "not a LoopLevel");
    }
    {
        ArraySum g;  // planes.size never set
        EXPECT_COMPILE_ERROR(g.build_pipeline(), "Input 'planes'", "no size", "planes.size=");
    }
    {
        ArraySum g;
        EXPECT_COMPILE_ERROR(g.set_generator_param("weights.size", "3"), "Input 'weights'", "declares its array size");
        EXPECT_COMPILE_ERROR(g.set_generator_param("total.size", "3"), "Output 'total'", "declares its array size");
        g.set_generator_param("planes.size", "1");
        EXPECT_COMPILE_ERROR(g.weights[2], "Input 'weights'", "index 2 is out of range", "2 elements");
        EXPECT_COMPILE_ERROR(g.total[1], "Output 'total'", "index 1 is out of range");
        EXPECT_COMPILE_ERROR(g.weights.resize(3), "Input 'weights'", "can't be resized");
        g.build_pipeline();
        EXPECT_COMPILE_ERROR(g.set_generator_param("planes.size", "2"), "can't be changed after");
    }
    {
        class NoOutputSize : public Generator<NoOutputSize> {
        public:
            Input<int> k{"k"};
            Output<Func[]> outs{"outs", Int(32), 1};
            void generate() {}
        };
        NoOutputSize g;
        EXPECT_COMPILE_ERROR(g.build_pipeline(), "Output array 'outs'", "no size", "outs.size=N", "resize");
    }
    {
        class UndefinedElement : public Generator<UndefinedElement> {
        public:
            Output<Func[2]> outs{"outs", Int(32), 1};
            void generate() { outs[0](x) = x; }
            Var x{"x"};
        };
        UndefinedElement g;
        EXPECT_COMPILE_ERROR(g.build_pipeline(), "Output 'outs_1' (of the array 'outs')", "not defined");
    }
    {
        class AddInGenerate : public Generator<AddInGenerate> {
        public:
            Output<Func> out{"out", Int(32), 1};
            void generate() {
                add_input<int>("late");
                out(x) = x;
            }
            Var x{"x"};
        };
        AddInGenerate g;
        EXPECT_COMPILE_ERROR(g.build_pipeline(), "add_input(\"late\")", "only be called in configure()");
    }
    {
        class SameNames : public Generator<SameNames> {
        public:
            Input<Func[2]> p{"p", Int(32), 1};
            Input<int> p_1{"p_1"};
            Output<Func> out{"out", Int(32), 1};
            void generate() { out(x) = p[0](x) + p_1; }
            Var x{"x"};
        };
        SameNames g;
        EXPECT_COMPILE_ERROR(g.build_pipeline(), "the name 'p_1'");
    }
}

}  // namespace
