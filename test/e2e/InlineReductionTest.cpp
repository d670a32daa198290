// Inline reductions (sum, product, maximum, minimum, saturating_sum, argmax,
// argmin) inside pure definitions, compared with plain C++ loops.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

#include "e2e/E2ETest.h"

using namespace loom;
using loom_test::expect_buffer_eq;

namespace {

class InlineReduction : public loom_test::BackendTest {};

/** A 1-D int buffer holding values. */
template<typename T>
Buffer<T> buffer_of(const std::vector<T> &values, const std::string &name) {
    Buffer<T> b(std::vector<int>{(int)values.size()}, name);
    for (int i = 0; i < (int)values.size(); i++) b(i) = values[i];
    return b;
}

/** The CompileError message fn raises, or "<no error>". */
using loom_test::compile_error_message;

TEST_P(InlineReduction, SumOverA1DRDomWithAFreeVar) {
    Buffer<int> in(std::vector<int>{20}, "in");
    for (int i = 0; i < 20; i++) in(i) = i * i - 7 * i;
    Var x("x");
    RDom r(0, 5, "r");
    Func f("f");
    f(x) = sum(in(x + r));
    Buffer<int> out = f.realize({16});
    expect_buffer_eq(out, [&](const std::vector<int> &p) {
        int s = 0;
        for (int i = 0; i < 5; i++) s += in(p[0] + i);
        return s;
    });
}

TEST_P(InlineReduction, BoxBlurOverA2DRDom) {
    const int W = 13, H = 9;
    Buffer<int> in(std::vector<int>{W + 2, H + 2}, "in");
    in.for_each_element([&](const std::vector<int> &p) { in(p) = (p[0] * 37 + p[1] * 11) % 50; });
    Var x("x"), y("y");
    RDom r(-1, 3, -1, 3, "box");
    Func blur("blur");
    blur(x, y) = sum(in(x + 1 + r.x, y + 1 + r.y)) / 9;
    Buffer<int> out = blur.realize({W, H});
    expect_buffer_eq(out, [&](const std::vector<int> &p) {
        int s = 0;
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) s += in(p[0] + 1 + dx, p[1] + 1 + dy);
        return s / 9;
    });
}

TEST_P(InlineReduction, ProductMaximumMinimum) {
    std::vector<float> values = {1.5f, -2.0f, 0.5f, 3.25f, -0.75f, 2.0f, 1.0f, -1.5f, 0.25f, 4.0f};
    Buffer<float> in = buffer_of(values, "in");
    Var x("x");
    RDom r(0, 4, "r");
    Func prod("prod"), hi("hi"), lo("lo");
    prod(x) = product(in(x + r));
    hi(x) = maximum(in(x + r) * 2);
    lo(x) = minimum(cast<int>(in(x + r) * 4), "lowest");
    Buffer<float> p = prod.realize({7}), h = hi.realize({7});
    Buffer<int> l = lo.realize({7});
    for (int i = 0; i < 7; i++) {
        float ep = 1.0f, eh = -std::numeric_limits<float>::infinity();
        int el = std::numeric_limits<int>::max();
        for (int k = 0; k < 4; k++) {
            ep *= values[i + k];
            eh = std::max(eh, values[i + k] * 2);
            el = std::min(el, (int)(values[i + k] * 4));
        }
        EXPECT_EQ(p(i), ep) << i;
        EXPECT_EQ(h(i), eh) << i;
        EXPECT_EQ(l(i), el) << i;
    }
}

TEST_P(InlineReduction, NestedImplicitReductions) {
    // The inner maximum reduces over r2 only (explicit RDom) and keeps r1
    // free; the outer sum finds r1 in the inner call's arguments.
    Buffer<int> in(std::vector<int>{12, 6}, "in");
    in.for_each_element([&](const std::vector<int> &p) { in(p) = (p[0] * 7 + p[1] * 13) % 17 - 8; });
    Var x("x");
    RDom r1(0, 4, "r1"), r2(0, 6, "r2");
    Func f("f");
    f(x) = sum(maximum(r2, in(x + r1, r2)));
    Buffer<int> out = f.realize({9});
    expect_buffer_eq(out, [&](const std::vector<int> &p) {
        int s = 0;
        for (int i = 0; i < 4; i++) {
            int m = std::numeric_limits<int>::min();
            for (int j = 0; j < 6; j++) m = std::max(m, in(p[0] + i, j));
            s += m;
        }
        return s;
    });
}

