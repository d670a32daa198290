// Runs the scheduled blur with the JIT on the test image (and on a crop
// whose size the tiles and vectors do not divide) and checks it against the
// C++ reference exactly.
//
//     blur_jit_test <image.png>
#include <cstdio>
#include <exception>

#include "../common/crop.h"
#include "../common/image_util.h"
#include "../common/png_io.h"
#include "blur_algorithm.h"
#include "blur_reference.h"

using namespace loom;

namespace {

bool check(const Runtime::Buffer<uint16_t> &image, const char *what) {
    const int width = image.dim(0).extent(), height = image.dim(1).extent();
    ImageParam input(UInt(16), 2, "input");
    Func output("blur");
    apps::Blur blur = apps::define_blur(input, input.width(), input.height(), output);
    apps::schedule_blur(blur);
    input.set(Buffer<uint16_t>(image, "input"));
    Buffer<uint16_t> result = output.realize({width, height});

    Runtime::Buffer<uint16_t> expected(width, height);
    apps::blur_reference(image, expected);
    return apps::report(what, apps::compare<uint16_t>(result, expected, 0), 0);
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s <image.png>\n", argv[0]);
        return 2;
    }
    try {
        Runtime::Buffer<uint16_t> gray = apps::to_gray(apps::load_png16(argv[1]));
        bool ok = check(gray, "blur, JIT, test image");
        ok = check(apps::crop(gray, gray.dim(0).extent() - 55, gray.dim(1).extent() - 45), "blur, JIT, odd crop") && ok;
        return ok ? 0 : 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "blur_jit_test: %s\n", e.what());
        return 1;
    }
}
