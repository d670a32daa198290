// Pipeline inputs: Params and ImageParams change between runs without
// recompiling; Buffers read directly; bounds inference of inputs
// (infer_input_bounds over sizes, or over output buffers as in Halide).

#include "e2e/E2ETest.h"

#include <algorithm>
#include <climits>
#include <memory>

#include "ir/Function.h"

using namespace loom;
using loom::internal::jit_compile_count;
using loom_test::compile_error_message;
using loom_test::contains;
using loom_test::expect_buffer_eq;

namespace {

/** The box of coordinates a plain C++ loop reads, grown by each read. */
class ReadBox {
public:
    explicit ReadBox(int dimensions) : lo_(dimensions, INT_MAX), hi_(dimensions, INT_MIN) {}
    void read(const std::vector<int> &at) {
        for (size_t d = 0; d < at.size(); d++) {
            lo_[d] = std::min(lo_[d], at[d]);
            hi_[d] = std::max(hi_[d], at[d]);
        }
    }
    int dimensions() const { return (int)lo_.size(); }
    int min(int d) const { return lo_[d]; }
    int extent(int d) const { return hi_[d] - lo_[d] + 1; }

private:
    std::vector<int> lo_, hi_;
};

/** Expects b to cover exactly the box. */
void expect_region(const Buffer<> &b, const ReadBox &box) {
    ASSERT_TRUE(b.defined());
    ASSERT_EQ(b.dimensions(), box.dimensions());
    for (int d = 0; d < box.dimensions(); d++) {
        EXPECT_EQ(b.min(d), box.min(d)) << "dimension " << d;
        EXPECT_EQ(b.extent(d), box.extent(d)) << "dimension " << d;
    }
}

/** Expects b to have these mins and extents and every value `value`. */
template<typename T>
void expect_unchanged(const Buffer<T> &b, const std::vector<int> &mins, const std::vector<int> &extents, T value) {
    ASSERT_EQ(b.dimensions(), (int)mins.size());
    for (int d = 0; d < b.dimensions(); d++) {
        EXPECT_EQ(b.min(d), mins[d]) << "dimension " << d;
        EXPECT_EQ(b.extent(d), extents[d]) << "dimension " << d;
    }
    expect_buffer_eq(b, [&](const std::vector<int> &) { return value; });
}

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

// f.infer_input_bounds(out) asks for out's own region (here with non-zero
// mins): the unbound input gets exactly what a C++ loop over that region
// reads, the bound one keeps its buffer, and out is neither computed into
// nor changed. Then realize(out) runs on the inferred input.
TEST_P(Inputs, InferInputBoundsFromOutputBuffer) {
    Var x("x"), y("y");
    ImageParam in(Float(32), 2, "blur_in");
    ImageParam weight(Float(32), 1, "blur_weight");
    Func blur("blur3");
    Expr row = clamp(y, 2, 9);
    blur(x, y) = (in(x - 1, row) + in(x, row) * 2.0f + in(x + 1, row)) * weight(y);

    Buffer<float> weights(20);
    weights.set_min({-5});
    weights.fill([](int i) { return 0.5f + float(i); });
    weight.set(weights);
    const std::vector<int> mins = {-3, 6}, extents = {7, 5};
    Buffer<float> out(extents);
    out.set_min(mins);
    out.fill(42.0f);

    blur.infer_input_bounds(out);

    auto clamp_row = [](int j) { return std::clamp(j, 2, 9); };
    ReadBox reads(2);
    for (int j = mins[1]; j < mins[1] + extents[1]; j++) {
        for (int i = mins[0]; i < mins[0] + extents[0]; i++) {
            for (int dx = -1; dx <= 1; dx++) reads.read({i + dx, clamp_row(j)});
        }
    }
    expect_region(in.get(), reads);  // [-4, 4] x [6, 9]
    EXPECT_EQ(weight.get().data(), (void *)weights.data());
    EXPECT_EQ(weight.get().min(0), -5);
    EXPECT_EQ(weight.get().extent(0), 20);
    expect_unchanged(out, mins, extents, 42.0f);

    Buffer<float> input = in.get();
    expect_buffer_eq(input, [](const std::vector<int> &) { return 0.0f; });  // zeroed, as every new Buffer
    input.fill([](int i, int j) { return float(i * 10 + j); });
    blur.realize(out);
    expect_buffer_eq(out, [&](const std::vector<int> &p) {
        const int r = clamp_row(p[1]);
        return (float((p[0] - 1) * 10 + r) + float(p[0] * 10 + r) * 2.0f + float((p[0] + 1) * 10 + r)) *
               weights(p[1]);
    });
}

// A Pipeline with two outputs asked for two different regions: each input
// covers exactly what the C++ loops over both regions read together.
TEST_P(Inputs, PipelineInferInputBoundsFromOutputBuffers) {
    Var x("x"), y("y");
    ImageParam in(Int(32), 2, "pair_in");
    ImageParam table(Int(32), 1, "pair_table");
    ImageParam bias(Int(32), 2, "pair_bias");
    Func sum3("pair_sum3"), shifted("pair_shifted");
    sum3(x, y) = in(x - 1, y) + in(x, y) + in(x + 1, y);
    shifted(x, y) = in(x + 4, y - 2) * table(clamp(x * 2, 0, 30)) + bias(x, y);

    const std::vector<int> a_mins = {2, -1}, a_extents = {6, 4};
    const std::vector<int> b_mins = {-2, 4}, b_extents = {5, 3};
    Buffer<int> a(a_extents), b(b_extents), biases(b_extents);
    a.set_min(a_mins);
    b.set_min(b_mins);
    biases.set_min(b_mins);
    a.fill(-7);
    b.fill(-7);
    biases.fill([](int i, int j) { return i - 3 * j; });
    bias.set(biases);

    Pipeline p({sum3, shifted});
    p.infer_input_bounds({a, b});

    ReadBox in_reads(2), table_reads(1);
    for (int j = a_mins[1]; j < a_mins[1] + a_extents[1]; j++) {
        for (int i = a_mins[0]; i < a_mins[0] + a_extents[0]; i++) {
            for (int dx = -1; dx <= 1; dx++) in_reads.read({i + dx, j});
        }
    }
    for (int j = b_mins[1]; j < b_mins[1] + b_extents[1]; j++) {
        for (int i = b_mins[0]; i < b_mins[0] + b_extents[0]; i++) {
            in_reads.read({i + 4, j - 2});
            table_reads.read({std::clamp(i * 2, 0, 30)});
        }
    }
    expect_region(in.get(), in_reads);        // [1, 8] x [-1, 4]
    expect_region(table.get(), table_reads);  // [0, 4]
    EXPECT_EQ(bias.get().data(), (void *)biases.data());
    expect_unchanged(a, a_mins, a_extents, -7);
    expect_unchanged(b, b_mins, b_extents, -7);

    Buffer<int> input = in.get(), lookup = table.get();
    input.fill([](int i, int j) { return 100 * i + j; });
    lookup.fill([](int i) { return i + 2; });
    p.realize({a, b});
    expect_buffer_eq(a, [&](const std::vector<int> &q) {
        return input(q[0] - 1, q[1]) + input(q[0], q[1]) + input(q[0] + 1, q[1]);
    });
    expect_buffer_eq(b, [&](const std::vector<int> &q) {
        return input(q[0] + 4, q[1] - 2) * lookup(std::clamp(q[0] * 2, 0, 30)) + biases(q[0], q[1]);
    });
}

// The sizes overload is "outputs of these sizes, then the buffer overload":
// {W, H} (not a Realization), a temporary Buffer and a Realization agree.
TEST_P(Inputs, InferInputBoundsOverloadsAgree) {
    Var x("x"), y("y");
    ImageParam in(UInt(8), 2, "agree_in");
    Func f("agree"), g("agree_pair");
    f(x, y) = in(x * 2, y + 3);
    g(x, y) = Tuple(in(x, y), in(x - 2, y));
    const int W = 5, H = 4;
    auto expect_inferred = [&](int min0, int extent0, int min1, int extent1) {
        Buffer<> b = in.get();
        ASSERT_TRUE(b.defined());
        EXPECT_EQ(b.min(0), min0);
        EXPECT_EQ(b.extent(0), extent0);
        EXPECT_EQ(b.min(1), min1);
        EXPECT_EQ(b.extent(1), extent1);
        in.reset();
    };
    f.infer_input_bounds({W, H});
    expect_inferred(0, 2 * (W - 1) + 1, 3, H);
    f.infer_input_bounds(Buffer<uint8_t>(W, H));
    expect_inferred(0, 2 * (W - 1) + 1, 3, H);
    Realization r{Buffer<uint8_t>(W, H)};
    f.infer_input_bounds(r);
    expect_inferred(0, 2 * (W - 1) + 1, 3, H);
    // A Tuple Func: one buffer per element.
    g.infer_input_bounds({W, H});
    expect_inferred(-2, W + 2, 0, H);
    g.infer_input_bounds({Buffer<uint8_t>(W, H), Buffer<uint8_t>(W, H)});
    expect_inferred(-2, W + 2, 0, H);
    // A Func of no dimensions: {} (no sizes) and a rank-0 buffer.
    Func point("agree_point");
    point() = in(3, 2);
    point.infer_input_bounds({});
    expect_inferred(3, 1, 2, 1);
    point.infer_input_bounds(Buffer<uint8_t>::make_scalar());
    expect_inferred(3, 1, 2, 1);
}

// Output buffers that don't fit the Func are CompileErrors naming it and
// saying what is wrong; nothing is bound.
TEST_P(Inputs, InferInputBoundsRejectsWrongOutputBuffers) {
    Var x("x"), y("y");
    ImageParam in(Float(32), 2, "checked_in");
    Func f("checked_out"), g("checked_other");
    f(x, y) = in(x + 1, y);
    g(x, y) = in(x, y) * 2.0f;

    Buffer<int> wrong_type(4, 4, "int_out");
    std::string msg = compile_error_message([&] { f.infer_input_bounds(wrong_type); });
    EXPECT_TRUE(contains(msg, "infer_input_bounds of checked_out into buffer int_out of type int32, but "
                              "checked_out has type float32."))
        << msg;
    Buffer<float> wrong_rank(4);
    msg = compile_error_message([&] { f.infer_input_bounds(wrong_rank); });
    EXPECT_TRUE(contains(msg, "infer_input_bounds of checked_out with 1 dimensions, but checked_out has 2.")) << msg;
    msg = compile_error_message([&] { f.infer_input_bounds({4}); });
    EXPECT_TRUE(contains(msg, "infer_input_bounds of checked_out with 1 dimensions, but checked_out has 2.")) << msg;
    Buffer<float> undefined;
    msg = compile_error_message([&] { f.infer_input_bounds(undefined); });
    EXPECT_TRUE(contains(msg, "infer_input_bounds of checked_out into an undefined Buffer.")) << msg;
    Pipeline p({f, g});
    msg = compile_error_message([&] { p.infer_input_bounds(Buffer<float>(4, 4)); });
    EXPECT_TRUE(contains(msg, "infer_input_bounds of checked_out, checked_other needs 2 buffers (one per output "
                              "and Tuple element), but was given 1."))
        << msg;
    Target no_query = get_jit_target_from_environment();
    no_query.set_feature(Target::NoBoundsQuery);
    msg = compile_error_message([&] { f.infer_input_bounds(Buffer<float>(4, 4), no_query); });
    EXPECT_TRUE(contains(msg, "infer_input_bounds of checked_out: the target ")) << msg;
    EXPECT_TRUE(contains(msg, "has no_bounds_query, so the pipeline can't answer a bounds query.")) << msg;
    EXPECT_FALSE(in.get().defined());
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

// A program written for Halide, as Halide's tests call infer_input_bounds
// with an output buffer: only the namespace differs.
namespace halide_port {
namespace Halide = loom;

TEST(InferInputBoundsHalidePort, OutputBufferAsInHalide) {
    Halide::ImageParam input(Halide::Float(32), 2);
    Halide::Var x, y;
    Halide::Func f;
    f(x, y) = input(x - 1, y) + input(x + 3, y + 1);

    const int W = 10, H = 6;
    Halide::Buffer<float> out(W, H);
    f.infer_input_bounds(out);
    Halide::Buffer<float> in = input.get();
    EXPECT_EQ(in.min(0), -1);
    EXPECT_EQ(in.extent(0), W + 4);
    EXPECT_EQ(in.min(1), 0);
    EXPECT_EQ(in.extent(1), H + 1);

    in.fill(1.5f);
    f.realize(out);
    expect_buffer_eq(out, [](const std::vector<int> &) { return 3.0f; });
}

}  // namespace halide_port

}  // namespace
