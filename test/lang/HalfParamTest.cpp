// Param<float16_t> and Param<bfloat16_t> (Halide's): scalar Params of the
// 16-bit float types used in Exprs and realized on every back end, against
// plain C++ loops that compute with float16_t / bfloat16_t's own operators
// (each operation in float, rounded to the type, as Loom does). A new value
// reaches the next realize(). The AOT side is in test/aot/HalfScalarAotTest.cpp,
// Generator Inputs in test/generator/GeneratorStubInputsTest.cpp.

#include "e2e/E2ETest.h"

#include <cstdint>
#include <string>
#include <vector>

using namespace loom;

namespace {

class HalfParam : public loom_test::BackendTest {};

template<typename H>
bool same_bits(H a, H b) {
    return a.to_bits() == b.to_bits();
}

template<typename H, typename F>
void expect_values(const Buffer<H> &b, F expected_at) {
    int failures = 0;
    for (int x = 0; x < b.width() && failures < 5; x++) {
        const H expected = expected_at(x), actual = b(x);
        if (same_bits(expected, actual)) continue;
        failures++;
        ADD_FAILURE() << "at " << x << ": expected " << float(expected) << " (0x" << std::hex << expected.to_bits()
                      << "), got " << std::dec << float(actual) << " (0x" << std::hex << actual.to_bits() << ")"
                      << std::dec;
    }
}

}  // namespace

TEST_P(HalfParam, Float16ParamInArithmetic) {
    Param<float16_t> scale("scale", float16_t(1.5f));
    Param<float16_t> bias("bias");
    bias.set(0.1);  // a double, rounded once to binary16
    EXPECT_EQ(scale.type(), Float(16));
    EXPECT_EQ(bias.get().to_bits(), float16_t(0.1).to_bits());
    Var x("x");
    Func f("scaled");
    f(x) = cast<float16_t>(x) * scale + bias;
    ASSERT_EQ(f.types()[0], Float(16));
    Buffer<float16_t> a = f.realize({40});
    expect_values(a, [](int x) { return float16_t(x) * float16_t(1.5f) + float16_t(0.1); });

    // New values, the next realize(): one that rounds (1000.3 -> 1000.5) and a negative one.
    scale.set(float16_t(-3.25f));
    bias.set(1000.3f);
    Buffer<float16_t> b = f.realize({40});
    expect_values(b, [](int x) { return float16_t(x) * float16_t(-3.25f) + float16_t(1000.3f); });
    EXPECT_EQ(float(bias.get()), 1000.5f);
}

TEST_P(HalfParam, Float16ParamWithFloat32IsFloat32) {
    // Halide's rule: Float(16) with Float(32) is Float(32).
    Param<float16_t> h("h", float16_t(0.333f));
    Var x("x");
    Func f("widened");
    f(x) = cast<float>(x) / 7.0f + h;
    ASSERT_EQ(f.types()[0], Float(32));
    Buffer<float> out = f.realize({16});
    for (int xx = 0; xx < 16; xx++) EXPECT_EQ(out(xx), (float)xx / 7.0f + float(float16_t(0.333f))) << xx;
}

TEST_P(HalfParam, BFloat16ParamInArithmetic) {
    Param<bfloat16_t> scale("scale", bfloat16_t(1.1f));
    Param<bfloat16_t> bias("bias");
    bias.set(-2);  // an int
    EXPECT_EQ(scale.type(), BFloat(16));
    Var x("x");
    Func f("scaled");
    f(x) = cast<bfloat16_t>(x) * scale + bias;
    ASSERT_EQ(f.types()[0], BFloat(16));
    Buffer<bfloat16_t> a = f.realize({50});
    expect_values(a, [](int x) { return bfloat16_t(x) * bfloat16_t(1.1f) + bfloat16_t(-2); });

    scale.set(3.0e-3);  // a double, rounded once to bfloat16
    bias.set(bfloat16_t(300.0f));
    Buffer<bfloat16_t> b = f.realize({50});
    expect_values(b, [](int x) { return bfloat16_t(x) * bfloat16_t(3.0e-3) + bfloat16_t(300.0f); });
}

TEST_P(HalfParam, BothHalfTypesInOnePipeline) {
    // Float(16) with BFloat(16) is Float(32).
    Param<float16_t> h("h", float16_t(0.7f));
    Param<bfloat16_t> b("b", bfloat16_t(-0.3f));
    ImageParam in(Float(32), 1, "in");
    Buffer<float> input(12);
    for (int i = 0; i < 12; i++) input(i) = i * 0.5f - 2.0f;
    in.set(input);
    Var x("x");
    Func f("mixed");
    f(x) = in(x) * h + b;
    ASSERT_EQ(f.types()[0], Float(32));
    Buffer<float> out = f.realize({12});
    for (int i = 0; i < 12; i++) {
        EXPECT_EQ(out(i), input(i) * float(float16_t(0.7f)) + float(bfloat16_t(-0.3f))) << i;
    }
}

