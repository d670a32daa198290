#include "local_laplacian_reference.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "local_laplacian_constants.h"

namespace apps {

namespace {

constexpr int K = kLocalLaplacianIntensityLevels;

// A float image whose reads outside [0, width) x [0, height) repeat the edge.
struct Plane {
    int width = 0, height = 0;
    std::vector<float> values;

    Plane() = default;
    Plane(int w, int h) : width(w), height(h), values(size_t(w) * h, 0.0f) {}
    float &operator()(int x, int y) { return values[size_t(y) * width + x]; }
    float at(int x, int y) const {
        return values[size_t(std::clamp(y, 0, height - 1)) * width + std::clamp(x, 0, width - 1)];
    }
};

Plane downsample(const Plane &f) {
    const int w = (f.width + 1) / 2, h = (f.height + 1) / 2;
    Plane pass_x(w, f.height), down(w, h);
    for (int y = 0; y < f.height; y++) {
        for (int x = 0; x < w; x++) {
            pass_x(x, y) = (f.at(2 * x - 1, y) + 3.0f * f.at(2 * x, y) + 3.0f * f.at(2 * x + 1, y) +
                            f.at(2 * x + 2, y)) / 8.0f;
        }
    }
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            down(x, y) = (pass_x.at(x, 2 * y - 1) + 3.0f * pass_x.at(x, 2 * y) + 3.0f * pass_x.at(x, 2 * y + 1) +
                          pass_x.at(x, 2 * y + 2)) / 8.0f;
        }
    }
    return down;
}

// f upsampled to width x height (about twice its size).
Plane upsample(const Plane &f, int width, int height) {
    Plane up_x(width, f.height), up(width, height);
    for (int y = 0; y < f.height; y++) {
        for (int x = 0; x < width; x++) {
            up_x(x, y) = 0.25f * f.at(x / 2 - 1 + 2 * (x % 2), y) + 0.75f * f.at(x / 2, y);
        }
    }
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) {
            up(x, y) = 0.25f * up_x.at(x, y / 2 - 1 + 2 * (y % 2)) + 0.75f * up_x.at(x, y / 2);
        }
    }
    return up;
}

}  // namespace

void local_laplacian_reference(const loom::Runtime::Buffer<uint16_t> &input, int levels, float alpha, float beta,
                               loom::Runtime::Buffer<uint16_t> &output) {
    const int width = input.dim(0).extent(), height = input.dim(1).extent();
    auto floating = [&](int x, int y, int c) { return float(input(x, y, c)) / 65535.0f; };
    Plane gray(width, height);
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) {
            gray(x, y) = 0.299f * floating(x, y, 0) + 0.587f * floating(x, y, 1) + 0.114f * floating(x, y, 2);
        }
    }
    // remap[i + offset] for i in [-(K-1)*256, (K-1)*256].
    const int offset = (K - 1) * 256;
    std::vector<float> remap(2 * offset + 1);
    for (int i = -offset; i <= offset; i++) {
        const float d = float(i) / 256.0f;
        remap[i + offset] = alpha * d * std::exp(-d * d / 2.0f);
    }

    // gaussian[j][k]: level j of the pyramid of processed image k.
    std::vector<std::vector<Plane>> gaussian(levels, std::vector<Plane>(K));
    for (int k = 0; k < K; k++) {
        const float level = float(k) / float(K - 1);
        Plane processed(width, height);
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) {
                const int index = std::clamp(int(gray(x, y) * float(K - 1) * 256.0f), 0, (K - 1) * 256);
                processed(x, y) = beta * (gray(x, y) - level) + level + remap[index - 256 * k + offset];
            }
        }
        gaussian[0][k] = processed;
        for (int j = 1; j < levels; j++) gaussian[j][k] = downsample(gaussian[j - 1][k]);
    }
    std::vector<Plane> in_gaussian(levels);
    in_gaussian[0] = gray;
    for (int j = 1; j < levels; j++) in_gaussian[j] = downsample(in_gaussian[j - 1]);

    // laplacian[j][k] = gaussian[j][k] - upsample(gaussian[j + 1][k]).
    std::vector<std::vector<Plane>> laplacian = gaussian;
    for (int j = 0; j + 1 < levels; j++) {
        for (int k = 0; k < K; k++) {
            Plane &l = laplacian[j][k];
            Plane up = upsample(gaussian[j + 1][k], l.width, l.height);
            for (size_t n = 0; n < l.values.size(); n++) l.values[n] = gaussian[j][k].values[n] - up.values[n];
        }
    }

    std::vector<Plane> out_laplacian(levels);
    for (int j = 0; j < levels; j++) {
        const Plane &g = in_gaussian[j];
        Plane out(g.width, g.height);
        for (int y = 0; y < g.height; y++) {
            for (int x = 0; x < g.width; x++) {
                const float position = g.at(x, y) * float(K - 1);
                const int li = std::clamp(int(position), 0, K - 2);
                const float lf = position - float(li);
                out(x, y) = (1.0f - lf) * laplacian[j][li].at(x, y) + lf * laplacian[j][li + 1].at(x, y);
            }
        }
        out_laplacian[j] = out;
    }
    Plane collapsed = out_laplacian[levels - 1];
    for (int j = levels - 2; j >= 0; j--) {
        Plane up = upsample(collapsed, out_laplacian[j].width, out_laplacian[j].height);
        for (size_t n = 0; n < up.values.size(); n++) up.values[n] = up.values[n] + out_laplacian[j].values[n];
        collapsed = up;
    }

    const float eps = 0.01f;
    for (int c = 0; c < 3; c++) {
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) {
                const float ratio = (floating(x, y, c) + eps) / (gray(x, y) + eps);
                const float result = std::clamp(collapsed(x, y) * ratio, 0.0f, 1.0f);
                output(x, y, c) = static_cast<uint16_t>(result * 65535.0f + 0.5f);
            }
        }
    }
}

}  // namespace apps
