// compute_at(f, var) without a stage index names loop `var` in every stage
// of f, as in Halide (LoopLevel::match ignores the stage when the level has
// no stage index, and the producer is realized in each matching loop whose
// body uses it): a producer is computed in the loop of each stage of f that
// reads it, sized to what that stage reads. Results are compared with plain
// C++ loops; the region each site computes is read from the lowered
// statement, and the input region from infer_input_bounds.

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

#include "e2e/E2ETest.h"

using namespace loom;
using loom_test::contains;
using loom_test::expect_buffer_eq;
using loom_test::lowered_stmt;

namespace {

class ComputeAtStage : public loom_test::BackendTest {};



int count(const std::string &text, const std::string &part) {
    int n = 0;
    for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) n++;
    return n;
}

/** The text from the loop `loop` to the end: what that loop holds (and what
 * follows it). */
std::string from_loop(const std::string &text, const std::string &loop) {
    size_t at = text.find("for (" + loop + ",");
    return at == std::string::npos ? std::string() : text.substr(at);
}

void expect_region(const Buffer<> &b, const std::vector<int> &min, const std::vector<int> &extent) {
    ASSERT_EQ(b.dimensions(), (int)min.size());
    for (int d = 0; d < b.dimensions(); d++) {
        EXPECT_EQ(b.min(d), min[d]) << "dimension " << d;
        EXPECT_EQ(b.extent(d), extent[d]) << "dimension " << d;
    }
}

Buffer<int> ramp(int w, int h) {
    Buffer<int> b(w, h);
    b.for_each_element([&](int i, int j) { b(i, j) = (i * 7 + j * 13) % 29; });
    return b;
}

constexpr int W = 13, H = 9;

// The case Loom refused before: p is read only by g's pure definition.
TEST_P(ComputeAtStage, ProducerReadOnlyByThePureDefinition) {
    ImageParam in(Int(32), 2, "in");
    Var x("x"), y("y");
    RDom r(0, 3, "r");
    Func p("p"), g("g");
    p(x, y) = in(x, y) * 3;
    g(x, y) = p(x, y) + p(x, y + 1);
    g(x, y) += r;
    p.compute_at(g, y);

    std::string stmt = lowered_stmt(g, "pure_only.stmt");
    EXPECT_EQ(count(stmt, "produce p {"), 1) << stmt;
    // Computed per row of the pure definition: two rows, g's columns.
    std::string site = from_loop(stmt, "g.s0.y");
    EXPECT_LT(site.find("produce p {"), site.find("for (g.s1.y,")) << stmt;
    EXPECT_TRUE(contains(site, "for (p.s0.y, g.s0.y, 2)")) << stmt;
    EXPECT_TRUE(contains(site, "for (p.s0.x, g.min.0, g.extent.0)")) << stmt;

    g.infer_input_bounds({W, H});
    expect_region(in.get(), {0, 0}, {W, H + 1});

    Buffer<int> input = ramp(W, H + 1);
    in.set(input);
    Buffer<int> out = g.realize({W, H});
    expect_buffer_eq(out, [&](const std::vector<int> &c) {
        return input(c[0], c[1]) * 3 + input(c[0], c[1] + 1) * 3 + 0 + 1 + 2;
    });
}

TEST_P(ComputeAtStage, ProducerReadOnlyByAnUpdate) {
    ImageParam in(Int(32), 2, "in");
    Var x("x"), y("y");
    Func p("p"), g("g");
    p(x, y) = in(x, y) + 1;
    g(x, y) = x - y;
    g(x, y) += p(x, y) * p(x + 3, y);
    p.compute_at(g, y);

    std::string stmt = lowered_stmt(g, "update_only.stmt");
    EXPECT_EQ(count(stmt, "produce p {"), 1) << stmt;
    // Computed per row of the update: one row, columns [x, x + 3].
    std::string site = from_loop(stmt, "g.s1.y");
    EXPECT_TRUE(contains(site, "produce p {")) << stmt;
    EXPECT_TRUE(contains(site, "for (p.s0.x, g.min.0, g.extent.0 + 3)")) << stmt;
    EXPECT_FALSE(contains(site, "for (p.s0.y,")) << stmt;

    g.infer_input_bounds({W, H});
    expect_region(in.get(), {0, 0}, {W + 3, H});

    Buffer<int> input = ramp(W + 3, H);
    in.set(input);
    Buffer<int> out = g.realize({W, H});
    expect_buffer_eq(out, [&](const std::vector<int> &c) {
        return c[0] - c[1] + (input(c[0], c[1]) + 1) * (input(c[0] + 3, c[1]) + 1);
    });
}

