#include "histogram_equalize_reference.h"

#include <cstdint>

namespace apps {

void histogram_equalize_reference(const loom::Runtime::Buffer<uint8_t> &input, loom::Runtime::Buffer<uint8_t> &output) {
    const int width = input.dim(0).extent(), height = input.dim(1).extent();
    uint32_t hist[256] = {};
    for (int y = 0; y < height; y++) {
        const uint8_t *row = &input(0, y);
        for (int x = 0; x < width; x++) hist[row[x]]++;
    }
    const int64_t pixels = int64_t(width) * height;
    int64_t cdf[256];
    int64_t running = 0, cdf_min = pixels;
    for (int v = 0; v < 256; v++) {
        running += hist[v];
        cdf[v] = running;
        if (hist[v] > 0 && running < cdf_min) cdf_min = running;
    }
    uint8_t lut[256];
    const int64_t range = pixels - cdf_min;
    for (int v = 0; v < 256; v++) {
        const int64_t above = cdf[v] > cdf_min ? cdf[v] - cdf_min : 0;
        lut[v] = static_cast<uint8_t>(range > 0 ? (above * 255 + range / 2) / range : v);
    }
    for (int y = 0; y < height; y++) {
        const uint8_t *in_row = &input(0, y);
        uint8_t *out_row = &output(0, y);
        for (int x = 0; x < width; x++) out_row[x] = lut[in_row[x]];
    }
}

}  // namespace apps
