// Lesson 6: realizing over a domain that does not start at zero.
//
// f.realize({w, h}) computes f over [0, w) x [0, h). A Func is defined
// everywhere, though, so any window of it can be computed: make a Buffer,
// move its origin with set_min(), and realize into it. The pipeline then
// computes exactly the coordinates the buffer covers. Coordinates are always
// absolute: element (100, 50) of a buffer whose min is (100, 50) is its
// first element in memory.
//
// Input buffers may be shifted too: a pipeline reads an input at absolute
// coordinates, and Loom checks the input covers what is read.

#include <cstdio>

#include <loom/Loom.h>

using namespace loom;

int main() {
    Var x("x"), y("y");
    int mismatches = 0;

    Func gradient("gradient");
    gradient(x, y) = x + y * 1000;

    // A 5 x 3 window whose top-left corner is (100, 50).
    Buffer<int> window(5, 3);
    window.set_min(100, 50);
    gradient.realize(window);
    std::printf("window covers x in [%d, %d], y in [%d, %d]\n", window.min(0), window.min(0) + window.extent(0) - 1,
                window.min(1), window.min(1) + window.extent(1) - 1);
    for (int j = window.min(1); j < window.min(1) + window.height(); j++) {
        for (int i = window.min(0); i < window.min(0) + window.width(); i++) {
            std::printf("%6d", window(i, j));
            if (window(i, j) != i + j * 1000) mismatches++;
        }
        std::printf("\n");
    }
    // The first element in memory is gradient(100, 50).
    if (window.data()[0] != 100 + 50 * 1000) mismatches++;

    // Negative origins work the same way: a window centred on (0, 0).
    Buffer<int> centred(4, 4);
    centred.set_min(-2, -2);
    gradient.realize(centred);
    for (int j = -2; j < 2; j++) {
        for (int i = -2; i < 2; i++) {
            if (centred(i, j) != i + j * 1000) mismatches++;
        }
    }

    // A shifted input. tile holds rows 10..13 and columns 20..27 of some
    // larger picture; a pipeline reads it at those absolute coordinates.
    // Naming a buffer makes error messages name it too.
    Buffer<float> tile({8, 4}, "tile");
    tile.set_min(20, 10);
    tile.for_each_element([&](int i, int j) { tile(i, j) = i * 0.5f + j; });
    Func brighter("brighter");
    brighter(x, y) = tile(x, y) * 2.0f;
    Buffer<float> out(8, 4);
    out.set_min(20, 10);
    brighter.realize(out);
    for (int j = 10; j < 14; j++) {
        for (int i = 20; i < 28; i++) {
            if (out(i, j) != (i * 0.5f + j) * 2.0f) mismatches++;
        }
    }

    // Asking for a window the input does not cover is refused before any
    // memory is touched: tile has no column 19.
    Buffer<float> too_far(8, 4);
    too_far.set_min(19, 10);
    bool refused = false;
    try {
        brighter.realize(too_far);
    } catch (const RuntimeError &e) {
        refused = true;
        std::printf("A window one column too far left is refused:\n  %s\n", e.what());
    }
    if (!refused) mismatches++;

    std::printf("%s: %d mismatches against the C++ loops\n", mismatches ? "FAILED" : "Success", mismatches);
    return mismatches ? 1 : 0;
}
