// require(condition, value, message...): the value where the condition
// holds; a RuntimeError carrying the message where it does not, on every
// back end (the Vulkan run keeps the Func on the CPU: a kernel cannot stop a
// pipeline).

#include "e2e/E2ETest.h"

using namespace loom;
using loom_test::compile_error_message;
using loom_test::contains;
using loom_test::runtime_error_message;

namespace {

class Require : public loom_test::BackendTest {};

TEST_P(Require, HoldsThenValue) {
    Var x("x");
    Param<int> scale("scale");
    Func f("scaled");
    f(x) = require(scale > 0, x * scale, "scale must be positive, got", scale);
    scale.set(3);
    Buffer<int> out = f.realize({32});
    loom_test::expect_buffer_eq(out, [](const std::vector<int> &p) { return p[0] * 3; });
}

TEST_P(Require, FailsWithTheMessage) {
    Var x("x");
    Param<int> scale("scale");
    Func f("scaled");
    f(x) = require(scale > 0, x * scale, "scale must be positive, got", scale);
    scale.set(-2);
    const std::string m = runtime_error_message([&] { f.realize({32}); });
    EXPECT_TRUE(contains(m, "require() failed")) << m;
    EXPECT_TRUE(contains(m, "scale must be positive, got -2")) << m;
    // The same pipeline runs again once the requirement holds.
    scale.set(5);
    Buffer<int> out = f.realize({32});
    loom_test::expect_buffer_eq(out, [](const std::vector<int> &p) { return p[0] * 5; });
}

TEST_P(Require, PerPointConditionReportsTheFirstFailingPoint) {
    Var x("x"), y("y");
    Param<int> limit("limit");
    Func f("bounded");
    f(x, y) = require(x + y < limit, x * 10 + y, "x + y reached", x + y);
    limit.set(100);
    Buffer<int> out = f.realize({8, 4});
    loom_test::expect_buffer_eq(out, [](const std::vector<int> &p) { return p[0] * 10 + p[1]; });
    limit.set(9);  // (x, y) = (7, 2) is the first point of the x-inner loop with x + y == 9
    const std::string m = runtime_error_message([&] { f.realize({8, 4}); });
    EXPECT_TRUE(contains(m, "x + y reached 9")) << m;
}

TEST_P(Require, InsideAVectorizedAndComputedAtPipeline) {
    Var x("x");
    Param<int> limit("limit");
    Func g("g"), h("h");
    g(x) = require(x < limit, x * 2, "g is out of range at", x);
    h(x) = g(x) + g(x + 1);
    g.compute_root();
    h.vectorize(x, 8);
    limit.set(1000);
    Buffer<int> out = h.realize({64});
    loom_test::expect_buffer_eq(out, [](const std::vector<int> &p) { return p[0] * 2 + (p[0] + 1) * 2; });
    limit.set(64);  // g is computed over [0, 65): x = 64 fails
    const std::string m = runtime_error_message([&] { h.realize({64}); });
    EXPECT_TRUE(contains(m, "g is out of range at 64")) << m;
}

TEST_P(Require, BoundsInferenceSeesTheValue) {
    // A require() used as a coordinate: the region of g is that of x + 1.
    Var x("x");
    Param<int> offset("offset");
    Func g("g"), h("h");
    g(x) = x * x;
    g.compute_root();
    h(x) = g(require(offset >= 0, x + 1, "offset is negative"));
    offset.set(0);
    Buffer<int> out = h.realize({16});
    loom_test::expect_buffer_eq(out, [](const std::vector<int> &p) { return (p[0] + 1) * (p[0] + 1); });
    offset.set(-1);
    EXPECT_TRUE(contains(runtime_error_message([&] { h.realize({16}); }), "offset is negative"));
}

TEST_P(Require, ConstantTrueConditionIsNoCheck) {
    Var x("x");
    Func f("f");
    Expr e = require(cast(Bool(), 1), x + 1, "never");
    EXPECT_EQ(e.type(), Int(32));
    f(x) = e;
    Buffer<int> out = f.realize({8});
    loom_test::expect_buffer_eq(out, [](const std::vector<int> &p) { return p[0] + 1; });
}

TEST_P(Require, FloatValue) {
    Var x("x");
    Param<float> gain("gain");
    Func f("f");
    f(x) = require(gain < 4.0f, cast<float>(x) * gain, "gain too large:", gain);
    gain.set(0.5f);
    Buffer<float> out = f.realize({10});
    loom_test::expect_buffer_eq(out, [](const std::vector<int> &p) { return float(p[0]) * 0.5f; });
    gain.set(8.0f);
    EXPECT_TRUE(contains(runtime_error_message([&] { f.realize({10}); }), "gain too large:")) << "";
}

TEST_P(Require, GpuScheduleIsRefusedNamingRequire) {
    // A kernel cannot stop the pipeline: a GPU schedule of a Func that uses
    // require() is a CompileError; computed on the CPU, it feeds a GPU Func.
    if (GetParam() != loom::internal::Backend::Vulkan) GTEST_SKIP() << "a GPU schedule needs the Vulkan back end";
    Var x("x"), xo("xo"), xi("xi");
    Param<int> scale("scale");
    Func checked("checked"), doubled("doubled");
    checked(x) = require(scale > 0, x * scale, "scale must be positive");
    doubled(x) = checked(x) * 2;
    checked.compute_root().gpu_tile(x, xo, xi, 8);
    scale.set(2);
    std::string m = compile_error_message([&] { doubled.realize({20}, Target("host-vulkan")); });
    EXPECT_TRUE(contains(m, "require()") && contains(m, "on the CPU")) << m;
    Func checked_cpu("checked_cpu"), doubled_gpu("doubled_gpu");
    checked_cpu(x) = require(scale > 0, x * scale, "scale must be positive");
    doubled_gpu(x) = checked_cpu(x) * 2;
    checked_cpu.compute_root();
    doubled_gpu.gpu_tile(x, xo, xi, 8);
    Buffer<int> out = doubled_gpu.realize({20}, Target("host-vulkan"));
    out.copy_to_host();
    loom_test::expect_buffer_eq(out, [](const std::vector<int> &p) { return p[0] * 4; });
    scale.set(0);
    EXPECT_TRUE(contains(runtime_error_message([&] { doubled_gpu.realize({20}, Target("host-vulkan")); }),
                         "scale must be positive"));
}

LOOM_INSTANTIATE_BACKENDS(Require);

TEST(RequireErrors, BadArguments) {
    Var x("x");
    EXPECT_TRUE(contains(compile_error_message([&] { require(Expr(), x); }), "condition is an undefined Expr"));
    EXPECT_TRUE(contains(compile_error_message([&] { require(x + 1, x); }), "must be a scalar boolean"));
    EXPECT_TRUE(contains(compile_error_message([&] { require(x > 1, Expr()); }), "needs a defined value"));
    EXPECT_TRUE(contains(compile_error_message([&] { require(x > 1, std::vector<PrintArg>{"text"}); }),
                         "not a string"));
}

}  // namespace
