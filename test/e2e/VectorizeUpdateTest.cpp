// vectorize() across a pure Var of an update definition: the lanes are
// distinct coordinates of that dimension, independent by construction, so
// recurrences along another dimension (IIR filters, summed-area tables)
// become vector code. Results are compared with plain C++ loops, and the
// lowered statement must hold vector accesses, not the serial loop.

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

class VectorizeUpdate : public loom_test::BackendTest {};



/** fwd(x, y) = 0.5 fwd(x - 1, y) + 0.5 in(x, y) along each row, like the C++
 * loop below; the schedule vectorizes the update across rows. */
struct Iir {
    Var x{"x"}, y{"y"}, yo{"yo"}, yi{"yi"};
    ImageParam in{Float(32), 2, "iir_in"};
    Func fwd{"fwd"};
    RDom r;
    Iir(int width) : r(1, width - 1, "r") {
        fwd(x, y) = in(x, y);
        fwd(r, y) = fwd(r - 1, y) * 0.5f + in(r, y) * 0.5f;
    }
};

Buffer<float> iir_input(int w, int h) {
    Buffer<float> b(w, h);
    b.for_each_element([&](int i, int j) { b(i, j) = float((i * 7 + j * 13) % 17); });
    return b;
}

std::vector<float> iir_reference(const Buffer<float> &in) {
    const int w = in.width(), h = in.height();
    std::vector<float> out(w * h);
    for (int j = 0; j < h; j++) {
        out[j * w] = in(0, j);
        for (int i = 1; i < w; i++) out[j * w + i] = out[j * w + i - 1] * 0.5f + in(i, j) * 0.5f;
    }
    return out;
}

TEST_P(VectorizeUpdate, IirAcrossRowsScanInside) {
    const int W = 24, H = 16;
    Iir p(W);
    // The scan r is the innermost loop inside the vectorized group of rows.
    p.fwd.update(0).vectorize(p.y, 8);
    Buffer<float> input = iir_input(W, H);
    p.in.set(input);
    Buffer<float> out = p.fwd.realize({W, H});
    std::vector<float> expected = iir_reference(input);
    expect_buffer_eq(out, [&](const std::vector<int> &q) { return expected[q[1] * W + q[0]]; });
}

TEST_P(VectorizeUpdate, IirAcrossRowsVectorInnermost) {
    const int W = 20, H = 32;
    Iir p(W);
    p.fwd.update(0).split(p.y, p.yo, p.yi, 8).reorder(p.yi, p.r.x, p.yo).vectorize(p.yi);
    Buffer<float> input = iir_input(W, H);
    p.in.set(input);
    Buffer<float> out = p.fwd.realize({W, H});
    std::vector<float> expected = iir_reference(input);
    expect_buffer_eq(out, [&](const std::vector<int> &q) { return expected[q[1] * W + q[0]]; });

    const std::string stmt = lowered_stmt(p.fwd, "loom_vectorize_iir.stmt");
    EXPECT_FALSE(contains(stmt, "for (fwd.s1.yi")) << stmt;
    EXPECT_TRUE(contains(stmt, "fwd[ramp(")) << stmt;
    EXPECT_TRUE(contains(stmt, "= fwd[ramp(") || contains(stmt, "(fwd[ramp(")) << stmt;
}

TEST_P(VectorizeUpdate, IirWithGuardedTail) {
    // 13 rows in groups of 8: the last group is masked.
    const int W = 9, H = 13;
    Iir p(W);
    p.fwd.update(0)
        .split(p.y, p.yo, p.yi, 8, TailStrategy::GuardWithIf)
        .reorder(p.yi, p.r.x, p.yo)
        .vectorize(p.yi);
    Buffer<float> input = iir_input(W, H);
    p.in.set(input);
    Buffer<float> out = p.fwd.realize({W, H});
    std::vector<float> expected = iir_reference(input);
    expect_buffer_eq(out, [&](const std::vector<int> &q) { return expected[q[1] * W + q[0]]; });
    EXPECT_TRUE(contains(lowered_stmt(p.fwd, "loom_vectorize_iir_tail.stmt"), "fwd[ramp(")) ;
}

/** sat(x, y) = sum of in over [0, x] x [0, y]: a scan along rows, then one
 * down the columns, each vectorized across the other dimension. */
struct SummedArea {
    Var x{"x"}, y{"y"}, xo{"xo"}, xi{"xi"};
    ImageParam in{Int(32), 2, "sat_in"};
    Func rows{"rows"}, sat{"sat"};
    RDom rx, ry;
    SummedArea(int w, int h) : rx(1, w - 1, "rx"), ry(1, h - 1, "ry") {
        rows(x, y) = in(x, y);
        rows(rx, y) = rows(rx - 1, y) + rows(rx, y);
        sat(x, y) = rows(x, y);
        sat(x, ry) = sat(x, ry - 1) + sat(x, ry);
    }
};

