// The autoscheduler end to end (docs/AUTOSCHEDULER.md): pipelines scheduled
// by Pipeline::apply_autoscheduler / auto_schedule, compared with plain C++
// loops on the JIT and the interpreter, at the estimated size and at sizes
// the schedule's tiles and vectors do not divide.

#include "e2e/E2ETest.h"

namespace {

using namespace loom;
using loom_test::contains;

class AutoSchedule : public loom_test::BackendTest {};

// The JIT and the interpreter (the Vulkan conformance mode of E2ETest.h maps
// loops to the GPU, which this CPU autoscheduler does not schedule for).
#define LOOM_INSTANTIATE_CPU_BACKENDS(Fixture)                                                               \
    INSTANTIATE_TEST_SUITE_P(Backends, Fixture,                                                             \
                             ::testing::Values(loom::internal::Backend::LLVM,                                \
                                               loom::internal::Backend::Interpreter),                        \
                             loom_test::backend_test_name)

// A fixed target for the schedule's vector widths, so schedules do not
// depend on the host (the JIT still compiles for the host).
const Target schedule_target("x86-64-linux-avx2");

Buffer<float> ramp_image(int w, int h) {
    Buffer<float> b(w, h);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) b(x, y) = float((x * 7 + y * 13) % 31) - 9.5f;
    }
    return b;
}

TEST_P(AutoSchedule, PointwiseChainIsInlinedAndTheOutputVectorizedAndParallel) {
    Buffer<float> input = ramp_image(70, 45);
    Var x("x"), y("y");
    Func scaled("scaled"), shifted("shifted"), out("out");
    scaled(x, y) = input(x, y) * 2.0f;
    shifted(x, y) = scaled(x, y) + 3.0f;
    out(x, y) = shifted(x, y) * shifted(x, y) - scaled(x, y);
    out.set_estimates({{0, 1024}, {0, 768}});
    Pipeline p(out);
    AutoSchedulerResults r = p.apply_autoscheduler(schedule_target, {"LoomHeuristic"});
    EXPECT_TRUE(contains(r.schedule_source, "vectorize(")) << r.schedule_source;
    EXPECT_TRUE(contains(r.schedule_source, "parallel(")) << r.schedule_source;
    EXPECT_FALSE(contains(r.schedule_source, "compute_root")) << r.schedule_source;  // all inlined
    EXPECT_FALSE(contains(r.schedule_source, "scaled")) << r.schedule_source;
    for (std::vector<int> size : {std::vector<int>{70, 45}, std::vector<int>{5, 3}}) {
        Buffer<float> result = p.realize(size);
        loom_test::expect_buffer_eq(result, [&](const std::vector<int> &c) {
            float s = input(c[0], c[1]) * 2.0f, t = s + 3.0f;
            return t * t - s;
        });
    }
}

TEST_P(AutoSchedule, BlurComputesTheStencilPerTileOfTheOutput) {
    ImageParam in(UInt(16), 2, "in");
    in.dim(0).set_estimate(0, 1536);
    in.dim(1).set_estimate(0, 1024);
    Var x("x"), y("y");
    Func bounded = BoundaryConditions::repeat_edge(in);
    Func blur_x("blur_x"), blur_y("blur_y");
    blur_x(x, y) = (bounded(x - 1, y) + bounded(x, y) + bounded(x + 1, y)) / 3;
    blur_y(x, y) = (blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) / 3;
    blur_y.set_estimates({{0, 1536}, {0, 1024}});
    Pipeline p(blur_y);
    AutoSchedulerResults r = p.apply_autoscheduler(schedule_target, {"LoomHeuristic"});
    const std::string &s = r.schedule_source;
    // The cost model's tile: 6 x 4 tiles of 256 x 256 (16 uint16 lanes), fused to reach 16 parallel iterations.
    EXPECT_TRUE(contains(s, "blur_x\n        .compute_at(blur_y, y_o_x_o)\n        .split(x, x, x_v, 16, TailStrategy::GuardWithIf)\n        .vectorize(x_v);")) << s;
    EXPECT_TRUE(contains(s, "blur_y\n        .tile(x, y, x_o, y_o, x_i, y_i, 256, 256, TailStrategy::GuardWithIf)")) << s;
    EXPECT_TRUE(contains(s, ".vectorize(x_v)")) << s;
    EXPECT_TRUE(contains(s, ".parallel(y_o_x_o)")) << s;
    EXPECT_FALSE(contains(s, "repeat_edge")) << s;  // the boundary condition is inlined
    EXPECT_TRUE(contains(s, "Var ")) << s;

    Buffer<uint16_t> input(37, 29);
    for (int yy = 0; yy < 29; yy++) {
        for (int xx = 0; xx < 37; xx++) input(xx, yy) = uint16_t((xx * 31 + yy * 17) % 1000);
    }
    in.set(input);
    auto at = [&](int xx, int yy) {
        return int(input(std::clamp(xx, 0, 36), std::clamp(yy, 0, 28)));
    };
    Buffer<uint16_t> result = p.realize({37, 29});
    loom_test::expect_buffer_eq(result, [&](const std::vector<int> &c) {
        auto bx = [&](int xx, int yy) { return (at(xx - 1, yy) + at(xx, yy) + at(xx + 1, yy)) / 3; };
        return uint16_t((bx(c[0], c[1] - 1) + bx(c[0], c[1]) + bx(c[0], c[1] + 1)) / 3);
    });
}

