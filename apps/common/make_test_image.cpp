// Writes the apps' test image: a deterministic synthetic RGB picture with
// the features the apps care about: smooth gradients (blurs, bilateral
// grid), hard edges and a disc (edge-preserving filters), fine stripes of
// rising frequency (local Laplacian detail), a low-contrast band
// (histogram equalization) and a little noise.
//
//     make_test_image <out.png> [width height]     (default 256 x 192)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "image_util.h"
#include "png_io.h"

namespace {

uint8_t to_byte(double v) { return static_cast<uint8_t>(v < 0 ? 0 : (v > 255 ? 255 : v + 0.5)); }

loom::Runtime::Buffer<uint8_t> make_image(int width, int height) {
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

}  // namespace

int main(int argc, char **argv) {
    if (argc != 2 && argc != 4) {
        std::fprintf(stderr, "usage: %s <out.png> [width height]\n", argv[0]);
        return 2;
    }
    const int width = argc == 4 ? std::atoi(argv[2]) : 256, height = argc == 4 ? std::atoi(argv[3]) : 192;
    if (width < 1 || height < 1) {
        std::fprintf(stderr, "%s: width and height must be positive\n", argv[0]);
        return 2;
    }
    try {
        apps::save_png(argv[1], make_image(width, height));
    } catch (const std::exception &e) {
        std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
        return 1;
    }
    return 0;
}
