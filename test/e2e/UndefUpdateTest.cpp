// undef<T>() in update definitions (Halide's semantics): a value that is
// undef leaves the Func's value at that point unchanged, so an update can
// write only some elements of a Tuple. Checked against C++ loops on every
// back end.

#include "e2e/E2ETest.h"

using namespace loom;
using loom_test::compile_error_message;
using loom_test::contains;

namespace {

class UndefUpdate : public loom_test::BackendTest {};

TEST_P(UndefUpdate, WholeUpdateLeavesTheValue) {
    Var x("x");
    Func f("f");
    f(x) = x * 3;
    f(x) = undef<int>();
    f(x) += 1;
    Buffer<int> out = f.realize({20});
    loom_test::expect_buffer_eq(out, [](const std::vector<int> &p) { return p[0] * 3 + 1; });
}

TEST_P(UndefUpdate, TupleUpdateWritesSomeElements) {
    Var x("x");
    RDom r(0, 10, "r");
    Func f("pair");
    f(x) = Tuple(x, x * 2);
    // Element 0 stays; element 1 becomes element 0 + 100 over [0, 10).
    f(r) = Tuple(undef<int>(), f(r)[0] + 100);
    // Element 1 stays; element 0 is doubled everywhere.
    f(x) = Tuple(f(x)[0] * 2, undef<int>());
    Realization out = f.realize({16});
    Buffer<int> a = out[0], b = out[1];
    loom_test::expect_buffer_eq(a, [](const std::vector<int> &p) { return p[0] * 2; });
    loom_test::expect_buffer_eq(b, [](const std::vector<int> &p) { return p[0] < 10 ? p[0] + 100 : p[0] * 2; });
}

TEST_P(UndefUpdate, ArgMinKeepsTheIndexWhereNotImproved) {
    // A running minimum with its position: the position is written only
    // where the value improves, through select on the value and undef
    // nowhere else; the count element is left undef by the second update.
    const int n = 50;
    Func in("in");
    Var x("x");
    in(x) = ((x * 37 + 11) % 23) - 7;
    in.compute_root();
    RDom r(0, n, "r");
    Func best("best");
    best() = Tuple(1 << 30, -1, 0);
    best() = Tuple(min(best()[0], in(r)), select(in(r) < best()[0], r, best()[1]), best()[2] + 1);
    best() = Tuple(undef<int>(), undef<int>(), best()[2] * 10);
    Realization out = best.realize();
    Buffer<int> v = out[0], at = out[1], count = out[2];
    int ref_v = 1 << 30, ref_at = -1;
    for (int i = 0; i < n; i++) {
        int value = ((i * 37 + 11) % 23) - 7;
        if (value < ref_v) {
            ref_v = value;
            ref_at = i;
        }
    }
    EXPECT_EQ(v(), ref_v);
    EXPECT_EQ(at(), ref_at);
    EXPECT_EQ(count(), n * 10);
}

TEST_P(UndefUpdate, ScheduledUpdate) {
    Var x("x"), y("y"), xi("xi");
    Func f("f");
    f(x, y) = x + y * 100;
    f(x, y) = undef<int>();
    f(x, y) = f(x, y) * 2;
    f.update(0).vectorize(x, 4);
    f.update(1).split(x, x, xi, 8, TailStrategy::GuardWithIf).parallel(y);
    Buffer<int> out = f.realize({24, 5});
    loom_test::expect_buffer_eq(out, [](const std::vector<int> &p) { return (p[0] + p[1] * 100) * 2; });
}

LOOM_INSTANTIATE_BACKENDS(UndefUpdate);

TEST(UndefUpdateErrors, UndefInsideAnExpression) {
    Var x("x");
    Func f("f");
    f(x) = x;
    EXPECT_TRUE(contains(compile_error_message([&] { f(x) = undef<int>() + 1; }), "inside an expression"));
    Func g("g");
    g(x) = 1.0f;
    EXPECT_TRUE(contains(compile_error_message([&] { g(x) = undef<int>(); }), "Cast the value"));
}

}  // namespace
