// Checks the blur against the C++ reference, exactly, on the test image and
// on a crop whose size the tiles and vectors do not divide. Built twice:
// blur_jit_test builds the pipeline and runs it with the JIT;
// blur_aot_test (LOOM_APPS_AOT) calls the library the generator made.
//
//     blur_{jit,aot}_test <image.png>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>

#include "../common/crop.h"
#include "../common/image_util.h"
#include "../common/png_io.h"
#include "blur_reference.h"

#if defined(LOOM_APPS_AOT_VULKAN)
#include "blur_vulkan_aot.h"
#elif defined(LOOM_APPS_AOT)
#include "blur_aot.h"
#else
#include "../common/jit_target.h"
#include "blur_algorithm.h"
#endif

using loom::Runtime::Buffer;

namespace {

#if defined(LOOM_APPS_AOT_VULKAN)
// The library for x86-64-linux-vulkan-vk_int16: the output comes back device-dirty
// and is copied to the host here; both device allocations are freed.
const char *const kMode = "AOT, Vulkan";
void run_blur(const Buffer<uint16_t> &image, Buffer<uint16_t> &result) {
    Buffer<uint16_t> input = image;
    int error = blur(input.raw_buffer(), result.raw_buffer());
    if (error == 0) error = loom_copy_to_host(nullptr, result.raw_buffer());
    loom_device_free(nullptr, input.raw_buffer());
    loom_device_free(nullptr, result.raw_buffer());
    if (error != 0) throw std::runtime_error("blur returned error " + std::to_string(error));
}
bool device_available(const char *program) {
    loom_vulkan_device_info_t info;
    if (loom_vulkan_get_device_info(nullptr, &info) == 0) return true;
    std::printf("%s: skipped: no Vulkan device (install mesa-vulkan-drivers for lavapipe)\n", program);
    return false;
}
#elif defined(LOOM_APPS_AOT)
const char *const kMode = "AOT";
void run_blur(const Buffer<uint16_t> &image, Buffer<uint16_t> &result) {
    const int error = blur(image.raw_buffer(), result.raw_buffer());
    if (error != 0) throw std::runtime_error("blur returned error " + std::to_string(error));
}
#else
const char *const kMode = apps::kJitMode;
void run_blur(const Buffer<uint16_t> &image, Buffer<uint16_t> &result) {
    using namespace loom;
    ImageParam input(UInt(16), 2, "input");
    Func output("blur");
    apps::Blur blur = apps::define_blur(input, input.width(), input.height(), output);
    // The tiles' default ShiftInwards tail needs an output at least one tile
    // wide (as in Halide): 128-wide tiles for the 201-wide crop.
    if (apps::kJitOnGpu) {
        apps::schedule_blur_gpu(blur);
    } else {
        apps::schedule_blur(blur, image.dim(0).extent() < 256 ? 128 : 256);
    }
    input.set(loom::Buffer<uint16_t>(image, "input"));
    output.realize(loom::Buffer<uint16_t>(result, "output"), apps::jit_target());
}
#endif

bool check(const Buffer<uint16_t> &image, const char *what) {
    const int width = image.dim(0).extent(), height = image.dim(1).extent();
    Buffer<uint16_t> result(width, height), expected(width, height);
    run_blur(image, result);
    apps::blur_reference(image, expected);
    return apps::report(std::string("blur, ") + kMode + ", " + what, apps::compare(result, expected, 0), 0);
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s <image.png>\n", argv[0]);
        return 2;
    }
    try {
#if defined(LOOM_APPS_AOT_VULKAN)
        if (!device_available(argv[0])) return 77;  // CTest's SKIP_RETURN_CODE
#elif !defined(LOOM_APPS_AOT)
        if (!apps::jit_device_available(argv[0])) return apps::kSkipReturnCode;
#endif
        Buffer<uint16_t> gray = apps::to_gray(apps::load_png16(argv[1]));
        bool ok = check(gray, "test image");
#ifdef LOOM_APPS_AOT
        // The library's 256-wide ShiftInwards tiles need an output at least
        // one tile wide (as in Halide), so the AOT crop keeps every column.
        const int crop_width = gray.dim(0).extent();
#else
        const int crop_width = gray.dim(0).extent() - 55;
#endif
        ok = check(apps::crop(gray, crop_width, gray.dim(1).extent() - 45), "odd crop") && ok;
        return ok ? 0 : 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
        return 1;
    }
}
