// Function value bounds (lower/FunctionValueBounds.h) where only one side is
// bounded, for each element of a Tuple, and with endpoints that read an
// input's buffer fields. Each test checks the region of a table that
// infer_input_bounds reports (exactly what is read) and the values against a
// plain C++ loop, on each back end.

#include <algorithm>
#include <string>

#include "e2e/E2ETest.h"

using namespace loom;
using loom_test::expect_buffer_eq;

namespace {

class FuncValueBoundsSides : public loom_test::BackendTest {};

void expect_region(const Buffer<> &b, int min, int extent) {
    ASSERT_EQ(b.dimensions(), 1);
    EXPECT_EQ(b.min(0), min);
    EXPECT_EQ(b.extent(0), extent);
}

/** A table over [min, min + extent) whose entry i is 100 + 7 * i. */
Buffer<int> table(int min, int extent, const std::string &name) {
    Buffer<int> b(extent, name);
    b.set_min({min});
    b.for_each_element([&](int i) { b(i) = 100 + 7 * i; });
    return b;
}

int table_entry(int i) { return 100 + 7 * i; }

/** max(x - 3, 0) is bounded below only: a clamp to [-5, 9] reads [0, 9],
 * not the clamp's [-5, 9]. */
TEST_P(FuncValueBoundsSides, ALowerBoundNarrowsAClamp) {
    ImageParam lut(Int(32), 1, "lut");
    Var x("x");
    Func idx("idx"), out("out");
    idx(x) = max(x - 3, 0);
    out(x) = lut(clamp(idx(x), -5, 9));
    idx.compute_root();
    out.infer_input_bounds({16});
    expect_region(lut.get(), 0, 10);
    Buffer<int> t = table(0, 10, "t");
    lut.set(t);
    Buffer<int> result = out.realize({16});
    expect_buffer_eq(result, [](const std::vector<int> &p) { return table_entry(std::min(std::max(p[0] - 3, 0), 9)); });
}

/** An update that only adds keeps the lower bound of the values before it,
 * so min(idx, 9) is bounded on both sides (it was an error naming the
 * table before). */
TEST_P(FuncValueBoundsSides, AGrowingUpdateKeepsItsLowerBound) {
    ImageParam lut(Int(32), 1, "lut");
    Var x("x");
    RDom r(0, 3, "r");
    Func idx("idx"), out("out");
    idx(x) = x % 4;
    idx(r) = idx(r) + 5;
    out(x) = lut(min(idx(x), 9));
    idx.compute_root();
    out.infer_input_bounds({8});
    expect_region(lut.get(), 0, 10);
    Buffer<int> t = table(0, 10, "t");
    lut.set(t);
    Buffer<int> result = out.realize({8});
    expect_buffer_eq(result, [](const std::vector<int> &p) {
        int v = p[0] % 4 + (p[0] < 3 ? 5 : 0);
        return table_entry(std::min(v, 9));
    });
}

/** Each element of a Tuple indexes its own table, without a clamp; the
 * second element's update reads the first one's (final) bounds. */
TEST_P(FuncValueBoundsSides, EachTupleElementBoundsItsOwnIndex) {
    ImageParam lut0(Int(32), 1, "lut0"), lut1(Int(32), 1, "lut1");
    Var x("x");
    RDom r(0, 2, "r");
    Func pair("pair"), out("out");
    pair(x) = Tuple(x % 3, (x * 7) % 5 + 10);
    pair(r) = Tuple(pair(r)[0], pair(r)[0] + 20);
    out(x) = lut0(pair(x)[0]) + lut1(pair(x)[1]);
    pair.compute_root();
    out.infer_input_bounds({12});
    expect_region(lut0.get(), 0, 3);
    expect_region(lut1.get(), 10, 13);  // [10, 14] and [20, 22]
    Buffer<int> t0 = table(0, 3, "t0"), t1 = table(10, 13, "t1");
    lut0.set(t0);
    lut1.set(t1);
    Buffer<int> result = out.realize({12});
    expect_buffer_eq(result, [](const std::vector<int> &p) {
        const int first = p[0] % 3;
        const int second = p[0] < 2 ? first + 20 : (p[0] * 7) % 5 + 10;
        return table_entry(first) + table_entry(second);
    });
}

/** An index clamped to another input's rows (its dim(0).min() and max(),
 * only its shape is read): the table is read over those rows, not refused
 * as unbounded. */
TEST_P(FuncValueBoundsSides, EndpointsFromAnInputsBufferFields) {
    ImageParam lut(Int(32), 1, "lut"), rows(UInt(8), 1, "rows");
    Var x("x");
    Func idx("idx"), out("out");
    idx(x) = clamp(x * 2 - 5, rows.dim(0).min(), rows.dim(0).max());
    out(x) = lut(idx(x));
    idx.compute_root();
    Buffer<uint8_t> r(6, "r");
    r.set_min({3});
    rows.set(r);
    out.infer_input_bounds({10});
    expect_region(lut.get(), 3, 6);
    Buffer<int> t = table(3, 6, "t");
    lut.set(t);
    Buffer<int> result = out.realize({10});
    expect_buffer_eq(result, [](const std::vector<int> &p) {
        const int i = std::clamp(p[0] * 2 - 5, 3, 8);
        return table_entry(i);
    });
}

LOOM_INSTANTIATE_BACKENDS(FuncValueBoundsSides);

}  // namespace
