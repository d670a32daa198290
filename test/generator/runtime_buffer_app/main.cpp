// An application that links only a library made by loom_add_library()
// (test_aot_axpy: out = int16(a * scale + b)) and gets <loom/runtime/Buffer.h>
// from it, as a Halide application gets HalideBuffer.h from a generated
// library: no libLoom, no include path of its own. Checks the results against
// a C++ loop; exits 0 and prints "values match" when they agree.

#include <cstdio>

#include <loom/runtime/Buffer.h>

#include "test_aot_axpy.h"

int main() {
    const int n = 40;
    loom::Runtime::Buffer<float> a(n), b(n);
    loom::Runtime::Buffer<int16_t> out(n);
    for (int i = 0; i < n; i++) {
        a(i) = 0.5f * i - 3.0f;
        b(i) = 7.0f - 2.0f * i;
    }
    const float scale = 4.0f;
    const int result = test_aot_axpy(a.raw_buffer(), scale, b.raw_buffer(), out.raw_buffer());
    if (result != 0) {
        std::printf("test_aot_axpy returned %d\n", result);
        return 1;
    }
    for (int i = 0; i < n; i++) {
        const int16_t expected = int16_t(a(i) * scale + b(i));
        if (out(i) != expected) {
            std::printf("at %d: expected %d, got %d\n", i, expected, out(i));
            return 1;
        }
    }
    std::printf("runtime_buffer_app: %d values match\n", n);
    return 0;
}
