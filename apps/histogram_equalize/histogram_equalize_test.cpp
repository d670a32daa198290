// Checks histogram equalization against the C++ reference exactly, on the
// gray test image, on a crop whose rows the strips do not divide, and on an
// image of a single value. Built twice: histogram_equalize_jit_test (JIT)
// and histogram_equalize_aot_test (LOOM_APPS_AOT, the generator's library).
//
//     histogram_equalize_{jit,aot}_test <image.png>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>

#include "../common/crop.h"
#include "../common/image_util.h"
#include "../common/png_io.h"
#include "histogram_equalize_reference.h"

#ifdef LOOM_APPS_AOT
#include "histogram_equalize_aot.h"
#else
#include "../common/jit_target.h"
#include "histogram_equalize_algorithm.h"
#endif

using loom::Runtime::Buffer;

namespace {

#ifdef LOOM_APPS_AOT
const char *const kMode = "AOT";
void run_histogram_equalize(const Buffer<uint8_t> &image, Buffer<uint8_t> &result) {
    const int error = histogram_equalize(image.raw_buffer(), result.raw_buffer());
    if (error != 0) throw std::runtime_error("histogram_equalize returned error " + std::to_string(error));
}
#else
const char *const kMode = apps::kJitMode;
void run_histogram_equalize(const Buffer<uint8_t> &image, Buffer<uint8_t> &result) {
    using namespace loom;
    ImageParam input(UInt(8), 2, "input");
    Func output("histogram_equalize");
    apps::HistogramEqualize h = apps::define_histogram_equalize(input, input.width(), input.height(), output);
    if (apps::kJitOnGpu) {
        apps::schedule_histogram_equalize_gpu(h);
    } else {
        apps::schedule_histogram_equalize(h);
    }
    input.set(loom::Buffer<uint8_t>(image, "input"));
    output.realize(loom::Buffer<uint8_t>(result, "output"), apps::jit_target());
}
#endif

bool check(const Buffer<uint8_t> &image, const std::string &what) {
    const int width = image.dim(0).extent(), height = image.dim(1).extent();
    Buffer<uint8_t> result(width, height), expected(width, height);
    run_histogram_equalize(image, result);
    apps::histogram_equalize_reference(image, expected);
    return apps::report(std::string("histogram_equalize, ") + kMode + ", " + what, apps::compare(result, expected, 0),
                        0);
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
        Buffer<uint8_t> gray = apps::to_gray(apps::load_png8(argv[1]));
        bool ok = check(gray, "test image");
        ok = check(apps::crop(gray, gray.dim(0).extent() - 29, gray.dim(1).extent() - 51), "odd crop") && ok;
        Buffer<uint8_t> flat(40, 33);
        flat.fill(77);
        ok = check(flat, "one value") && ok;
        return ok ? 0 : 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
        return 1;
    }
}
