// Pipeline inputs: Params and ImageParams change between runs without
// recompiling; Buffers read directly; bounds inference of inputs.

#include "e2e/E2ETest.h"

#include <memory>

#include "ir/Function.h"

using namespace loom;
using loom::internal::jit_compile_count;
using loom_test::expect_buffer_eq;

namespace {

class Inputs : public loom_test::BackendTest {};

TEST_P(Inputs, ParamsChangeWithoutRecompiling) {
    Var x("x");
    Param<int> offset("offset");
    Param<float> scale("scale", 2.0f);
    Func f("scaled");
    f(x) = cast<float>(x + offset) * scale;

    offset.set(3);
    Buffer<float> a = f.realize({5});
    int compiles = jit_compile_count();
    expect_buffer_eq(a, [](const std::vector<int> &p) { return (p[0] + 3) * 2.0f; });

    offset.set(-10);
    scale.set(0.5f);
    Buffer<float> b = f.realize({5});
    EXPECT_EQ(jit_compile_count(), compiles);
    expect_buffer_eq(b, [](const std::vector<int> &p) { return (p[0] - 10) * 0.5f; });
}

TEST_P(Inputs, EveryParamType) {
    Var x("x");
    Param<int8_t> i8("i8", -5);
    Param<uint8_t> u8("u8", 250);
    Param<int16_t> i16("i16", -3000);
    Param<uint32_t> u32("u32", 4000000000u);
    Param<int64_t> i64("i64", -(int64_t(1) << 40));
    Param<double> f64("f64", 0.25);
    Param<bool> flag("flag", true);
    Param<> dynamic(Int(32), "dynamic");
    dynamic.set<int32_t>(17);
    Func f("mix");
    f(x) = cast<double>(i8) + cast<double>(u8) + cast<double>(i16) + cast<double>(u32) + cast<double>(i64) + f64 +
           select(flag, 1.0, 0.0) + cast<double>(dynamic) + cast<double>(x);
    Buffer<double> out = f.realize({2});
    double expected = -5.0 + 250.0 - 3000.0 + 4000000000.0 - double(int64_t(1) << 40) + 0.25 + 1.0 + 17.0;
    EXPECT_DOUBLE_EQ(out(0), expected);
    EXPECT_DOUBLE_EQ(out(1), expected + 1.0);
    flag.set(false);
    out = f.realize({2});
    EXPECT_DOUBLE_EQ(out(0), expected - 1.0);
}

TEST_P(Inputs, ImageParamNewBufferWithoutRecompiling) {
    Var x("x"), y("y");
    ImageParam in(UInt(8), 2, "input");
    Func f("brighten");
    f(x, y) = cast<uint8_t>(min(cast<int>(in(x, y)) + 50, 255));

    Buffer<uint8_t> first(6, 4);
    first.for_each_element([&](int i, int j) { first(i, j) = uint8_t(i * 40 + j); });
    in.set(first);
    Buffer<uint8_t> a = f.realize({6, 4});
    int compiles = jit_compile_count();
    expect_buffer_eq(a, [&](const std::vector<int> &p) { return uint8_t(std::min(first(p[0], p[1]) + 50, 255)); });

    // A new buffer of another size and origin: same compiled code.
    Buffer<uint8_t> second(10, 3);
    second.set_min(-2, 5);
    second.for_each_element([&](int i, int j) { second(i, j) = uint8_t(100 + i + j); });
    in.set(second);
    Buffer<uint8_t> b(10, 3);
    b.set_min(-2, 5);
    f.realize(b);
    EXPECT_EQ(jit_compile_count(), compiles);
    expect_buffer_eq(b, [&](const std::vector<int> &p) { return uint8_t(std::min(second(p[0], p[1]) + 50, 255)); });
}

TEST_P(Inputs, ImageParamShape) {
    Var x("x");
    ImageParam in(Int(32), 1, "seq");
    Func f("last");
    f(x) = in(in.dim(0).max()) + in.width() * 1000 + in.left() * 100000;
    Buffer<int> data(5);
    data.set_min(3);
    for (int i = 3; i < 8; i++) data(i) = i * 2;
    in.set(data);
    Buffer<int> out = f.realize({1});
    EXPECT_EQ(out(0), 14 + 5 * 1000 + 3 * 100000);
}

TEST_P(Inputs, UnboundImageParamIsACompileError) {
    Var x("x");
    ImageParam in(Float(32), 1, "unbound_input");
    Func f("reads_unbound");
    f(x) = in(x) * 2.0f;
    try {
        f.realize({4});
        FAIL() << "expected a CompileError";
    } catch (const CompileError &e) {
        EXPECT_NE(std::string(e.what()).find("unbound_input"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("set("), std::string::npos) << e.what();
    }
}

TEST_P(Inputs, BufferReadDirectly) {
    Var x("x"), y("y");
    Buffer<int16_t> table(std::vector<int>{4, 3}, "table");
    table.for_each_element([&](int i, int j) { table(i, j) = int16_t(i * 10 - j); });
    Func f("lookup");
    f(x, y) = table(3 - x, y) * cast<int16_t>(2);
    Buffer<int16_t> out = f.realize({4, 3});
    expect_buffer_eq(out, [&](const std::vector<int> &p) { return int16_t(table(3 - p[0], p[1]) * 2); });
    // Writing new values into the same buffer needs no recompilation.
    int compiles = jit_compile_count();
    table.fill(1);
    out = f.realize({4, 3});
    EXPECT_EQ(jit_compile_count(), compiles);
    EXPECT_EQ(out(2, 2), 2);
}

TEST_P(Inputs, DefinitionChangeRecompiles) {
    Var x("x");
    Func g("g"), f("f");
    g(x) = x;
    f(x) = g(x) + 1;
    Buffer<int> a = f.realize({3});
    int compiles = jit_compile_count();
    g.compute_root();  // a schedule change anywhere in the pipeline
    Buffer<int> b = f.realize({3});
    EXPECT_EQ(jit_compile_count(), compiles + 1);
    EXPECT_EQ(b(2), 3);
    f(0) = 100;  // a new update
    Buffer<int> c = f.realize({3});
    EXPECT_EQ(jit_compile_count(), compiles + 2);
    EXPECT_EQ(c(0), 100);
    EXPECT_EQ(c(1), 2);
}

TEST_P(Inputs, CompileJitThenRealize) {
    Var x("x");
    Param<int> k("k", 4);
    Func f("precompiled");
    f(x) = x * k;
    f.compile_jit();
    int compiles = jit_compile_count();
    Buffer<int> out = f.realize({3});
    EXPECT_EQ(jit_compile_count(), compiles);
    EXPECT_EQ(out(2), 8);
}

TEST_P(Inputs, PipelineCachesToo) {
    Var x("x");
    Param<int> k("k");
    Func f("pf");
    f(x) = x + k;
    Pipeline p(f);
    k.set(1);
    Buffer<int> a = p.realize({4});
    int compiles = jit_compile_count();
    k.set(2);
    Buffer<int> b = p.realize({4});
    EXPECT_EQ(jit_compile_count(), compiles);
    EXPECT_EQ(a(3), 4);
    EXPECT_EQ(b(3), 5);
}

TEST_P(Inputs, InferInputBounds) {
    Var x("x"), y("y");
    ImageParam in(Float(32), 2, "stencil_input");
    Func f("stencil");
    f(x, y) = in(x - 1, y) + in(x + 2, y + 1);
    f.infer_input_bounds({8, 5});
    Buffer<> bound = in.get();
    ASSERT_TRUE(bound.defined());
    EXPECT_EQ(bound.min(0), -1);
    EXPECT_EQ(bound.extent(0), 11);
    EXPECT_EQ(bound.min(1), 0);
    EXPECT_EQ(bound.extent(1), 6);
    Buffer<float> typed = bound;
    typed.for_each_element([&](int i, int j) { typed(i, j) = float(i * 10 + j); });
    Buffer<float> out = f.realize({8, 5});
    expect_buffer_eq(out, [](const std::vector<int> &p) {
        return float((p[0] - 1) * 10 + p[1]) + float((p[0] + 2) * 10 + p[1] + 1);
    });
}

TEST_P(Inputs, ImageParamAsFunc) {
    Var x("x"), y("y");
    ImageParam in(Int(16), 2, "as_func");
    Func wrapped = in;
    Func f("uses_wrapper");
    f(x, y) = wrapped(y, x) * cast<int16_t>(3);
    Buffer<int16_t> data(3, 3);
    data.for_each_element([&](int i, int j) { data(i, j) = int16_t(i - 4 * j); });
    in.set(data);
    Buffer<int16_t> out = f.realize({3, 3});
    expect_buffer_eq(out, [&](const std::vector<int> &p) { return int16_t(data(p[1], p[0]) * 3); });
}

TEST_P(Inputs, RealizedFuncsAreFreed) {
    std::weak_ptr<loom::internal::FunctionContents> f_alive, g_alive;
    {
        Var x("x");
        RDom r(1, 5, "r");
        Func g("freed_g"), f("freed_f");
        g(x) = x;
        g.compute_root();
        f(x) = g(x);
        f(r) = f(r - 1) + g(r);  // a self-reference and a cached compilation
        Buffer<int> out = f.realize({6});
        EXPECT_EQ(out(5), 15);
        f_alive = f.function().strong;
        g_alive = g.function().strong;
    }
    EXPECT_TRUE(f_alive.expired());
    EXPECT_TRUE(g_alive.expired());
}

LOOM_INSTANTIATE_BACKENDS(Inputs);

// Not parameterized: switches back ends itself.
TEST(InputsAcrossBackends, EachBackendCachesItsOwnCompilation) {
    using loom::internal::Backend;
    Backend previous = loom::internal::jit_backend();
    Var x("x");
    Func f("two_backends");
    f(x) = x * 5;
    loom::internal::set_jit_backend(Backend::LLVM);
    Buffer<int> a = f.realize({4});
    int compiles = jit_compile_count();
    loom::internal::set_jit_backend(Backend::Interpreter);
    Buffer<int> b = f.realize({4});
    EXPECT_EQ(jit_compile_count(), compiles + 1);
    loom::internal::set_jit_backend(Backend::LLVM);
    Buffer<int> c = f.realize({4});
    loom::internal::set_jit_backend(Backend::Interpreter);
    Buffer<int> d = f.realize({4});
    EXPECT_EQ(jit_compile_count(), compiles + 1);
    for (int i = 0; i < 4; i++) {
        EXPECT_EQ(a(i), i * 5);
        EXPECT_EQ(b(i), i * 5);
        EXPECT_EQ(c(i), i * 5);
        EXPECT_EQ(d(i), i * 5);
    }
    loom::internal::set_jit_backend(previous);
}

}  // namespace
