// local_laplacian: edge-aware detail enhancement and tone adjustment of a
// 16-bit RGB image with local Laplacian filters (Paris, Hasinoff and Kautz,
// 2011), in the fast form that samples the intensity range at K levels:
//
// 1. gray = luma of the input, in [0, 1];
// 2. for each of K intensity levels g_k = k / (K - 1), a processed image
//    beta * (gray - g_k) + g_k + remap(gray - g_k), where remap(d) = alpha *
//    d * exp(-d^2 / 2) boosts details near that intensity (a lookup table
//    with 256 entries per level step);
// 3. a Gaussian pyramid of the K processed images and its Laplacian
//    pyramid; a Gaussian pyramid of gray;
// 4. the output Laplacian pyramid: at each level and pixel, the two
//    Laplacian levels whose intensities bracket the pixel's gray value,
//    interpolated;
// 5. the output pyramid collapsed (upsample and add, coarse to fine), and
//    the colour put back by scaling each channel by output / gray.
//
// Pyramids: downsampling by 2 with a [1 3 3 1] / 8 kernel, upsampling with
// [1/4, 3/4] taps; every level repeats its own edge.
#ifndef LOOM_APPS_LOCAL_LAPLACIAN_ALGORITHM_H
#define LOOM_APPS_LOCAL_LAPLACIAN_ALGORITHM_H

#include <vector>

#include "../common/dsl.h"

#include "local_laplacian_constants.h"

namespace apps {
inline namespace LOOM_APPS_DSL {

/** The Funcs of the filter, for scheduling; the pyramids have one Func per
 * level, level 0 the finest. */
struct LocalLaplacian {
    loom::Var x{"x"}, y{"y"}, c{"c"}, k{"k"}, i{"i"};
    loom::Func floating{"floating"}, gray{"gray"}, remap{"remap"}, processed{"processed"};
    std::vector<loom::Func> gaussian, laplacian, in_gaussian, out_laplacian, out_gaussian;
    std::vector<loom::Func> downsample_x;  // the horizontal pass of each downsampling, by name order
    loom::Func output;
    std::vector<loom::Expr> widths, heights;  // of each level
};

/** Defines output(x, y, c) as the filtered input (uint16, x, y, c with 3
 * channels) over [0, width) x [0, height), with `levels` pyramid levels (a
 * compile-time constant, at least 2), detail gain alpha and tone
 * compression beta (1: none). */
LocalLaplacian define_local_laplacian(const loom::Func &input, const loom::Expr &width, const loom::Expr &height,
                                     int levels, const loom::Expr &alpha, const loom::Expr &beta,
                                     loom::Func output);

/** The CPU schedule: every pyramid level computed whole, in parallel over
 * rows and vectorized along x, with the horizontal pass of each
 * downsampling computed per output row; Laplacian levels and upsampling
 * inlined into their consumers. */
void schedule_local_laplacian(LocalLaplacian &p);

/** The GPU schedule (after Halide's): the same Funcs computed whole as on
 * the CPU, each a kernel of one thread per pixel, 16 x 8 workgroups at the
 * three finest levels and 4 x 4 below; the K intensity levels of a pixel
 * serially in its thread; the output one thread per pixel and channel. */
void schedule_local_laplacian_gpu(LocalLaplacian &p, loom::DeviceAPI device_api = loom::DeviceAPI::Default_GPU);

}  // namespace LOOM_APPS_DSL
}  // namespace apps

#endif