TEST_P(InlineReduction, NestedExplicitRDoms) {
    // Halide's example: minimum(r1, product(r2, sum(r3, r1 + r2 + r3))).
    Var x("x");
    RDom r1(0, 3, "r1"), r2(1, 3, "r2"), r3(0, 4, "r3");
    Func f("f");
    f(x) = minimum(r1, product(r2, sum(r3, r1 + r2 + r3 - x)));
    Buffer<int> out = f.realize({5});
    expect_buffer_eq(out, [](const std::vector<int> &p) {
        int m = std::numeric_limits<int>::max();
        for (int a = 0; a < 3; a++) {
            int prod = 1;
            for (int b = 1; b < 4; b++) {
                int s = 0;
                for (int c = 0; c < 4; c++) s += a + b + c - p[0];
                prod *= s;
            }
            m = std::min(m, prod);
        }
        return m;
    });
}

TEST_P(InlineReduction, WherePredicateRestrictsTheDomain) {
    Var x("x");
    RDom r(0, 10, "r");
    r.where(r % 3 != 0);
    RDom tri(0, 6, 0, 6, "tri");
    tri.where(tri.x < tri.y);
    Func f("f"), g("g");
    f(x) = sum(x * r);
    g(x) = maximum((tri.x * 5 + tri.y * 3 + x) % 11);
    Buffer<int> a = f.realize({4}), b = g.realize({4});
    for (int i = 0; i < 4; i++) {
        int s = 0, m = std::numeric_limits<int>::min();
        for (int k = 0; k < 10; k++)
            if (k % 3 != 0) s += i * k;
        for (int ty = 0; ty < 6; ty++)
            for (int tx = 0; tx < 6; tx++)
                if (tx < ty) m = std::max(m, (tx * 5 + ty * 3 + i) % 11);
        EXPECT_EQ(a(i), s) << i;
        EXPECT_EQ(b(i), m) << i;
    }
}

TEST_P(InlineReduction, ArgmaxAndArgminKeepTheFirstOfTies) {
    std::vector<int> values = {3, 9, 2, 9, -4, 1, -4, 9, 0};
    Buffer<int> in = buffer_of(values, "in");
    RDom r(0, 9, "r");
    Func hi("hi"), lo("lo");
    hi() = argmax(in(r));
    lo() = argmin(r, in(r), "lowest");
    Realization h = hi.realize(), l = lo.realize();
    EXPECT_EQ(Buffer<int>(h[0])(), 1);  // 9 first at 1
    EXPECT_EQ(Buffer<int>(h[1])(), 9);
    EXPECT_EQ(Buffer<int>(l[0])(), 4);  // -4 first at 4
    EXPECT_EQ(Buffer<int>(l[1])(), -4);
}

TEST_P(InlineReduction, ArgmaxOverA2DRDomPerRow) {
    // The Tuple is (r.x, r.y, value); r.x is innermost, so the first tie in
    // iteration order is the one with the smallest r.y, then r.x.
    Buffer<uint8_t> in(std::vector<int>{5, 4, 3}, "in");
    in.for_each_element([&](const std::vector<int> &p) { in(p) = (uint8_t)((p[0] * 3 + p[1] * 5 + p[2]) % 7); });
    Var z("z");
    RDom r(0, 5, 0, 4, "r");
    Func best("best");
    best(z) = argmax(in(r.x, r.y, z));
    Realization out = best.realize({3});
    Buffer<int> bx = out[0], by = out[1];
    Buffer<uint8_t> bv = out[2];
    for (int k = 0; k < 3; k++) {
        int ex = 0, ey = 0, ev = 0;  // Halide's initial value: coordinates 0, the type's minimum
        for (int j = 0; j < 4; j++)
            for (int i = 0; i < 5; i++)
                if (in(i, j, k) > ev) ex = i, ey = j, ev = in(i, j, k);
        EXPECT_EQ(bx(k), ex) << k;
        EXPECT_EQ(by(k), ey) << k;
        EXPECT_EQ(bv(k), ev) << k;
    }
}

