// Interleaved images as Halide's lesson 16 schedules them (channels
// unrolled, x vectorized, stride 3 in x): vector loads and stores of a small
// constant stride, which lowering turns into dense accesses and shuffles
// (lower/DenseStridedAccesses.h), against plain C++ loops; and the lowered
// code has no strided ramp left.

#include "e2e/E2ETest.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace loom;

namespace {

class DenseStridedAccess : public loom_test::BackendTest {};

int count_of(const std::string &haystack, const std::string &needle) {
    int n = 0;
    for (size_t p = haystack.find(needle); p != std::string::npos; p = haystack.find(needle, p + 1)) n++;
    return n;
}

void make_interleaved_brighten(ImageParam &input, Func &brighter, int channels, int vector) {
    Var x("x"), y("y"), c("c");
    brighter(x, y, c) = input(x, y, c) + cast<uint8_t>(c * 10 + 3);
    input.dim(0).set_stride(channels).dim(2).set_stride(1).set_bounds(0, channels);
    brighter.output_buffer().dim(0).set_stride(channels).dim(2).set_stride(1).set_bounds(0, channels);
    brighter.reorder(c, x, y).bound(c, 0, channels).unroll(c).vectorize(x, vector);
}

TEST_P(DenseStridedAccess, InterleavedImagesOfTwoThreeAndFourChannels) {
    for (int channels : {2, 3, 4}) {
        ImageParam input(UInt(8), 3, "input");
        Func brighter("brighter");
        make_interleaved_brighten(input, brighter, channels, 16);
        const int w = 64, h = 5;
        Buffer<uint8_t> in = Buffer<uint8_t>::make_interleaved(w, h, channels);
        in.fill([](int x, int y, int c) { return static_cast<uint8_t>(x * 7 + y * 31 + c * 101); });
        Buffer<uint8_t> out = Buffer<uint8_t>::make_interleaved(w, h, channels);
        input.set(in);
        brighter.realize(out);
        loom_test::expect_buffer_eq(out, [&](const std::vector<int> &p) {
            return static_cast<uint8_t>(in(p[0], p[1], p[2]) + p[2] * 10 + 3);
        });
    }
}

TEST_P(DenseStridedAccess, StridedFloatLoadsAndAStoreThatIsNotAGroup) {
    // Loads of stride 2 (even and odd elements); a single strided store (no
    // group of stores to interleave) stays a strided store.
    const int n = 48;
    Buffer<float> in(2 * n + 1, "in");
    in.fill([](int i) { return i * 0.5f - 3.0f; });
    Var x("x");
    Func pairs("pairs");
    pairs(x) = in(2 * x) * 3.0f - in(2 * x + 1);
    pairs.vectorize(x, 8);
    Buffer<float> out = pairs.realize({n});
    loom_test::expect_buffer_eq(out, [&](const std::vector<int> &p) { return in(2 * p[0]) * 3.0f - in(2 * p[0] + 1); });

    Buffer<float> spread(2 * n, "spread");
    spread.fill(-1.0f);
    Func even("even");
    even(x) = in(x) + 1.0f;
    even.vectorize(x, 8);
    Buffer<float> even_view(spread.data(), std::vector<loom_dimension_t>{{0, n, 2, 0}}, "even_view");
    even.output_buffer().dim(0).set_stride(Expr());
    even.realize(even_view);
    for (int i = 0; i < 2 * n; i++) EXPECT_EQ(spread(i), i % 2 ? -1.0f : in(i / 2) + 1.0f) << i;
}

// x / 2 and x % 2 of a vector of x: its even and odd lanes are each a dense
// vector of the input (lower/DenseStridedAccesses.h), whatever the parity
// of the first x.
float upsampled(const Buffer<float> &in, int x) {
    const int half = x >= 0 ? x / 2 : (x - 1) / 2;  // floor
    const int odd = x - 2 * half;
    return 0.25f * in(half - 1 + 2 * odd) + 0.75f * in(half);
}

TEST_P(DenseStridedAccess, UpsamplingOfEvenAndOddStarts) {
    Buffer<float> in(32, "in");
    in.fill([](int i) { return i * 1.5f - 7.0f + (i % 3) * 0.25f; });
    Var x("x");
    Func up("up");
    up(x) = 0.25f * in(x / 2 - 1 + 2 * (x % 2)) + 0.75f * in(x / 2);
    up.vectorize(x, 8);
    for (int start : {2, 3, 4, 5}) {
        for (int width : {8, 17, 40}) {
            Buffer<float> out(width);
            out.set_min({start});
            up.realize(out);
            for (int i = start; i < start + width; i++) ASSERT_EQ(out(i), upsampled(in, i)) << start << " " << i;
        }
    }
}

TEST_P(DenseStridedAccess, DivisionByThreeOfAVectorIndex) {
    // Lanes 3 apart: x / 3 + x % 3 is x / 3 + c in the lanes c, c + 3, ...
    Buffer<int> in(40, "in");
    in.fill([](int i) { return i * i - 5 * i; });
    Var x("x");
    Func f("f");
    f(x) = in(x / 3 + x % 3) * 2 + in(x / 3);
    f.vectorize(x, 6);
    for (int start : {0, 1, 2, 7}) {
        Buffer<int> out(36);
        out.set_min({start});
        f.realize(out);
        for (int i = start; i < start + 36; i++) ASSERT_EQ(out(i), in(i / 3 + i % 3) * 2 + in(i / 3)) << start << " " << i;
    }
}

TEST_P(DenseStridedAccess, ClampedUpsamplingOfAnyWidth) {
    // repeat_edge around the upsampling: the steady state of the vectorized
    // loop drops the clamps (lower/PartitionLoops.h) and reads dense
    // vectors; the edges keep them.
    for (int n : {1, 2, 5, 9, 24}) {
        Buffer<float> in(n, "in");
        in.fill([](int i) { return i * 2.0f + 1.0f; });
        Var x("x");
        Func clamped = BoundaryConditions::repeat_edge(in);
        Func up("up");
        up(x) = 0.25f * clamped(x / 2 - 1 + 2 * (x % 2)) + 0.75f * clamped(x / 2);
        up.vectorize(x, 8);
        for (int start : {-3, 0, 1}) {
            Buffer<float> out(2 * n + 7);
            out.set_min({start});
            up.realize(out);
            auto at = [&](int i) { return in(std::min(std::max(i, 0), n - 1)); };
            for (int i = start; i < start + 2 * n + 7; i++) {
                const int half = i >= 0 ? i / 2 : (i - 1) / 2, odd = i - 2 * half;
                ASSERT_EQ(out(i), 0.25f * at(half - 1 + 2 * odd) + 0.75f * at(half)) << n << " " << start << " " << i;
            }
        }
    }
}

LOOM_INSTANTIATE_BACKENDS(DenseStridedAccess);

TEST(DenseStridedAccessCode, NoStridedRampIsLeft) {
    ImageParam input(UInt(8), 3, "input");
    Func brighter("brighter");
    make_interleaved_brighten(input, brighter, 3, 16);
    const std::string path = ::testing::TempDir() + "dense_strided.stmt";
    brighter.compile_to_lowered_stmt(path, {input});
    std::ifstream file(path);
    std::stringstream text;
    text << file.rdbuf();
    const std::string stmt = text.str();
    EXPECT_EQ(stmt.find(", 3, 16)"), std::string::npos) << stmt;   // no ramp(base, 3, 16) access
    EXPECT_NE(stmt.find(", 1, 48)"), std::string::npos) << stmt;   // one dense store of 48 bytes
    EXPECT_EQ(stmt.find(", 1, 46)"), std::string::npos) << stmt;   // the three channels share one load
    std::remove(path.c_str());
}

std::string lowered_stmt(Func f, const std::vector<Argument> &args, const std::string &name) {
    const std::string path = ::testing::TempDir() + name;
    f.compile_to_lowered_stmt(path, args);
    std::ifstream file(path);
    std::stringstream text;
    text << file.rdbuf();
    std::remove(path.c_str());
    return text.str();
}

TEST(DenseStridedAccessCode, ClampedUpsamplingLoadsHalfVectorsInItsSteadyState) {
    ImageParam in(Float(32), 1, "in");
    Var x("x");
    Func clamped = BoundaryConditions::repeat_edge(in);
    Func up("up");
    up(x) = 0.25f * clamped(x / 2 - 1 + 2 * (x % 2)) + 0.75f * clamped(x / 2);
    up.vectorize(x, 8);
    const std::string stmt = lowered_stmt(up, {in}, "upsampling.stmt");
    EXPECT_NE(stmt.find("up.s0.x.steady_min"), std::string::npos) << stmt;
    // Four dense loads of 4 lanes (even and odd lanes of both reads).
    EXPECT_GE(count_of(stmt, "in[ramp("), 4) << stmt;
    EXPECT_GE(count_of(stmt, ", 1, 4)]"), 4) << stmt;
}

}  // namespace
