// Buffer layout constraints (loom/Dimension.h) on every backend: a buffer
// that meets them runs and matches a plain C++ loop, one that does not is a
// RuntimeError naming the buffer, the dimension, the required and the
// actual value, checked before anything is written; the compiler uses a
// constant constraint in place of the field; interleaved images need the
// default stride-1 constraint of dimension 0 lifted, as in Halide.

#include <vector>

#include "e2e/E2ETest.h"

using namespace loom;
using loom_test::compile_error_message;
using loom_test::contains;
using loom_test::expect_buffer_eq;
using loom_test::lowered_stmt;
using loom_test::runtime_error_message;

namespace {

class BufferConstraints : public loom_test::BackendTest {};

TEST_P(BufferConstraints, InputMinAndExtentMetAndViolated) {
    Var x("x"), y("y");
    ImageParam in(Int(32), 2, "bc_in");
    Param<int> rows("bc_rows");
    in.dim(0).set_min(0);
    in.dim(1).set_bounds(0, rows);
    Func f("bc_f");
    f(x, y) = in(x, y) * 2 + in(x, (y + 1) % rows);
    Buffer<int> data(10, 4);
    data.for_each_element([&](int i, int j) { data(i, j) = i * 10 + j; });
    in.set(data);
    rows.set(4);
    Buffer<int> out = f.realize({10, 4});
    expect_buffer_eq(out, [](const std::vector<int> &p) { return (p[0] * 10 + p[1]) * 2 + p[0] * 10 + (p[1] + 1) % 4; });

    rows.set(3);  // the buffer has 4 rows, the pipeline requires 3
    std::string message = runtime_error_message([&] { f.realize({10, 3}); });
    EXPECT_TRUE(contains(message, "Input buffer bc_in has extent 4 in dimension 1, but the pipeline requires extent 3"))
        << message;
    rows.set(4);
    data.set_min(1, 0);
    message = runtime_error_message([&] { f.realize({10, 4}); });
    EXPECT_TRUE(contains(message, "Input buffer bc_in has min 1 in dimension 0, but the pipeline requires min 0"))
        << message;
}

TEST_P(BufferConstraints, ParamsUsedOnlyByConstraints) {
    // w and h appear nowhere but in the constraints: they are still
    // arguments of the pipeline, read by the checks.
    Var x("x");
    ImageParam in(Int(32), 1, "bc_only");
    Param<int> w("bc_w"), h("bc_h");
    in.dim(0).set_extent(w);
    Func f("bc_only_f");
    f(x) = in(x) + 1;
    f.output_buffer().dim(0).set_extent(h);
    Buffer<int> data(6);
    data.for_each_element([&](int i) { data(i) = i * i; });
    in.set(data);
    w.set(6);
    h.set(4);
    expect_buffer_eq(Buffer<int>(f.realize({4})), [](const std::vector<int> &p) { return p[0] * p[0] + 1; });
    w.set(7);
    std::string message = runtime_error_message([&] { f.realize({4}); });
    EXPECT_TRUE(contains(message, "Input buffer bc_only has extent 6 in dimension 0, but the pipeline requires extent 7"))
        << message;
    w.set(6);
    h.set(5);
    // realize(sizes) computes the 5 the constraint asks for and returns the
    // 4 asked for (Halide's crop); into a buffer of 4 it is an error.
    Buffer<int> cropped = f.realize({4});
    EXPECT_EQ(cropped.dim(0).extent(), 4);
    expect_buffer_eq(cropped, [](const std::vector<int> &p) { return p[0] * p[0] + 1; });
    Buffer<int> four(4);
    message = runtime_error_message([&] { f.realize(four); });
    EXPECT_TRUE(contains(message, "Output buffer bc_only_f has extent 4 in dimension 0, but the pipeline requires "
                                  "extent 5")) << message;
}

TEST_P(BufferConstraints, OutputConstraintsAreCheckedBeforeWriting) {
    Var x("x"), y("y");
    Func f("bc_out");
    f(x, y) = x * 3 + y;
    f.output_buffer().dim(0).set_bounds(0, 8);
    f.vectorize(x, 4);
    Buffer<int> out = f.realize({8, 3});
    expect_buffer_eq(out, [](const std::vector<int> &p) { return p[0] * 3 + p[1]; });
    Buffer<int> wrong(12, 3);
    wrong.fill(-1);
    std::string message = runtime_error_message([&] { f.realize(wrong); });
    EXPECT_TRUE(contains(message, "Output buffer bc_out has extent 12 in dimension 0, but the pipeline requires "
                                  "extent 8")) << message;
    wrong.for_each_element([&](int i, int j) { EXPECT_EQ(wrong(i, j), -1); });
    // The constant extent is folded: the loop over x runs 8 iterations,
    // no longer reading the buffer's extent.
    const std::string stmt = lowered_stmt(f, "bc_out.stmt");
    EXPECT_FALSE(contains(stmt, "bc_out.s0.x.loop_extent = bc_out.extent.0")) << stmt;
}

TEST_P(BufferConstraints, TupleOutputsHaveOneBufferEach) {
    Var x("x");
    Func f("bc_tuple");
    f(x) = Tuple(x, cast<float>(x) * 0.5f);
    std::vector<OutputImageParam> outs = f.output_buffers();
    ASSERT_EQ(outs.size(), 2u);
    EXPECT_EQ(outs[1].name(), "bc_tuple.1");
    outs[1].dim(0).set_extent(6);
    Realization r = f.realize({6});
    Buffer<int> a = r[0];
    Buffer<float> b = r[1];
    expect_buffer_eq(a, [](const std::vector<int> &p) { return p[0]; });
    expect_buffer_eq(b, [](const std::vector<int> &p) { return p[0] * 0.5f; });
    std::string message = runtime_error_message([&] { f.realize({7}); });
    EXPECT_TRUE(contains(message, "Output buffer bc_tuple.1 has extent 7")) << message;
    message = compile_error_message([&] { f.output_buffer(); });
    EXPECT_TRUE(contains(message, "output_buffers()")) << message;
}

TEST_P(BufferConstraints, InterleavedInputNeedsTheDefaultLifted) {
    Var x("x"), y("y"), c("c");
    ImageParam in(UInt(8), 3, "bc_rgb");
    Func f("bc_gray");
    f(x, y) = cast<uint8_t>((cast<int>(in(x, y, 0)) + cast<int>(in(x, y, 1)) * 2 + cast<int>(in(x, y, 2))) / 4);
    f.vectorize(x, 8);
    Buffer<uint8_t> rgb = Buffer<uint8_t>::make_interleaved(21, 4, 3);
    rgb.for_each_element([&](int i, int j, int k) { rgb(i, j, k) = uint8_t(i * 9 + j * 31 + k * 70); });
    in.set(rgb);
    // Halide's default: dimension 0 must be dense.
    std::string message = runtime_error_message([&] { f.realize({21, 4}); });
    EXPECT_TRUE(contains(message, "Input buffer bc_rgb has stride 3 in dimension 0")) << message;
    EXPECT_TRUE(contains(message, "set_stride(Expr())")) << message;
    in.dim(0).set_stride(Expr());
    auto gray = [&](const std::vector<int> &p) {
        return uint8_t((rgb(p[0], p[1], 0) + rgb(p[0], p[1], 1) * 2 + rgb(p[0], p[1], 2)) / 4);
    };
    // The pipeline compiled above is recompiled with the new constraint.
    expect_buffer_eq(Buffer<uint8_t>(f.realize({21, 4})), gray);
}

TEST_P(BufferConstraints, ConstantInterleavedStride) {
    // Constrained to exactly interleaved RGB: the compiler uses stride 3 and
    // channel stride 1; a planar image is refused.
    Var x("x"), y("y"), c("c");
    ImageParam in(UInt(8), 3, "bc_fixed");
    in.dim(0).set_stride(3);
    in.dim(2).set_stride(1).set_bounds(0, 3);
    Func f("bc_swap");
    f(x, y, c) = in(x, y, 2 - c);
    f.output_buffer().dim(0).set_stride(3);
    f.output_buffer().dim(2).set_stride(1);
    Buffer<uint8_t> rgb = Buffer<uint8_t>::make_interleaved(13, 3, 3);
    rgb.for_each_element([&](int i, int j, int k) { rgb(i, j, k) = uint8_t(i + 20 * j + 100 * k); });
    in.set(rgb);
    Buffer<uint8_t> out = Buffer<uint8_t>::make_interleaved(13, 3, 3);
    f.realize(out);
    expect_buffer_eq(out, [&](const std::vector<int> &p) { return rgb(p[0], p[1], 2 - p[2]); });
    const std::string stmt = lowered_stmt(f, "bc_swap.stmt");
    EXPECT_FALSE(contains(stmt, "* bc_fixed.stride.0")) << stmt;
    in.set(Buffer<uint8_t>(13, 3, 3));
    std::string message = runtime_error_message([&] { f.realize(out); });
    EXPECT_TRUE(contains(message, "Input buffer bc_fixed has stride 1 in dimension 0, but the pipeline requires "
                                  "stride 3")) << message;
}

TEST_P(BufferConstraints, InterleavedOutputWithTheDefaultLifted) {
    Var x("x"), y("y"), c("c");
    Func f("bc_paint");
    f(x, y, c) = x * 4 + y * 16 + c;
    f.output_buffer().dim(0).set_stride(Expr());
    Buffer<int> out = Buffer<int>::make_interleaved(9, 2, 3);
    f.realize(out);
    expect_buffer_eq(out, [](const std::vector<int> &p) { return p[0] * 4 + p[1] * 16 + p[2]; });
}

TEST_P(BufferConstraints, BoundsQueryAnswersWithTheConstrainedShape) {
    Var x("x");
    ImageParam in(Int(16), 1, "bc_query");
    in.dim(0).set_min(-4);
    Func f("bc_query_f");
    f(x) = in(x + 1) + in(x + 2);
    f.infer_input_bounds({10});
    Buffer<> bound = in.get();
    ASSERT_TRUE(bound.defined());
    EXPECT_EQ(bound.min(0), -4);
    EXPECT_EQ(bound.extent(0), 16);  // through x + 2 = 11
}

TEST_P(BufferConstraints, ConstraintErrors) {
    Var x("x");
    Func g("bc_g");
    g(x) = x;
    ImageParam in(Float(32), 2, "bc_err");
    std::string message = compile_error_message([&] { in.dim(1).set_extent(-2); });
    EXPECT_TRUE(contains(message, "ImageParam 'bc_err'.dim(1).set_extent") && contains(message, "negative"))
        << message;
    message = compile_error_message([&] { in.dim(0).set_min(x); });
    EXPECT_TRUE(contains(message, "the variable 'x'")) << message;
    message = compile_error_message([&] { in.dim(0).set_stride(g(0)); });
    EXPECT_TRUE(contains(message, "a call of Func 'bc_g'")) << message;
    message = compile_error_message([&] { in.dim(0).set_min(1.5f); });
    EXPECT_TRUE(contains(message, "integer scalar")) << message;
    message = compile_error_message([&] { in.dim(2); });
    EXPECT_TRUE(contains(message, "has 2 dimensions, so dim(2) does not exist")) << message;
    message = compile_error_message([&] { in.dim(0).set_estimate(0, Param<int>("bc_p")); });
    EXPECT_TRUE(contains(message, "set_estimate")) << message;
    Func undefined("bc_undefined");
    message = compile_error_message([&] { undefined.output_buffer(); });
    EXPECT_TRUE(contains(message, "bc_undefined")) << message;
}

TEST_P(BufferConstraints, EstimatesAreRecordedNotChecked) {
    Var x("x");
    ImageParam in(Int(32), 1, "bc_est");
    in.dim(0).set_estimate(0, 1024);
    EXPECT_TRUE(in.dim(0).extent_estimate().defined());
    Func f("bc_est_f");
    f(x) = in(x) + 1;
    Buffer<int> data(5);
    data.fill(4);
    in.set(data);
    expect_buffer_eq(Buffer<int>(f.realize({5})), [](const std::vector<int> &) { return 5; });
}

LOOM_INSTANTIATE_BACKENDS(BufferConstraints);

}  // namespace
