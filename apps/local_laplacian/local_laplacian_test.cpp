// Checks the local Laplacian filter against the C++ reference on the RGB test
// image and on a crop of odd size, within kTolerance of 65535 (the exp() of
// the detail curve and fused multiply-adds may round differently in LLVM
// code and in libm/GCC code). Built twice: local_laplacian_jit_test (JIT,
// 3 and 2 levels: Loom's JIT compile of a whole pyramid takes seconds per
// level) and local_laplacian_aot_test (LOOM_APPS_AOT, the generator's
// library with 8 levels).
//
//     local_laplacian_{jit,aot}_test <image.png>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>

#include "../common/crop.h"
#include "../common/image_util.h"
#include "../common/png_io.h"
#include "local_laplacian_reference.h"

#ifdef LOOM_APPS_AOT
#include "local_laplacian_aot.h"
#else
#include "../common/jit_target.h"
#include "local_laplacian_algorithm.h"
#endif

using loom::Runtime::Buffer;

namespace {

constexpr double kTolerance = 8;

#ifdef LOOM_APPS_AOT
const char *const kMode = "AOT";
constexpr int kLevels[2] = {8, 8};  // the library's GeneratorParam
void run_local_laplacian(const Buffer<uint16_t> &image, int, float alpha, float beta, Buffer<uint16_t> &result) {
    const int error = local_laplacian(image.raw_buffer(), alpha, beta, result.raw_buffer());
    if (error != 0) throw std::runtime_error("local_laplacian returned error " + std::to_string(error));
}
#else
const char *const kMode = apps::kJitMode;
constexpr int kLevels[2] = {3, 2};
void run_local_laplacian(const Buffer<uint16_t> &image, int levels, float alpha_value, float beta_value,
                         Buffer<uint16_t> &result) {
    using namespace loom;
    ImageParam input(UInt(16), 3, "input");
    Param<float> alpha("alpha"), beta("beta");
    Func output("local_laplacian");
    apps::LocalLaplacian p =
        apps::define_local_laplacian(input, input.width(), input.height(), levels, alpha, beta, output);
    if (apps::kJitOnGpu) {
        apps::schedule_local_laplacian_gpu(p);
    } else {
        apps::schedule_local_laplacian(p);
    }
    input.set(loom::Buffer<uint16_t>(image, "input"));
    alpha.set(alpha_value);
    beta.set(beta_value);
    output.realize(loom::Buffer<uint16_t>(result, "output"), apps::jit_target());
}
#endif

bool check(const Buffer<uint16_t> &image, int levels, float alpha, float beta, const std::string &what) {
    const int width = image.dim(0).extent(), height = image.dim(1).extent();
    Buffer<uint16_t> result(width, height, 3), expected(width, height, 3);
    run_local_laplacian(image, levels, alpha, beta, result);
    apps::local_laplacian_reference(image, levels, alpha, beta, expected);
    const std::string description = std::string("local_laplacian, ") + kMode + ", " + what + ", " +
                                    std::to_string(levels) + " levels, alpha " + std::to_string(alpha) + ", beta " +
                                    std::to_string(beta);
    return apps::report(description, apps::compare(result, expected, kTolerance), kTolerance);
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
        Buffer<uint16_t> image = apps::load_png16(argv[1]);
        bool ok = check(image, kLevels[0], 1.0f, 1.0f, "test image");
        ok = check(apps::crop(image, image.dim(0).extent() - 57, image.dim(1).extent() - 41), kLevels[1], 0.5f, 0.8f,
                   "odd crop") && ok;
        return ok ? 0 : 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
        return 1;
    }
}