TEST_P(HalfParam, HalfParamInABoundAndACondition) {
    // A Float(16) Param decides a select and, cast to int, an RDom's extent.
    Param<float16_t> limit("limit", float16_t(6.5f));
    Var x("x");
    Func count("count");
    RDom r(0, cast<int>(limit));
    count(x) = 0;
    count(x) += select(cast<float16_t>(r) < limit - cast<float16_t>(x), 1, 0);
    Buffer<int32_t> out = count.realize({10});
    for (int xx = 0; xx < 10; xx++) {
        int expected = 0;
        for (int rr = 0; rr < 6; rr++) expected += (float16_t(rr) < float16_t(6.5f) - float16_t(xx)) ? 1 : 0;
        EXPECT_EQ(out(xx), expected) << xx;
    }
}

LOOM_INSTANTIATE_BACKENDS(HalfParam);

TEST(HalfParamValues, SetGetAndConversions) {
    Param<float16_t> h("h");
    h.set(float16_t(2.5f));
    EXPECT_EQ(float(h.get()), 2.5f);
    h.set(65519.0f);  // rounds to the largest finite half
    EXPECT_EQ(float(h.get()), 65504.0f);
    h.set(int64_t(70000));  // beyond the range: infinity, as float16_t(70000.0) is
    EXPECT_TRUE(h.get().is_infinity());
    h.set(bfloat16_t(1.5f));  // the other 16-bit type: converted through float
    EXPECT_EQ(float(h.get()), 1.5f);

    Param<bfloat16_t> b("b");
    b.set(float16_t(0.1f));
    EXPECT_EQ(b.get().to_bits(), bfloat16_t(float(float16_t(0.1f))).to_bits());

    // Other Params take 16-bit values as the numbers they are.
    Param<float> f("f");
    f.set(float16_t(0.1f));
    EXPECT_EQ(f.get(), float(float16_t(0.1f)));
    Param<int> i("i");
    i.set(bfloat16_t(96.0f));
    EXPECT_EQ(i.get(), 96);

    Param<> dynamic(BFloat(16), "dynamic");
    dynamic.set(bfloat16_t(4.0f));
    EXPECT_EQ(float(dynamic.get<bfloat16_t>()), 4.0f);
}

TEST(HalfParamValues, ACallableTakesHalfScalars) {
    // Callable (JIT, Halide's): 16-bit float arguments by value, checked against the Params' types.
    Param<float16_t> h("h");
    Param<bfloat16_t> b("b");
    Var x("x");
    Func f("f");
    f(x) = cast<float16_t>(x) * h + cast<float16_t>(b);
    Callable callable = f.compile_to_callable({h, b});
    Buffer<float16_t> out(20);
    ASSERT_EQ(callable(float16_t(0.7f), bfloat16_t(-3.0f), out), 0);
    expect_values(out, [](int x) { return float16_t(x) * float16_t(0.7f) + float16_t(-3.0f); });
    auto fn = callable.make_std_function<float16_t, bfloat16_t, Buffer<float16_t>>();
    ASSERT_EQ(fn(float16_t(2.5f), bfloat16_t(0.5f), out), 0);
    expect_values(out, [](int x) { return float16_t(x) * float16_t(2.5f) + float16_t(0.5f); });
    // The type is checked exactly: a bfloat16_t for the float16_t argument is an error.
    try {
        (void)callable(bfloat16_t(0.7f), bfloat16_t(-3.0f), out);
        FAIL() << "expected a RuntimeError";
    } catch (const RuntimeError &e) {
        EXPECT_NE(std::string(e.what()).find("('h'): expected a scalar of type float16, got a scalar of type bfloat16"),
                  std::string::npos)
            << e.what();
    }
}

TEST(HalfParamValues, MistakesAreCompileErrors) {
    Param<float16_t> unset("unset_half");
    try {
        (void)unset.get();
        FAIL() << "expected a CompileError";
    } catch (const CompileError &e) {
        EXPECT_NE(std::string(e.what()).find("Param unset_half has no value"), std::string::npos) << e.what();
    }
    Var x("x");
    Func f("reads_unset");
    f(x) = cast<float16_t>(x) + unset;
    try {
        f.realize({4});
        FAIL() << "expected a CompileError";
    } catch (const CompileError &e) {
        EXPECT_NE(std::string(e.what()).find("unset_half"), std::string::npos) << e.what();
    }
    Param<int> i("i");
    try {
        i.set(float16_t(2.5f));
        FAIL() << "expected a CompileError";
    } catch (const CompileError &e) {
        EXPECT_NE(std::string(e.what()).find("Param i has type int32, which can't hold the value 2.5"),
                  std::string::npos)
            << e.what();
    }
    Param<> dynamic(Float(16), "dynamic");
    try {
        dynamic.set(bfloat16_t(1.0f));
        FAIL() << "expected a CompileError";
    } catch (const CompileError &e) {
        EXPECT_NE(std::string(e.what()).find("Param dynamic has type float16, but is accessed as bfloat16"),
                  std::string::npos)
            << e.what();
    }
}
