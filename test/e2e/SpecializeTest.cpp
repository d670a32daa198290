// Stage::specialize / specialize_fail against plain C++ loops on every
// backend: the branch a condition selects runs its own schedule, later
// conditions are tested after earlier ones, a constant-true condition
// prunes the rest, specialize_fail fails at run time with its message,
// bounds inference covers every branch, and specializing on an input's
// stride gives a dense fast path for planar images while interleaved ones
// take the strided path.

#include <vector>

#include "e2e/E2ETest.h"

using namespace loom;
using loom_test::compile_error_message;
using loom_test::contains;
using loom_test::expect_buffer_eq;
using loom_test::lowered_stmt;
using loom_test::runtime_error_message;

namespace {

class Specialize : public loom_test::BackendTest {};

int count(const std::string &text, const std::string &part) {
    int n = 0;
    for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) n++;
    return n;
}

TEST_P(Specialize, ParamConditionSelectsItsOwnSchedule) {
    Var x("x"), y("y"), xi("xi");
    Param<int> width("width");
    Func f("spec_param");
    f(x, y) = x * 3 + y * 7 + width;
    f.specialize(width >= 16).vectorize(x, 8);
    f.specialize(width >= 4).split(x, x, xi, 2).unroll(xi);
    for (int w : {20, 5, 3}) {
        width.set(w);
        Buffer<int> out = f.realize({w, 3});
        expect_buffer_eq(out, [&](const std::vector<int> &p) { return p[0] * 3 + p[1] * 7 + w; });
    }
    // Three loop nests: each specialization's and the stage's own.
    const std::string stmt = lowered_stmt(f, "spec_param.stmt");
    EXPECT_GE(count(stmt, "spec_param.s0.y"), 3) << stmt;
    EXPECT_TRUE(contains(stmt, "if (16 <= width)")) << stmt;
}

TEST_P(Specialize, LaterConditionsAreTestedAfterEarlierOnes) {
    // Overlapping conditions: only the first true one may run. A failure
    // nested in the first makes the branch taken observable.
    Var x("x");
    Param<int> p("p");
    Func f("spec_order");
    f(x) = x + p;
    Stage first = f.specialize(p > 10);
    first.specialize_fail("inner failure: p > 10 took the first branch");
    f.specialize(p > 5).vectorize(x, 4);
    f.specialize_fail("p must be greater than 5");
    p.set(7);  // only the second matches
    Buffer<int> out = f.realize({9});
    expect_buffer_eq(out, [&](const std::vector<int> &q) { return q[0] + 7; });
    p.set(12);  // both match: the first runs, and its nested failure fires
    std::string message = runtime_error_message([&] { f.realize({9}); });
    EXPECT_TRUE(contains(message, "inner failure: p > 10 took the first branch")) << message;
    p.set(2);
    message = runtime_error_message([&] { f.realize({9}); });
    EXPECT_TRUE(contains(message, "p must be greater than 5")) << message;
    EXPECT_TRUE(contains(message, "spec_order")) << message;
}

TEST_P(Specialize, ConstantTrueConditionPrunesTheRest) {
    Var x("x");
    Param<int> p("p_prune");
    Func f("spec_prune");
    f(x) = x * x - p;
    f.specialize(p == 3).vectorize(x, 4);
    f.specialize(cast<bool>(1)).unroll(x, 2);
    f.specialize(p == 4);        // unreachable
    f.specialize_fail("never");  // unreachable too
    for (int v : {3, 4, 9}) {
        p.set(v);
        Buffer<int> out = f.realize({10});
        expect_buffer_eq(out, [&](const std::vector<int> &q) { return q[0] * q[0] - v; });
    }
    const std::string stmt = lowered_stmt(f, "spec_prune.stmt");
    EXPECT_FALSE(contains(stmt, "never")) << stmt;
    EXPECT_FALSE(contains(stmt, "p_prune == 4")) << stmt;
}

TEST_P(Specialize, NestedSpecializationsAndUpdates) {
    Var x("x"), y("y");
    Param<int> a("a"), b("b");
    Func f("spec_nested");
    f(x, y) = x + y;
    f(x, y) += a * b;
    Stage outer = f.specialize(a > 0);
    outer.specialize(b > 0).vectorize(x, 4);
    f.update(0).specialize(b == 2).vectorize(x, 8, TailStrategy::GuardWithIf).unroll(y, 2, TailStrategy::GuardWithIf);
    for (auto [av, bv] : std::vector<std::pair<int, int>>{{1, 1}, {1, -1}, {-1, 2}, {-2, -3}}) {
        a.set(av);
        b.set(bv);
        Buffer<int> out = f.realize({11, 4});
        expect_buffer_eq(out, [&](const std::vector<int> &q) { return q[0] + q[1] + av * bv; });
    }
}

