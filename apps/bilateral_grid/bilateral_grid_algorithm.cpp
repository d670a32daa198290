#include "bilateral_grid_algorithm.h"

namespace apps {
inline namespace LOOM_APPS_DSL {

using namespace loom;

BilateralGrid define_bilateral_grid(const Func &input, const Expr &width, const Expr &height, int s_sigma,
                                    const Expr &r_sigma, Func output) {
    BilateralGrid g;
    g.output = output;
    const Var &x = g.x, &y = g.y, &z = g.z, &c = g.c;
    g.clamped = BoundaryConditions::repeat_edge(input, {{0, width}, {0, height}});
    // The grid's z cells are 0 .. z_cells - 1; clamping to them is a no-op
    // for values in [0, 1] and lets bounds inference size the grid.
    Expr z_cells = cast<int>(1.0f / r_sigma + 0.5f) + 1;
    g.z_cells = z_cells;
    g.grid_width = (width - 1) / s_sigma + 1;
    g.grid_height = (height - 1) / s_sigma + 1;

    // 1. Splat: cell (x, y) gathers the block centred on (x * s, y * s).
    g.block = RDom(0, s_sigma, 0, s_sigma, "block");
    Expr value = clamp(g.clamped(x * s_sigma + g.block.x - s_sigma / 2, y * s_sigma + g.block.y - s_sigma / 2),
                       0.0f, 1.0f);
    Expr cell = clamp(cast<int>(value / r_sigma + 0.5f), 0, z_cells - 1);
    g.histogram(x, y, z, c) = 0.0f;
    g.histogram(x, y, cell, c) += select(c == 0, value, 1.0f);

    // 2. Blur the grid along z, x and y.
    auto blur5 = [](const Expr &a, const Expr &b, const Expr &m, const Expr &d, const Expr &e) {
        return a + b * 4.0f + m * 6.0f + d * 4.0f + e;
    };
    const Func &h = g.histogram;
    g.blur_z(x, y, z, c) = blur5(h(x, y, z - 2, c), h(x, y, z - 1, c), h(x, y, z, c), h(x, y, z + 1, c),
                                 h(x, y, z + 2, c));
    const Func &bz = g.blur_z;
    g.blur_x(x, y, z, c) = blur5(bz(x - 2, y, z, c), bz(x - 1, y, z, c), bz(x, y, z, c), bz(x + 1, y, z, c),
                                 bz(x + 2, y, z, c));
    const Func &bx = g.blur_x;
    g.blur_y(x, y, z, c) = blur5(bx(x, y - 2, z, c), bx(x, y - 1, z, c), bx(x, y, z, c), bx(x, y + 1, z, c),
                                 bx(x, y + 2, z, c));

    // 3. Slice: trilinear interpolation of the blurred grid.
    g.z_position(x, y) = clamp(g.clamped(x, y), 0.0f, 1.0f) / r_sigma;
    Expr zv = g.z_position(x, y);
    Expr zi = clamp(cast<int>(zv), 0, z_cells - 1);
    Expr zf = zv - cast<float>(zi);
    Expr xi = x / s_sigma, yi = y / s_sigma;
    Expr xf = cast<float>(x % s_sigma) / float(s_sigma), yf = cast<float>(y % s_sigma) / float(s_sigma);
    const Func &grid = g.blur_y;
    auto plane = [&](const Expr &zz) {
        Expr top = lerp(grid(xi, yi, zz, c), grid(xi + 1, yi, zz, c), xf);
        Expr bottom = lerp(grid(xi, yi + 1, zz, c), grid(xi + 1, yi + 1, zz, c), xf);
        return lerp(top, bottom, yf);
    };
    g.interpolated(x, y, c) = lerp(plane(zi), plane(zi + 1), zf);
    g.output(x, y) = g.interpolated(x, y, 0) / g.interpolated(x, y, 1);
    return g;
}

void schedule_bilateral_grid(BilateralGrid &g) {
    const Var &x = g.x, &y = g.y, &z = g.z, &c = g.c;
    // Splat one grid row at a time, just before the z blur reads it; the
    // two channels (value, weight) side by side.
    g.histogram.compute_at(g.blur_z, y).unroll(c);
    g.histogram.update(0).reorder(c, g.block.x, g.block.y, x, y).unroll(c);
    g.blur_z.compute_root().reorder(c, z, x, y).vectorize(x, 8).unroll(c).parallel(y);
    g.blur_x.compute_root().reorder(c, x, y, z).vectorize(x, 8).unroll(c).parallel(z);
    g.blur_y.compute_root().reorder(c, x, y, z).vectorize(x, 8).unroll(c).parallel(z);
    // The slice: 8 pixels per vector, rows in parallel; the interpolation
    // is inlined.
    // Each pixel's grid position is computed once per row (the
    // interpolation reads it eight times).
    Var yo("yo"), yi("yi");
    g.output.split(y, yo, yi, 8).vectorize(x, 8).parallel(yo);
    g.z_position.compute_at(g.output, yi).vectorize(x, 8);
}

void schedule_bilateral_grid_gpu(BilateralGrid &g, DeviceAPI device_api) {
    const Var &x = g.x, &y = g.y, &z = g.z, &c = g.c;
    Var bx("bx"), by("by"), bz("bz"), tx("tx"), ty("ty"), tz("tz");
    // The splat scatters into z, so it cannot be split across threads
    // without atomics; each thread owns one grid column and walks its s x s
    // pixels. GuardWithIf: the grid is as narrow as the image / s_sigma.
    const TailStrategy guard = TailStrategy::GuardWithIf;
    g.histogram.compute_root().reorder(c, z, x, y).unroll(c).gpu_tile(x, y, bx, by, tx, ty, 8, 8, guard,
                                                                                      device_api);
    g.histogram.update(0).reorder(c, g.block.x, g.block.y, x, y).unroll(c).gpu_tile(x, y, bx, by, tx, ty, 8, 8, guard,
                                                                                    device_api);
    for (Func f : {g.blur_z, g.blur_x, g.blur_y}) {
        f.compute_root().reorder(c, x, y, z).unroll(c).gpu_tile(x, y, z, bx, by, bz, tx, ty, tz, 8, 8,
                                                                              1, guard, device_api);
    }
    // The slice: the interpolation and z_position inlined into one thread
    // per pixel.
    g.output.gpu_tile(x, y, bx, by, tx, ty, 16, 8, TailStrategy::Auto, device_api);
}

}  // namespace LOOM_APPS_DSL
}  // namespace apps
