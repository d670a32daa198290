// Pure definitions: single Funcs, inline chains, compute_root stages,
// realizing into shifted buffers, implicit variables.

#include "e2e/E2ETest.h"

using namespace loom;
using loom_test::expect_buffer_eq;

namespace {

class PureFunc : public loom_test::BackendTest {};

TEST_P(PureFunc, Gradient) {
    Var x("x"), y("y");
    Func f("gradient");
    f(x, y) = x + y * 10;
    Buffer<int> out = f.realize({7, 5});
    ASSERT_EQ(out.width(), 7);
    ASSERT_EQ(out.height(), 5);
    expect_buffer_eq(out, [](const std::vector<int> &p) { return p[0] + p[1] * 10; });
}

TEST_P(PureFunc, ZeroAndThreeDimensions) {
    Func c("constant");
    c() = 42;
    Buffer<int> scalar = c.realize();
    EXPECT_EQ(scalar(), 42);

    Var x("x"), y("y"), z("z");
    Func f("volume");
    f(x, y, z) = cast<int16_t>(x * 100 + y * 10 + z);
    Buffer<int16_t> out = f.realize({3, 4, 5});
    expect_buffer_eq(out, [](const std::vector<int> &p) { return int16_t(p[0] * 100 + p[1] * 10 + p[2]); });
}

TEST_P(PureFunc, InlineChain) {
    Var x("x"), y("y");
    Func a("a"), b("b"), c("c");
    a(x, y) = x * 2 + y;
    b(x, y) = a(x + 1, y) - a(x, y - 1);
    c(x, y) = b(x, y) * b(y, x);
    Buffer<int> out = c.realize({6, 6});
    auto A = [](int x, int y) { return x * 2 + y; };
    auto B = [&](int x, int y) { return A(x + 1, y) - A(x, y - 1); };
    expect_buffer_eq(out, [&](const std::vector<int> &p) { return B(p[0], p[1]) * B(p[1], p[0]); });
}

TEST_P(PureFunc, ComputeRootStages) {
    Var x("x"), y("y");
    Func in("in"), blur_x("blur_x"), blur_y("blur_y");
    in(x, y) = (x * 7 + y * 13) % 17;
    blur_x(x, y) = (in(x - 1, y) + in(x, y) + in(x + 1, y)) / 3;
    blur_y(x, y) = (blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) / 3;
    in.compute_root();
    blur_x.compute_root();
    Buffer<int> out = blur_y.realize({9, 8});
    auto I = [](int x, int y) { return (((x * 7 + y * 13) % 17) + 17) % 17; };
    auto floordiv = [](int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); };
    auto BX = [&](int x, int y) { return floordiv(I(x - 1, y) + I(x, y) + I(x + 1, y), 3); };
    expect_buffer_eq(out, [&](const std::vector<int> &p) {
        int x = p[0], y = p[1];
        return floordiv(BX(x, y - 1) + BX(x, y) + BX(x, y + 1), 3);
    });
}

TEST_P(PureFunc, StoreRootComputeRootMix) {
    Var x("x");
    Func g("g"), f("f");
    g(x) = x * x;
    g.store_root();  // stored at root, computed inline position is fine
    g.compute_root();
    f(x) = g(x - 2) + g(x + 2);
    Buffer<int> out = f.realize({10});
    expect_buffer_eq(out, [](const std::vector<int> &p) { return (p[0] - 2) * (p[0] - 2) + (p[0] + 2) * (p[0] + 2); });
}

TEST_P(PureFunc, RealizeIntoShiftedBuffer) {
    Var x("x"), y("y");
    Func f("shifted");
    f(x, y) = x * 3 - y;
    Buffer<int> out(5, 4);
    out.set_min(-2, 10);
    f.realize(out);
    EXPECT_EQ(out.min(0), -2);
    expect_buffer_eq(out, [](const std::vector<int> &p) { return p[0] * 3 - p[1]; });

    // Through a Realization, and through an untyped buffer.
    Buffer<> untyped(Int(32), {3, 3});
    untyped.set_min({100, -100});
    Realization r(std::vector<Buffer<>>{untyped});
    f.realize(r);
    expect_buffer_eq(Buffer<int>(untyped), [](const std::vector<int> &p) { return p[0] * 3 - p[1]; });
}

TEST_P(PureFunc, ImplicitVars) {
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = x + y * 100;
    Func g("g");
    g(_) = f(_) + 1;
    Func h("h");
    h(x, _) = g(_) * x;
    Buffer<int> out = h.realize({3, 4, 5});
    expect_buffer_eq(out, [](const std::vector<int> &p) { return (p[1] + p[2] * 100 + 1) * p[0]; });

    Buffer<float> b(4, 3);
    b.for_each_element([&](int i, int j) { b(i, j) = i * 0.5f + j; });
    Func wrap("wrap");
    wrap(_) = b(_) * 2.0f;
    Buffer<float> doubled = wrap.realize({4, 3});
    expect_buffer_eq(doubled, [&](const std::vector<int> &p) { return b(p[0], p[1]) * 2.0f; });
}

TEST_P(PureFunc, BoundFixesTheRegion) {
    Var x("x");
    Func g("g"), f("f");
    g(x) = x * 2;
    g.compute_root().bound(x, 0, 20);
    f(x) = g(x) + g(x + 1);
    Buffer<int> out = f.realize({10});
    expect_buffer_eq(out, [](const std::vector<int> &p) { return p[0] * 2 + (p[0] + 1) * 2; });
    Func h("h_bound");
    h(x) = x;
    h.bound(x, 0, 8);
    Buffer<int> full = h.realize({8});
    EXPECT_EQ(full(7), 7);
}

TEST_P(PureFunc, ScalarOfEveryType) {
    Var x("x");
    Func i8("i8"), u16("u16"), i64("i64"), f64("f64"), boolean("boolean");
    i8(x) = cast<int8_t>(x * 50);
    u16(x) = cast<uint16_t>(x * 30000);
    i64(x) = cast<int64_t>(x) * cast<int64_t>(1000000000) * 10;
    f64(x) = cast<double>(x) / 3.0;
    boolean(x) = x % 2 == 0;
    Buffer<int8_t> a = i8.realize({6});
    Buffer<uint16_t> b = u16.realize({6});
    Buffer<int64_t> c = i64.realize({6});
    Buffer<double> d = f64.realize({6});
    Buffer<bool> e = boolean.realize({6});
    for (int k = 0; k < 6; k++) {
        EXPECT_EQ(a(k), (int8_t)(k * 50));
        EXPECT_EQ(b(k), (uint16_t)(k * 30000));
        EXPECT_EQ(c(k), (int64_t)k * 10000000000LL);
        EXPECT_DOUBLE_EQ(d(k), k / 3.0);
        EXPECT_EQ(e(k), k % 2 == 0);
    }
}

TEST_P(PureFunc, LambdaAndEvaluate) {
    Var x("x"), y("y");
    Func g = lambda(x, y, x * y + 1);
    Buffer<int> out = g.realize({3, 4});
    expect_buffer_eq(out, [](const std::vector<int> &p) { return p[0] * p[1] + 1; });
    Func h = lambda(_0 - _1);
    EXPECT_EQ(h.dimensions(), 2);
    EXPECT_EQ(evaluate<int>(Expr(7) * 6), 42);
    EXPECT_FLOAT_EQ(evaluate<float>(sqrt(16.0f)), 4.0f);
}

LOOM_INSTANTIATE_BACKENDS(PureFunc);

}  // namespace
