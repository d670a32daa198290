#include "bilateral_grid_reference.h"

#include <algorithm>
#include <vector>

namespace apps {

namespace {

// A grid of (value, weight) pairs over [x0, x1] x [y0, y1] x [z0, z1].
struct Grid {
    int x0, x1, y0, y1, z0, z1;
    std::vector<float> cells;

    Grid(int x0_, int x1_, int y0_, int y1_, int z0_, int z1_)
        : x0(x0_), x1(x1_), y0(y0_), y1(y1_), z0(z0_), z1(z1_),
          cells(size_t(x1 - x0 + 1) * (y1 - y0 + 1) * (z1 - z0 + 1) * 2, 0.0f) {}
    float &at(int x, int y, int z, int c) {
        const size_t w = x1 - x0 + 1, h = y1 - y0 + 1, d = z1 - z0 + 1;
        return cells[(((size_t(c) * d + (z - z0)) * h + (y - y0)) * w) + (x - x0)];
    }
};

float blur5(float a, float b, float m, float d, float e) { return a + b * 4.0f + m * 6.0f + d * 4.0f + e; }
float lerp(float a, float b, float w) { return a + (b - a) * w; }

}  // namespace

void bilateral_grid_reference(const loom::Runtime::Buffer<float> &input, int s, float r_sigma,
                              loom::Runtime::Buffer<float> &output) {
    const int width = input.dim(0).extent(), height = input.dim(1).extent();
    auto pixel = [&](int x, int y) {
        const float v = input(std::clamp(x, 0, width - 1), std::clamp(y, 0, height - 1));
        return std::clamp(v, 0.0f, 1.0f);
    };
    const int z_cells = int(1.0f / r_sigma + 0.5f) + 1;
    // The slice reads cells xi, xi + 1 with xi = x / s (and likewise y, z);
    // each blur widens what it reads by 2 cells on each side.
    const int gx = (width - 1) / s + 1, gy = (height - 1) / s + 1, gz = z_cells;

    Grid histogram(-2, gx + 2, -2, gy + 2, -2, gz + 2);
    for (int y = histogram.y0; y <= histogram.y1; y++) {
        for (int x = histogram.x0; x <= histogram.x1; x++) {
            for (int ry = 0; ry < s; ry++) {
                for (int rx = 0; rx < s; rx++) {
                    const float v = pixel(x * s + rx - s / 2, y * s + ry - s / 2);
                    const int cell = std::clamp(int(v / r_sigma + 0.5f), 0, z_cells - 1);
                    histogram.at(x, y, cell, 0) += v;
                    histogram.at(x, y, cell, 1) += 1.0f;
                }
            }
        }
    }
    Grid blur_z(-2, gx + 2, -2, gy + 2, 0, gz);
    Grid blur_x(0, gx, -2, gy + 2, 0, gz);
    Grid blur_y(0, gx, 0, gy, 0, gz);
    for (int c = 0; c < 2; c++) {
        for (int z = 0; z <= gz; z++) {
            for (int y = blur_z.y0; y <= blur_z.y1; y++) {
                for (int x = blur_z.x0; x <= blur_z.x1; x++) {
                    Grid &h = histogram;
                    blur_z.at(x, y, z, c) = blur5(h.at(x, y, z - 2, c), h.at(x, y, z - 1, c), h.at(x, y, z, c),
                                                  h.at(x, y, z + 1, c), h.at(x, y, z + 2, c));
                }
            }
            for (int y = blur_x.y0; y <= blur_x.y1; y++) {
                for (int x = blur_x.x0; x <= blur_x.x1; x++) {
                    Grid &b = blur_z;
                    blur_x.at(x, y, z, c) = blur5(b.at(x - 2, y, z, c), b.at(x - 1, y, z, c), b.at(x, y, z, c),
                                                  b.at(x + 1, y, z, c), b.at(x + 2, y, z, c));
                }
            }
            for (int y = blur_y.y0; y <= blur_y.y1; y++) {
                for (int x = blur_y.x0; x <= blur_y.x1; x++) {
                    Grid &b = blur_x;
                    blur_y.at(x, y, z, c) = blur5(b.at(x, y - 2, z, c), b.at(x, y - 1, z, c), b.at(x, y, z, c),
                                                  b.at(x, y + 1, z, c), b.at(x, y + 2, z, c));
                }
            }
        }
    }
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) {
            const float v = pixel(x, y);
            const float zv = v / r_sigma;
            const int zi = std::clamp(int(zv), 0, z_cells - 1);
            const float zf = zv - float(zi);
            const int xi = x / s, yi = y / s;
            const float xf = float(x % s) / float(s), yf = float(y % s) / float(s);
            float result[2];
            for (int c = 0; c < 2; c++) {
                auto plane = [&](int zz) {
                    const float top = lerp(blur_y.at(xi, yi, zz, c), blur_y.at(xi + 1, yi, zz, c), xf);
                    const float bottom = lerp(blur_y.at(xi, yi + 1, zz, c), blur_y.at(xi + 1, yi + 1, zz, c), xf);
                    return lerp(top, bottom, yf);
                };
                result[c] = lerp(plane(zi), plane(zi + 1), zf);
            }
            output(x, y) = result[0] / result[1];
        }
    }
}

}  // namespace apps
