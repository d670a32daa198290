#include "blur_algorithm.h"

namespace apps {

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

}  // namespace apps
