// Calls the AOT-compiled scale_offset (generator parameter offset=3) and
// checks it against a plain C++ loop.
#include <cstdio>
#include <vector>

#include "scale_offset.h"

int main() {
    const int width = 37, height = 5, scale = 4, offset = 3;
    std::vector<int32_t> in(width * height), out(width * height, -1);
    for (int i = 0; i < width * height; i++) in[i] = i * 7 - 100;

    loom_dimension_t dims[2] = {{0, width, 1, 0}, {0, height, width, 0}};
    loom_buffer_t in_buf = {};
    in_buf.host = reinterpret_cast<uint8_t *>(in.data());
    in_buf.type = {loom_type_int, 32, 1};
    in_buf.dimensions = 2;
    in_buf.dim = dims;
    loom_dimension_t out_dims[2] = {{0, width, 1, 0}, {0, height, width, 0}};
    loom_buffer_t out_buf = in_buf;
    out_buf.host = reinterpret_cast<uint8_t *>(out.data());
    out_buf.dim = out_dims;

    int result = scale_offset(&in_buf, scale, &out_buf);
    if (result != 0) {
        std::printf("scale_offset returned %d\n", result);
        return 1;
    }
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) {
            int32_t expected = in[y * width + x] * scale + offset + y;
            if (out[y * width + x] != expected) {
                std::printf("at (%d, %d): expected %d, got %d\n", x, y, expected, out[y * width + x]);
                return 1;
            }
        }
    }
    std::printf("scale_offset: %d x %d values match\n", width, height);
    return 0;
}
