// histogram_equalize: spreads the gray levels of an 8-bit image over the
// full range with the classic mapping through the cumulative histogram:
//
//   hist(v)  = number of pixels with value v             (v in 0..255)
//   cdf(v)   = hist(0) + ... + hist(v)
//   lut(v)   = round(max(cdf(v) - cdf_min, 0) * 255 / (pixels - cdf_min))
//   out(x, y) = lut(in(x, y))
//
// cdf_min is the cdf of the darkest value present. An image of one value
// (pixels == cdf_min) is returned unchanged. All integer arithmetic, so
// the result is exact.
#ifndef LOOM_APPS_HISTOGRAM_EQUALIZE_ALGORITHM_H
#define LOOM_APPS_HISTOGRAM_EQUALIZE_ALGORITHM_H

#include "../common/dsl.h"

namespace apps {
inline namespace LOOM_APPS_DSL {

/** Rows per strip: each strip counts into its own histogram, so strips can
 * run in parallel; the strips' histograms are then summed. */
constexpr int kHistogramStripRows = 32;

/** The Funcs of the equalization, for scheduling. */
struct HistogramEqualize {
    loom::Var x{"x"}, y{"y"}, v{"v"}, strip{"strip"};
    loom::RDom strip_pixels, strips, levels;
    loom::Func partial{"partial_hist"}, hist{"hist"}, cdf{"cdf"}, cdf_min{"cdf_min"}, lut{"lut"}, output;
};

/** Defines output(x, y) as the equalized input (uint8) over [0, width) x
 * [0, height). */
HistogramEqualize define_histogram_equalize(const loom::Func &input, const loom::Expr &width,
                                            const loom::Expr &height, loom::Func output);

/** The CPU schedule: strips counted in parallel, the sum over strips
 * vectorized across the 256 bins, the lookup vectorized and in parallel
 * over rows. */
void schedule_histogram_equalize(HistogramEqualize &h);

/** The GPU schedule. Without atomics a histogram cannot be counted by many
 * threads into one set of bins, so each strip's histogram is one thread
 * (its pixels serially); the sum over strips one thread per bin; the cdf
 * (a scan) and cdf_min (a reduction to one value) are a single GPU thread
 * each; the table and the lookup one thread per entry or pixel. */
void schedule_histogram_equalize_gpu(HistogramEqualize &h,
                                     loom::DeviceAPI device_api = loom::DeviceAPI::Default_GPU);

}  // namespace LOOM_APPS_DSL
}  // namespace apps

#endif
