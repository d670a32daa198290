#ifndef LOOM_TEST_AOT_AOT_PIPELINES_H
#define LOOM_TEST_AOT_AOT_PIPELINES_H

// Pipelines the AOT tests compile, each with its plain C++ reference.

#include <algorithm>
#include <string>

#include "loom/Loom.h"

namespace loom_test {

/** brighten(x, y) = clamp(input(x, y) * scale + offset, 0, 255) as uint8;
 * vectorized by 8 and parallel over rows. C signature:
 *   int brighten(loom_buffer_t *input, int32_t scale, int32_t offset, loom_buffer_t *brighten) */
struct BrightenPipeline {
    loom::ImageParam input{loom::UInt(8), 2, "input"};
    loom::Param<int> scale{"scale"};
    loom::Param<int> offset{"offset"};
    loom::Func out{"brighten"};

    BrightenPipeline() {
        loom::Var x("x"), y("y");
        out(x, y) = loom::cast<uint8_t>(loom::clamp(loom::cast<int>(input(x, y)) * scale + offset, 0, 255));
        out.vectorize(x, 8).parallel(y);
    }
    std::vector<loom::Argument> args() const { return {input, scale, offset}; }

    static uint8_t reference(uint8_t in, int scale, int offset) {
        return (uint8_t)std::clamp(int(in) * scale + offset, 0, 255);
    }
};

/** Two outputs: a 3x3 box blur times a weight, and a Tuple (pair) of the input
 * doubled and the input as int plus x. blur_x is computed at root, rows in
 * parallel. C signature:
 *   int blur(loom_buffer_t *image, float weight, loom_buffer_t *blur_y,
 *            loom_buffer_t *pair_0, loom_buffer_t *pair_1) */
struct BlurPipeline {
    loom::ImageParam image{loom::Float(32), 2, "image"};
    loom::Param<float> weight{"weight"};
    loom::Func blur_x{"blur_x"}, blur_y{"blur_y"}, pair{"pair"};

    BlurPipeline() {
        loom::Var x("x"), y("y");
        blur_x(x, y) = (image(x - 1, y) + image(x, y) + image(x + 1, y)) / 3.0f;
        blur_y(x, y) = (blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) / 3.0f * weight;
        pair(x, y) = loom::Tuple(image(x, y) * 2.0f, loom::cast<int>(image(x, y)) + x);
        blur_x.compute_root().parallel(y);
        blur_y.parallel(y);
    }
    loom::Pipeline pipeline() const { return loom::Pipeline({blur_y, pair}); }
    std::vector<loom::Argument> args() const { return {image, weight}; }
};

}  // namespace loom_test

#endif