TEST_P(Specialize, ProducerComputedInsideEachBranch) {
    Var x("x"), y("y");
    Param<int> w("w_at");
    Func g("spec_producer"), f("spec_consumer");
    g(x, y) = x * 2 - y;
    f(x, y) = g(x, y) + g(x + 1, y) + w;
    g.compute_at(f, y);
    f.specialize(w > 8).vectorize(x, 8);
    for (int v : {16, 3}) {
        w.set(v);
        Buffer<int> out = f.realize({v, 5});
        expect_buffer_eq(out, [&](const std::vector<int> &q) {
            return q[0] * 2 - q[1] + (q[0] + 1) * 2 - q[1] + v;
        });
    }
}

TEST_P(Specialize, SlidingWindowProducerInEachBranch) {
    // g stored at the root and computed per row of f: each branch computes
    // the rows it needs (two compute sites, so no sliding window across
    // them), and the values match in both.
    Var x("x"), y("y");
    Param<int> p("p_slide");
    Func g("spec_slide_g"), f("spec_slide_f");
    g(x, y) = x * 3 + y * y;
    f(x, y) = g(x, y) + g(x, y + 1) + g(x + 1, y + 2);
    g.store_root().compute_at(f, y);
    f.specialize(p > 0).vectorize(x, 8);
    for (int v : {1, 0}) {
        p.set(v);
        Buffer<int> out = f.realize({17, 6});
        expect_buffer_eq(out, [](const std::vector<int> &q) {
            auto gv = [](int a, int b) { return a * 3 + b * b; };
            return gv(q[0], q[1]) + gv(q[0], q[1] + 1) + gv(q[0] + 1, q[1] + 2);
        });
    }
}

TEST_P(Specialize, BoundsFollowTheBranchThatRuns) {
    // A RoundUp split in one branch makes h compute, and read the input, up
    // to 16 elements for 13 outputs. As in Halide, a branch on the inputs
    // goes one way for a whole run, so the input must cover what the branch
    // taken reads: 16 elements when `wide`, 13 otherwise.
    Var x("x"), xo("xo"), xi("xi");
    ImageParam in(Int(32), 1, "spec_in");
    Param<bool> wide("wide");
    Func h("spec_h"), f("spec_union");
    h(x) = in(x) * 2;
    f(x) = h(x) + 1;
    h.compute_root();
    h.specialize(wide).split(x, xo, xi, 8, TailStrategy::RoundUp);
    Buffer<int> data(16);
    data.for_each_element([&](int i) { data(i) = i * 5 - 3; });
    in.set(data);
    for (bool v : {true, false}) {
        wide.set(v);
        Buffer<int> out = f.realize({13});
        expect_buffer_eq(out, [&](const std::vector<int> &q) { return (q[0] * 5 - 3) * 2 + 1; });
    }
    Buffer<int> small(13);
    small.for_each_element([&](int i) { small(i) = i; });
    in.set(small);
    wide.set(true);
    std::string message = runtime_error_message([&] { f.realize({13}); });
    EXPECT_TRUE(contains(message, "Input buffer spec_in is accessed at 15")) << message;
    wide.set(false);
    Buffer<int> out = f.realize({13});
    expect_buffer_eq(out, [&](const std::vector<int> &q) { return q[0] * 2 + 1; });
}

/** The canonical form: vectorize wide outputs by 16 (ShiftInwards needs at
 * least 16 points), narrow ones not at all. The output region check follows
 * the branch taken, so a narrow output is accepted. */
TEST_P(Specialize, WideOutputsOnly) {
    Var x("x"), y("y");
    Func f("spec_wide");
    f(x, y) = x * y + 1;
    f.specialize(f.output_buffer().width() >= 16).vectorize(x, 16);
    for (int w : {40, 16, 15, 1}) {
        Buffer<int> out = f.realize({w, 2});
        expect_buffer_eq(out, [](const std::vector<int> &q) { return q[0] * q[1] + 1; });
    }
}

/** The idiom: one pipeline for planar and interleaved images, with
 * a dense fast path when the input is planar. */
