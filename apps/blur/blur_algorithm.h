// blur: a 3x3 box blur of a 16-bit gray image, in two separable passes.
//
//   blur_x(x, y) = (in(x-1, y) + in(x, y) + in(x+1, y)) / 3
//   out(x, y)    = (blur_x(x, y-1) + blur_x(x, y) + blur_x(x, y+1)) / 3
//
// Sums are taken in 32 bits and each pass divides (rounding down), so the
// result is exact integer arithmetic; the image edge repeats.
#ifndef LOOM_APPS_BLUR_ALGORITHM_H
#define LOOM_APPS_BLUR_ALGORITHM_H

#include "../common/dsl.h"

namespace apps {
inline namespace LOOM_APPS_DSL {

/** The Funcs of the blur, for scheduling. */
struct Blur {
    loom::Var x{"x"}, y{"y"};
    loom::Func clamped, blur_x{"blur_x"}, output;
};

/** Defines output(x, y) as the blur of input (uint16) over [0, width) x
 * [0, height). */
Blur define_blur(const loom::Func &input, const loom::Expr &width, const loom::Expr &height, loom::Func output);

/** The CPU schedule: output in tiles of tile_width x 32 rows, rows of tiles
 * in parallel, x vectorized; blur_x computed per tile. */
void schedule_blur(Blur &blur, int tile_width = 256);

/** The GPU schedule: output in 16 x 16 workgroups, one thread a pixel;
 * blur_x computed per workgroup into shared memory (16 x 18 values, each
 * read by three threads) by the same threads. */
void schedule_blur_gpu(Blur &blur, loom::DeviceAPI device_api = loom::DeviceAPI::Default_GPU);

}  // namespace LOOM_APPS_DSL
}  // namespace apps

#endif
