// Runs the scheduled local Laplacian filter with the JIT on the RGB test
// image (and on a crop of odd size) and checks it against the C++ reference
// within kTolerance of 65535: the exp() of the detail curve and fused
// multiply-adds round differently in LLVM code and in libm/GCC code.
//
//     local_laplacian_jit_test <image.png>
#include <cstdio>
#include <exception>

#include "../common/crop.h"
#include "../common/image_util.h"
#include "../common/png_io.h"
#include "local_laplacian_algorithm.h"
#include "local_laplacian_reference.h"

using namespace loom;

namespace {

constexpr double kTolerance = 8;

bool check(const Runtime::Buffer<uint16_t> &image, int levels, float alpha_value, float beta_value,
           const char *what) {
    const int width = image.dim(0).extent(), height = image.dim(1).extent();
    ImageParam input(UInt(16), 3, "input");
    Param<float> alpha("alpha"), beta("beta");
    Func output("local_laplacian");
    apps::LocalLaplacian p =
        apps::define_local_laplacian(input, input.width(), input.height(), levels, alpha, beta, output);
    apps::schedule_local_laplacian(p);
    input.set(Buffer<uint16_t>(image, "input"));
    alpha.set(alpha_value);
    beta.set(beta_value);
    Buffer<uint16_t> result = output.realize({width, height, 3});

    Runtime::Buffer<uint16_t> expected(width, height, 3);
    apps::local_laplacian_reference(image, levels, alpha_value, beta_value, expected);
    return apps::report(what, apps::compare<uint16_t>(result, expected, kTolerance), kTolerance);
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s <image.png>\n", argv[0]);
        return 2;
    }
    try {
        Runtime::Buffer<uint16_t> image = apps::load_png16(argv[1]);
        // Few levels: Loom's JIT compile of the whole pyramid takes seconds
        // per level (the AOT test runs the 8-level library).
        bool ok = check(image, 4, 1.0f, 1.0f, "local_laplacian, JIT, test image, 4 levels, alpha 1, beta 1");
        ok = check(apps::crop(image, image.dim(0).extent() - 57, image.dim(1).extent() - 41), 3, 0.5f, 0.8f,
                   "local_laplacian, JIT, odd crop, 3 levels, alpha 0.5, beta 0.8") && ok;
        return ok ? 0 : 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "local_laplacian_jit_test: %s\n", e.what());
        return 1;
    }
}
