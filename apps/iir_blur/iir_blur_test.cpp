// Checks the IIR blur against the C++ reference on the test image and on a
// crop whose size the strips and vectors do not divide, within 1e-5 (values
// are in [0, 1]; LLVM may fuse a multiply-add that GCC does not). Built
// twice: iir_blur_jit_test (JIT) and iir_blur_aot_test (LOOM_APPS_AOT, the
// generator's library).
//
//     iir_blur_{jit,aot}_test <image.png>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>

#include "../common/crop.h"
#include "../common/image_util.h"
#include "../common/png_io.h"
#include "iir_blur_reference.h"

#ifdef LOOM_APPS_AOT
#include "iir_blur_aot.h"
#else
#include "iir_blur_algorithm.h"
#endif

using loom::Runtime::Buffer;

namespace {

constexpr double kTolerance = 1e-5;

#ifdef LOOM_APPS_AOT
const char *const kMode = "AOT";
void run_iir_blur(const Buffer<float> &image, float alpha, Buffer<float> &result) {
    const int error = iir_blur(image.raw_buffer(), alpha, result.raw_buffer());
    if (error != 0) throw std::runtime_error("iir_blur returned error " + std::to_string(error));
}
#else
const char *const kMode = "JIT";
void run_iir_blur(const Buffer<float> &image, float alpha_value, Buffer<float> &result) {
    using namespace loom;
    ImageParam input(Float(32), 3, "input");
    Param<float> alpha("alpha");
    Func output("iir_blur");
    apps::IirBlur blur = apps::define_iir_blur(input, input.width(), input.height(), alpha, output);
    apps::schedule_iir_blur(blur, get_jit_target_from_environment().natural_vector_size<float>());
    input.set(loom::Buffer<float>(image, "input"));
    alpha.set(alpha_value);
    output.realize(loom::Buffer<float>(result, "output"));
}
#endif

bool check(const Buffer<float> &image, float alpha, const std::string &what) {
    const int width = image.dim(0).extent(), height = image.dim(1).extent(), channels = image.dim(2).extent();
    Buffer<float> result(width, height, channels), expected(width, height, channels);
    run_iir_blur(image, alpha, result);
    apps::iir_blur_reference(image, alpha, expected);
    return apps::report(std::string("iir_blur, ") + kMode + ", " + what, apps::compare(result, expected, kTolerance),
                        kTolerance);
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s <image.png>\n", argv[0]);
        return 2;
    }
    try {
        Buffer<float> image = apps::to_float(apps::load_png16(argv[1]));
        bool ok = check(image, 0.75f, "test image, alpha 0.75");
        ok = check(apps::crop(image, image.dim(0).extent() - 37, image.dim(1).extent() - 61), 0.5f,
                   "odd crop, alpha 0.5") && ok;
        return ok ? 0 : 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
        return 1;
    }
}
