// Indices read from a Func computed out of line (lower/FunctionValueBounds.h):
// bounds inference bounds them by the values that Func computes, as it does
// when the Func is inlined into the index. Each test checks the region of an
// input that infer_input_bounds reports (exactly what is read) and the values
// against a plain C++ loop; the last ones are Funcs whose values can't be
// bounded, which keep the clamp's region (or the error) they had before.

#include <algorithm>
#include <string>

#include "e2e/E2ETest.h"

using namespace loom;
using loom_test::expect_buffer_eq;

namespace {

class FuncValueBounds : public loom_test::BackendTest {};

void expect_region(const Buffer<> &b, int min, int extent) {
    ASSERT_EQ(b.dimensions(), 1);
    EXPECT_EQ(b.min(0), min);
    EXPECT_EQ(b.extent(0), extent);
}

/** A table over [min, min + extent) whose entry i is 100 + 7 * i. */
Buffer<int> table(int min, int extent) {
    Buffer<int> b(extent, "table");
    b.set_min({min});
    b.for_each_element([&](int i) { b(i) = 100 + 7 * i; });
    return b;
}

int table_entry(int i) { return 100 + 7 * i; }

/** CI fuzz seed 1209's shape: a histogram whose bin comes from a Func at the
 * root. The bins are [0, 4] (the values of u8(x) % 5), not the clamp's [-2, 7],
 * and the same as with the Func inlined. */
TEST_P(FuncValueBounds, HistogramBinFromAFuncComputedAtRoot) {
    for (bool at_root : {true, false}) {
        SCOPED_TRACE(at_root ? "f2 at root" : "f2 inlined");
        ImageParam weight(Int(32), 1, "weight");
        Var x("x"), y("y");
        RDom r(0, 7, 0, 3, "r");
        Func f2("f2"), hist("hist");
        f2(x, y) = cast<uint8_t>(x) % 5;
        Expr bin = clamp(cast<int>(f2(r.x, r.y)), -2, 7);
        hist(x) = 0;
        hist(bin) += weight(bin);
        if (at_root) f2.compute_root();
        hist.infer_input_bounds({5});
        expect_region(weight.get(), 0, 5);
        Buffer<int> w = table(0, 5);
        weight.set(w);
        Buffer<int> out = hist.realize({5});
        expect_buffer_eq(out, [&](const std::vector<int> &p) {
            int sum = 0;
            for (int j = 0; j < 3; j++) {
                for (int i = 0; i < 7; i++) sum += (i % 5 == p[0]) ? table_entry(p[0]) : 0;
            }
            return sum;
        });
    }
}

/** out(x) = lut(idx(x)) with idx at the root: unboundable before. */
TEST_P(FuncValueBounds, LookupTableIndexedByAFuncAtRoot) {
    ImageParam lut(Int(32), 1, "lut");
    Var x("x");
    Func idx("idx"), out("out");
    idx(x) = (x * 3) % 7;
    out(x) = lut(idx(x)) + x;
    idx.compute_root();
    out.infer_input_bounds({10});
    expect_region(lut.get(), 0, 7);
    Buffer<int> t = table(0, 7);
    lut.set(t);
    Buffer<int> result = out.realize({10});
    expect_buffer_eq(result, [&](const std::vector<int> &p) { return table_entry(p[0] * 3 % 7) + p[0]; });
}

/** The index Func computed per element of its consumer, read through a
 * chain of two Funcs (the second bounded by the first's values). */
TEST_P(FuncValueBounds, ChainOfFuncsComputedAt) {
    ImageParam lut(Int(32), 1, "lut");
    Var x("x");
    Func base("base"), idx("idx"), out("out");
    base(x) = x % 6;                    // [0, 5]
    idx(x) = base(x) * 2 - 3;           // [-3, 7]
    out(x) = lut(idx(x));
    base.compute_root();
    idx.compute_at(out, x);
    out.infer_input_bounds({12});
    expect_region(lut.get(), -3, 11);
    Buffer<int> t = table(-3, 11);
    lut.set(t);
    Buffer<int> result = out.realize({12});
    expect_buffer_eq(result, [&](const std::vector<int> &p) { return table_entry(p[0] % 6 * 2 - 3); });
}

/** An update over an RDom writes values outside the pure definition's. */
TEST_P(FuncValueBounds, UpdateDefinitionWidensTheRange) {
    ImageParam lut(Int(32), 1, "lut");
    Var x("x");
    RDom r(0, 3, "r");
    Func idx("idx"), out("out");
    idx(x) = x % 4;         // [0, 3]
    idx(r) = 10 + r;        // [10, 12]
    out(x) = lut(idx(x));
    idx.compute_root();
    out.infer_input_bounds({8});
    expect_region(lut.get(), 0, 13);
    Buffer<int> t = table(0, 13);
    lut.set(t);
    Buffer<int> result = out.realize({8});
    expect_buffer_eq(result, [&](const std::vector<int> &p) {
        return table_entry(p[0] < 3 ? 10 + p[0] : p[0] % 4);
    });
}

/** An update that reads the Func itself: bounded where it stays inside the
 * values it is given (min(2 * v, 5) over [0, 5] stays in [0, 5]). */
TEST_P(FuncValueBounds, SelfReadingUpdateThatStaysBounded) {
    ImageParam lut(Int(32), 1, "lut");
    Var x("x");
    Func idx("idx"), out("out");
    idx(x) = x % 4;
    idx(x) = min(idx(x) * 2, 5);
    out(x) = lut(idx(x));
    idx.compute_root();
    out.infer_input_bounds({8});
    expect_region(lut.get(), 0, 6);
    Buffer<int> t = table(0, 6);
    lut.set(t);
    Buffer<int> result = out.realize({8});
    expect_buffer_eq(result, [&](const std::vector<int> &p) { return table_entry(std::min(p[0] % 4 * 2, 5)); });
}

/** Float values through a cast, as when the Func is inlined. */
TEST_P(FuncValueBounds, FloatFuncThroughACast) {
    ImageParam lut(Int(32), 1, "lut");
    Var x("x");
    Func half("half"), out("out");
    half(x) = cast<float>(x % 10) * 0.5f;  // [0, 4.5]
    out(x) = lut(cast<int>(half(x)));
    half.compute_root();
    out.infer_input_bounds({20});
    expect_region(lut.get(), 0, 5);
    Buffer<int> t = table(0, 5);
    lut.set(t);
    Buffer<int> result = out.realize({20});
    expect_buffer_eq(result, [&](const std::vector<int> &p) { return table_entry((int)((float)(p[0] % 10) * 0.5f)); });
}

/** An update that adds to the Func each time keeps only its lower bound: the
 * clamp's upper end sizes the region, and without one the index is still an
 * error naming the table. */
TEST_P(FuncValueBounds, GrowingSelfReadingUpdateFallsBackToTheClamp) {
    ImageParam lut(Int(32), 1, "lut");
    Var x("x");
    Func idx("idx"), out("out");
    idx(x) = x % 4;
    idx(x) = idx(x) + 1;
    out(x) = lut(clamp(idx(x), 0, 9));
    idx.compute_root();
    out.infer_input_bounds({8});
    expect_region(lut.get(), 0, 10);
    Buffer<int> t = table(0, 10);
    lut.set(t);
    Buffer<int> result = out.realize({8});
    expect_buffer_eq(result, [&](const std::vector<int> &p) { return table_entry(p[0] % 4 + 1); });

    ImageParam lut2(Int(32), 1, "unclamped_lut");
    Func out2("out2");
    out2(x) = lut2(idx(x));
    try {
        out2.infer_input_bounds({8});
        FAIL() << "expected a CompileError";
    } catch (const CompileError &e) {
        EXPECT_NE(std::string(e.what()).find("unclamped_lut"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("lamp"), std::string::npos) << e.what();
    }
}

/** A Tuple element is bounded by its own values ([0, 4], inside its clamp);
 * a Func of data read from an input is not (its clamp [1, 8] sizes the
 * region). */
TEST_P(FuncValueBounds, TupleElementBoundedDataDependentFuncKeepsTheClamp) {
    ImageParam lut(Int(32), 1, "lut");
    ImageParam data(Int(32), 1, "data");
    Var x("x");
    Func pair("pair"), loaded("loaded"), out("out");
    pair(x) = Tuple(x % 3, x % 5);
    loaded(x) = data(x) * 2;
    out(x) = lut(clamp(pair(x)[1], 0, 9)) + lut(clamp(loaded(x), 1, 8));
    pair.compute_root();
    loaded.compute_root();
    out.infer_input_bounds({8});
    expect_region(lut.get(), 0, 9);
    Buffer<int> d(8, "d");
    d.for_each_element([&](int i) { d(i) = i - 2; });
    data.set(d);
    Buffer<int> t = table(0, 9);
    lut.set(t);
    Buffer<int> result = out.realize({8});
    expect_buffer_eq(result, [&](const std::vector<int> &p) {
        return table_entry(p[0] % 5) + table_entry(std::clamp((p[0] - 2) * 2, 1, 8));
    });
}

LOOM_INSTANTIATE_BACKENDS(FuncValueBounds);

}  // namespace
