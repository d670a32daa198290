// Lesson 12: generators, part 2 (a program using what they generated).
//
// lesson_12_add and lesson_12_scale were generated at build time from the
// one generator in lesson_12_generators.cpp, with mode=add and mode=scale.
// This program links both libraries, not libLoom. loom::Runtime::Buffer
// (<loom/runtime/Buffer.h>, header-only) owns the memory and passes itself
// to the generated functions as a loom_buffer_t.

#include <cmath>
#include <cstdint>
#include <cstdio>

#include <loom/runtime/Buffer.h>

#include "lesson_12_add.h"
#include "lesson_12_scale.h"

using loom::Runtime::Buffer;

namespace {

uint8_t saturate(float v) { return (uint8_t)(v < 0.0f ? 0.0f : (v > 255.0f ? 255.0f : v)); }

}  // namespace

int main() {
    const int width = 64, height = 8;
    Buffer<uint8_t> input(width, height), added(width, height), scaled(width, height);
    input.for_each_element([&](int x, int y) { input(x, y) = (uint8_t)((x * 5 + y * 40) % 256); });

    int rc_add = lesson_12_add(input.raw_buffer(), 60.0f, added.raw_buffer());
    int rc_scale = lesson_12_scale(input.raw_buffer(), 1.5f, scaled.raw_buffer());
    std::printf("lesson_12_add returned %d, lesson_12_scale returned %d\n", rc_add, rc_scale);
    if (rc_add != 0 || rc_scale != 0) return 1;

    int mismatches = 0;
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) {
            float v = (float)input(x, y);
            if (added(x, y) != saturate(v + 60.0f)) mismatches++;
            if (scaled(x, y) != saturate(v * 1.5f)) mismatches++;
        }
    }
    std::printf("pixel (4, 1): input %d, add 60: %d, scale 1.5: %d\n", input(4, 1), added(4, 1), scaled(4, 1));
    std::printf("%s: %d mismatches against the C++ loop\n", mismatches ? "FAILED" : "Success", mismatches);
    return mismatches ? 1 : 0;
}