TEST_P(AutoSchedule, StencilPerTileOfAConsumerWhoseTileLoopsAreFused) {
    Buffer<float> input = ramp_image(302, 72);
    Var x("x"), y("y");
    Func sq("sq"), out("out");
    sq(x, y) = input(x, y) * input(x, y) + 1.0f;
    out(x, y) = sq(x, y) + sq(x + 1, y + 1) * 0.5f - sq(x + 1, y);
    // Two rows of tiles: y_o alone has too few iterations, so it is fused
    // with x_o, and sq is computed inside the fused loop.
    out.set_estimates({{0, 16000}, {0, 40}});  // sq (2.5 MB) does not fit a core's share of the cache
    Pipeline p(out);
    const std::string s = p.apply_autoscheduler(schedule_target, {"LoomHeuristic"}).schedule_source;
    EXPECT_TRUE(contains(s, ".fuse(x_o, y_o, y_o_x_o)\n        .parallel(y_o_x_o);")) << s;
    EXPECT_TRUE(contains(s, "sq\n        .compute_at(out, y_o_x_o)")) << s;
    for (std::vector<int> size : {std::vector<int>{37, 29}, std::vector<int>{300, 70}, std::vector<int>{2, 1}}) {
        Buffer<float> result = p.realize(size);
        auto f = [&](int xx, int yy) { return input(xx, yy) * input(xx, yy) + 1.0f; };
        loom_test::expect_buffer_eq(result, [&](const std::vector<int> &c) {
            return f(c[0], c[1]) + f(c[0] + 1, c[1] + 1) * 0.5f - f(c[0] + 1, c[1]);
        });
    }
}

TEST_P(AutoSchedule, HistogramUpdateStaysSerial) {
    Buffer<uint8_t> input(53, 21);
    for (int yy = 0; yy < 21; yy++) {
        for (int xx = 0; xx < 53; xx++) input(xx, yy) = uint8_t((xx * xx + 3 * yy) % 256);
    }
    Var i("i");
    RDom r(0, 53, 0, 21, "r");
    Func hist("hist");
    hist(i) = 0;
    hist(cast<int>(input(r.x, r.y))) += 1;
    hist.set_estimate(i, 0, 256);
    Pipeline p(hist);
    AutoSchedulerResults res = p.apply_autoscheduler(schedule_target, {"LoomHeuristic"});
    EXPECT_TRUE(contains(res.schedule_source, "hist\n        .split(i, i_o, i_i")) << res.schedule_source;
    EXPECT_FALSE(contains(res.schedule_source, "hist.update(0)")) << res.schedule_source;
    Buffer<int> result = p.realize({256});
    std::vector<int> expected(256, 0);
    for (int yy = 0; yy < 21; yy++) {
        for (int xx = 0; xx < 53; xx++) expected[input(xx, yy)]++;
    }
    loom_test::expect_buffer_eq(result, [&](const std::vector<int> &c) { return expected[c[0]]; });
}

TEST_P(AutoSchedule, MatmulUpdateVectorizesInsideTheReductionPerTileOfItsConsumer) {
    // prod's update is pointwise and out reads it at the same point, so prod
    // is computed per tile of out (no round trip through memory); its update
    // is vectorized inside the reduction and serial there (out's tile loop
    // runs in parallel), and the 11 iterations of kr are unrolled.
    const int n = 19, m = 23, k = 11;
    Buffer<int> a(k, m), b(n, k);
    for (int yy = 0; yy < m; yy++) {
        for (int kk = 0; kk < k; kk++) a(kk, yy) = (kk * 3 + yy) % 7 - 3;
    }
    for (int kk = 0; kk < k; kk++) {
        for (int xx = 0; xx < n; xx++) b(xx, kk) = (xx + kk * 5) % 9 - 4;
    }
    Var x("x"), y("y");
    RDom kr(0, k, "kr");
    Func prod("prod"), out("out");
    prod(x, y) = 0;
    prod(x, y) += a(kr, y) * b(x, kr);
    out(x, y) = prod(x, y) * 2 + 1;
    out.set_estimates({{0, 512}, {0, 512}});
    Pipeline p(out);
    AutoSchedulerResults res = p.apply_autoscheduler(schedule_target, {"LoomHeuristic"});
    const std::string &s = res.schedule_source;
    EXPECT_TRUE(contains(s, "prod\n        .compute_at(out, ")) << s;
    EXPECT_TRUE(contains(s, "prod.update(0)\n        .split(x, x_o, x_v, 8, TailStrategy::GuardWithIf)")) << s;
    EXPECT_TRUE(contains(s, ".reorder(x_v, kr_x)\n        .unroll(kr_x);")) << s;
    EXPECT_TRUE(contains(s, "out\n        .tile(")) << s;
    EXPECT_TRUE(contains(s, ".parallel(y_o_x_o)")) << s;
    EXPECT_TRUE(contains(s, "RVar kr_x(\"kr$x\")")) << s;
    Buffer<int> result = p.realize({n, m});
    loom_test::expect_buffer_eq(result, [&](const std::vector<int> &c) {
        int sum = 0;
        for (int kk = 0; kk < k; kk++) sum += a(kk, c[1]) * b(c[0], kk);
        return sum * 2 + 1;
    });
}

