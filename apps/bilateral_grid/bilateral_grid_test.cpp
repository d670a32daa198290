// Checks the bilateral grid against the C++ reference on the gray test image
// and on a crop whose size the grid cells and vectors do not divide, within
// 1e-4 (values in [0, 1]; sums of up to 64 floats per cell may round
// differently where LLVM fuses multiply-adds). Built twice:
// bilateral_grid_jit_test (JIT, s_sigma 8) and bilateral_grid_aot_test
// (LOOM_APPS_AOT, the generator's library, s_sigma 8).
//
//     bilateral_grid_{jit,aot}_test <image.png>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>

#include "../common/crop.h"
#include "../common/image_util.h"
#include "../common/png_io.h"
#include "bilateral_grid_reference.h"

#ifdef LOOM_APPS_AOT
#include "bilateral_grid_aot.h"
#else
#include "../common/jit_target.h"
#include "bilateral_grid_algorithm.h"
#endif

using loom::Runtime::Buffer;

namespace {

constexpr double kTolerance = 1e-4;
constexpr int kSSigma = 8;

#ifdef LOOM_APPS_AOT
const char *const kMode = "AOT";
void run_bilateral_grid(const Buffer<float> &image, float r_sigma, Buffer<float> &result) {
    const int error = bilateral_grid(image.raw_buffer(), r_sigma, result.raw_buffer());
    if (error != 0) throw std::runtime_error("bilateral_grid returned error " + std::to_string(error));
}
#else
const char *const kMode = apps::kJitMode;
void run_bilateral_grid(const Buffer<float> &image, float r_sigma_value, Buffer<float> &result) {
    using namespace loom;
    ImageParam input(Float(32), 2, "input");
    Param<float> r_sigma("r_sigma");
    Func output("bilateral_grid");
    apps::BilateralGrid g = apps::define_bilateral_grid(input, input.width(), input.height(), kSSigma, r_sigma, output);
    if (apps::kJitOnGpu) {
        apps::schedule_bilateral_grid_gpu(g);
    } else {
        apps::schedule_bilateral_grid(g);
    }
    input.set(loom::Buffer<float>(image, "input"));
    r_sigma.set(r_sigma_value);
    output.realize(loom::Buffer<float>(result, "output"), apps::jit_target());
}
#endif

bool check(const Buffer<float> &image, float r_sigma, const std::string &what) {
    const int width = image.dim(0).extent(), height = image.dim(1).extent();
    Buffer<float> result(width, height), expected(width, height);
    run_bilateral_grid(image, r_sigma, result);
    apps::bilateral_grid_reference(image, kSSigma, r_sigma, expected);
    return apps::report(std::string("bilateral_grid, ") + kMode + ", " + what,
                        apps::compare(result, expected, kTolerance), kTolerance);
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s <image.png>\n", argv[0]);
        return 2;
    }
    try {
#ifndef LOOM_APPS_AOT
        if (!apps::jit_device_available(argv[0])) return apps::kSkipReturnCode;
#endif
        Buffer<float> gray = apps::to_float(apps::to_gray(apps::load_png16(argv[1])));
        bool ok = check(gray, 0.1f, "test image, r_sigma 0.1");
        ok = check(apps::crop(gray, gray.dim(0).extent() - 21, gray.dim(1).extent() - 35), 0.15f,
                   "odd crop, r_sigma 0.15") && ok;
        return ok ? 0 : 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
        return 1;
    }
}
