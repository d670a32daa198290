// Runs the scheduled IIR blur with the JIT on the test image (and on a crop
// whose size the strips and vectors do not divide) and checks it against
// the C++ reference within 1e-5 (values are in [0, 1]; the two may round
// differently where LLVM fuses a multiply-add).
//
//     iir_blur_jit_test <image.png>
#include <cstdio>
#include <exception>

#include "../common/crop.h"
#include "../common/image_util.h"
#include "../common/png_io.h"
#include "iir_blur_algorithm.h"
#include "iir_blur_reference.h"

using namespace loom;

namespace {

constexpr double kTolerance = 1e-5;

bool check(const Runtime::Buffer<float> &image, float alpha_value, const char *what) {
    const int width = image.dim(0).extent(), height = image.dim(1).extent(), channels = image.dim(2).extent();
    ImageParam input(Float(32), 3, "input");
    Param<float> alpha("alpha");
    Func output("iir_blur");
    apps::IirBlur blur = apps::define_iir_blur(input, input.width(), input.height(), alpha, output);
    apps::schedule_iir_blur(blur);
    input.set(Buffer<float>(image, "input"));
    alpha.set(alpha_value);
    Buffer<float> result = output.realize({width, height, channels});

    Runtime::Buffer<float> expected(width, height, channels);
    apps::iir_blur_reference(image, alpha_value, expected);
    return apps::report(what, apps::compare<float>(result, expected, kTolerance), kTolerance);
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s <image.png>\n", argv[0]);
        return 2;
    }
    try {
        Runtime::Buffer<float> image = apps::to_float(apps::load_png16(argv[1]));
        bool ok = check(image, 0.75f, "iir_blur, JIT, test image, alpha 0.75");
        ok = check(apps::crop(image, image.dim(0).extent() - 37, image.dim(1).extent() - 61), 0.5f,
                   "iir_blur, JIT, odd crop, alpha 0.5") && ok;
        return ok ? 0 : 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "iir_blur_jit_test: %s\n", e.what());
        return 1;
    }
}
