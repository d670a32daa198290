// Interleaved images as Halide's lesson 16 schedules them (channels
// unrolled, x vectorized, stride 3 in x): vector loads and stores of a small
// constant stride, which lowering turns into dense accesses and shuffles
// (lower/DenseStridedAccesses.h), against plain C++ loops; and the lowered
// code has no strided ramp left.

#include "e2e/E2ETest.h"

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

using namespace loom;

namespace {

class DenseStridedAccess : public loom_test::BackendTest {};

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

}  // namespace
