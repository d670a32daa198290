// The first Loom program: a two-stage 3x3 box blur of a synthetic image,
// scheduled and JIT-compiled, checked against a plain C++ loop, and its loop
// nest printed.
#include <cstdio>

#include <loom/Loom.h>

using namespace loom;

int main() {
    const int width = 16, height = 8;
    Buffer<uint16_t> input(width, height);
    input.for_each_element([&](int x, int y) { input(x, y) = (uint16_t)((x * 37 + y * 91) % 256); });

    Var x("x"), y("y");
    Func clamped = BoundaryConditions::repeat_edge(input);
    Func blur_x("blur_x"), blur_y("blur_y");
    blur_x(x, y) = (clamped(x - 1, y) + clamped(x, y) + clamped(x + 1, y)) / 3;
    blur_y(x, y) = (blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) / 3;
    // The schedule: blur_x computed per strip of 4 rows of blur_y, strips in
    // parallel, 8-wide SIMD across x. The result does not depend on it.
    Var yo("yo"), yi("yi");
    blur_y.split(y, yo, yi, 4).parallel(yo).vectorize(x, 8);
    blur_x.compute_at(blur_y, yo).vectorize(x, 8);

    Buffer<uint16_t> out = blur_y.realize({width, height});

    // The same computation as plain loops, to show the result is right.
    auto at = [&](int xx, int yy) {
        xx = xx < 0 ? 0 : (xx >= width ? width - 1 : xx);
        yy = yy < 0 ? 0 : (yy >= height ? height - 1 : yy);
        return (int)input(xx, yy);
    };
    int mismatches = 0;
    for (int yy = 0; yy < height; yy++) {
        for (int xx = 0; xx < width; xx++) {
            auto bx = [&](int cx, int cy) { return (uint16_t)((at(cx - 1, cy) + at(cx, cy) + at(cx + 1, cy)) / 3); };
            uint16_t expected = (uint16_t)((bx(xx, yy - 1) + bx(xx, yy) + bx(xx, yy + 1)) / 3);
            if (out(xx, yy) != expected) mismatches++;
        }
    }

    std::printf("blur_y (first 8 columns):\n");
    for (int yy = 0; yy < height; yy++) {
        for (int xx = 0; xx < 8; xx++) std::printf("%4d", out(xx, yy));
        std::printf("\n");
    }
    std::printf("\nLoop nest:\n");
    blur_y.print_loop_nest();
    std::printf("\n%s: %d of %d pixels differ from the plain C++ reference\n", mismatches ? "FAILED" : "OK",
                mismatches, width * height);
    return mismatches ? 1 : 0;
}
