// Lesson 13: Tuples, several values per point.
//
// A Func may compute a Tuple: several values at each point, possibly of
// different types, computed in the same loops. f(x)[i] reads element i.
// Every definition of the Func gives a Tuple of the same size and types.
// realize() returns a Realization holding one Buffer per element.
//
// Tuples make reductions with several carried values natural: argmax keeps
// the best value and where it was, and both must be updated together.

#include <cmath>
#include <cstdio>

#include <loom/Loom.h>

using namespace loom;

int main() {
    Var x("x"), y("y");
    int mismatches = 0;

    // --- A Tuple-valued Func ----------------------------------------------
    Func pair("pair");
    pair(x, y) = Tuple(x + y, cast<float>(x) / 4.0f);
    Realization both = pair.realize({5, 3});
    Buffer<int> sums = both[0];
    Buffer<float> quarters = both[1];
    std::printf("pair(3, 2) = {%d, %g}\n", sums(3, 2), quarters(3, 2));
    for (int j = 0; j < 3; j++) {
        for (int i = 0; i < 5; i++) {
            if (sums(i, j) != i + j || quarters(i, j) != i / 4.0f) mismatches++;
        }
    }

    // Elements can be read separately by other Funcs.
    Func product("product");
    product(x, y) = cast<float>(pair(x, y)[0]) * pair(x, y)[1];
    Buffer<float> products = product.realize({5, 3});
    for (int j = 0; j < 3; j++) {
        for (int i = 0; i < 5; i++) {
            if (products(i, j) != float(i + j) * (i / 4.0f)) mismatches++;
        }
    }

    // --- argmax: a reduction carrying two values ----------------------------
    Buffer<int> values(10);
    const int samples[10] = {3, 9, 2, 14, 7, 14, 1, 0, 11, 5};
    for (int i = 0; i < 10; i++) values(i) = samples[i];
    Func best("best");
    RDom r(0, 10, "r");
    best() = Tuple(0, values(0));  // {index, value}
    Expr better = values(r) > best()[1];
    best() = Tuple(select(better, r, best()[0]), select(better, values(r), best()[1]));
    Realization found = best.realize();
    int best_index = Buffer<int>(found[0])();
    int best_value = Buffer<int>(found[1])();
    int expected_index = 0;
    for (int i = 1; i < 10; i++) {
        if (samples[i] > samples[expected_index]) expected_index = i;
    }
    std::printf("argmax: values[%d] = %d (C++: values[%d] = %d)\n", best_index, best_value, expected_index,
                samples[expected_index]);
    if (best_index != expected_index || best_value != samples[expected_index]) mismatches++;

    // --- Updating one element ------------------------------------------------
    // Assigning to f(x)[i] updates element i and keeps the others.
    Func stats("stats");
    stats(x) = Tuple(x, x * x);
    stats(x)[1] += 100;
    Realization s = stats.realize({4});
    Buffer<int> first = s[0], second = s[1];
    for (int i = 0; i < 4; i++) {
        if (first(i) != i || second(i) != i * i + 100) mismatches++;
    }

    // --- Complex numbers: a Tuple as a small struct ---------------------------
    // z(x) is the unit complex number e^(i t) with t = x / 10, as (re, im).
    // Each update squares it, reading both elements of the old value, so
    // after two updates z(x) is e^(4 i t).
    Func z("z");
    z(x) = Tuple(cos(x * 0.1f), sin(x * 0.1f));
    for (int update = 0; update < 2; update++) {
        Expr re = z(x)[0], im = z(x)[1];
        z(x) = Tuple(re * re - im * im, 2.0f * re * im);
    }
    Realization zs = z.realize({8});
    Buffer<float> real = zs[0], imaginary = zs[1];
    for (int i = 0; i < 8; i++) {
        float t = 4 * i * 0.1f;
        if (std::fabs(real(i) - std::cos(t)) > 1e-5f || std::fabs(imaginary(i) - std::sin(t)) > 1e-5f) {
            mismatches++;
        }
    }
    std::printf("z(5) = %g + %g i (C++: %g + %g i)\n", real(5), imaginary(5), std::cos(2.0f), std::sin(2.0f));

    std::printf("%s: %d mismatches against the C++ loops\n", mismatches ? "FAILED" : "Success", mismatches);
    return mismatches ? 1 : 0;
}
