// Long chains of inlined Funcs that read their predecessor several times.
// Inlined, Func k is three copies of Func k - 1: as a tree the expression
// doubles or triples per Func, though the Exprs are shared. Lowering binds
// the repeated subexpressions by Lets (ir/CSE.h) and the vectorizer keeps
// vector lets of values, so 40 Funcs lower and compile at once, and compute
// the same values as the C++ loop. Read at neighbouring points (x - 1, x,
// x + 1), Func k needs Func j at 2(k - j) + 1 points: the inliner
// instantiates each such point once (lower/Stages.cpp), so the statement
// grows with the square of the chain's length, not as 3^k.

#include <algorithm>

#include "e2e/E2ETest.h"

using namespace loom;
using loom_test::expect_buffer_eq;

namespace {

class DeepInline : public loom_test::BackendTest {};

constexpr int kChain = 40;

float select_chain_reference(float v) {
    for (int i = 1; i <= kChain; i++) v = v > 0.5f ? v - 0.25f : v * 1.5f + 0.125f;
    return v;
}

// f_k = select(f_{k-1} > 0.5, f_{k-1} - 0.25, f_{k-1} * 1.5 + 0.125), vectorized.
TEST_P(DeepInline, SelectsReadingThePreviousFuncThreeTimes) {
    Var x("x"), y("y");
    Buffer<float> in(37, 5, "in");
    in.for_each_element([&](int i, int j) { in(i, j) = float((i * 7 + j * 3) % 11) / 10.0f; });
    Func prev("f0");
    prev(x, y) = in(x, y);
    for (int k = 1; k <= kChain; k++) {
        Func f("f" + std::to_string(k));
        f(x, y) = select(prev(x, y) > 0.5f, prev(x, y) - 0.25f, prev(x, y) * 1.5f + 0.125f);
        prev = f;
    }
    prev.vectorize(x, 8, TailStrategy::GuardWithIf);
    Buffer<float> out = prev.realize({37, 5});
    expect_buffer_eq(out, [&](const std::vector<int> &p) { return select_chain_reference(in(p[0], p[1])); });
    // Each Func is computed once in the statement, not copied 3^40 times.
    EXPECT_LT(loom_test::lowered_stmt(prev, "deep_select_chain").size(), 100000u);
}

// g_k(x) = g_{k-1}(x) + g_{k-1}(x) * g_{k-1}(x) % 7, in wrapping int32.
TEST_P(DeepInline, IntegerArithmeticReadingThePreviousFuncThreeTimes) {
    Var x("x");
    Func prev("g0");
    prev(x) = x % 5 - 2;
    for (int k = 1; k <= kChain; k++) {
        Func g("g" + std::to_string(k));
        g(x) = prev(x) + prev(x) * prev(x) % 7;
        prev = g;
    }
    Buffer<int> out = prev.realize({19});
    expect_buffer_eq(out, [&](const std::vector<int> &p) {
        auto mod = [](int64_t a, int64_t b) { return ((a % b) + b) % b; };  // Euclidean, as in Loom
        int32_t v = int32_t(mod(p[0], 5) - 2);
        for (int k = 1; k <= kChain; k++) {
            int32_t sq = int32_t(uint32_t(v) * uint32_t(v));
            v = int32_t(uint32_t(v) + uint32_t(mod(sq, 7)));
        }
        return v;
    });
}

// g_k(x) = select(g_{k-1}(x) > x, g_{k-1}(x - 1), g_{k-1}(x + 1)) - 1, the
// last one vectorized by vector_width when it is over 1.
Func neighbour_select_chain(const Buffer<int> &in, int length, int vector_width) {
    Var x("x");
    Func prev("g0");
    prev(x) = in(clamp(x, 0, in.width() - 1));
    for (int k = 1; k <= length; k++) {
        Func g("g" + std::to_string(k));
        g(x) = select(prev(x) > x, prev(x - 1), prev(x + 1)) - 1;
        prev = g;
    }
    if (vector_width > 1) prev.vectorize(x, vector_width, TailStrategy::GuardWithIf);
    return prev;
}

int neighbour_select_reference(const Buffer<int> &in, int k, int x) {
    if (k == 0) return in(std::clamp(x, 0, in.width() - 1));
    const int here = neighbour_select_reference(in, k - 1, x);
    return (here > x ? neighbour_select_reference(in, k - 1, x - 1) : neighbour_select_reference(in, k - 1, x + 1)) - 1;
}

TEST_P(DeepInline, SelectsReadingThePreviousFuncAtNeighbouringPoints) {
    Buffer<int> in(23, "in");
    in.for_each_element([&](int i) { in(i) = (i * 7) % 13 - 2; });
    // Scalar, and vectorized: the vectorizer keeps the chain's big integer
    // lets bound instead of substituting them into each use.
    for (int vector_width : {1, 8}) {
        SCOPED_TRACE(vector_width);
        // As a tree, 10 Funcs are 3^10 copies of the input read (3 MB of
        // statement scalar and 11 MB vectorized, before the inliner shared
        // the points it instantiates and the vectorizer kept the lets; 24
        // Funcs did not lower in minutes).
        Func ten = neighbour_select_chain(in, 10, vector_width);
        ASSERT_LT(loom_test::lowered_stmt(ten, "neighbour_select_chain").size(), 300000u);
        constexpr int kLength = 24;
        Buffer<int> out = neighbour_select_chain(in, kLength, vector_width).realize({19});
        // The reference follows one path of the selects per point: 24 levels.
        expect_buffer_eq(out,
                         [&](const std::vector<int> &p) { return neighbour_select_reference(in, kLength, p[0]); });
    }
}

LOOM_INSTANTIATE_BACKENDS(DeepInline);

}  // namespace
