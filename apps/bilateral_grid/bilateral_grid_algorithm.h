// bilateral_grid: an edge-preserving blur of a float gray image through a
// bilateral grid (Chen, Paris and Durand, 2007):
//
// 1. splat: every s x s block of pixels becomes one grid column; a pixel of
//    value v adds (v, 1) to the cell z = round(v / r_sigma) of its column;
// 2. blur the grid with a [1 4 6 4 1] kernel along z, then x, then y;
// 3. slice: each pixel reads the grid trilinearly at (x / s, y / s,
//    v / r_sigma) and its result is the blurred value sum divided by the
//    blurred weight.
//
// Pixels are clamped to [0, 1]; the image edge repeats.
#ifndef LOOM_APPS_BILATERAL_GRID_ALGORITHM_H
#define LOOM_APPS_BILATERAL_GRID_ALGORITHM_H

#include "../common/dsl.h"

namespace apps {
inline namespace LOOM_APPS_DSL {

/** The Funcs of the filter, for scheduling. */
struct BilateralGrid {
    loom::Var x{"x"}, y{"y"}, z{"z"}, c{"c"};
    loom::RDom block;  // the s x s pixels of one grid column
    loom::Func clamped, histogram{"histogram"}, blur_z{"blur_z"}, blur_x{"blur_x"}, blur_y{"blur_y"},
        z_position{"z_position"}, interpolated{"interpolated"}, output;
    // The grid cells the slice reads: x in [0, grid_width], y in [0,
    // grid_height], z in [0, z_cells].
    loom::Expr grid_width, grid_height, z_cells;
};

/** Defines output(x, y) as the filtered input (float) over [0, width) x
 * [0, height); s_sigma is the grid's spatial cell size in pixels (a
 * compile-time constant), r_sigma its cell size in value. */
BilateralGrid define_bilateral_grid(const loom::Func &input, const loom::Expr &width, const loom::Expr &height,
                                    int s_sigma, const loom::Expr &r_sigma, loom::Func output);

/** The CPU schedule: the grid is splatted one grid row at a time inside the
 * z blur; the three blurs are computed whole, in parallel over rows or z
 * slices and vectorized along x; the slice is vectorized and parallel over
 * rows. */
void schedule_bilateral_grid(BilateralGrid &g);

/** The GPU schedule (Halide's): the splat one thread per grid column (x,
 * y), its pixels summed serially in that thread, no atomics needed; the
 * three blurs one thread per cell in 8 x 8 x 1 workgroups; the slice one
 * thread per pixel in 16 x 8 workgroups. */
void schedule_bilateral_grid_gpu(BilateralGrid &g, loom::DeviceAPI device_api = loom::DeviceAPI::Default_GPU);

}  // namespace LOOM_APPS_DSL
}  // namespace apps

#endif
