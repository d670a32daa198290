#include "histogram_equalize_algorithm.h"

namespace apps {
inline namespace LOOM_APPS_DSL {

using namespace loom;

HistogramEqualize define_histogram_equalize(const Func &input, const Expr &width, const Expr &height, Func output) {
    HistogramEqualize h;
    h.output = output;
    const Var &x = h.x, &y = h.y, &v = h.v, &strip = h.strip;
    auto value = [&](const Expr &xx, const Expr &yy) { return clamp(cast<int>(input(xx, yy)), 0, 255); };

    // One histogram per strip of kHistogramStripRows rows (the last strip
    // may be shorter).
    h.strip_pixels = RDom(0, width, 0, kHistogramStripRows, "strip_pixels");
    Expr row = strip * kHistogramStripRows + h.strip_pixels.y;
    h.strip_pixels.where(row < height);
    h.partial(v, strip) = 0;
    // min() never clamps (where() skips the rows past the image), but
    // neither Loom's nor Halide 14's bounds inference narrows the rows read
    // by a where() predicate that mentions the pure Var strip: without it
    // the last strip counts as reading rows past the image, and the input
    // bounds check fails in both.
    h.partial(value(h.strip_pixels.x, min(row, height - 1)), strip) += 1;

    h.strips = RDom(0, (height + kHistogramStripRows - 1) / kHistogramStripRows, "strips");
    h.hist(v) = 0;
    h.hist(v) += h.partial(v, h.strips);

    h.levels = RDom(1, 255, "levels");
    h.cdf(v) = h.hist(v);
    h.cdf(h.levels) = h.cdf(h.levels - 1) + h.hist(h.levels);

    // The cdf of the darkest value present: the smallest non-zero cdf.
    RDom all_levels(0, 256, "all_levels");
    Expr pixels = width * height;
    h.cdf_min() = pixels;
    h.cdf_min() = min(h.cdf_min(), select(h.hist(all_levels) > 0, h.cdf(all_levels), pixels));
    Expr darkest = h.cdf_min();

    // In 64 bits: (cdf - cdf_min) * 255 overflows 32 bits past 16 M pixels.
    // Values darker than any present map to 0 (no pixel uses them).
    // The test range > 0 is made in 32 bits: lavapipe (Mesa 22.3) gets a
    // 64-bit comparison with a constant wrong, always true (reported with
    // the apps; test/vulkan/AppsRegressionTest.cpp).
    Expr above = cast<int64_t>(max(h.cdf(v) - darkest, 0));
    Expr range32 = pixels - darkest;
    Expr range = cast<int64_t>(range32);
    Expr mapped = (above * 255 + range / 2) / range;
    h.lut(v) = cast<uint8_t>(select(range32 > 0, mapped, cast<int64_t>(v)));

    h.output(x, y) = h.lut(value(x, y));
    return h;
}

void schedule_histogram_equalize(HistogramEqualize &h) {
    const Var &x = h.x, &y = h.y, &v = h.v, &strip = h.strip;
    Var yo("yo"), yi("yi");
    // Each strip counts into its own 256 bins (a scatter, serial inside the
    // strip); the strips run in parallel.
    h.partial.compute_root().vectorize(v, 8);
    h.partial.update(0).parallel(strip);
    // Summing the strips: bins innermost, 8 per vector.
    h.hist.compute_root().vectorize(v, 8);
    h.hist.update(0).reorder(v, h.strips.x).vectorize(v, 8);
    h.cdf.compute_root();
    h.cdf_min.compute_root();
    h.lut.compute_root().vectorize(v, 8);
    // The lookup, strips of 16 rows in parallel. Scalar: a table of bytes
    // has no gather instruction, and a vector of 32 lookups (an extract and
    // an insert per pixel) is slower than the scalar loop (a load, a load
    // and a store per pixel), in Loom and in Halide 14 alike.
    h.output.split(y, yo, yi, 16).parallel(yo);
}

void schedule_histogram_equalize_gpu(HistogramEqualize &h, DeviceAPI device_api) {
    const Var &x = h.x, &y = h.y, &v = h.v, &strip = h.strip;
    Var bx("bx"), by("by"), tx("tx"), ty("ty");
    const TailStrategy guard = TailStrategy::GuardWithIf;
    // A thread per strip: its scatter into 256 bins runs serially (no
    // atomics), so the count has as many threads as strips.
    h.partial.compute_root().gpu_tile(v, strip, bx, by, tx, ty, 64, 1, guard, device_api);
    h.partial.update(0).gpu_tile(strip, bx, tx, 8, guard, device_api);
    h.hist.compute_root().gpu_tile(v, bx, tx, 64, guard, device_api);
    h.hist.update(0).gpu_tile(v, bx, tx, 64, guard, device_api);  // strips serial per bin
    h.cdf.compute_root().gpu_single_thread(device_api);
    h.cdf.update(0).gpu_single_thread(device_api);
    h.cdf_min.compute_root().gpu_single_thread(device_api);
    h.cdf_min.update(0).gpu_single_thread(device_api);
    h.lut.compute_root().gpu_tile(v, bx, tx, 64, guard, device_api);
    h.output.gpu_tile(x, y, bx, by, tx, ty, 32, 8, TailStrategy::Auto, device_api);
}

}  // namespace LOOM_APPS_DSL
}  // namespace apps
