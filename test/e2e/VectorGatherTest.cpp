// Vector loads that are not dense: a constant-stride index (a column of an
// image, a downsampling, a reversal by two) and a data-dependent index into a
// table of bytes or 16-bit values (histogram_equalize's lookup). The LLVM
// back end loads these one lane at a time, as Halide does on x86; a masked
// gather remains for wider elements. Every result is compared with a plain
// C++ loop, with vector widths the extents do not divide.

#include <cstdint>
#include <vector>

#include "e2e/E2ETest.h"

using namespace loom;

namespace {

class VectorGather : public loom_test::BackendTest {};

TEST_P(VectorGather, ConstantStrideLoads) {
    Var x("x");
    ImageParam in(Int(32), 1, "stride_in");
    Func f("stride3"), g("stride_minus2");
    // Strides 3 (with an offset) and -2.
    f(x) = in(3 * x) + in(3 * x + 2) * 10;
    g(x) = in(40 - 2 * x);
    f.vectorize(x, 8);
    g.vectorize(x, 16);
    Buffer<int> data(64);
    for (int i = 0; i < 64; i++) data(i) = i * 7 % 23 - 5;
    in.set(data);
    Buffer<int> out_f = f.realize({19});
    Buffer<int> out_g = g.realize({21});
    for (int i = 0; i < 19; i++) EXPECT_EQ(out_f(i), data(3 * i) + data(3 * i + 2) * 10) << "x = " << i;
    for (int i = 0; i < 21; i++) EXPECT_EQ(out_g(i), data(40 - 2 * i)) << "x = " << i;
}

TEST_P(VectorGather, ColumnOfAnImage) {
    // A transpose reads down a column: stride = the row length.
    Var x("x"), y("y");
    ImageParam in(Float(32), 2, "column_in");
    Func t("transposed");
    t(x, y) = in(y, x);
    t.vectorize(x, 16);
    Buffer<float> data(13, 37);
    data.for_each_element([&](int i, int j) { data(i, j) = float(i * 100 + j); });
    in.set(data);
    Buffer<float> out = t.realize({37, 13});
    for (int j = 0; j < 13; j++)
        for (int i = 0; i < 37; i++) ASSERT_EQ(out(i, j), data(j, i)) << i << ", " << j;
}

TEST_P(VectorGather, ByteAndShortTableLookups) {
    Var x("x");
    ImageParam pixels(UInt(8), 1, "lookup_pixels");
    ImageParam bytes(UInt(8), 1, "byte_table"), shorts(UInt(16), 1, "short_table");
    Func b("byte_lookup"), s("short_lookup");
    b(x) = bytes(cast<int>(pixels(x)));
    s(x) = shorts(cast<int>(pixels(x)) / 2 + 3);
    b.vectorize(x, 32);
    s.vectorize(x, 8);
    Buffer<uint8_t> p(100), bt(256);
    Buffer<uint16_t> st(256);
    for (int i = 0; i < 100; i++) p(i) = static_cast<uint8_t>(i * 53 + 11);
    for (int i = 0; i < 256; i++) {
        bt(i) = static_cast<uint8_t>(255 - i);
        st(i) = static_cast<uint16_t>(i * 257 + 1);
    }
    pixels.set(p);
    bytes.set(bt);
    shorts.set(st);
    Buffer<uint8_t> out_b = b.realize({99});
    Buffer<uint16_t> out_s = s.realize({99});
    for (int i = 0; i < 99; i++) {
        EXPECT_EQ(out_b(i), bt(p(i))) << "x = " << i;
        EXPECT_EQ(out_s(i), st(p(i) / 2 + 3)) << "x = " << i;
    }
}

}  // namespace

LOOM_INSTANTIATE_BACKENDS(VectorGather);
