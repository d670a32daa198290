// Update definitions and reduction domains: sums over 1-4 dimensional RDoms,
// RDoms over buffers, where(), scatters, recurrences.

#include "e2e/E2ETest.h"

using namespace loom;
using loom_test::expect_buffer_eq;

namespace {

class Update : public loom_test::BackendTest {};

TEST_P(Update, PointUpdates) {
    Var x("x");
    Func f("f");
    f(x) = x;
    f(3) = 100;
    f(x) = f(x) * 2;
    f(x) = f(x) + 1;
    Buffer<int> out = f.realize({6});
    for (int i = 0; i < 6; i++) EXPECT_EQ(out(i), (i == 3 ? 100 : i) * 2 + 1) << i;
}

TEST_P(Update, SumOver1DRDom) {
    Var x("x");
    RDom r(0, 10, "r");
    Func f("sum");
    f(x) = 0;
    f(x) += x * r;
    Buffer<int> out = f.realize({5});
    expect_buffer_eq(out, [](const std::vector<int> &p) { return p[0] * 45; });
}

TEST_P(Update, RDomsOfTwoToFourDimensions) {
    RDom r2(1, 3, -2, 4, "r2");
    RDom r3(0, 2, 0, 3, 0, 4, "r3");
    RDom r4(0, 2, 1, 2, 2, 2, 3, 2, "r4");
    Func s2("s2"), s3("s3"), s4("s4");
    s2() = 0;
    s2() += r2.x * 10 + r2.y;
    s3() = 0;
    s3() += r3.x * 100 + r3.y * 10 + r3.z;
    s4() = 1;
    s4() = s4() * 2 + (r4.x + r4.y + r4.z + r4.w) % 3;  // order-dependent
    Buffer<int> a = s2.realize(), b = s3.realize(), c = s4.realize();
    int e2 = 0, e3 = 0, e4 = 1;
    for (int y = -2; y < 2; y++)
        for (int x = 1; x < 4; x++) e2 += x * 10 + y;
    for (int z = 0; z < 4; z++)
        for (int y = 0; y < 3; y++)
            for (int x = 0; x < 2; x++) e3 += x * 100 + y * 10 + z;
    // The first RVar is innermost.
    for (int w = 3; w < 5; w++)
        for (int z = 2; z < 4; z++)
            for (int y = 1; y < 3; y++)
                for (int x = 0; x < 2; x++) e4 = e4 * 2 + (x + y + z + w) % 3;
    EXPECT_EQ(a(), e2);
    EXPECT_EQ(b(), e3);
    EXPECT_EQ(c(), e4);
}

TEST_P(Update, RDomOverBufferWithShiftedMin) {
    Buffer<int> in(std::vector<int>{4, 3}, "values");
    in.set_min(-1, 2);
    in.for_each_element([&](int i, int j) { in(i, j) = i * i + j; });
    RDom r(in);
    Func total("total");
    total() = 0;
    total() += in(r.x, r.y);
    Buffer<int> out = total.realize();
    int expected = 0;
    in.for_each_element([&](int i, int j) { expected += in(i, j); });
    EXPECT_EQ(out(), expected);
}

TEST_P(Update, RDomOverImageParam) {
    ImageParam in(Float(32), 1, "samples");
    RDom r(in);
    Func mx("maximum");
    mx() = -1e30f;
    mx() = max(mx(), in(r));
    Buffer<float> data(7);
    for (int i = 0; i < 7; i++) data(i) = float((i * 5) % 7) - 2.5f;
    in.set(data);
    Buffer<float> out = mx.realize();
    EXPECT_EQ(out(), 3.5f);
}

TEST_P(Update, WherePredicate) {
    Var x("x");
    RDom r(0, 6, 0, 6, "tri");
    r.where(r.x < r.y);
    r.where((r.x + r.y) % 2 == 1);
    Func count("count");
    count(x) = 0;
    count(x) += select(r.y > x, 1, 0);
    Buffer<int> out = count.realize({4});
    for (int k = 0; k < 4; k++) {
        int expected = 0;
        for (int j = 0; j < 6; j++)
            for (int i = 0; i < 6; i++)
                if (i < j && (i + j) % 2 == 1 && j > k) expected++;
        EXPECT_EQ(out(k), expected) << k;
    }
}

TEST_P(Update, Histogram) {
    Buffer<uint8_t> image(std::vector<int>{13, 7}, "image");
    image.for_each_element([&](int i, int j) { image(i, j) = uint8_t((i * 37 + j * 11) % 16); });
    Var b("bin");
    RDom r(image);
    Func hist("hist");
    hist(b) = 0;
    hist(cast<int>(image(r.x, r.y))) += 1;
    // The output must cover every bin a uint8 can index, as in Halide.
    Buffer<int> out = hist.realize({256});
    int expected[256] = {};
    image.for_each_element([&](int i, int j) { expected[image(i, j)]++; });
    for (int k = 0; k < 256; k++) EXPECT_EQ(out(k), expected[k]) << k;
    Buffer<int> too_small(16);
    EXPECT_THROW(hist.realize(too_small), RuntimeError);
}

TEST_P(Update, HistogramOnUndefinedFunc) {
    Buffer<int> data(std::vector<int>{20}, "data");
    for (int i = 0; i < 20; i++) data(i) = (i * 7) % 5;
    RDom r(data);
    Func hist("hist_implicit");
    hist(clamp(data(r), 0, 4)) += 1;  // defines hist(x) = 0 first
    Buffer<int> out = hist.realize({5});
    for (int k = 0; k < 5; k++) EXPECT_EQ(out(k), 4) << k;
}

TEST_P(Update, ScatterThroughAFunc) {
    Var x("x");
    RDom r(0, 23, "r");
    Func g("g_scatter"), f("f_scatter");
    g(x) = (x * 7) % 5;
    f(x) = 0;
    f(g(r)) += 1;
    Buffer<int> out = f.realize({5});
    int expected[5] = {};
    for (int i = 0; i < 23; i++) expected[(i * 7) % 5]++;
    for (int k = 0; k < 5; k++) EXPECT_EQ(out(k), expected[k]) << k;
}

TEST_P(Update, Fibonacci) {
    Var x("x");
    RDom r(2, 18, "r");
    Func fib("fib");
    fib(x) = select(x < 2, 1, 0);
    fib(r) = fib(r - 1) + fib(r - 2);
    Buffer<int> out = fib.realize({20});
    int a = 1, b = 1;
    EXPECT_EQ(out(0), 1);
    EXPECT_EQ(out(1), 1);
    for (int i = 2; i < 20; i++) {
        int c = a + b;
        EXPECT_EQ(out(i), c) << i;
        a = b;
        b = c;
    }
}

TEST_P(Update, PrefixSumAlongOneDimension) {
    Var x("x"), y("y");
    RDom r(1, 7, "r");
    Func f("scan");
    f(x, y) = x + y * 10;
    f(r, y) = f(r, y) + f(r - 1, y);
    Buffer<int> out = f.realize({8, 3});
    for (int j = 0; j < 3; j++) {
        int running = 0;
        for (int i = 0; i < 8; i++) {
            running += i + j * 10;
            EXPECT_EQ(out(i, j), running) << i << "," << j;
        }
    }
}

TEST_P(Update, CompoundOperators) {
    Var x("x");
    RDom r(1, 4, "r");
    Func prod("prod"), diff("diff"), quot("quot");
    prod(x) *= x + r;          // 1 * (x+1)(x+2)(x+3)(x+4)
    diff(x) = 100;
    diff(x) -= r * x;
    quot(x) = 1000.0f;
    quot(x) /= cast<float>(r);
    Buffer<int> p = prod.realize({3});
    Buffer<int> d = diff.realize({3});
    Buffer<float> q = quot.realize({3});
    for (int i = 0; i < 3; i++) {
        EXPECT_EQ(p(i), (i + 1) * (i + 2) * (i + 3) * (i + 4));
        EXPECT_EQ(d(i), 100 - 10 * i);
        EXPECT_FLOAT_EQ(q(i), 1000.0f / 24.0f);
    }
}

TEST_P(Update, UpdateOfComputeRootProducer) {
    Var x("x");
    RDom r(0, 5, "r");
    Func g("g"), f("f");
    g(x) = x;
    g(x) += r;
    g.compute_root();
    f(x) = g(x) * g(x + 1);
    Buffer<int> out = f.realize({6});
    expect_buffer_eq(out, [](const std::vector<int> &p) { return (p[0] + 10) * (p[0] + 11); });
}

TEST_P(Update, RDomWithSymbolicExtent) {
    Param<int> n("n", 5);
    RDom r(0, n, "r");
    Func s("tri_sum");
    s() = 0;
    s() += r;
    EXPECT_EQ(Buffer<int>(s.realize())(), 10);
    n.set(100);
    EXPECT_EQ(Buffer<int>(s.realize())(), 4950);
}

LOOM_INSTANTIATE_BACKENDS(Update);

}  // namespace
