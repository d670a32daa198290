// Runs the scheduled bilateral grid with the JIT on the gray test image
// (and on a crop whose size the grid cells and vectors do not divide) and
// checks it against the C++ reference within 1e-4 (values in [0, 1]; sums
// of up to 64 floats per cell may round differently where LLVM fuses
// multiply-adds).
//
//     bilateral_grid_jit_test <image.png>
#include <cstdio>
#include <exception>

#include "../common/crop.h"
#include "../common/image_util.h"
#include "../common/png_io.h"
#include "bilateral_grid_algorithm.h"
#include "bilateral_grid_reference.h"

using namespace loom;

namespace {

constexpr double kTolerance = 1e-4;
constexpr int kSSigma = 8;

bool check(const Runtime::Buffer<float> &image, float r_sigma_value, const char *what) {
    const int width = image.dim(0).extent(), height = image.dim(1).extent();
    ImageParam input(Float(32), 2, "input");
    Param<float> r_sigma("r_sigma");
    Func output("bilateral_grid");
    apps::BilateralGrid g =
        apps::define_bilateral_grid(input, input.width(), input.height(), kSSigma, r_sigma, output);
    apps::schedule_bilateral_grid(g);
    input.set(Buffer<float>(image, "input"));
    r_sigma.set(r_sigma_value);
    Buffer<float> result = output.realize({width, height});

    Runtime::Buffer<float> expected(width, height);
    apps::bilateral_grid_reference(image, kSSigma, r_sigma_value, expected);
    return apps::report(what, apps::compare<float>(result, expected, kTolerance), kTolerance);
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s <image.png>\n", argv[0]);
        return 2;
    }
    try {
        Runtime::Buffer<float> gray = apps::to_float(apps::to_gray(apps::load_png16(argv[1])));
        bool ok = check(gray, 0.1f, "bilateral_grid, JIT, test image, r_sigma 0.1");
        ok = check(apps::crop(gray, gray.dim(0).extent() - 21, gray.dim(1).extent() - 35), 0.15f,
                   "bilateral_grid, JIT, odd crop, r_sigma 0.15") && ok;
        return ok ? 0 : 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "bilateral_grid_jit_test: %s\n", e.what());
        return 1;
    }
}