// Read by both stages: computed in each stage's loop, each time the region
// that stage reads (Halide's meaning; the two regions differ here).
TEST_P(ComputeAtStage, ProducerReadByBothStagesIsComputedInEach) {
    ImageParam in(Int(32), 2, "in");
    Var x("x"), y("y");
    RDom r(0, 3, "r");
    Func p("p"), g("g");
    p(x, y) = in(x, y) * 2 - 1;
    g(x, y) = p(x, y) + p(x, y + 1);
    g(x, y) += p(x + 2, y) * r;
    p.compute_at(g, y);

    std::string stmt = lowered_stmt(g, "both.stmt");
    EXPECT_EQ(count(stmt, "produce p {"), 2) << stmt;
    std::string pure = from_loop(stmt, "g.s0.y");
    std::string update = from_loop(stmt, "g.s1.y");
    ASSERT_FALSE(update.empty()) << stmt;
    pure = pure.substr(0, pure.size() - update.size());
    // The pure definition reads rows y and y + 1 of columns [x, x]...
    EXPECT_TRUE(contains(pure, "for (p.s0.y, g.s0.y, 2)")) << stmt;
    EXPECT_TRUE(contains(pure, "for (p.s0.x, g.min.0, g.extent.0)")) << stmt;
    // ... the update row y of columns shifted by 2.
    EXPECT_FALSE(contains(update, "for (p.s0.y,")) << stmt;
    EXPECT_TRUE(contains(update, "for (p.s0.x, g.min.0 + 2, g.extent.0)")) << stmt;

    g.infer_input_bounds({W, H});
    expect_region(in.get(), {0, 0}, {W + 2, H + 1});

    Buffer<int> input = ramp(W + 2, H + 1);
    in.set(input);
    Buffer<int> out = g.realize({W, H});
    auto pv = [&](int i, int j) { return input(i, j) * 2 - 1; };
    expect_buffer_eq(out, [&](const std::vector<int> &c) {
        int v = pv(c[0], c[1]) + pv(c[0], c[1] + 1);
        for (int k = 0; k < 3; k++) v += pv(c[0] + 2, c[1]) * k;
        return v;
    });
}

// One producer per stage, each at a different loop of its stage.
TEST_P(ComputeAtStage, ProducersOfTwoStages) {
    ImageParam in(Int(32), 2, "in");
    Var x("x"), y("y");
    RDom r(0, 4, "r");
    Func p0("p0"), p1("p1"), g("g");
    p0(x, y) = in(x, y) + 5;
    p1(x, y) = in(x, y) * 7;
    g(x, y) = p0(x, y) * p0(x, y);
    g(x, y) += p1(x + r, y);
    p0.compute_at(g, x);
    p1.compute_at(g, y);

    std::string stmt = lowered_stmt(g, "two_producers.stmt");
    std::string pure = from_loop(stmt, "g.s0.x");
    std::string update = from_loop(stmt, "g.s1.y");
    ASSERT_FALSE(update.empty()) << stmt;
    pure = pure.substr(0, pure.size() - update.size());
    EXPECT_TRUE(contains(pure, "produce p0 {")) << stmt;
    EXPECT_FALSE(contains(pure, "produce p1 {")) << stmt;
    EXPECT_TRUE(contains(update, "produce p1 {")) << stmt;
    EXPECT_FALSE(contains(update, "produce p0 {")) << stmt;
    EXPECT_TRUE(contains(update, "for (p1.s0.x, g.min.0, g.extent.0 + 3)")) << stmt;

    Buffer<int> input = ramp(W + 3, H);
    in.set(input);
    Buffer<int> out = g.realize({W, H});
    expect_buffer_eq(out, [&](const std::vector<int> &c) {
        int a = input(c[0], c[1]) + 5;
        int v = a * a;
        for (int k = 0; k < 4; k++) v += input(c[0] + k, c[1]) * 7;
        return v;
    });
}

// Storage at root, computed in both stages' loops (no sliding window or
// fold: each site computes its own rows in full).
TEST_P(ComputeAtStage, StoredAtRootComputedInBothStages) {
    Var x("x"), y("y");
    Func p("p"), g("g");
    p(x, y) = x * 5 + y * 3;
    g(x, y) = p(x, y - 1) + p(x, y + 1);
    g(x, y) += p(x, y) * 2;
    p.store_root().compute_at(g, y);

    std::string stmt = lowered_stmt(g, "store_root.stmt");
    EXPECT_EQ(count(stmt, "produce p {"), 2) << stmt;
    EXPECT_EQ(count(stmt, "allocate p["), 1) << stmt;

    Buffer<int> out = g.realize({W, H});
    auto pv = [](int i, int j) { return i * 5 + j * 3; };
    expect_buffer_eq(out, [&](const std::vector<int> &c) {
        return pv(c[0], c[1] - 1) + pv(c[0], c[1] + 1) + pv(c[0], c[1]) * 2;
    });
}