TEST_P(Specialize, InterleavedOrPlanarInputWithDenseFastPath) {
    Var x("x"), y("y"), c("c");
    ImageParam in(UInt(8), 3, "spec_rgb");
    in.dim(0).set_stride(Expr());  // accept interleaved images
    Func f("spec_brighten");
    f(x, y, c) = cast<uint8_t>(min(cast<int>(in(x, y, c)) * 3 / 2 + 5, 255));
    f.specialize(in.dim(0).stride() == 1).vectorize(x, 16);
    auto reference = [](const Buffer<uint8_t> &b) {
        return [b](const std::vector<int> &q) { return (uint8_t)std::min(b(q[0], q[1], q[2]) * 3 / 2 + 5, 255); };
    };
    Buffer<uint8_t> planar(37, 5, 3), interleaved = Buffer<uint8_t>::make_interleaved(37, 5, 3);
    planar.for_each_element([&](int i, int j, int k) { planar(i, j, k) = uint8_t(i * 7 + j * 13 + k * 51); });
    interleaved.for_each_element([&](int i, int j, int k) { interleaved(i, j, k) = uint8_t(i * 5 + j * 3 + k * 90); });
    ASSERT_EQ(interleaved.stride(0), 3);
    in.set(planar);
    expect_buffer_eq(Buffer<uint8_t>(f.realize({37, 5, 3})), reference(planar));
    in.set(interleaved);
    expect_buffer_eq(Buffer<uint8_t>(f.realize({37, 5, 3})), reference(interleaved));
    // The fast path indexes with stride 1 (a dense vector load) and the
    // other path with the buffer's stride.
    const std::string stmt = lowered_stmt(f, "spec_brighten.stmt");
    EXPECT_TRUE(contains(stmt, "spec_rgb.stride.0 == 1")) << stmt;
    EXPECT_TRUE(contains(stmt, "- spec_rgb.min.0, 1, 16)]")) << stmt;            // spec_rgb[ramp(..., 1, 16)]
    EXPECT_TRUE(contains(stmt, "- spec_rgb.min.0)*spec_rgb.stride.0 +")) << stmt;  // the general path
}

TEST_P(Specialize, ExtentFactUnrollsTheChannelLoop) {
    // Halide's lesson 16: the interleaved specialization states
    // brighter.dim(2).extent() == 3, so its loop over c has 3 iterations there
    // and can be unrolled, though the loop bounds are computed outside.
    Var x("x"), y("y"), c("c");
    ImageParam in(UInt(8), 3, "spec16_in");
    Param<uint8_t> offset("spec16_offset");
    Func f("spec16_brighter");
    f(x, y, c) = in(x, y, c) + offset;
    f.vectorize(x, 16);
    in.dim(0).set_stride(Expr());
    f.output_buffer().dim(0).set_stride(Expr());
    Expr in_planar = in.dim(0).stride() == 1;
    Expr in_interleaved = in.dim(0).stride() == 3 && in.dim(2).stride() == 1 && in.dim(2).extent() == 3;
    Expr out_planar = f.output_buffer().dim(0).stride() == 1;
    Expr out_interleaved = f.output_buffer().dim(0).stride() == 3 && f.output_buffer().dim(2).stride() == 1 &&
                           f.output_buffer().dim(2).extent() == 3;
    f.specialize(in_planar && out_planar);
    f.specialize(in_interleaved && out_interleaved).reorder(c, x, y).unroll(c);
    offset.set(7);
    for (bool interleaved : {false, true}) {
        Buffer<uint8_t> input = interleaved ? Buffer<uint8_t>::make_interleaved(40, 6, 3) : Buffer<uint8_t>(40, 6, 3);
        input.for_each_element([&](int i, int j, int k) { input(i, j, k) = uint8_t(i * 11 + j * 5 + k * 70); });
        Buffer<uint8_t> out = interleaved ? Buffer<uint8_t>::make_interleaved(40, 6, 3) : Buffer<uint8_t>(40, 6, 3);
        in.set(input);
        f.realize(out);
        expect_buffer_eq(out, [&](const std::vector<int> &q) { return uint8_t(input(q[0], q[1], q[2]) + 7); });
    }
    // Another extent takes the general path (no specialization matches).
    Buffer<uint8_t> four = Buffer<uint8_t>::make_interleaved(40, 6, 4), out4 = Buffer<uint8_t>::make_interleaved(40, 6, 4);
    four.for_each_element([&](int i, int j, int k) { four(i, j, k) = uint8_t(i + j + k); });
    in.set(four);
    f.realize(out4);
    expect_buffer_eq(out4, [&](const std::vector<int> &q) { return uint8_t(four(q[0], q[1], q[2]) + 7); });
}

TEST_P(Specialize, OutputBufferFieldInCondition) {
    Var x("x"), y("y");
    Func f("spec_out");
    f(x, y) = x - 2 * y;
    f.specialize(f.output_buffer().dim(0).extent() >= 8).vectorize(x, 8);
    for (int w : {19, 5}) {
        Buffer<int> out = f.realize({w, 3});
        expect_buffer_eq(out, [](const std::vector<int> &q) { return q[0] - 2 * q[1]; });
    }
}

