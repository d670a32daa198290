// Lesson 16: fusing loop nests with compute_with.
//
// Two Funcs computed at the same level each get their own loop nest: with
// gx and gy both compute_root(), Loom runs every row of gx, then every row of
// gy, and the input image is read twice. gy.compute_with(gx, y) fuses their
// outer loops: one loop over y that computes a row of gx and then the same
// row of gy, while the input rows they share are still in cache.
//
// compute_with(f, v) fuses the loops from the outermost one down to the one
// at the position of f's loop v. The stages keep their own inner loops (and
// their own vectorization); where their ranges differ, the shared loop runs
// over both ranges and each stage only over its own. An update can also be
// fused with its Func's pure definition, so a point is produced and updated
// in the same pass.
//
// Loom fuses only where the result cannot change; anything else is a
// CompileError that says why (the end of this lesson shows one).

#include <cstdio>
#include <cstdlib>

#include <loom/Loom.h>

using namespace loom;

namespace {

const int kWidth = 16, kHeight = 10;

int input_reference(int x, int y) { return (x * 7 + y * 13) % 31; }

int clamp_index(int v, int hi) { return v < 0 ? 0 : (v > hi ? hi : v); }

int in_at(int x, int y) { return input_reference(clamp_index(x, kWidth - 1), clamp_index(y, kHeight - 1)); }

}  // namespace

int main() {
    Buffer<int> input(kWidth, kHeight);
    for (int y = 0; y < kHeight; y++)
        for (int x = 0; x < kWidth; x++) input(x, y) = input_reference(x, y);

    Var x("x"), y("y");
    Func in = BoundaryConditions::repeat_edge(input);
    Func gx("gx"), gy("gy"), magnitude("magnitude");
    gx(x, y) = in(x + 1, y) - in(x - 1, y);
    gy(x, y) = in(x, y + 1) - in(x, y - 1);
    magnitude(x, y) = gx(x, y) * gx(x, y) + gy(x, y) * gy(x, y);

    gx.compute_root().vectorize(x, 8);
    gy.compute_root().vectorize(x, 8);
    std::printf("--- gx and gy computed at root, one after the other:\n");
    magnitude.print_loop_nest();

    gy.compute_with(gx, y);
    std::printf("--- gy.compute_with(gx, y): one loop over y runs a row of each:\n");
    magnitude.print_loop_nest();

    int problems = 0;
    Buffer<int> out = magnitude.realize({kWidth, kHeight});
    for (int j = 0; j < kHeight; j++) {
        for (int i = 0; i < kWidth; i++) {
            int dx = in_at(i + 1, j) - in_at(i - 1, j), dy = in_at(i, j + 1) - in_at(i, j - 1);
            if (out(i, j) != dx * dx + dy * dy) problems++;
        }
    }
    std::printf("fused gradients: %d wrong values\n", problems);

    // An update fused with the pure definition: each row is produced and
    // then scaled in the same iteration of y.
    Func scaled("scaled");
    scaled(x, y) = in(x, y) + 1;
    scaled(x, y) = scaled(x, y) * 3;
    scaled.update(0).compute_with(scaled, y);
    std::printf("--- scaled.update(0).compute_with(scaled, y):\n");
    scaled.print_loop_nest();
    Buffer<int> s = scaled.realize({kWidth, kHeight});
    int scale_problems = 0;
    for (int j = 0; j < kHeight; j++)
        for (int i = 0; i < kWidth; i++) scale_problems += s(i, j) != (in_at(i, j) + 1) * 3;
    std::printf("fused update: %d wrong values\n", scale_problems);
    problems += scale_problems;

    // A fusion that could change the result: twice reads gx, so fusing it
    // with gx would let it read rows of gx that are not computed yet.
    Func twice("twice"), sum("sum");
    twice(x, y) = gx(x, y + 1) * 2;
    sum(x, y) = twice(x, y) + gx(x, y);
    Func gx2 = gx;
    twice.compute_root().compute_with(gx2, y);
    try {
        sum.realize({kWidth, kHeight});
        std::printf("expected a CompileError\n");
        problems++;
    } catch (const CompileError &e) {
        std::printf("refused, as it should be:\n  %s\n", e.what());
    }

    std::printf(problems == 0 ? "lesson 16: all results match\n" : "lesson 16: %d problems\n", problems);
    return problems == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
