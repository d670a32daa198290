// compute_with: stages whose outer loops are fused. Each result is checked
// against plain C++ loops, and the loop nest is checked to really be fused
// (print_loop_nest shows one loop where there were two).

#include <algorithm>

#include "e2e/E2ETest.h"
#include "lang/LangTestUtil.h"

using namespace loom;
using loom_test::expect_buffer_eq;

namespace {

class ComputeWith : public loom_test::BackendTest {};

/** How many lines of f's loop nest are the loop "for <var>:" (any kind). */
template<typename Printable>
int loops_named(Printable &p, const std::string &var) {
    testing::internal::CaptureStdout();
    p.print_loop_nest();
    std::string text = testing::internal::GetCapturedStdout();
    int count = 0;
    size_t at = 0;
    const std::string needle = "for " + var + ":";
    while ((at = text.find(needle, at)) != std::string::npos) {
        count++;
        at += needle.size();
    }
    return count;
}

TEST_P(ComputeWith, TwoFuncsFusedAtTheOuterLoop) {
    Var x("x"), y("y");
    Func f("cw_f"), g("cw_g"), out("cw_out");
    f(x, y) = x + 10 * y;
    g(x, y) = x * y - 3;
    out(x, y) = f(x, y) * 2 - g(x, y);
    f.compute_root();
    g.compute_root();
    EXPECT_EQ(loops_named(out, "y"), 3);
    g.compute_with(f, y);
    EXPECT_EQ(loops_named(out, "y"), 2);  // f and g share theirs
    Buffer<int> b = out.realize({13, 7});
    expect_buffer_eq(b, [](const std::vector<int> &p) { return (p[0] + 10 * p[1]) * 2 - (p[0] * p[1] - 3); });
}

TEST_P(ComputeWith, DifferentRangesAreGuarded) {
    // out reads f and g over different regions, so the fused loops run over
    // the union and each stage only over its own rows and columns.
    Var x("x"), y("y");
    Func f("cwr_f"), g("cwr_g"), out("cwr_out");
    f(x, y) = x + 100 * y;
    g(x, y) = 3 * x - y;
    out(x, y) = f(x - 2, y) + g(x + 3, y + 4) + f(x, y + 1);
    f.compute_root();
    g.compute_root().compute_with(f, x);
    EXPECT_EQ(loops_named(out, "x"), 2);
    Buffer<int> b = out.realize({9, 6});
    expect_buffer_eq(b, [](const std::vector<int> &p) {
        auto F = [](int x, int y) { return x + 100 * y; };
        auto G = [](int x, int y) { return 3 * x - y; };
        return F(p[0] - 2, p[1]) + G(p[0] + 3, p[1] + 4) + F(p[0], p[1] + 1);
    });
}

TEST_P(ComputeWith, FusedTilesWithParallelRowsAndVectorizedColumns) {
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    Func f("cwt_f"), g("cwt_g"), out("cwt_out");
    f(x, y) = x * 7 + y;
    g(x, y) = x - y * 5;
    out(x, y) = f(x, y) + g(x + 1, y);
    f.compute_root().tile(x, y, xo, yo, xi, yi, 8, 4).vectorize(xi, 4).parallel(yo);
    g.compute_root().tile(x, y, xo, yo, xi, yi, 8, 4).vectorize(xi, 4).parallel(yo).compute_with(f, xo);
    Buffer<int> b = out.realize({37, 19});
    expect_buffer_eq(b, [](const std::vector<int> &p) { return p[0] * 7 + p[1] + (p[0] + 1) - p[1] * 5; });
}

TEST_P(ComputeWith, TwoOutputsOfAPipeline) {
    Var x("x"), y("y");
    Func f("cwo_f"), g("cwo_g");
    f(x, y) = x + y;
    g(x, y) = x * 3 + y * y;
    g.compute_with(f, y);
    Pipeline p({f, g});
    EXPECT_EQ(loops_named(p, "y"), 1);
    Realization r = p.realize({11, 8});
    Buffer<int> a = r[0], b = r[1];
    expect_buffer_eq(a, [](const std::vector<int> &q) { return q[0] + q[1]; });
    expect_buffer_eq(b, [](const std::vector<int> &q) { return q[0] * 3 + q[1] * q[1]; });
}

TEST_P(ComputeWith, ThreeFuncsComputedInsideAConsumerLoop) {
    Var x("x"), y("y");
    Func f("cw3_f"), g("cw3_g"), h("cw3_h"), out("cw3_out");
    f(x, y) = x + y;
    g(x, y) = x - y;
    h(x, y) = x * y;
    out(x, y) = f(x, y) + g(x + 1, y) * h(x, y);
    f.compute_at(out, y);
    g.compute_at(out, y).compute_with(f, x);
    h.compute_at(out, y).compute_with(f, x);
    EXPECT_EQ(loops_named(out, "x"), 2);  // one fused loop, and out's
    Buffer<int> b = out.realize({10, 5});
    expect_buffer_eq(b, [](const std::vector<int> &p) {
        return p[0] + p[1] + (p[0] + 1 - p[1]) * (p[0] * p[1]);
    });
}

TEST_P(ComputeWith, AFuncWithAnUpdateFusedWithAnother) {
    Var x("x"), y("y");
    RDom r(0, 3, "r");
    Func f("cwu_f"), g("cwu_g"), out("cwu_out");
    f(x, y) = x * 2 + y;
    g(x, y) = y;
    g(x, y) += x * r;
    out(x, y) = f(x, y) + g(x, y);
    f.compute_root();
    g.compute_root().compute_with(f, y);
    g.update(0).compute_with(f, y);
    Buffer<int> b = out.realize({8, 6});
    expect_buffer_eq(b, [](const std::vector<int> &p) { return p[0] * 2 + p[1] + p[1] + p[0] * 3; });
}

TEST_P(ComputeWith, AnUpdateFusedWithItsPureDefinition) {
    Var x("x"), y("y");
    Func f("cws_f"), out("cws_out");
    f(x, y) = x + 4 * y;
    f(x, y) = f(x, y) * 3 + 1;
    f(x, y) = f(x, y) - x;
    out(x, y) = f(x, y) + f(x + 1, y);
    f.compute_root();
    f.update(0).compute_with(f, y);
    f.update(1).compute_with(f, y);
    EXPECT_EQ(loops_named(out, "y"), 2);
    Buffer<int> b = out.realize({12, 5});
    expect_buffer_eq(b, [](const std::vector<int> &p) {
        auto F = [](int x, int y) { return (x + 4 * y) * 3 + 1 - x; };
        return F(p[0], p[1]) + F(p[0] + 1, p[1]);
    });
}

TEST_P(ComputeWith, AnUpdateFusedWithItsPureDefinitionInTiles) {
    // The pure definition's default tail (ShiftInwards) becomes a guard:
    // shifting would recompute points the update has already changed.
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    Func f("cwst_f");
    f(x, y) = x * y;
    f(x, y) = f(x, y) + x;
    f.tile(x, y, xo, yo, xi, yi, 4, 4);
    f.update(0).tile(x, y, xo, yo, xi, yi, 4, 4, TailStrategy::GuardWithIf).compute_with(f, xo);
    Buffer<int> b = f.realize({10, 7});
    expect_buffer_eq(b, [](const std::vector<int> &p) { return p[0] * p[1] + p[0]; });
}

// LoopAlignStrategy: f is computed over columns [0, 9), g over [5, 14). With
// NoAlign (and Auto) the fused loop runs over the union [0, 14), each stage
// guarded; AlignStart shifts g so both start together (9 fused iterations,
// g's column = f's + 5), and AlignEnd so both end together, which for these
// equal extents is the same shift. The values never change.
TEST_P(ComputeWith, LoopAlignStrategiesShiftTheFusedStage) {
    auto F = [](int x, int y) { return x + 100 * y; };
    auto G = [](int x, int y) { return 3 * x - y; };
    for (LoopAlignStrategy align : {LoopAlignStrategy::NoAlign, LoopAlignStrategy::AlignStart,
                                    LoopAlignStrategy::AlignEnd, LoopAlignStrategy::Auto}) {
        Var x("x"), y("y");
        Func f("cwa_f"), g("cwa_g"), out("cwa_out");
        f(x, y) = x + 100 * y;
        g(x, y) = 3 * x - y;
        out(x, y) = f(x, y) + g(x + 5, y);
        f.compute_root();
        g.compute_root().compute_with(f, x, align);
        std::string stmt = loom_test::lowered_stmt(out, "cw_align.stmt");
        const bool shifted = align == LoopAlignStrategy::AlignStart || align == LoopAlignStrategy::AlignEnd;
        // Shifted: one unguarded loop over f's 9 columns; otherwise over the
        // union of both ranges, with guards.
        EXPECT_EQ(loom_test::contains(stmt, "for (cwa_f.s0.x, cwa_out.min.0, cwa_out.extent.0) {"), shifted) << stmt;
        Buffer<int> b = out.realize({9, 4});
        expect_buffer_eq(b, [&](const std::vector<int> &p) { return F(p[0], p[1]) + G(p[0] + 5, p[1]); });
    }
    // Per loop: x aligned at the start, y (same range) left alone.
    Var x("x"), y("y");
    Func f("cwp_f"), g("cwp_g"), out("cwp_out");
    f(x, y) = x + 100 * y;
    g(x, y) = 3 * x - y;
    out(x, y) = f(x, y) + g(x + 5, y);
    f.compute_root();
    g.compute_root().compute_with(f, x, {{x, LoopAlignStrategy::AlignStart}});
    std::string stmt = loom_test::lowered_stmt(out, "cw_align_x.stmt");
    EXPECT_TRUE(loom_test::contains(stmt, "for (cwp_f.s0.x, cwp_out.min.0, cwp_out.extent.0) {")) << stmt;
    Buffer<int> b = out.realize({9, 4});
    expect_buffer_eq(b, [&](const std::vector<int> &p) { return F(p[0], p[1]) + G(p[0] + 5, p[1]); });
}

TEST_P(ComputeWith, AligningALoopThatIsNotFusedIsAnError) {
    Var x("x"), y("y"), z("z");
    Func f("cwe_f"), g("cwe_g"), out("cwe_out");
    f(x, y) = x + y;
    g(x, y) = x - y;
    out(x, y) = f(x, y) + g(x, y);
    f.compute_root();
    // z is not a loop of g at all: refused when the directive is given.
    EXPECT_COMPILE_ERROR(g.compute_with(f, y, {{z, LoopAlignStrategy::AlignStart}}), "aligns loop z",
                         "does not have");
    // x is a loop of g, but compute_with(f, y) fuses only y.
    g.compute_root().compute_with(f, y, {{x, LoopAlignStrategy::AlignEnd}});
    EXPECT_COMPILE_ERROR(out.realize({4, 4}), "aligns loop 'cwe_g.s0.x'", "not one of its fused loops");
}

LOOM_INSTANTIATE_BACKENDS(ComputeWith);

// ---- Fusions Loom refuses -------------------------------------------------------------

TEST(ComputeWithErrors, AChildThatReadsTheParent) {
    Var x("x"), y("y");
    Func f("cwe1_f"), g("cwe1_g"), out("cwe1_out");
    f(x, y) = x + y;
    g(x, y) = f(x, y) * 2;
    out(x, y) = g(x, y) + f(x, y);
    f.compute_root();
    g.compute_root().compute_with(f, y);
    EXPECT_COMPILE_ERROR(out.realize({4, 4}), "cwe1_g", "cwe1_f", "reads");
}

TEST(ComputeWithErrors, AnUpdateWithoutItsEarlierStage) {
    Var x("x"), y("y");
    Func f("cwe2_f"), g("cwe2_g"), out("cwe2_out");
    f(x, y) = x;
    g(x, y) = y;
    g(x, y) += 1;
    out(x, y) = f(x, y) + g(x, y);
    f.compute_root();
    g.compute_root();
    g.update(0).compute_with(f, y);
    EXPECT_COMPILE_ERROR(out.realize({4, 4}), "update 0 of Func 'cwe2_g'", "definition of Func 'cwe2_g'",
                         "run after");
}

TEST(ComputeWithErrors, AnUpdateWritingAtAComputedCoordinate) {
    // (Reads of other points in pure dimensions are refused by the front
    // end already: a recursive call uses the pure Vars where they are.)
    Var x("x"), y("y");
    RDom r(1, 3, "r");
    Func f("cwe3_f");
    f(x, y) = x + y;
    f(x, r) = f(x, r - 1) + 1;
    f.update(0).compute_with(f, y);
    EXPECT_COMPILE_ERROR(f.realize({4, 4}), "update 0 of Func 'cwe3_f'", "computed coordinate");
}

TEST(ComputeWithErrors, StagesOfOneFuncWithDifferentSplits) {
    Var x("x"), y("y"), xo("xo"), xi("xi");
    Func f("cwe4_f");
    f(x, y) = x + y;
    f(x, y) = f(x, y) * 2;
    f.split(x, xo, xi, 4);
    f.update(0).split(x, xo, xi, 2).compute_with(f, y);
    EXPECT_COMPILE_ERROR(f.realize({8, 4}), "cwe4_f", "same splits");
}

TEST(ComputeWithErrors, AVectorizedOrMismatchedFusedLoop) {
    Var x("x"), y("y"), xo("xo"), xi("xi");
    Func f("cwe5_f"), g("cwe5_g");
    f(x, y) = x + y;
    g(x, y) = x - y;
    f.split(x, xo, xi, 4).vectorize(xi);
    g.split(x, xo, xi, 4).vectorize(xi).compute_with(f, xi);
    EXPECT_COMPILE_ERROR(Pipeline({f, g}).realize({8, 4}), "cwe5_g", "'xi'", "vectorized");

    Func a("cwe6_a"), b("cwe6_b");
    a(x, y) = x + y;
    b(x, y) = x - y;
    a.parallel(y);
    b.compute_with(a, y);
    EXPECT_COMPILE_ERROR(Pipeline({a, b}).realize({8, 4}), "cwe6_b", "cwe6_a", "parallel and the other serial");
}

TEST(ComputeWithErrors, AChainOfFusions) {
    Var x("x"), y("y");
    Func f("cwe7_f"), g("cwe7_g"), h("cwe7_h");
    f(x, y) = x;
    g(x, y) = y;
    h(x, y) = x * y;
    g.compute_with(f, y);
    h.compute_with(g, y);
    EXPECT_COMPILE_ERROR(Pipeline({f, g, h}).realize({4, 4}), "cwe7_h", "cwe7_g", "directly");
}

TEST(ComputeWithErrors, AFuncThatWouldHaveToRunBetweenTheFusedOnes) {
    Var x("x"), y("y");
    Func f("cwe8_f"), k("cwe8_k"), g("cwe8_g"), out("cwe8_out");
    f(x, y) = x + y;
    k(x, y) = f(x, y) + 1;
    g(x, y) = k(x, y) * 2;
    out(x, y) = g(x, y) + f(x, y);
    f.compute_root();
    k.compute_root();
    g.compute_root().compute_with(f, y);
    EXPECT_COMPILE_ERROR(out.realize({4, 4}), "cwe8_g", "cwe8_f", "cwe8_k", "between");
}

TEST(ComputeWithErrors, AFuncComputedBetweenTheFusedLoops) {
    Var x("x"), y("y");
    Func f("cwe9_f"), g("cwe9_g"), p("cwe9_p");
    p(x, y) = x * y;
    f(x, y) = p(x, y) + 1;
    g(x, y) = x - y;
    p.compute_at(f, y);
    g.compute_with(f, x);
    EXPECT_COMPILE_ERROR(Pipeline({f, g}).realize({4, 4}), "cwe9_f", "between the fused loops");
}

}  // namespace
