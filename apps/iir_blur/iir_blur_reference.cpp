#include "iir_blur_reference.h"

#include <vector>

namespace apps {

namespace {

// Forwards then backwards down the columns of a width x height plane (x
// innermost), in place, a whole row per step so the inner loop is
// contiguous.
void scan_columns(float *data, int width, int height, float alpha) {
    const float keep = 1.0f - alpha;
    for (int y = 1; y < height; y++) {
        float *row = data + static_cast<size_t>(y) * width;
        const float *prev = row - width;
        for (int x = 0; x < width; x++) row[x] = keep * row[x] + alpha * prev[x];
    }
    for (int y = height - 2; y >= 0; y--) {
        float *row = data + static_cast<size_t>(y) * width;
        const float *next = row + width;
        for (int x = 0; x < width; x++) row[x] = keep * row[x] + alpha * next[x];
    }
}

// Forwards then backwards along each row, in place.
void scan_rows(float *data, int width, int height, float alpha) {
    const float keep = 1.0f - alpha;
    for (int y = 0; y < height; y++) {
        float *row = data + static_cast<size_t>(y) * width;
        for (int x = 1; x < width; x++) row[x] = keep * row[x] + alpha * row[x - 1];
        for (int x = width - 2; x >= 0; x--) row[x] = keep * row[x] + alpha * row[x + 1];
    }
}

}  // namespace

void iir_blur_reference(const loom::Runtime::Buffer<float> &input, float alpha, loom::Runtime::Buffer<float> &output) {
    const int width = input.dim(0).extent(), height = input.dim(1).extent(), channels = input.dim(2).extent();
    std::vector<float> plane(static_cast<size_t>(width) * height);
    for (int c = 0; c < channels; c++) {
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) plane[static_cast<size_t>(y) * width + x] = input(x, y, c);
        }
        scan_columns(plane.data(), width, height, alpha);
        scan_rows(plane.data(), width, height, alpha);
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) output(x, y, c) = plane[static_cast<size_t>(y) * width + x];
        }
    }
}

}  // namespace apps
