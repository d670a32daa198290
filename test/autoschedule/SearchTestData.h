// Inputs and costly expressions shared by the search tests (SearchTest,
// SearchSpaceTest): each with its C++ twin for the reference loops.
#ifndef LOOM_TEST_AUTOSCHEDULE_SEARCH_TEST_DATA_H
#define LOOM_TEST_AUTOSCHEDULE_SEARCH_TEST_DATA_H

#include <loom/Loom.h>

namespace loom_test {

/** A w x h image of small values of both signs. */
inline loom::Buffer<int> ramp(int w, int h) {
    loom::Buffer<int> b(w, h);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) b(x, y) = (x * 7 + y * 13) % 31 - 9;
    }
    return b;
}

/** A value of v with 2 * n operations that nothing folds, and its C++
 * twin; it stays far from overflow for the n the tests use. */
inline loom::Expr expensive(loom::Expr v, int n) {
    for (int i = 0; i < n; i++) v = (i % 2) ? (v * 3) ^ i : (v >> 1) + i;
    return v;
}
inline int expensive(int v, int n) {
    for (int i = 0; i < n; i++) v = (i % 2) ? (v * 3) ^ i : (v >> 1) + i;
    return v;
}

}  // namespace loom_test

#endif
