// The C back end over a spread of schedules (unroll, tile + fuse + parallel,
// split tails, sliding window with storage folding, specialize, inline
// reductions, RDom where-clauses): each pipeline's C++ source, built with
// g++ -std=c++17 -O2 -Wall -Werror and run, gives the values realize()
// gives for the same input through the JIT (the LLVM back end, which the
// e2e suites check against C++ loops), to 1e-5.

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

#include "CSourceTestSupport.h"

using namespace loom;
using namespace loom_test;

namespace {

constexpr int kW = 29, kH = 23, kMargin = 4;

float input_value(int x, int y) { return (float)((x * 13 + y * 7 + x * y) % 31) * 0.25f - 2.0f; }

/** in: float, [-4, W + 4) x [-4, H + 4); out: float W x H. */
const char *kMain = R"(
int main() {
    loom::Runtime::Buffer<float> in(29 + 8, 23 + 8), out(29, 23);
    in.set_min(-4, -4);
    for (int y = -4; y < 23 + 4; y++)
        for (int x = -4; x < 29 + 4; x++) in(x, y) = (float)((x * 13 + y * 7 + x * y) % 31) * 0.25f - 2.0f;
    int rc = scheduled(in, out);
    std::printf("rc %d\n", rc);
    for (int y = 0; y < 23; y++)
        for (int x = 0; x < 29; x++) std::printf("%.9g\n", out(x, y));
    return 0;
}
)";

/** Builds the pipeline's C source, runs it, and compares with realize(). */
void check_against_jit(const std::function<Func(ImageParam &)> &make) {
    ImageParam in(Float(32), 2, "in");
    Func f = make(in);
    Buffer<float> input({kW + 2 * kMargin, kH + 2 * kMargin}, "input");
    input.set_min({-kMargin, -kMargin});
    for (int y = -kMargin; y < kH + kMargin; y++)
        for (int x = -kMargin; x < kW + kMargin; x++) input(x, y) = input_value(x, y);
    in.set(input);
    Buffer<float> expected = f.realize({kW, kH});

    ScratchDir dir;
    Pipeline(f).compile_to({{OutputFileType::c_source, dir.file("scheduled.loom_generated.cpp")},
                            {OutputFileType::c_header, dir.file("scheduled.h")}},
                           {in}, "scheduled");
    ProgramRun run = build_and_run(dir, compile_c_source_command("scheduled"), "#include \"scheduled.h\"\n", kMain);
    ASSERT_TRUE(run.built) << run.log;
    ASSERT_EQ(run.exit_code, 0) << run.output;
    std::vector<double> v = run.numbers();
    ASSERT_EQ(v.size(), 1u + kW * kH) << run.output.substr(0, 400);
    EXPECT_EQ(v[0], 0);
    int mismatches = 0;
    for (int y = 0; y < kH; y++) {
        for (int x = 0; x < kW; x++) {
            const double got = v[1 + x + y * kW], want = expected(x, y);
            if (std::fabs(got - want) > 1e-5 * std::fabs(want) + 1e-5 && mismatches++ < 5) {
                ADD_FAILURE() << "(" << x << ", " << y << "): C " << got << ", JIT " << want;
            }
        }
    }
    EXPECT_EQ(mismatches, 0);
}

TEST(CSourceSchedules, TileFuseParallelUnroll) {
    check_against_jit([](ImageParam &in) {
        Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi"), t("t");
        Func g("g"), f("f");
        g(x, y) = in(x, y) * 2.0f - in(x + 1, y - 1);
        f(x, y) = g(x, y) + g(x - 1, y) * 0.5f;
        f.tile(x, y, xo, yo, xi, yi, 8, 4).fuse(xo, yo, t).parallel(t).vectorize(xi, 4).unroll(yi, 2);
        g.compute_at(f, t).vectorize(x, 4);
        return f;
    });
}

TEST(CSourceSchedules, SlidingWindowWithStorageFolding) {
    check_against_jit([](ImageParam &in) {
        Var x("x"), y("y");
        Func g("g"), f("f");
        g(x, y) = in(x, y) + in(x, y + 1) * 3.0f;
        f(x, y) = g(x, y - 1) + g(x, y) + g(x, y + 1);
        g.store_root().compute_at(f, y).vectorize(x, 8);
        f.vectorize(x, 8);
        return f;
    });
}

TEST(CSourceSchedules, SplitTailsAndSpecialize) {
    check_against_jit([](ImageParam &in) {
        Var x("x"), y("y"), xo("xo"), xi("xi");
        Func f("f");
        f(x, y) = select(x > y, in(x, y), -in(y % 5, x % 7)) * 1.5f;
        f.split(x, xo, xi, 8, TailStrategy::GuardWithIf).vectorize(xi).parallel(y);
        f.specialize(in.width() > 20);
        return f;
    });
}

TEST(CSourceSchedules, InlineReductionsAndWhere) {
    check_against_jit([](ImageParam &in) {
        Var x("x"), y("y");
        RDom r(-2, 5, -2, 5, "r");
        r.where(r.x * r.x + r.y * r.y <= 4);
        Func f("f");
        f(x, y) = sum(in(x + r.x, y + r.y)) + maximum(in(x + r.x, y)) - minimum(in(x, y + r.y)) * 0.5f;
        f.vectorize(x, 4).parallel(y);
        return f;
    });
}

}  // namespace