TEST_P(Specialize, GpuScheduleInOneSpecialization) {
    // Only the specialization runs on the GPU; the general nest stays on the
    // CPU. A target without a GPU API refuses it, naming the loop.
    Var x("x"), xo("xo"), xi("xi");
    Param<int> p("p_gpu");
    Func f("spec_gpu");
    f(x) = x * 2 + p;
    f.specialize(p > 0).gpu_tile(x, xo, xi, 8);
    if (GetParam() == loom::internal::Backend::LLVM) {
        p.set(1);
        std::string message = compile_error_message([&] { f.realize({20}); });
        EXPECT_TRUE(contains(message, "GPU block loop") && contains(message, "no GPU API")) << message;
        return;
    }
    if (GetParam() != loom::internal::Backend::Vulkan) GTEST_SKIP() << "a GPU schedule needs the Vulkan back end";
    for (int v : {3, -2}) {
        p.set(v);
        Buffer<int> out = f.realize({20}, Target("host-vulkan"));
        out.copy_to_host();
        expect_buffer_eq(out, [&](const std::vector<int> &q) { return q[0] * 2 + v; });
    }
}

// ---- Errors ---------------------------------------------------------------

TEST_P(Specialize, ConditionMustBeBoolean) {
    Var x("x");
    Param<int> p("p_int");
    Func f("spec_nonbool");
    f(x) = x;
    std::string message = compile_error_message([&] { f.specialize(p + 1); });
    EXPECT_TRUE(contains(message, "spec_nonbool")) << message;
    EXPECT_TRUE(contains(message, "boolean")) << message;
}

TEST_P(Specialize, ConditionMustNotVaryPerPoint) {
    Var x("x");
    Func g("spec_g"), f("spec_varying");
    g(x) = x;
    f(x) = g(x) + 1;
    std::string message = compile_error_message([&] { f.specialize(x > 3); });
    EXPECT_TRUE(contains(message, "spec_varying") && contains(message, "the variable 'x'")) << message;
    message = compile_error_message([&] { f.specialize(g(0) > 3); });
    EXPECT_TRUE(contains(message, "a call of Func 'spec_g'")) << message;
    RDom r(0, 4);
    message = compile_error_message([&] { f.specialize(r.x == 2); });
    EXPECT_TRUE(contains(message, "not the same for the whole stage")) << message;
}

TEST_P(Specialize, InlinedFuncCannotBeSpecialized) {
    Var x("x");
    Param<int> p("p_inl");
    Func g("spec_inlined"), f("spec_inl_user");
    g(x) = x * 2;
    f(x) = g(x) + 1;
    g.specialize(p > 0).vectorize(x, 4);
    p.set(1);
    std::string message = compile_error_message([&] { f.realize({8}); });
    EXPECT_TRUE(contains(message, "Func 'spec_inlined' is specialized")) << message;
    EXPECT_TRUE(contains(message, "compute_root()")) << message;
}

TEST_P(Specialize, FailMustComeLast) {
    Var x("x");
    Param<int> p("p_last");
    Func f("spec_last");
    f(x) = x;
    f.specialize_fail("first");
    std::string message = compile_error_message([&] { f.specialize(p > 0); });
    EXPECT_TRUE(contains(message, "after specialize_fail()")) << message;
    message = compile_error_message([&] { f.specialize_fail("again"); });
    EXPECT_TRUE(contains(message, "called twice")) << message;
}

TEST_P(Specialize, SameConditionReturnsTheSameSpecialization) {
    Var x("x");
    Param<int> p("p_same");
    Func f("spec_same");
    f(x) = x * p;
    Stage first = f.specialize(p > 2).vectorize(x, 4);
    Stage again = f.specialize(p > 2);
    Stage other = f.specialize(p > 1);
    EXPECT_EQ(again.specialization_path(), first.specialization_path());
    EXPECT_EQ(other.specialization_path(), std::vector<int>{1});
    for (int v : {3, 2, 0}) {
        p.set(v);
        Buffer<int> out = f.realize({10});
        expect_buffer_eq(out, [&](const std::vector<int> &q) { return q[0] * v; });
    }
}

TEST_P(Specialize, ComputeWithOfASpecializedStageIsRefused) {
    Var x("x");
    Param<int> p("p_cw");
    Func f("spec_cw_f"), g("spec_cw_g"), out("spec_cw_out");
    f(x) = x;
    g(x) = x * 2;
    out(x) = f(x) + g(x);
    f.compute_root();
    g.compute_root();
    g.compute_with(f, x);
    f.specialize(p > 0).vectorize(x, 4);
    p.set(1);
    std::string message = compile_error_message([&] { out.realize({8}); });
    EXPECT_TRUE(contains(message, "compute_with") && contains(message, "specialized")) << message;
}

LOOM_INSTANTIATE_BACKENDS(Specialize);

}  // namespace
