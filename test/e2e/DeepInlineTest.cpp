// Long chains of inlined Funcs that read their predecessor several times.
// Inlined, Func k is three copies of Func k - 1: as a tree the expression
// doubles or triples per Func, though the Exprs are shared. Lowering binds
// the repeated subexpressions by Lets (ir/CSE.h) and the vectorizer keeps
// vector lets of values, so 40 Funcs lower and compile at once, and compute
// the same values as the C++ loop.

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

LOOM_INSTANTIATE_BACKENDS(DeepInline);

}  // namespace
