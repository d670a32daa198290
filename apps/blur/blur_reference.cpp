#include "blur_reference.h"

#include <algorithm>
#include <vector>

namespace apps {

namespace {

// One row of blur_x for input row yy (clamped into the image).
void blur_row(const loom::Runtime::Buffer<uint16_t> &input, int yy, uint16_t *bx) {
    const int width = input.dim(0).extent(), height = input.dim(1).extent();
    const uint16_t *in_row = &input(0, std::clamp(yy, 0, height - 1));
    for (int x = 0; x < width; x++) {
        const uint32_t left = in_row[std::max(x - 1, 0)], right = in_row[std::min(x + 1, width - 1)];
        bx[x] = static_cast<uint16_t>((left + in_row[x] + right) / 3);
    }
}

}  // namespace

void blur_reference(const loom::Runtime::Buffer<uint16_t> &input, loom::Runtime::Buffer<uint16_t> &output) {
    const int width = input.dim(0).extent(), height = input.dim(1).extent();
    // A ring of three blur_x rows: each row is computed once, as a careful
    // C++ programmer would write it.
    std::vector<uint16_t> ring(3 * static_cast<size_t>(width));
    auto row = [&](int yy) { return &ring[static_cast<size_t>((yy + 3) % 3) * width]; };
    blur_row(input, -1, row(-1));
    blur_row(input, 0, row(0));
    for (int y = 0; y < height; y++) {
        blur_row(input, y + 1, row(y + 1));
        const uint16_t *above = row(y - 1), *middle = row(y), *below = row(y + 1);
        uint16_t *out_row = &output(0, y);
        for (int x = 0; x < width; x++) {
            out_row[x] = static_cast<uint16_t>((uint32_t(above[x]) + middle[x] + below[x]) / 3);
        }
    }
}

}  // namespace apps
