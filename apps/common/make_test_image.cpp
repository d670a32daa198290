// Writes the apps' test image, apps::synthetic_image (synthetic_image.h).
//
//     make_test_image <out.png> [width height]     (default 256 x 192)
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "png_io.h"
#include "synthetic_image.h"

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
        apps::save_png(argv[1], apps::synthetic_image(width, height));
    } catch (const std::exception &e) {
        std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
        return 1;
    }
    return 0;
}