TEST_P(AutoSchedule, MultipleOutputsShareAProducer) {
    Buffer<float> input = ramp_image(40, 30);
    Var x("x"), y("y"), c("c");
    Func smooth("smooth"), sum("sum"), diff("diff");
    smooth(x, y) = (input(x, y) + input(x + 1, y) + input(x, y + 1)) * 0.25f + 1.0f;
    sum(x, y, c) = smooth(x, y) + smooth(x + 1, y + 1) * cast<float>(c);
    diff(x, y, c) = smooth(x + 1, y) - smooth(x, y) * cast<float>(c);
    sum.set_estimates({{0, 2000}, {0, 2000}, {0, 3}});
    diff.set_estimates({{0, 2000}, {0, 2000}, {0, 3}});
    Pipeline p({sum, diff});
    AutoSchedulerResults res =
        p.apply_autoscheduler(schedule_target, AutoschedulerParams("LoomHeuristic", {{"parallelism", "8"}}));
    const std::string &s = res.schedule_source;
    EXPECT_TRUE(contains(s, "smooth\n        .compute_root()")) << s;
    EXPECT_TRUE(contains(s, "    sum\n")) << s;
    EXPECT_TRUE(contains(s, "    diff\n")) << s;
    EXPECT_TRUE(contains(s, "parallelism=8")) << s;
    // The outermost dimension c has 3 iterations: fused with y_o to reach the parallelism.
    EXPECT_TRUE(contains(s, ".fuse(y_o, c, c_y_o)\n        .parallel(c_y_o)")) << s;
    auto sm = [&](int xx, int yy) {
        return (input(xx, yy) + input(xx + 1, yy) + input(xx, yy + 1)) * 0.25f + 1.0f;
    };
    Realization r = p.realize({37, 27, 3});
    Buffer<float> sum_out = r[0], diff_out = r[1];
    loom_test::expect_buffer_eq(sum_out, [&](const std::vector<int> &p3) {
        return sm(p3[0], p3[1]) + sm(p3[0] + 1, p3[1] + 1) * float(p3[2]);
    });
    loom_test::expect_buffer_eq(diff_out, [&](const std::vector<int> &p3) {
        return sm(p3[0] + 1, p3[1]) - sm(p3[0], p3[1]) * float(p3[2]);
    });
}

TEST_P(AutoSchedule, InlineReductionsAndTuples) {
    Buffer<int> input(45, 33);
    input.fill([](int x, int y) { return (x * 5 + y * 3) % 17 - 8; });
    Var x("x"), y("y");
    RDom r(0, 3, "r");
    Func box("box"), pair("pair"), out("out");
    box(x, y) = sum(input(x + r, y));  // a Func with an update, made by sum()
    pair(x, y) = Tuple(box(x, y), box(x, y) * 2 + 1);
    out(x, y) = pair(x, y)[0] + pair(x, y + 1)[1];
    out.set_estimates({{0, 800}, {0, 600}});
    Pipeline p(out);
    const std::string s = p.apply_autoscheduler(schedule_target, {"LoomHeuristic"}).schedule_source;
    EXPECT_FALSE(contains(s, "Func pair")) << s;  // two reads of one element each: inlined
    EXPECT_TRUE(contains(s, ".update(0)\n        .split(x, x_o, x_v, 8, TailStrategy::GuardWithIf)")) << s;
    for (std::vector<int> size : {std::vector<int>{40, 30}, std::vector<int>{7, 3}}) {
        Buffer<int> result = p.realize(size);
        auto b = [&](int xx, int yy) { return input(xx, yy) + input(xx + 1, yy) + input(xx + 2, yy); };
        loom_test::expect_buffer_eq(result, [&](const std::vector<int> &c) {
            return b(c[0], c[1]) + b(c[0], c[1] + 1) * 2 + 1;
        });
    }
}

TEST_P(AutoSchedule, SameInputsGiveTheSameSchedule) {
    auto schedule = [] {
        Buffer<float> input = ramp_image(8, 8);
        Var x("x"), y("y");
        Func f("f"), g("g");
        f(x, y) = input(x, y) + input(x + 1, y) * input(x, y + 1);
        g(x, y) = f(x - 1, y) + f(x + 1, y);
        g.set_estimates({{0, 640}, {0, 480}});
        return Pipeline(g).apply_autoscheduler(schedule_target, {"LoomHeuristic"}).schedule_source;
    };
    const std::string first = schedule();
    EXPECT_EQ(first, schedule());
    EXPECT_TRUE(contains(first, "target x86-64-linux-avx2")) << first;
}

LOOM_INSTANTIATE_CPU_BACKENDS(AutoSchedule);

}  // namespace
