#include "blur_algorithm.h"

namespace apps {
inline namespace LOOM_APPS_DSL {

using namespace loom;

Blur define_blur(const Func &input, const Expr &width, const Expr &height, Func output) {
    Blur b;
    b.output = output;
    const Var &x = b.x, &y = b.y;
    b.clamped = BoundaryConditions::repeat_edge(input, {{0, width}, {0, height}});
    auto in32 = [&](const Expr &xx, const Expr &yy) { return cast<uint32_t>(b.clamped(xx, yy)); };
    b.blur_x(x, y) = cast<uint16_t>((in32(x - 1, y) + in32(x, y) + in32(x + 1, y)) / 3);
    auto bx32 = [&](const Expr &yy) { return cast<uint32_t>(b.blur_x(x, yy)); };
    b.output(x, y) = cast<uint16_t>((bx32(y - 1) + bx32(y) + bx32(y + 1)) / 3);
    return b;
}

void schedule_blur(Blur &b, int tile_width) {
    // 16 lanes of uint16 fill an AVX2 register. A tile of tile_width x 32
    // output rows needs 34 rows of blur_x, which stay in L2.
    Var xi("xi"), yi("yi");
    b.output.tile(b.x, b.y, xi, yi, tile_width, 32).vectorize(xi, 16).parallel(b.y);
    b.blur_x.compute_at(b.output, b.x).vectorize(b.x, 16);
}

void schedule_blur_gpu(Blur &b, DeviceAPI device_api) {
    Var bx("bx"), by("by"), tx("tx"), ty("ty");
    b.output.gpu_tile(b.x, b.y, bx, by, tx, ty, 16, 16, TailStrategy::Auto, device_api);
    // blur_x's 16 x 18 block in workgroup memory; the 16 x 16 threads make
    // it in two passes of rows (18 rows split by 16, the tail shifted in).
    Var xo("xo"), yo("yo");
    b.blur_x.compute_at(b.output, bx)
        .split(b.x, xo, tx, 16)
        .split(b.y, yo, ty, 16)
        .gpu_threads(tx, ty, device_api);
}

}  // namespace LOOM_APPS_DSL
}  // namespace apps
