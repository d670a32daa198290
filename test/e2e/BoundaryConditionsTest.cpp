// Every boundary condition, on Buffers, ImageParams and Funcs, against the
// coordinate mapping it is defined by.

#include "e2e/E2ETest.h"

#include <functional>

using namespace loom;
using loom_test::expect_buffer_eq;

namespace {

class Boundary : public loom_test::BackendTest {};

int euclid_mod(int a, int b) {
    int m = a % b;
    return m < 0 ? m + b : m;
}

/** Where each condition reads for coordinate x of [min, min + extent). */
int edge(int x, int min, int extent) { return std::max(min, std::min(x, min + extent - 1)); }
int tile(int x, int min, int extent) { return euclid_mod(x - min, extent) + min; }
int mirror(int x, int min, int extent) {
    int t = euclid_mod(x - min, 2 * extent);
    return (t < extent ? t : 2 * extent - 1 - t) + min;
}
int mirror_in(int x, int min, int extent) {
    if (extent == 1) return min;
    int t = euclid_mod(x - min, 2 * extent - 2);
    return (t < extent ? t : 2 * extent - 2 - t) + min;
}

/** A 5x4 input with mins (2, -1), every value distinct. */
Buffer<int> make_input() {
    Buffer<int> in(std::vector<int>{5, 4}, "bc_input");
    in.set_min(2, -1);
    in.for_each_element([&](int x, int y) { in(x, y) = x * 100 + y; });
    return in;
}

using Map = std::function<int(int, int, int)>;

/** Realizes f over [-8, 12) x [-6, 6) and checks it reads in at mapped coordinates. */
void check_mapping(Func f, const Buffer<int> &in, const Map &map) {
    Buffer<int> out(20, 12);
    out.set_min(-8, -6);
    f.realize(out);
    expect_buffer_eq(out, [&](const std::vector<int> &p) {
        return in(map(p[0], in.min(0), in.extent(0)), map(p[1], in.min(1), in.extent(1)));
    });
}

TEST_P(Boundary, OnBuffers) {
    Buffer<int> in = make_input();
    check_mapping(BoundaryConditions::repeat_edge(in), in, edge);
    check_mapping(BoundaryConditions::repeat_image(in), in, tile);
    check_mapping(BoundaryConditions::mirror_image(in), in, mirror);
    check_mapping(BoundaryConditions::mirror_interior(in), in, mirror_in);

    Func c = BoundaryConditions::constant_exterior(in, -7);
    Buffer<int> out(20, 12);
    out.set_min(-8, -6);
    c.realize(out);
    expect_buffer_eq(out, [&](const std::vector<int> &p) {
        bool inside = p[0] >= 2 && p[0] < 7 && p[1] >= -1 && p[1] < 3;
        return inside ? in(p[0], p[1]) : -7;
    });
}

TEST_P(Boundary, OnImageParamsWithRunTimeBounds) {
    ImageParam param(Int(32), 2, "bc_param");
    Func re = BoundaryConditions::repeat_edge(param);
    Func ri = BoundaryConditions::repeat_image(param);
    Func mi = BoundaryConditions::mirror_image(param);
    Func mn = BoundaryConditions::mirror_interior(param);
    Func ce = BoundaryConditions::constant_exterior(param, 0);
    Buffer<int> in = make_input();
    param.set(in);
    check_mapping(re, in, edge);
    check_mapping(ri, in, tile);
    check_mapping(mi, in, mirror);
    check_mapping(mn, in, mirror_in);
    // Another shape: the same Funcs follow the new buffer's bounds.
    Buffer<int> small(std::vector<int>{3, 2}, "bc_small");
    small.for_each_element([&](int x, int y) { small(x, y) = 7 + x * 10 + y; });
    param.set(small);
    check_mapping(re, small, edge);
    check_mapping(mi, small, mirror);
    Buffer<int> out(6, 4);
    out.set_min(-1, -1);
    ce.realize(out);
    expect_buffer_eq(out, [&](const std::vector<int> &p) {
        bool inside = p[0] >= 0 && p[0] < 3 && p[1] >= 0 && p[1] < 2;
        return inside ? small(p[0], p[1]) : 0;
    });
}

TEST_P(Boundary, OnFuncsWithExplicitBounds) {
    Var x("x"), y("y");
    Func src("bc_src");
    src(x, y) = x * 100 + y;  // defined everywhere; the bounds say where to keep it
    Buffer<int> window(std::vector<int>{4, 3}, "bc_window");
    window.set_min(1, 0);
    window.for_each_element([&](int i, int j) { window(i, j) = i * 100 + j; });
    BoundaryConditions::Region bounds = {{1, 4}, {0, 3}};
    check_mapping(BoundaryConditions::repeat_edge(src, bounds), window, edge);
    check_mapping(BoundaryConditions::repeat_image(src, bounds), window, tile);
    check_mapping(BoundaryConditions::mirror_image(src, bounds), window, mirror);
    check_mapping(BoundaryConditions::mirror_interior(src, bounds), window, mirror_in);
}

TEST_P(Boundary, PartialBoundsLeaveOtherDimensions) {
    Var x("x"), y("y");
    Func src("bc_partial");
    src(x, y) = x * 100 + y;
    // Only dimension 0 is bounded (an undefined Expr leaves dimension 1 alone).
    Func f = BoundaryConditions::repeat_edge(src, {{0, 3}});
    Func g = BoundaryConditions::constant_exterior(src, 5, {{Expr(), Expr()}, {0, 2}});
    Buffer<int> a(8, 8), b(8, 8);
    a.set_min(-2, -2);
    b.set_min(-2, -2);
    f.realize(a);
    g.realize(b);
    expect_buffer_eq(a, [](const std::vector<int> &p) { return edge(p[0], 0, 3) * 100 + p[1]; });
    expect_buffer_eq(b, [](const std::vector<int> &p) { return (p[1] >= 0 && p[1] < 2) ? p[0] * 100 + p[1] : 5; });
}

TEST_P(Boundary, ConstantExteriorOfTuplesAndNarrowTypes) {
    Var x("x");
    Func src("bc_tuple");
    src(x) = Tuple(x, cast<uint8_t>(x * 3));
    Func f = BoundaryConditions::constant_exterior(src, Tuple(-1, 9), {{0, 4}});
    Realization r = f.realize({8});
    Buffer<int> a = r[0];
    Buffer<uint8_t> b = r[1];
    for (int i = 0; i < 8; i++) {
        EXPECT_EQ(a(i), i < 4 ? i : -1);
        EXPECT_EQ(b(i), i < 4 ? uint8_t(i * 3) : 9);
    }
    Buffer<uint8_t> bytes(std::vector<int>{3}, "bc_bytes");
    bytes.fill(200);
    Buffer<uint8_t> padded = BoundaryConditions::constant_exterior(bytes, 0).realize({5});
    EXPECT_EQ(padded(2), 200);
    EXPECT_EQ(padded(3), 0);
}

TEST_P(Boundary, SameSourceTwiceInOnePipeline) {
    Buffer<int> in = make_input();
    Func a = BoundaryConditions::repeat_edge(in);
    Func b = BoundaryConditions::repeat_edge(in);
    EXPECT_NE(a.name(), b.name());
    Var x("x"), y("y");
    Func sum("bc_sum");
    sum(x, y) = a(x - 10, y) + b(x + 10, y);
    Buffer<int> out(3, 2);
    sum.realize(out);
    expect_buffer_eq(out, [&](const std::vector<int> &p) {
        return in(edge(p[0] - 10, 2, 5), edge(p[1], -1, 4)) + in(edge(p[0] + 10, 2, 5), edge(p[1], -1, 4));
    });
}

TEST_P(Boundary, MirrorOfAnAlignedCoordinate) {
    // Fuzz seed 401936: (4 y) % 8 is 0 or 4, which the simplifier uses to drop
    // the clamp inside mirror_interior; bounds inference must agree, or a
    // 5-row input is reported as read at row 7.
    Buffer<int> in(6, 5);
    in.for_each_element([&](const std::vector<int> &p) { in(p) = p[0] * 10 + p[1]; });
    Var x("x"), y("y");
    Func g("aligned_mirror");
    g(x, y) = BoundaryConditions::mirror_interior(in)(x, 4 * y);
    Buffer<int> out(6, 3);
    out.set_min({0, -1});
    g.realize(out);
    expect_buffer_eq(out, [&](const std::vector<int> &p) {
        int r = 4 * p[1];  // mirror_interior of rows 0..4 has period 8
        r = ((r % 8) + 8) % 8;
        if (r > 4) r = 8 - r;
        return p[0] * 10 + r;
    });
}

LOOM_INSTANTIATE_BACKENDS(Boundary);

}  // namespace
