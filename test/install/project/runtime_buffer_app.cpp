// Links only the generated scale_offset library and includes
// <loom/runtime/Buffer.h> through it (Loom::Runtime, as Halide's generated
// libraries carry HalideBuffer.h): loom::Runtime::Buffer wraps the
// arguments. Checks the results against a plain C++ loop.
#include <cstdio>

#include <loom/runtime/Buffer.h>

#include "scale_offset.h"

int main() {
    const int width = 29, height = 4, scale = -3, offset = 3;
    loom::Runtime::Buffer<int32_t> in(width, height), out(width, height);
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) in(x, y) = x * 11 - y * 5;
    }
    const int result = scale_offset(in.raw_buffer(), scale, out.raw_buffer());
    if (result != 0) {
        std::printf("scale_offset returned %d\n", result);
        return 1;
    }
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) {
            const int32_t expected = in(x, y) * scale + offset + y;
            if (out(x, y) != expected) {
                std::printf("at (%d, %d): expected %d, got %d\n", x, y, expected, out(x, y));
                return 1;
            }
        }
    }
    std::printf("runtime_buffer_app: %d x %d values match\n", width, height);
    return 0;
}
