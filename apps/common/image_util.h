// Small helpers shared by the apps: colour conversions, the comparison of a
// result with a reference (exact or within a stated tolerance), and the
// deterministic random numbers the tests and benchmarks use.
#ifndef LOOM_APPS_IMAGE_UTIL_H
#define LOOM_APPS_IMAGE_UTIL_H

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include <loom/runtime/Buffer.h>

namespace apps {

using loom::Runtime::Buffer;

/** Integer luma (Rec. 601 weights 77/150/29 of 256, rounded) of a
 * (width, height, 3) image; a one-channel image is returned as 2-D. */
template<typename T>
Buffer<T> to_gray(const Buffer<T> &image) {
    const int width = image.dim(0).extent(), height = image.dim(1).extent();
    const int channels = image.dimensions() == 3 ? image.dim(2).extent() : 1;
    Buffer<T> gray(width, height);
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) {
            if (channels < 3) {
                gray(x, y) = image.dimensions() == 3 ? image(x, y, 0) : image(x, y);
                continue;
            }
            const uint64_t sum = 77ull * image(x, y, 0) + 150ull * image(x, y, 1) + 29ull * image(x, y, 2) + 128;
            gray(x, y) = static_cast<T>(sum >> 8);
        }
    }
    return gray;
}

/** Integer samples scaled to floats in [0, 1]. */
template<typename T>
Buffer<float> to_float(const Buffer<T> &image) {
    std::vector<int> sizes;
    for (int d = 0; d < image.dimensions(); d++) sizes.push_back(image.dim(d).extent());
    Buffer<float> result(sizes);
    const float scale = 1.0f / static_cast<float>(std::numeric_limits<T>::max());
    image.for_each_element([&](const std::vector<int> &at) { result(at) = static_cast<float>(image(at)) * scale; });
    return result;
}

/** Floats in [0, 1] to integer samples (clamped, rounded to nearest). */
template<typename T>
Buffer<T> from_float(const Buffer<float> &image) {
    std::vector<int> sizes;
    for (int d = 0; d < image.dimensions(); d++) sizes.push_back(image.dim(d).extent());
    Buffer<T> result(sizes);
    const float scale = static_cast<float>(std::numeric_limits<T>::max());
    image.for_each_element([&](const std::vector<int> &at) {
        float v = image(at) * scale;
        v = v < 0.0f ? 0.0f : (v > scale ? scale : v);
        result(at) = static_cast<T>(v + 0.5f);
    });
    return result;
}

/** How a result differs from its reference. */
struct Comparison {
    size_t elements = 0;
    size_t beyond_tolerance = 0;  // elements whose difference exceeds the tolerance
    double max_difference = 0;
    std::string worst;  // "(x, y[, c]): result R, reference E" for the largest difference
    bool ok() const { return elements > 0 && beyond_tolerance == 0; }
};

/** Compares two buffers of the same shape element by element; |a - b| <=
 * tolerance passes (tolerance 0: exact). A NaN anywhere fails. Buffers of
 * different shapes compare as zero elements, which fails. */
template<typename T>
Comparison compare(const Buffer<T> &result, const Buffer<T> &reference, double tolerance) {
    Comparison c;
    if (result.dimensions() != reference.dimensions()) return c;
    for (int d = 0; d < result.dimensions(); d++) {
        if (result.dim(d).extent() != reference.dim(d).extent() || result.dim(d).min() != reference.dim(d).min()) {
            return c;
        }
    }
    const int rank = result.dimensions();
    result.for_each_element([&](const std::vector<int> &at) {
        const double a = static_cast<double>(result(at)), b = static_cast<double>(reference(at));
        double diff = std::fabs(a - b);
        if (std::isnan(diff)) diff = std::numeric_limits<double>::infinity();
        c.elements++;
        if (diff > tolerance) c.beyond_tolerance++;
        if (diff > c.max_difference || c.worst.empty()) {
            if (diff > c.max_difference) c.max_difference = diff;
            std::string where = "(";
            for (int d = 0; d < rank; d++) where += (d ? ", " : "") + std::to_string(at[d]);
            c.worst = where + "): result " + std::to_string(a) + ", reference " + std::to_string(b);
        }
    });
    return c;
}

/** Prints one line about a comparison and returns whether it passed. */
inline bool report(const std::string &what, const Comparison &c, double tolerance) {
    if (c.elements == 0) {
        std::printf("%s: FAILED, the result and the reference have different shapes\n", what.c_str());
        return false;
    }
    std::printf("%s: %s, %zu elements, %zu beyond the tolerance %g, largest difference %g at %s\n", what.c_str(),
                c.ok() ? "OK" : "FAILED", c.elements, c.beyond_tolerance, tolerance, c.max_difference,
                c.worst.c_str());
    return c.ok();
}

/** A small deterministic generator (64-bit LCG, high bits), the same on
 * every platform, for test and benchmark data. */
class Random {
public:
    explicit Random(uint64_t seed) : state_(seed * 0x9E3779B97F4A7C15ull + 1) {}
    /** Uniform in [0, n). */
    uint32_t next(uint32_t n) {
        state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
        return static_cast<uint32_t>((state_ >> 33) % n);
    }

private:
    uint64_t state_;
};

}  // namespace apps

#endif
