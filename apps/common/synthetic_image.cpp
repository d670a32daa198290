#include "synthetic_image.h"

#include <cmath>

#include "image_util.h"

namespace apps {

namespace {

uint8_t to_byte(double v) { return static_cast<uint8_t>(v < 0 ? 0 : (v > 255 ? 255 : v + 0.5)); }

}  // namespace

loom::Runtime::Buffer<uint8_t> synthetic_image(int width, int height) {
    loom::Runtime::Buffer<uint8_t> image(width, height, 3);
    apps::Random random(2026);
    const double cx = width * 0.62, cy = height * 0.45, radius = height * 0.28;
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) {
            const double u = double(x) / width, v = double(y) / height;
            // Smooth background: diagonal gradients, kept in a mid-range band
            // so the histogram is narrow.
            double r = 70 + 90 * u, g = 80 + 60 * v, b = 120 - 40 * u + 30 * v;
            // A bright disc with a hard edge.
            const double dx = x - cx, dy = y - cy;
            if (dx * dx + dy * dy < radius * radius) {
                r += 60;
                g += 40;
                b -= 30;
            }
            // Stripes whose frequency rises to the right, in the lower band.
            if (v > 0.72) {
                const double stripe = std::sin(u * u * 90.0);
                r += 35 * stripe;
                g += 35 * stripe;
                b += 35 * stripe;
            }
            // A dark square with sharp corners in the upper left.
            if (u > 0.08 && u < 0.3 && v > 0.1 && v < 0.4) {
                r *= 0.45;
                g *= 0.5;
                b *= 0.55;
            }
            const int noise = int(random.next(9)) - 4;
            image(x, y, 0) = to_byte(r + noise);
            image(x, y, 1) = to_byte(g + noise);
            image(x, y, 2) = to_byte(b + noise);
        }
    }
    return image;
}

}  // namespace apps
