// A zero-dimensional Func (a scalar reduction) read by another Func, with the
// default schedule and computed at root. Lowering used to stop with an
// InternalError ("computed but not used") because the region of a 0-D Func
// is an empty box even where it is used.

#include "E2ETest.h"

namespace {

using namespace loom;

class ZeroDimensionalFunc : public loom_test::BackendTest {};

int sum_to(int n) { return n * (n - 1) / 2; }

TEST_P(ZeroDimensionalFunc, ScalarReductionReadByAPureFunc) {
    for (bool root : {false, true}) {
        Func total("total"), out("out");
        Var x("x");
        RDom r(0, 10, "r");
        total() = 0;
        total() += r;
        out(x) = x + total();
        if (root) total.compute_root();
        Buffer<int> result = out.realize({8});
        for (int i = 0; i < 8; i++) EXPECT_EQ(result(i), i + sum_to(10)) << "root=" << root << " x=" << i;
    }
}

TEST_P(ZeroDimensionalFunc, ScalarOfAnInputUsedInA2DStage) {
    Buffer<int> in(6, 5);
    for (int y = 0; y < 5; y++)
        for (int x = 0; x < 6; x++) in(x, y) = 3 * x - 2 * y;
    Func smallest("smallest"), shifted("shifted");
    Var x("x"), y("y");
    RDom r(0, 6, 0, 5, "r");
    smallest() = 1000;
    smallest() = min(smallest(), in(r.x, r.y));
    shifted(x, y) = in(x, y) - smallest();
    smallest.compute_root();
    Buffer<int> result = shifted.realize({6, 5});
    int lowest = 1000;
    for (int y = 0; y < 5; y++)
        for (int x = 0; x < 6; x++) lowest = std::min(lowest, in(x, y));
    for (int y = 0; y < 5; y++)
        for (int x = 0; x < 6; x++) EXPECT_EQ(result(x, y), in(x, y) - lowest) << x << "," << y;
}

LOOM_INSTANTIATE_BACKENDS(ZeroDimensionalFunc);

}  // namespace
