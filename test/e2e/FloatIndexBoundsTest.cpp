// Indices computed through float math: a cast to int of a floor, ceil or
// plain product of the loop variable. Float-to-int casts truncate and
// saturate, and floor/ceil/round/trunc never decrease, so bounds inference
// bounds such indices exactly instead of refusing them; the region
// infer_input_bounds reports is exactly what the pipeline reads.

#include <cmath>

#include "e2e/E2ETest.h"

using namespace loom;
using loom_test::expect_buffer_eq;

namespace {

class FloatIndexBounds : public loom_test::BackendTest {};

constexpr int W = 21;

Buffer<int> ramp(int n) {
    Buffer<int> b(n, "input");
    b.for_each_element([&](int i) { b(i) = i * 7 % 13; });
    return b;
}

void expect_region(const Buffer<> &b, int min, int extent) {
    ASSERT_EQ(b.dimensions(), 1);
    EXPECT_EQ(b.min(0), min);
    EXPECT_EQ(b.extent(0), extent);
}

TEST_P(FloatIndexBounds, CastOfFloorOfHalf) {
    ImageParam in(Int(32), 1, "in");
    Var x("x");
    Func f("f");
    f(x) = in(cast<int>(floor(cast<float>(x) * 0.5f))) + x;
    f.infer_input_bounds({W});
    expect_region(in.get(), 0, W / 2 + 1);  // floor(20 / 2) = 10
    Buffer<int> input = ramp(W / 2 + 1);
    in.set(input);
    Buffer<int> out = f.realize({W});
    expect_buffer_eq(out, [&](const std::vector<int> &p) { return input(p[0] / 2) + p[0]; });
}

TEST_P(FloatIndexBounds, CastOfCeilOfAShiftedThird) {
    ImageParam in(Int(32), 1, "in");
    Var x("x");
    Func f("f");
    f(x) = in(cast<int>(ceil(cast<float>(x) / 3.0f + 0.5f)));
    f.vectorize(x, 4, TailStrategy::GuardWithIf);
    f.infer_input_bounds({W});
    expect_region(in.get(), 1, 8);  // ceil(0.5) = 1 .. ceil(20/3 + 0.5) = 8
    Buffer<int> input = ramp(9);
    in.set(input);
    Buffer<int> out = f.realize({W});
    expect_buffer_eq(out, [&](const std::vector<int> &p) {
        return input((int)std::ceil((float)p[0] / 3.0f + 0.5f));
    });
}

TEST_P(FloatIndexBounds, TruncatingCastOfAProduct) {
    ImageParam in(Int(32), 1, "in");
    Var x("x");
    Func f("f");
    f(x) = in(cast<int>(cast<float>(x) * 1.5f) - 2);
    f.infer_input_bounds({W});
    expect_region(in.get(), -2, 31);  // int(20 * 1.5) - 2 = 28
    Buffer<int> input(31, "input");
    input.set_min({-2});
    input.for_each_element([&](int i) { input(i) = i * 3; });
    in.set(input);
    Buffer<int> out = f.realize({W});
    expect_buffer_eq(out, [&](const std::vector<int> &p) { return input((int)((float)p[0] * 1.5f) - 2); });
}

LOOM_INSTANTIATE_BACKENDS(FloatIndexBounds);

}  // namespace
