// Lesson 9: update definitions and reductions.
//
// After its pure definition, a Func may have any number of *update
// definitions*, applied in order. An update may read the Func itself and
// may iterate over a reduction domain (RDom): a box of integer points whose
// variables (RVars) run in order, the first innermost, like nested loops
// written by hand. This is how sums, histograms, scans and recurrences are
// written.
//
//   f(x) = 0;                  pure definition: f everywhere
//   f(x) += g(x, r);           an update: a sum over the RDom r
//   f(r) = f(r - 1) + ...;     an update that reads earlier results
//
// Pure Vars in an update must appear bare, in their places; RDom.where()
// keeps only the points where a condition holds.

#include <cstdio>

#include <loom/Loom.h>

using namespace loom;

int main() {
    Var x("x"), y("y");
    int mismatches = 0;

    // --- Updates without an RDom --------------------------------------------
    // Each update runs over the whole domain of the Func, after the previous.
    Func f("f");
    f(x) = x;             // pure definition
    f(x) = f(x) * 10;     // update 0
    f(3) = 99;            // update 1: a single point
    Buffer<int> fv = f.realize({5});
    std::printf("f: ");
    for (int i = 0; i < 5; i++) {
        std::printf("%d ", fv(i));
        if (fv(i) != (i == 3 ? 99 : i * 10)) mismatches++;
    }
    std::printf("\n");

    // --- A sum over an RDom ---------------------------------------------------
    // row_sum(y) adds up 8 values of a row; the RDom r is the loop over them.
    Buffer<int> data(8, 3);
    data.for_each_element([&](int i, int j) { data(i, j) = i * i - j; });
    Func row_sum("row_sum");
    RDom r(0, 8, "r");
    row_sum(y) = 0;
    row_sum(y) += data(r, y);
    Buffer<int> sums = row_sum.realize({3});
    for (int j = 0; j < 3; j++) {
        int expected = 0;
        for (int i = 0; i < 8; i++) expected += data(i, j);
        if (sums(j) != expected) mismatches++;
        std::printf("row_sum(%d) = %d (C++: %d)\n", j, sums(j), expected);
    }

    // --- Fibonacci: an update that reads earlier results ---------------------
    // The RDom runs k = 2, 3, ... in order, so fib(k - 1) and fib(k - 2) are
    // already final when fib(k) is computed.
    Func fib("fib");
    fib(x) = 1;
    RDom k(2, 18, "k");
    fib(k) = fib(k - 1) + fib(k - 2);
    Buffer<int> fibs = fib.realize({20});
    int a = 1, b = 1;
    std::printf("fib: 1 1");
    for (int i = 2; i < 20; i++) {
        int next = a + b;
        a = b;
        b = next;
        if (fibs(i) != next) mismatches++;
        std::printf(" %d", fibs(i));
    }
    std::printf("\n");

    // --- A histogram: a scatter ----------------------------------------------
    // The left-hand side may be computed from data. Bounds inference cannot
    // know which bins data selects, so clamp the index: it promises the bins
    // stay in [0, 7].
    Buffer<uint8_t> image(16, 16);
    image.for_each_element([&](int i, int j) { image(i, j) = (uint8_t)((i * 13 + j * 29) % 64); });
    Func histogram("histogram");
    histogram(x) = 0;
    RDom pixel(image);  // every coordinate of the image
    histogram(clamp(cast<int>(image(pixel.x, pixel.y)) / 8, 0, 7)) += 1;
    Buffer<int> hist = histogram.realize({8});
    int counts[8] = {0};
    for (int j = 0; j < 16; j++) {
        for (int i = 0; i < 16; i++) counts[image(i, j) / 8]++;
    }
    std::printf("histogram:");
    for (int bin = 0; bin < 8; bin++) {
        std::printf(" %d", hist(bin));
        if (hist(bin) != counts[bin]) mismatches++;
    }
    std::printf("\n");

    // --- RDom::where: a triangular domain -------------------------------------
    // Sum of data(i, j) over the points with i < 2 * j only.
    RDom tri(0, 8, 0, 3, "tri");
    tri.where(tri.x < 2 * tri.y);
    Func triangle("triangle");
    triangle() = 0;
    triangle() += data(tri.x, tri.y);
    int triangle_sum = Buffer<int>(triangle.realize())();
    int expected_triangle = 0;
    for (int j = 0; j < 3; j++) {
        for (int i = 0; i < 8; i++) {
            if (i < 2 * j) expected_triangle += data(i, j);
        }
    }
    std::printf("sum over tri.x < 2 * tri.y: %d (C++: %d)\n", triangle_sum, expected_triangle);
    if (triangle_sum != expected_triangle) mismatches++;

    // --- A summed-area table: two scans ----------------------------------------
    // sat(x, y) = sum of image over [0, x] x [0, y]. First a running sum
    // along each row (over rx), then along each column (over ry). Each
    // update keeps the other coordinate as a pure Var.
    const int w = 16, h = 16;
    Func sat("sat");
    sat(x, y) = cast<int>(image(x, y));
    RDom rx(1, w - 1, "rx"), ry(1, h - 1, "ry");
    sat(rx, y) += sat(rx - 1, y);
    sat(x, ry) += sat(x, ry - 1);
    Buffer<int> table = sat.realize({w, h});
    int expected_sat[16][16];
    for (int j = 0; j < h; j++) {
        for (int i = 0; i < w; i++) {
            int value = image(i, j);
            if (i > 0) value += expected_sat[j][i - 1];
            if (j > 0) value += expected_sat[j - 1][i];
            if (i > 0 && j > 0) value -= expected_sat[j - 1][i - 1];
            expected_sat[j][i] = value;
            if (table(i, j) != value) mismatches++;
        }
    }
    std::printf("summed-area table: sat(15, 15) = %d, the sum of all pixels (C++: %d)\n", table(15, 15),
                expected_sat[15][15]);

    // Updates have loop nests too: each stage appears in print_loop_nest,
    // and update(n) is the Stage to schedule (here: the column scan may
    // vectorize across x, which is independent).
    sat.update(1).vectorize(x, 4);
    std::printf("\nLoop nest of sat (update 1 vectorized over x):\n");
    sat.print_loop_nest();
    Buffer<int> table2 = sat.realize({w, h});
    for (int j = 0; j < h; j++) {
        for (int i = 0; i < w; i++) {
            if (table2(i, j) != expected_sat[j][i]) mismatches++;
        }
    }

    std::printf("%s: %d mismatches against the C++ loops\n", mismatches ? "FAILED" : "Success", mismatches);
    return mismatches ? 1 : 0;
}