TEST_P(InlineReduction, SaturatingSumClampsAtEachStep) {
    Buffer<int8_t> s8 = buffer_of<int8_t>({100, 100, -100, -128, -128, 50}, "s8");
    Buffer<uint8_t> u8 = buffer_of<uint8_t>({200, 100, 0, 30}, "u8");
    RDom r6(0, 6, "r6"), r4(0, 4, "r4");
    Func a("a"), b("b"), c("c"), d("d");
    a() = saturating_sum(s8(r6));
    b() = saturating_sum(u8(r4));
    c() = sum(s8(r6));  // wraps in int8, as in Halide
    d() = sum(u8(r4));  // wraps in uint8
    auto saturate = [](int v, int lo, int hi) { return std::min(std::max(v, lo), hi); };
    int ea = 0, eb = 0, ec = 0, ed = 0;
    for (int i = 0; i < 6; i++) ea = saturate(ea + s8(i), -128, 127), ec = (int8_t)(ec + s8(i));
    for (int i = 0; i < 4; i++) eb = saturate(eb + u8(i), 0, 255), ed = (uint8_t)(ed + u8(i));
    EXPECT_EQ(ea, -78);  // 100, 127, 27, -101, -128, -78: clamps, then recovers
    Buffer<int8_t> oa = a.realize(), oc = c.realize();
    Buffer<uint8_t> ob = b.realize(), od = d.realize();
    EXPECT_EQ(Type(oa.type()), Int(8));
    EXPECT_EQ(Type(od.type()), UInt(8));
    EXPECT_EQ((int)oa(), -78);
    EXPECT_EQ((int)ob(), eb);
    EXPECT_EQ((int)ob(), 255);
    EXPECT_EQ((int)oc(), ec);
    EXPECT_EQ((int)od(), ed);
    EXPECT_EQ((int)od(), (200 + 100 + 0 + 30) % 256);
}

TEST_P(InlineReduction, EmptyDomainsGiveTheInitialValues) {
    Param<int> n("n");
    n.set(0);
    Var x("x");
    RDom empty(0, n, "empty"), none(3, 0, "none");
    Func s("s"), p("p"), hi("hi"), lo("lo"), am("am"), fhi("fhi");
    s(x) = sum(x + empty);
    p(x) = product(x + none);
    hi(x) = maximum(x + empty);
    lo(x) = minimum(cast<float>(x + none));
    am(x) = argmax(x * empty);
    fhi(x) = maximum(cast<double>(x * empty));
    Buffer<int> bs = s.realize({3}), bp = p.realize({3}), bh = hi.realize({3});
    Buffer<float> bl = lo.realize({3});
    Buffer<double> bfh = fhi.realize({3});
    Realization ra = am.realize({3});
    Buffer<int> ai = ra[0], av = ra[1];
    for (int i = 0; i < 3; i++) {
        EXPECT_EQ(bs(i), 0);
        EXPECT_EQ(bp(i), 1);
        EXPECT_EQ(bh(i), std::numeric_limits<int>::min());
        EXPECT_EQ(bl(i), std::numeric_limits<float>::infinity());  // Halide's Float(32).max()
        EXPECT_EQ(bfh(i), -std::numeric_limits<double>::infinity());
        EXPECT_EQ(ai(i), 0);
        EXPECT_EQ(av(i), std::numeric_limits<int>::min());
    }
}

TEST_P(InlineReduction, GivenFuncIsDefinedAndNamed) {
    Var x("x");
    RDom r(0, 4, "r");
    Func total("total"), f("f");
    f(x) = sum(x + r, total);
    Buffer<int> out = f.realize({3});
    EXPECT_TRUE(total.defined());
    EXPECT_EQ(total.name(), "total");
    expect_buffer_eq(out, [](const std::vector<int> &p) { return 4 * p[0] + 6; });
    std::string message = compile_error_message([&] { (void)sum(x + r, total); });
    EXPECT_NE(message.find("already has a definition"), std::string::npos) << message;
    EXPECT_NE(message.find("total"), std::string::npos) << message;
}

TEST_P(InlineReduction, NoRVarIsACompileError) {
    Var x("x");
    std::string message = compile_error_message([&] { (void)sum(x * 2); });
    EXPECT_NE(message.find("Inline reduction sum"), std::string::npos) << message;
    EXPECT_NE(message.find("no RVar"), std::string::npos) << message;
    message = compile_error_message([&] { (void)argmin(x * 2, "closest"); });
    EXPECT_NE(message.find("argmin \"closest\""), std::string::npos) << message;
}

TEST_P(InlineReduction, RVarsOfTwoRDomsAreACompileError) {
    RDom r1(0, 3, "r1"), r2(0, 4, "r2");
    std::string message = compile_error_message([&] { (void)maximum(r1 + r2); });
    EXPECT_NE(message.find("Inline reduction maximum"), std::string::npos) << message;
    EXPECT_NE(message.find("two RDoms"), std::string::npos) << message;
    // With an explicit RDom the other's RVars are free: no error.
    EXPECT_EQ(compile_error_message([&] { (void)maximum(r1, r1 + r2); }), "<no error>");
}

}  // namespace

LOOM_INSTANTIATE_BACKENDS(InlineReduction);
