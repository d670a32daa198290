// realize(sizes) when the schedule or a scatter writes outside the region
// asked for: Loom asks the pipeline which region it writes (a bounds query
// on the outputs), realizes into buffers of that region and returns crops at
// the size asked for, as Halide does. Before, these realizes failed with
// "accessed beyond the max".

#include "E2ETest.h"

using namespace loom;
using namespace loom_test;

namespace {

class RealizeCrop : public BackendTest {};

TEST_P(RealizeCrop, RoundUpSplitOfTheOutput) {
    Func f("f");
    Var x("x"), xo("xo"), xi("xi");
    f(x) = x * 3 + 1;
    f.split(x, xo, xi, 8, TailStrategy::RoundUp);
    Buffer<int> r = f.realize({10});
    ASSERT_EQ(r.dimensions(), 1);
    EXPECT_EQ(r.dim(0).min(), 0);
    EXPECT_EQ(r.dim(0).extent(), 10);
    expect_buffer_eq(r, [](const std::vector<int> &p) { return p[0] * 3 + 1; });
}

TEST_P(RealizeCrop, RoundUpTilesIn2D) {
    Func f("f");
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    f(x, y) = x + 100 * y;
    f.tile(x, y, xo, yo, xi, yi, 4, 4, TailStrategy::RoundUp);
    Buffer<int> r = f.realize({6, 5});
    EXPECT_EQ(r.dim(0).extent(), 6);
    EXPECT_EQ(r.dim(1).extent(), 5);
    expect_buffer_eq(r, [](const std::vector<int> &p) { return p[0] + 100 * p[1]; });
}

TEST_P(RealizeCrop, ScatterBeyondTheRegionAskedFor) {
    Func f("f");
    Var x("x");
    RDom r(0, 5);
    f(x) = 0;
    f(r * 3) = r + 1;  // writes 0, 3, 6, 9, 12
    Buffer<int> out = f.realize({4});
    EXPECT_EQ(out.dim(0).extent(), 4);
    const int expected[4] = {1, 0, 0, 2};
    expect_buffer_eq(out, [&](const std::vector<int> &p) { return expected[p[0]]; });
}

TEST_P(RealizeCrop, TupleOutputsAreCroppedTogether) {
    Func f("f");
    Var x("x"), xo("xo"), xi("xi");
    f(x) = Tuple(x, cast<float>(x) * 0.5f);
    f.split(x, xo, xi, 4, TailStrategy::RoundUp);
    Realization r = f.realize({7});
    Buffer<int> a = r[0];
    Buffer<float> b = r[1];
    EXPECT_EQ(a.dim(0).extent(), 7);
    EXPECT_EQ(b.dim(0).extent(), 7);
    expect_buffer_eq(a, [](const std::vector<int> &p) { return p[0]; });
    expect_buffer_eq(b, [](const std::vector<int> &p) { return p[0] * 0.5f; });
}

TEST_P(RealizeCrop, AnExactScheduleAllocatesWhatWasAskedFor) {
    Func f("f");
    Var x("x"), xo("xo"), xi("xi");
    f(x) = x;
    f.split(x, xo, xi, 8, TailStrategy::GuardWithIf);
    Buffer<int> r = f.realize({10});
    EXPECT_EQ(r.dim(0).extent(), 10);
    // Not a crop: the buffer's storage is exactly 10 elements.
    EXPECT_EQ(r.size_in_bytes(), 10 * sizeof(int));
    expect_buffer_eq(r, [](const std::vector<int> &p) { return p[0]; });
}

TEST_P(RealizeCrop, RealizeIntoAGivenBufferStillReportsTheSmallBuffer) {
    // Into a buffer the caller made, nothing is cropped: the region is the
    // caller's, and a schedule that writes outside it is an error.
    Func f("f");
    Var x("x"), xo("xo"), xi("xi");
    f(x) = x;
    f.split(x, xo, xi, 8, TailStrategy::RoundUp);
    Buffer<int> out(10);
    try {
        f.realize(out);
        FAIL() << "expected a RuntimeError";
    } catch (const RuntimeError &e) {
        EXPECT_NE(std::string(e.what()).find("Output buffer f"), std::string::npos) << e.what();
    }
}

LOOM_INSTANTIATE_BACKENDS(RealizeCrop);

}  // namespace