// A producer of a producer: q is computed in p's loop, and p in both of g's
// stages, so q is computed in each too.
TEST_P(ComputeAtStage, NestedInAProducerOfBothStages) {
    Var x("x"), y("y");
    Func q("q"), p("p"), g("g");
    q(x, y) = x + y * 10;
    p(x, y) = q(x, y) + q(x + 1, y);
    g(x, y) = p(x, y);
    g(x, y) += p(x + 1, y) * 3;
    p.compute_at(g, y);
    q.compute_at(p, y);

    std::string stmt = lowered_stmt(g, "nested.stmt");
    EXPECT_EQ(count(stmt, "produce p {"), 2) << stmt;
    EXPECT_EQ(count(stmt, "produce q {"), 2) << stmt;

    Buffer<int> out = g.realize({W, H});
    auto qv = [](int i, int j) { return i + j * 10; };
    auto pv = [&](int i, int j) { return qv(i, j) + qv(i + 1, j); };
    expect_buffer_eq(out, [&](const std::vector<int> &c) { return pv(c[0], c[1]) + pv(c[0] + 1, c[1]) * 3; });
}

// An explicit stage index still names one loop.
TEST_P(ComputeAtStage, AnExplicitStageNamesOneLoop) {
    Var x("x"), y("y");
    Func p("p"), g("g");
    p(x, y) = x * y;
    g(x, y) = x;
    g(x, y) += p(x, y);
    p.compute_at(LoopLevel(g, y, 1));
    std::string stmt = lowered_stmt(g, "explicit.stmt");
    EXPECT_EQ(count(stmt, "produce p {"), 1) << stmt;
    EXPECT_TRUE(contains(from_loop(stmt, "g.s1.y"), "produce p {")) << stmt;
    Buffer<int> out = g.realize({W, H});
    expect_buffer_eq(out, [&](const std::vector<int> &c) { return c[0] + c[0] * c[1]; });

    // A producer read by both stages can't be computed in one of them.
    Func p2("p2"), g2("g2");
    p2(x, y) = x * y;
    g2(x, y) = p2(x, y);
    g2(x, y) += p2(x, y);
    p2.compute_at(LoopLevel(g2, y, 1));
    EXPECT_THROW(g2.realize({W, H}), CompileError);
    p2.compute_at(g2, y);
    Buffer<int> out2 = g2.realize({W, H});
    expect_buffer_eq(out2, [&](const std::vector<int> &c) { return 2 * c[0] * c[1]; });
}

std::string compile_error(Func &f) {
    try {
        f.realize({W, H});
    } catch (const CompileError &e) {
        return e.what();
    }
    return "<no error>";
}

TEST_P(ComputeAtStage, ErrorsNameTheStageAndTheLoop) {
    Var x("x"), y("y"), q("q"), yo("yo"), yi("yi");
    RDom r(0, 3, "r");

    // No stage of g has the loop.
    Func p("p_none"), g("g_none");
    p(x, y) = x + y;
    g(x, y) = p(x, y);
    g(x, y) += r;
    p.compute_at(g, q);
    std::string message = compile_error(g);
    EXPECT_TRUE(contains(message, "g_none has no loop q in any stage")) << message;

    // Only a stage that doesn't read p has it: the pure definition's y was
    // split away, and the pure definition is where p is read.
    Func p2("p_split"), g2("g_split");
    p2(x, y) = x + y;
    g2(x, y) = p2(x, y);
    g2(x, y) += r;
    g2.split(y, yo, yi, 4);
    p2.compute_at(g2, y);
    message = compile_error(g2);
    EXPECT_TRUE(contains(message, "p_split")) << message;
    EXPECT_TRUE(contains(message, "g_split (pure definition)")) << message;

    // Read by both stages, but the update has no loop y.
    Func p3("p_both"), g3("g_both");
    p3(x, y) = x + y;
    g3(x, y) = p3(x, y);
    g3(x, y) += p3(x, y);
    g3.update(0).split(y, yo, yi, 4, TailStrategy::GuardWithIf);
    p3.compute_at(g3, y);
    message = compile_error(g3);
    EXPECT_TRUE(contains(message, "p_both")) << message;
    EXPECT_TRUE(contains(message, "g_both.update(0)")) << message;
    p3.compute_at(g3, x);  // both stages have x
    Buffer<int> out = g3.realize({W, H});
    expect_buffer_eq(out, [&](const std::vector<int> &c) { return 2 * (c[0] + c[1]); });
}

LOOM_INSTANTIATE_BACKENDS(ComputeAtStage);

}  // namespace