std::vector<int> sat_reference(const Buffer<int> &in) {
    const int w = in.width(), h = in.height();
    std::vector<int> s(w * h);
    for (int j = 0; j < h; j++) {
        for (int i = 0; i < w; i++) {
            s[j * w + i] = in(i, j) + (i > 0 ? s[j * w + i - 1] : 0) + (j > 0 ? s[(j - 1) * w + i] : 0) -
                           (i > 0 && j > 0 ? s[(j - 1) * w + i - 1] : 0);
        }
    }
    return s;
}

Buffer<int> sat_input(int w, int h) {
    Buffer<int> b(w, h);
    b.for_each_element([&](int i, int j) { b(i, j) = (i * 5 + j * 3) % 11 - 4; });
    return b;
}

TEST_P(VectorizeUpdate, SummedAreaColumnScanVectorInnermost) {
    const int W = 32, H = 12;
    SummedArea p(W, H);
    p.rows.compute_root();
    p.rows.update(0).vectorize(p.y, 4);  // row scan: lanes are rows (strided)
    p.sat.update(0).split(p.x, p.xo, p.xi, 8).reorder(p.xi, p.ry.x, p.xo).vectorize(p.xi);
    Buffer<int> input = sat_input(W, H);
    p.in.set(input);
    Buffer<int> out = p.sat.realize({W, H});
    std::vector<int> expected = sat_reference(input);
    expect_buffer_eq(out, [&](const std::vector<int> &q) { return expected[q[1] * W + q[0]]; });

    const std::string stmt = lowered_stmt(p.sat, "loom_vectorize_sat.stmt");
    EXPECT_FALSE(contains(stmt, "for (sat.s1.xi")) << stmt;
    EXPECT_FALSE(contains(stmt, "for (rows.s1.y_vi")) << stmt;
    // The column scan reads and writes whole rows of 8: dense ramps.
    EXPECT_TRUE(contains(stmt, ", 1, 8)]")) << stmt;
}

TEST_P(VectorizeUpdate, SummedAreaColumnScanScanInside) {
    const int W = 24, H = 10;
    SummedArea p(W, H);
    p.rows.compute_root();
    p.sat.update(0).vectorize(p.x, 8).parallel(p.x);
    Buffer<int> input = sat_input(W, H);
    p.in.set(input);
    Buffer<int> out = p.sat.realize({W, H});
    std::vector<int> expected = sat_reference(input);
    expect_buffer_eq(out, [&](const std::vector<int> &q) { return expected[q[1] * W + q[0]]; });
}

TEST_P(VectorizeUpdate, PureStageWithUnrolledRowsInsideVectorizes) {
    // Two stores into one buffer at different indices (unrolled y inside the
    // vectorized x): still independent lanes, since x is pure.
    Var x("x"), y("y"), xo("xo"), xi("xi");
    Func f("unrolled_rows");
    f(x, y) = x * 10 + y;
    f.split(x, xo, xi, 4).reorder(y, xi, xo).vectorize(xi).bound(y, 0, 2).unroll(y);
    Buffer<int> out = f.realize({8, 2});
    expect_buffer_eq(out, [](const std::vector<int> &q) { return q[0] * 10 + q[1]; });
    const std::string stmt = lowered_stmt(f, "loom_vectorize_unrolled.stmt");
    EXPECT_FALSE(contains(stmt, "for (unrolled_rows.s0.xi")) << stmt;
    EXPECT_TRUE(contains(stmt, "unrolled_rows[ramp(")) << stmt;
}

TEST_P(VectorizeUpdate, RVarWithDataDependentWhereAndTail) {
    // A vectorized RVar (independent: f(r) is written and read only at r)
    // with a where() that depends on the data and a partial last vector:
    // whole vectors mask the lanes whose data fails the test, the tail runs
    // as a scalar loop.
    const int N = 21;
    Var x("x");
    Buffer<int> data(std::vector<int>{N}, "where_data");
    for (int i = 0; i < N; i++) data(i) = (i * 7) % 5 - 2;
    Func f("where_f");
    RDom r(0, N, "r");
    r.where(data(r) > 0);
    f(x) = x;
    f(r) = f(r) * 10 + data(r);
    f.update(0).vectorize(r.x, 8);
    Buffer<int> out = f.realize({N});
    expect_buffer_eq(out, [&](const std::vector<int> &q) {
        const int i = q[0];
        return data(i) > 0 ? i * 10 + data(i) : i;
    });
    EXPECT_TRUE(contains(lowered_stmt(f, "loom_vectorize_where.stmt"), "where_f[ramp(")) ;
}

LOOM_INSTANTIATE_BACKENDS(VectorizeUpdate);

}  // namespace
