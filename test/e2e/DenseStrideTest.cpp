// Every buffer argument's innermost dimension must be dense (stride 1), as in
// Halide: the compiled code indexes dimension 0 with the constant 1, so a
// buffer with another stride there is refused on entry with an error that
// names it. Outer dimensions keep their run-time strides (padded rows work).

#include <vector>

#include "e2e/E2ETest.h"

using namespace loom;
using loom_test::contains;
using loom_test::expect_buffer_eq;
using loom_test::runtime_error_message;

namespace {

class DenseStride : public loom_test::BackendTest {};

/** A loom_buffer_t over caller memory with the given strides. */
loom_buffer_t raw_view(int32_t *data, loom_dimension_t *dims, int dimensions) {
    loom_buffer_t raw{};
    raw.host = reinterpret_cast<uint8_t *>(data);
    raw.type = loom_type_t{loom_type_int, 32, 1};
    raw.dimensions = dimensions;
    raw.dim = dims;
    return raw;
}


TEST_P(DenseStride, StridedInputIsRefusedByName) {
    Var x("x"), y("y");
    ImageParam in(Int(32), 2, "strided_in");
    Func f("reads_strided");
    f(x, y) = in(x, y) + 1;
    // Every other element of a 8x4 block: stride 2 in dimension 0.
    std::vector<int32_t> memory(8 * 4, 7);
    loom_dimension_t dims[2] = {{0, 4, 2, 0}, {0, 4, 8, 0}};
    in.set(Buffer<int>(raw_view(memory.data(), dims, 2), "strided_in"));
    std::string message = runtime_error_message([&] { f.realize({4, 4}); });
    EXPECT_TRUE(contains(message, "Input buffer strided_in has stride 2 in dimension 0")) << message;
    EXPECT_TRUE(contains(message, "innermost dimension must be dense")) << message;
}

TEST_P(DenseStride, StridedOutputIsRefusedByName) {
    Var x("x");
    Func f("strided_out");
    f(x) = x * 3;
    std::vector<int32_t> memory(16, 0);
    loom_dimension_t dims[1] = {{0, 8, 2, 0}};
    Buffer<int> out(raw_view(memory.data(), dims, 1));
    std::string message = runtime_error_message([&] { f.realize(out); });
    EXPECT_TRUE(contains(message, "Output buffer strided_out has stride 2 in dimension 0")) << message;
    for (int32_t v : memory) EXPECT_EQ(v, 0) << "nothing is written before the check";
}

TEST_P(DenseStride, PaddedRowsStillWork) {
    // Dense rows of 5 elements, 9 apart: only dimension 0 must be dense.
    Var x("x"), y("y");
    ImageParam in(Int(32), 2, "padded_in");
    Func f("reads_padded");
    f(x, y) = in(x, y) * 2 + in(x + 1, y);
    f.vectorize(x, 4);
    std::vector<int32_t> memory(9 * 3, -1);
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 5; i++) memory[j * 9 + i] = i * 10 + j;
    loom_dimension_t dims[2] = {{0, 5, 1, 0}, {0, 3, 9, 0}};
    in.set(Buffer<int>(raw_view(memory.data(), dims, 2), "padded_in"));
    Buffer<int> out = f.realize({4, 3});
    expect_buffer_eq(out, [](const std::vector<int> &p) { return (p[0] * 10 + p[1]) * 2 + (p[0] + 1) * 10 + p[1]; });
}

TEST_P(DenseStride, PaddedOutputRowsStillWork) {
    Var x("x"), y("y");
    Func f("padded_out");
    f(x, y) = x + 100 * y;
    f.vectorize(x, 4);
    std::vector<int32_t> memory(10 * 3, -1);
    loom_dimension_t dims[2] = {{0, 8, 1, 0}, {0, 3, 10, 0}};
    Buffer<int> out(raw_view(memory.data(), dims, 2));
    f.realize(out);
    for (int j = 0; j < 3; j++) {
        for (int i = 0; i < 10; i++) EXPECT_EQ(memory[j * 10 + i], i < 8 ? i + 100 * j : -1) << i << ", " << j;
    }
}

TEST_P(DenseStride, BoundsQueryStillAnswersWithDenseStrides) {
    Var x("x"), y("y");
    ImageParam in(Int(16), 2, "query_in");
    Func f("query");
    f(x, y) = in(x + 2, y - 1) + in(x, y + 1);
    f.vectorize(x, 8);
    f.infer_input_bounds({16, 4});
    Buffer<> bound = in.get();
    ASSERT_TRUE(bound.defined());
    EXPECT_EQ(bound.min(0), 0);
    EXPECT_EQ(bound.extent(0), 18);
    EXPECT_EQ(bound.stride(0), 1);
    EXPECT_EQ(bound.min(1), -1);
    EXPECT_EQ(bound.extent(1), 6);
    Buffer<int16_t> typed = bound;
    typed.for_each_element([&](int i, int j) { typed(i, j) = int16_t(i * 3 + j); });
    Buffer<int16_t> out = f.realize({16, 4});
    expect_buffer_eq(out, [](const std::vector<int> &p) {
        return int16_t((p[0] + 2) * 3 + p[1] - 1 + p[0] * 3 + p[1] + 1);
    });
}

TEST_P(DenseStride, MirroredReadsWithMaskedTail) {
    // in(12 - x) vectorized by 8 over 13 points: a reversed dense load, the
    // last vector masked.
    Var x("x"), y("y");
    ImageParam in(Int(32), 2, "mirror_in");
    Func f("mirrored");
    f(x, y) = in(12 - x, y) * 3 + x;
    f.vectorize(x, 8, TailStrategy::GuardWithIf);
    Buffer<int> data(13, 2);
    data.for_each_element([&](int i, int j) { data(i, j) = i * 7 - j; });
    in.set(data);
    Buffer<int> out = f.realize({13, 2});
    expect_buffer_eq(out, [](const std::vector<int> &p) { return ((12 - p[0]) * 7 - p[1]) * 3 + p[0]; });
}

LOOM_INSTANTIATE_BACKENDS(DenseStride);

}  // namespace
