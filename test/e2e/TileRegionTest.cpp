// Producers computed per tile: the input region the pipeline needs is
// exactly what it reads (infer_input_bounds answers it, and an input of
// exactly that size runs), and the results equal plain C++ loops.

#include "e2e/E2ETest.h"

#include <vector>

using namespace loom;
using loom_test::expect_buffer_eq;

namespace {

class TileRegion : public loom_test::BackendTest {};

void expect_region(const Buffer<> &b, const std::vector<int> &min, const std::vector<int> &extent) {
    ASSERT_EQ(b.dimensions(), (int)min.size());
    for (int d = 0; d < b.dimensions(); d++) {
        EXPECT_EQ(b.min(d), min[d]) << "dimension " << d;
        EXPECT_EQ(b.extent(d), extent[d]) << "dimension " << d;
    }
}

template<typename T>
Buffer<T> filled(const std::vector<int> &min, const std::vector<int> &extent, int scale) {
    Buffer<T> b(extent);
    b.set_min(min);
    b.for_each_element([&](const std::vector<int> &p) { b(p) = T(p[0] + scale * p[1]); });
    return b;
}

// The reproduction from PERFORMANCE.md (P1): it used to need input rows up
// to 224 ("largest min + largest extent") instead of 128.
TEST_P(TileRegion, ProducerPerRowBlockReadsExactlyTheRowsBelow) {
    ImageParam in(Int(32), 2, "in");
    Func f("f"), g("g");
    Var x("x"), y("y"), yo("yo"), yi("yi");
    f(x, y) = in(x, y + 1);
    g(x, y) = f(x, y);
    g.split(y, yo, yi, 32);
    f.compute_at(g, yo);

    g.infer_input_bounds({64, 128});
    expect_region(in.get(), {0, 1}, {64, 128});

    Buffer<int> input = filled<int>({0, 0}, {64, 129}, 1000);
    in.set(input);
    Buffer<int> out = g.realize({64, 128});
    expect_buffer_eq(out, [&](const std::vector<int> &p) { return input(p[0], p[1] + 1); });
}

// The blur of the benchmark, small: blur_x per 16x8 tile of blur_y, with
// tails in both dimensions, and an input of exactly two extra columns and
// rows.
TEST_P(TileRegion, BlurPerTileNeedsTwoExtraRowsAndColumns) {
    ImageParam input(UInt(16), 2, "input");
    Func blur_x("blur_x"), blur_y("blur_y");
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    blur_x(x, y) = (input(x, y) + input(x + 1, y) + input(x + 2, y)) / 3;
    blur_y(x, y) = (blur_x(x, y) + blur_x(x, y + 1) + blur_x(x, y + 2)) / 3;
    blur_y.tile(x, y, xo, yo, xi, yi, 16, 8).vectorize(xi, 8).parallel(yo);
    blur_x.compute_at(blur_y, xo).vectorize(x, 8);

    const int w = 45, h = 27;
    blur_y.infer_input_bounds({w, h});
    expect_region(input.get(), {0, 0}, {w + 2, h + 2});

    Buffer<uint16_t> in = filled<uint16_t>({0, 0}, {w + 2, h + 2}, 64);
    input.set(in);
    Buffer<uint16_t> out = blur_y.realize({w, h});
    expect_buffer_eq(out, [&](const std::vector<int> &p) {
        auto bx = [&](int a, int b) { return (in(a, b) + in(a + 1, b) + in(a + 2, b)) / 3; };
        return uint16_t((bx(p[0], p[1]) + bx(p[0], p[1] + 1) + bx(p[0], p[1] + 2)) / 3);
    });
}

// The matmul of the benchmark, small: a packed panel Func computed at root
// and read per output tile; A and B are needed exactly, no more.
TEST_P(TileRegion, PackedPanelMatmulNeedsExactlyItsMatrices) {
    const int n = 64, lanes = 8, panel = 16;
    ImageParam a(Float(32), 2, "A"), b(Float(32), 2, "B");
    Func packed("Bp"), prod("prod"), out("out");
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi"), yii("yii"), pi("pi"), pk("pk"), po("po");
    RDom k(0, n, "k");
    packed(pi, pk, po) = b(po * panel + pi, pk);
    prod(x, y) = 0.0f;
    prod(x, y) += a(k, y) * packed(x % panel, k, x / panel);
    out(x, y) = prod(x, y);
    packed.compute_root().bound(pi, 0, panel).vectorize(pi, lanes).parallel(po);
    out.bound(x, 0, n).bound(y, 0, n);
    out.tile(x, y, xo, yo, xi, yi, panel, 32).split(yi, yi, yii, 4).vectorize(xi, lanes).unroll(yii).parallel(yo);
    prod.compute_at(out, yi).vectorize(x, lanes).unroll(y);
    prod.update(0).reorder(x, y, k).vectorize(x, lanes).unroll(y);

    out.infer_input_bounds({n, n});
    expect_region(a.get(), {0, 0}, {n, n});
    expect_region(b.get(), {0, 0}, {n, n});

    Buffer<float> ab = filled<float>({0, 0}, {n, n}, 3), bb = filled<float>({0, 0}, {n, n}, -2);
    a.set(ab);
    b.set(bb);
    Buffer<float> result = out.realize({n, n});
    expect_buffer_eq(result, [&](const std::vector<int> &p) {
        float sum = 0.0f;
        for (int kk = 0; kk < n; kk++) sum += ab(kk, p[1]) * bb(p[0], kk);
        return sum;
    });
}

// A matmul accumulator computed per 16 x 4 tile (ShiftInwards tiles, so
// the tile's start is a min() expression): its extent is 16 x 4 once the
// simplifier sees that the update's region starts where the pure
// definition's does, so the accumulator is a constant-size allocation (on
// the stack, and in registers once its loops are unrolled and vectorized).
TEST_P(TileRegion, TileAccumulatorHasAConstantSize) {
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    ImageParam A(Float(32), 2, "A"), B(Float(32), 2, "B");
    constexpr int K = 24, W = 37, H = 10;
    RDom k(0, K, "k");
    Func acc("acc"), out("out");
    acc(x, y) = 0.0f;
    acc(x, y) += A(k, y) * B(x, k);
    out(x, y) = acc(x, y);
    out.tile(x, y, xo, yo, xi, yi, 16, 4).vectorize(xi, 8);
    acc.compute_at(out, xo).vectorize(x, 8).unroll(x).unroll(y);
    acc.update().reorder(x, y, k).vectorize(x, 8).unroll(x).unroll(y);
    std::string stmt = loom_test::lowered_stmt(out, "tile_accumulator.stmt");
    EXPECT_TRUE(loom_test::contains(stmt, "allocate acc[float32 * 16 * 4]")) << stmt;

    Buffer<float> a = filled<float>({0, 0}, {K, H}, 3), b = filled<float>({0, 0}, {W, K}, 5);
    A.set(a);
    B.set(b);
    Buffer<float> result = out.realize({W, H});
    expect_buffer_eq(result, [&](const std::vector<int> &p) {
        float sum = 0.0f;
        for (int i = 0; i < K; i++) sum += a(i, p[1]) * b(p[0], i);
        return sum;
    });
}

LOOM_INSTANTIATE_BACKENDS(TileRegion);

}  // namespace
