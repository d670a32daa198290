// Runs the scheduled histogram equalization with the JIT on the gray test
// image (and on a crop whose rows the strips do not divide, and on an
// image of a single value) and checks it against the C++ reference
// exactly.
//
//     histogram_equalize_jit_test <image.png>
#include <cstdio>
#include <exception>

#include "../common/crop.h"
#include "../common/image_util.h"
#include "../common/png_io.h"
#include "histogram_equalize_algorithm.h"
#include "histogram_equalize_reference.h"

using namespace loom;

namespace {

bool check(const Runtime::Buffer<uint8_t> &image, const char *what) {
    const int width = image.dim(0).extent(), height = image.dim(1).extent();
    ImageParam input(UInt(8), 2, "input");
    Func output("histogram_equalize");
    apps::HistogramEqualize h = apps::define_histogram_equalize(input, input.width(), input.height(), output);
    apps::schedule_histogram_equalize(h);
    input.set(Buffer<uint8_t>(image, "input"));
    Buffer<uint8_t> result = output.realize({width, height});

    Runtime::Buffer<uint8_t> expected(width, height);
    apps::histogram_equalize_reference(image, expected);
    return apps::report(what, apps::compare<uint8_t>(result, expected, 0), 0);
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s <image.png>\n", argv[0]);
        return 2;
    }
    try {
        Runtime::Buffer<uint8_t> gray = apps::to_gray(apps::load_png8(argv[1]));
        bool ok = check(gray, "histogram_equalize, JIT, test image");
        ok = check(apps::crop(gray, gray.dim(0).extent() - 29, gray.dim(1).extent() - 51),
                   "histogram_equalize, JIT, odd crop") && ok;
        Runtime::Buffer<uint8_t> flat(40, 33);
        flat.fill(77);
        ok = check(flat, "histogram_equalize, JIT, one value") && ok;
        return ok ? 0 : 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "histogram_equalize_jit_test: %s\n", e.what());
        return 1;
    }
}
