#include "local_laplacian_algorithm.h"

#include <string>

namespace apps {
inline namespace LOOM_APPS_DSL {

using namespace loom;

namespace {

constexpr int K = kLocalLaplacianIntensityLevels;

// A level's size: (width, height) halved, rounding up.
struct Size {
    Expr width, height;
    Size half() const { return {(width + 1) / 2, (height + 1) / 2}; }
};

// Downsamples f (of size `size`, any extra dimensions after x and y) by 2 in
// x and y with a [1 3 3 1] / 8 kernel; `pass_x` receives the horizontal pass.
Func downsample(const Func &f, const Size &size, Func &pass_x, const std::string &name) {
    Var x("x"), y("y");
    Func clamped = BoundaryConditions::repeat_edge(f, {{0, size.width}, {0, size.height}});
    pass_x = Func(name + "_dx");
    pass_x(x, y, _) = (clamped(2 * x - 1, y, _) + 3.0f * clamped(2 * x, y, _) + 3.0f * clamped(2 * x + 1, y, _) +
                       clamped(2 * x + 2, y, _)) / 8.0f;
    Func down(name);
    down(x, y, _) = (pass_x(x, 2 * y - 1, _) + 3.0f * pass_x(x, 2 * y, _) + 3.0f * pass_x(x, 2 * y + 1, _) +
                     pass_x(x, 2 * y + 2, _)) / 8.0f;
    return down;
}

// Upsamples f (of size `size`) by 2: each output pixel is 3/4 of the nearer
// coarse pixel and 1/4 of the next one, in x and then in y.
Func upsample(const Func &f, const Size &size, const std::string &name) {
    Var x("x"), y("y");
    Func clamped = BoundaryConditions::repeat_edge(f, {{0, size.width}, {0, size.height}});
    Func up_x(name + "_ux");
    up_x(x, y, _) = 0.25f * clamped(x / 2 - 1 + 2 * (x % 2), y, _) + 0.75f * clamped(x / 2, y, _);
    Func up(name);
    up(x, y, _) = 0.25f * up_x(x, y / 2 - 1 + 2 * (y % 2), _) + 0.75f * up_x(x, y / 2, _);
    return up;
}

}  // namespace

LocalLaplacian define_local_laplacian(const Func &input, const Expr &width, const Expr &height, int levels,
                                     const Expr &alpha, const Expr &beta, Func output) {
    if (levels < 2) {
        throw CompileError("local_laplacian: levels is " + std::to_string(levels) + "; use at least 2");
    }
    LocalLaplacian p;
    p.output = output;
    const Var &x = p.x, &y = p.y, &c = p.c, &k = p.k, &i = p.i;

    // 1. Floats in [0, 1] and their luma.
    p.floating(x, y, c) = cast<float>(input(x, y, c)) / 65535.0f;
    p.gray(x, y) = 0.299f * p.floating(x, y, 0) + 0.587f * p.floating(x, y, 1) + 0.114f * p.floating(x, y, 2);

    // 2. The detail curve as a table over d = i / 256 in [-(K-1), K-1], and
    // the K processed images.
    Expr d = cast<float>(i) / 256.0f;
    p.remap(i) = alpha * d * exp(-d * d / 2.0f);
    Expr level = cast<float>(k) / float(K - 1);
    Expr index = clamp(cast<int>(p.gray(x, y) * float(K - 1) * 256.0f), 0, (K - 1) * 256);
    p.processed(x, y, k) = beta * (p.gray(x, y) - level) + level + p.remap(index - 256 * k);

    // 3. Pyramids. sizes[j] is the size of level j.
    std::vector<Size> sizes{{width, height}};
    for (int j = 1; j < levels; j++) sizes.push_back(sizes.back().half());
    for (const Size &size : sizes) {
        p.widths.push_back(size.width);
        p.heights.push_back(size.height);
    }
    p.gaussian.resize(levels);
    p.in_gaussian.resize(levels);
    p.downsample_x.resize(2 * (levels - 1));
    p.gaussian[0] = p.processed;
    p.in_gaussian[0] = p.gray;
    for (int j = 1; j < levels; j++) {
        const std::string n = std::to_string(j);
        p.gaussian[j] = downsample(p.gaussian[j - 1], sizes[j - 1], p.downsample_x[2 * (j - 1)], "gaussian" + n);
        p.in_gaussian[j] =
            downsample(p.in_gaussian[j - 1], sizes[j - 1], p.downsample_x[2 * (j - 1) + 1], "in_gaussian" + n);
    }
    p.laplacian.resize(levels);
    p.laplacian[levels - 1] = p.gaussian[levels - 1];
    for (int j = levels - 2; j >= 0; j--) {
        const std::string n = std::to_string(j);
        Func up = upsample(p.gaussian[j + 1], sizes[j + 1], "gaussian_up" + n);
        p.laplacian[j] = Func("laplacian" + n);
        p.laplacian[j](x, y, k) = p.gaussian[j](x, y, k) - up(x, y, k);
    }

    // 4. The output Laplacian pyramid, interpolated between intensity levels.
    p.out_laplacian.resize(levels);
    for (int j = 0; j < levels; j++) {
        Expr position = p.in_gaussian[j](x, y) * float(K - 1);
        Expr li = clamp(cast<int>(position), 0, K - 2);
        Expr lf = position - cast<float>(li);
        p.out_laplacian[j] = Func("out_laplacian" + std::to_string(j));
        p.out_laplacian[j](x, y) = (1.0f - lf) * p.laplacian[j](x, y, li) + lf * p.laplacian[j](x, y, li + 1);
    }

    // 5. Collapse, coarse to fine, then put the colour back.
    p.out_gaussian.resize(levels);
    p.out_gaussian[levels - 1] = p.out_laplacian[levels - 1];
    for (int j = levels - 2; j >= 0; j--) {
        const std::string n = std::to_string(j);
        Func up = upsample(p.out_gaussian[j + 1], sizes[j + 1], "out_up" + n);
        p.out_gaussian[j] = Func("out_gaussian" + n);
        p.out_gaussian[j](x, y) = up(x, y) + p.out_laplacian[j](x, y);
    }
    const float eps = 0.01f;
    Expr ratio = (p.floating(x, y, c) + eps) / (p.gray(x, y) + eps);
    Expr result = clamp(p.out_gaussian[0](x, y) * ratio, 0.0f, 1.0f);
    p.output(x, y, c) = cast<uint16_t>(result * 65535.0f + 0.5f);
    return p;
}

void schedule_local_laplacian(LocalLaplacian &p) {
    const Var &x = p.x, &y = p.y, &i = p.i;
    const int levels = static_cast<int>(p.gaussian.size());
    p.remap.compute_root().vectorize(i, 8);
    // Every level is computed whole. The three finest levels are vectorized
    // with rows in parallel; the coarser ones are a few pixels wide
    // (possibly narrower than a vector).
    auto root = [&](Func f, int j) {
        f.compute_root();
        if (j < 3) f.vectorize(x, 8).parallel(y, 8);
    };
    for (int j = 0; j < levels; j++) {
        // The coarsest Laplacian level is the coarsest Gaussian level itself.
        std::vector<Func> per_k{p.gaussian[j]};
        if (j + 1 < levels) per_k.push_back(p.laplacian[j]);
        for (Func f : per_k) root(f, j);
        root(p.in_gaussian[j], j);  // level 0 is gray
        root(p.out_gaussian[j], j);
    }
    // The horizontal pass of each downsampling is computed per group of
    // output rows of the level it makes (its y loop: 8 rows at the finest
    // levels, one row below), so its 2 x 8 + 2 rows are still in cache
    // when the vertical pass reads them.
    for (size_t n = 0; n < p.downsample_x.size(); n++) {
        const int j = static_cast<int>(n / 2) + 1;  // the level being produced
        Func f = p.downsample_x[n];
        f.compute_at(n % 2 == 0 ? p.gaussian[j] : p.in_gaussian[j], y);
        if (j < 3) f.vectorize(x, 8);
    }
    Var yo("yo"), yi("yi");
    p.output.split(y, yo, yi, 8).vectorize(x, 8).parallel(yo);
}

void schedule_local_laplacian_gpu(LocalLaplacian &p, DeviceAPI device_api) {
    const Var &x = p.x, &y = p.y, &i = p.i;
    const int levels = static_cast<int>(p.gaussian.size());
    Var bx("bx"), by("by"), tx("tx"), ty("ty");
    // The coarse levels are a few pixels wide: guard the tails rather than
    // shift them inwards (which needs a level at least one tile wide).
    const TailStrategy guard = TailStrategy::GuardWithIf;
    auto kernel = [&](Func f, int j) {
        const int w = j < 3 ? 16 : 4, h = j < 3 ? 8 : 4;
        f.compute_root();
        if (f.args().size() > 2) f.reorder(f.args()[2], x, y);  // the K levels serial in the thread
        f.gpu_tile(x, y, bx, by, tx, ty, w, h, guard, device_api);
    };
    p.remap.compute_root().gpu_tile(i, bx, tx, 64, guard, device_api);
    for (int j = 0; j < levels; j++) {
        std::vector<Func> per_k{p.gaussian[j]};
        if (j + 1 < levels) per_k.push_back(p.laplacian[j]);
        for (Func f : per_k) kernel(f, j);
        kernel(p.in_gaussian[j], j);
        kernel(p.out_gaussian[j], j);
    }
    for (size_t n = 0; n < p.downsample_x.size(); n++) {
        const int j = static_cast<int>(n / 2) + 1;
        Func f = p.downsample_x[n];
        f.compute_root();
        if (n % 2 == 0) f.reorder(f.args()[2], x, y);
        const int w = j < 3 ? 16 : 4, h = j < 3 ? 8 : 4;
        f.gpu_tile(x, y, bx, by, tx, ty, w, h, guard, device_api);
    }
    p.output.reorder(p.c, x, y).gpu_tile(x, y, bx, by, tx, ty, 16, 8, TailStrategy::Auto, device_api);
}

}  // namespace LOOM_APPS_DSL
}  // namespace apps
