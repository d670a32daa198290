// Lesson 5: vectorize, parallel, unroll and tile.
//
// The algorithm says what each point is; the schedule says in what order
// and how the points are computed. Every call here changes the loop nest,
// never the values, so each variant is checked against the same C++ loop.
// Loops are listed innermost first, as in Halide: f(x, y) starts as a loop
// over y around a loop over x.
//
//   split(x, xo, xi, n)     x = xo * n + xi, xi innermost
//   reorder(y, x)           y becomes the innermost loop
//   vectorize(x, n)         split by n, run the inner loop as SIMD lanes
//   unroll(x, n)            split by n, copy the body n times
//   parallel(y)             iterations of y on the thread pool
//   tile(x, y, xi, yi, a, b) split x and y, put the a x b tile innermost
//   fuse(x, y, xy)          one loop over both

#include <cstdio>

#include <loom/Loom.h>

using namespace loom;

namespace {

const int kWidth = 64, kHeight = 32;

int reference(int x, int y) { return x * 3 + y * 7; }

// Realizes f, checks every value and returns the number of mismatches.
int run_and_check(Func f, const char *title) {
    std::printf("--- %s\n", title);
    f.print_loop_nest();
    Buffer<int> out = f.realize({kWidth, kHeight});
    int mismatches = 0;
    for (int j = 0; j < kHeight; j++) {
        for (int i = 0; i < kWidth; i++) {
            if (out(i, j) != reference(i, j)) mismatches++;
        }
    }
    std::printf("%d mismatches\n\n", mismatches);
    return mismatches;
}

// A fresh Func each time, so each schedule starts from the default.
Func make_func(const char *name) {
    Var x("x"), y("y");
    Func f(name);
    f(x, y) = x * 3 + y * 7;
    return f;
}

}  // namespace

int main() {
    Var x("x"), y("y"), xo("xo"), xi("xi"), yo("yo"), yi("yi"), tile_index("tile_index");
    int mismatches = 0;

    mismatches += run_and_check(make_func("plain"), "default: row by row");

    // Column by column: reorder makes y the innermost loop.
    Func columns = make_func("columns");
    columns.reorder(y, x);
    mismatches += run_and_check(columns, "reorder(y, x): column by column");

    // split and vectorize: 8 consecutive x at once in SIMD registers.
    Func vectors = make_func("vectors");
    vectors.split(x, xo, xi, 8).vectorize(xi);
    mismatches += run_and_check(vectors, "split(x, xo, xi, 8).vectorize(xi)");

    // vectorize(x, 8) is the shorthand for the same thing: x keeps the outer
    // part and the vectorized inner loop is named x_vi.
    Func vectors2 = make_func("vectors2");
    vectors2.vectorize(x, 8);
    mismatches += run_and_check(vectors2, "vectorize(x, 8)");

    // unroll(x, 4): split by 4 and write the inner loop's body out 4 times.
    Func unrolled = make_func("unrolled");
    unrolled.unroll(x, 4);
    mismatches += run_and_check(unrolled, "unroll(x, 4)");

    // parallel: rows are spread over threads (LOOM_NUM_THREADS, default:
    // the number of cores).
    Func rows = make_func("rows");
    rows.parallel(y);
    mismatches += run_and_check(rows, "parallel(y)");

    // tile: 16 x 8 tiles, each computed before the next, which keeps a
    // working set small; then vectorize inside the tile and run the tile
    // rows in parallel.
    Func tiled = make_func("tiled");
    tiled.tile(x, y, xo, yo, xi, yi, 16, 8).vectorize(xi, 8).parallel(yo);
    mismatches += run_and_check(tiled, "tile(x, y, xo, yo, xi, yi, 16, 8).vectorize(xi, 8).parallel(yo)");

    // fuse: one loop over all tiles, so parallel() has more tasks to share.
    Func fused_tiles = make_func("fused_tiles");
    fused_tiles.tile(x, y, xo, yo, xi, yi, 16, 8).fuse(xo, yo, tile_index).parallel(tile_index).vectorize(xi, 4);
    mismatches += run_and_check(fused_tiles, "tile, fuse(xo, yo, tile_index).parallel(tile_index), vectorize(xi, 4)");

    // A split factor need not divide the extent. For a pure definition the
    // default tail strategy (ShiftInwards) moves the last iteration back so
    // it overlaps the previous one: still every point, none out of bounds.
    Func ragged = make_func("ragged");
    ragged.split(x, xo, xi, 10).vectorize(xi);
    mismatches += run_and_check(ragged, "split(x, xo, xi, 10) over 64 columns: the tail shifts inwards");

    std::printf("%s: %d mismatches against the C++ loops\n", mismatches ? "FAILED" : "Success", mismatches);
    return mismatches ? 1 : 0;
}
