// propagate_adjoints (loom/Derivative.h) through updates that are not
// additions: products, maxima, overwrites, and scans (of Tuples too), each
// compared with its adjoint written out by hand in C++ (the forward loops,
// then the reverse loops).

#include <cmath>
#include <string>
#include <vector>

#include "e2e/E2ETest.h"

using namespace loom;
using loom_test::compile_error_message;

namespace {

class DerivativeUpdates_ : public loom_test::BackendTest {};

void expect_near(const Buffer<float> &b, const std::vector<double> &expected, const std::string &what) {
    ASSERT_EQ(b.dim(0).extent(), (int)expected.size()) << what;
    for (int i = 0; i < (int)expected.size(); i++) {
        EXPECT_NEAR(b(b.dim(0).min() + i), expected[i], 1e-4 * (1 + std::fabs(expected[i])))
            << what << " at " << b.dim(0).min() + i;
    }
}

Buffer<float> values(int n, const std::string &name, float scale, float offset) {
    Buffer<float> b(std::vector<int>{n}, name);
    for (int i = 0; i < n; i++) b(i) = offset + scale * (float)((i * 5) % 7);
    return b;
}

// f = 2a; f *= b; f = max(f, c); f += a, with adjoint w(x) = 1 + x / 2:
// each update's adjoint (d(f, k)) and the inputs' against the chain rule.
TEST_P(DerivativeUpdates_, ProductMaxAndAdditionUpdates) {
    const int N = 9;
    Buffer<float> a = values(N, "a", 0.25f, 0.5f), b = values(N, "b", -0.5f, 1.25f), c = values(N, "c", 0.3f, 0.1f);
    Var x("x");
    Func f("f"), w("w");
    f(x) = 2.0f * a(x);
    f(x) = f(x) * b(x);
    f(x) = max(f(x), c(x));
    f(x) += a(x);
    w(x) = 1.0f + cast<float>(x) / 2.0f;
    Derivative d = propagate_adjoints(f, w, {{0, N}});

    std::vector<double> A0(N), A1(N), A2(N), A3(N), da(N), db(N), dc(N);
    for (int i = 0; i < N; i++) {
        double f0 = 2.0 * a(i), f1 = f0 * b(i);
        bool keeps = f1 >= c(i);
        A3[i] = A2[i] = 1.0 + i / 2.0;
        A1[i] = keeps ? A2[i] : 0.0;
        A0[i] = A1[i] * b(i);
        da[i] = 2.0 * A0[i] + A3[i];
        db[i] = A1[i] * f0;
        dc[i] = keeps ? 0.0 : A2[i];
    }
    expect_near(d(a).realize({N}), da, "d a");
    expect_near(d(b).realize({N}), db, "d b");
    expect_near(d(c).realize({N}), dc, "d c");
    expect_near(d(f).realize({N}), A0, "d(f, -1)");
    expect_near(d(f, 0).realize({N}), A1, "d(f, 0)");
    expect_near(d(f, 1).realize({N}), A2, "d(f, 1)");
    expect_near(d(f, 2).realize({N}), A3, "d(f, 2)");
    EXPECT_FALSE(d(f, 3).defined());
}

// Updates that write some points: over an RDom (o(r) = in(r - 1)^2), at a
// constant point reading another point (o(4) = 2 o(1) + o(4)), then a
// product at every point.
TEST_P(DerivativeUpdates_, OverwritesOfSomePoints) {
    const int N = 6;
    Buffer<float> in = values(N, "in", 0.2f, -0.3f);
    Var x("x");
    RDom r(1, 2, "r");
    Func o("o"), w("w");
    o(x) = 3.0f * in(x);
    o(r) = in(r - 1) * in(r - 1);
    o(4) = 2.0f * o(1) + o(4);
    o(x) = o(x) * in(x);
    w(x) = cast<float>(x) - 1.5f;
    Derivative d = propagate_adjoints(o, w, {{0, N}});

    // Forward.
    std::vector<double> o0(N), o1(N), o2(N);
    for (int i = 0; i < N; i++) o0[i] = 3.0 * in(i);
    o1 = o0;
    for (int k = 1; k < 3; k++) o1[k] = (double)in(k - 1) * in(k - 1);
    o2 = o1;
    o2[4] = 2.0 * o1[1] + o1[4];
    // Reverse.
    std::vector<double> din(N, 0.0), A3(N), A2(N), A1(N), A0(N);
    for (int i = 0; i < N; i++) A3[i] = i - 1.5;
    for (int i = 0; i < N; i++) {
        A2[i] = A3[i] * in(i);
        din[i] += A3[i] * o2[i];
    }
    A1 = A2;
    A1[4] = A2[4];
    A1[1] += 2.0 * A2[4];
    A0 = A1;
    for (int k = 1; k < 3; k++) {
        A0[k] = 0.0;
        din[k - 1] += A1[k] * 2.0 * in(k - 1);
    }
    for (int i = 0; i < N; i++) din[i] += 3.0 * A0[i];

    expect_near(d(in).realize({N}), din, "d in");
    expect_near(d(o, -1).realize({N}), A0, "d(o, -1)");
    expect_near(d(o, 0).realize({N}), A1, "d(o, 0)");
    expect_near(d(o, 1).realize({N}), A2, "d(o, 1)");
    expect_near(d(o, 2).realize({N}), A3, "d(o, 2)");
}

// The IIR of the issue: f(0) = in(0), f(k) = a f(k - 1) + in(k), adjoint
// w over [0, N). Its adjoint runs backwards: A(k - 1) += a A(k).
TEST_P(DerivativeUpdates_, FirstOrderRecursiveFilter) {
    const int N = 12;
    Buffer<float> in = values(N, "in", 0.4f, -1.0f);
    Param<float> a("a");
    a.set(0.7f);
    Var x("x");
    RDom r(1, N - 1, "r");
    Func f("f"), w("w");
    f(x) = in(x);
    f(r) = a * f(r - 1) + in(r);
    w(x) = cos(cast<float>(x));
    Derivative d = propagate_adjoints(f, w, {{0, N}});

    std::vector<double> fv(N);
    fv[0] = in(0);
    for (int k = 1; k < N; k++) fv[k] = 0.7 * fv[k - 1] + in(k);
    std::vector<double> A(N), din(N, 0.0), before(N, 0.0);
    double da = 0.0;
    for (int k = 0; k < N; k++) A[k] = std::cos((float)k);
    for (int k = N - 1; k >= 1; k--) {
        A[k - 1] += 0.7 * A[k];
        din[k] += A[k];
        da += A[k] * fv[k - 1];
    }
    before[0] = A[0];
    din[0] += before[0];
    // The adjoint of f's final value: f(0) is read by the filter, but as
    // the pure definition's value, so d(f, 0) at 0 is the consumer's alone.
    std::vector<double> after = A;
    after[0] = std::cos(0.0f);

    expect_near(d(in).realize({N}), din, "d in");
    Buffer<float> d_a = d(a).realize();
    EXPECT_NEAR(d_a(), da, 1e-4 * (1 + std::fabs(da)));
    expect_near(d(f, 0).realize({N}), after, "d(f, 0)");
    expect_near(d(f).realize({N}), before, "d(f): the pure definition's adjoint");
}

// The filter with a where() predicate that skips one point (f(6) then
// reads f(5) as the pure definition left it), followed by an addition.
TEST_P(DerivativeUpdates_, RecursiveFilterWithAGapThenAnAddition) {
    const int N = 10, gap = 5;
    Buffer<float> in = values(N, "in", 0.3f, -0.5f), g = values(N, "g", -0.2f, 0.4f);
    Var x("x");
    RDom r(1, N - 1, "r");
    r.where(r != gap);
    Func f("f"), w("w");
    f(x) = in(x);
    f(r) = 0.6f * f(r - 1) + in(r) * in(r);
    f(x) += g(x) * in(x);
    w(x) = 1.0f - 0.1f * cast<float>(x);
    Derivative d = propagate_adjoints(f, w, {{0, N}});

    std::vector<double> A(N), din(N, 0.0), dg(N), before(N);
    for (int k = 0; k < N; k++) A[k] = 1.0 - 0.1f * (float)k;
    for (int k = 0; k < N; k++) {
        dg[k] = A[k] * in(k);
        din[k] += A[k] * g(k);
    }
    const std::vector<double> after_filter = A;  // the addition leaves the adjoint as it is
    for (int k = N - 1; k >= 1; k--) {
        if (k == gap) continue;
        A[k - 1] += 0.6 * A[k];
        din[k] += A[k] * 2.0 * in(k);
    }
    for (int k = 0; k < N; k++) before[k] = (k == 0 || k == gap) ? A[k] : 0.0;
    for (int k = 0; k < N; k++) din[k] += before[k];

    expect_near(d(in).realize({N}), din, "d in");
    expect_near(d(g).realize({N}), dg, "d g");
    expect_near(d(f).realize({N}), before, "d(f, -1)");
    std::vector<double> filter_adjoint = A;
    for (int k : {0, gap}) filter_adjoint[k] = after_filter[k];
    expect_near(d(f, 0).realize({N}), filter_adjoint, "d(f, 0)");
    expect_near(d(f, 1).realize({N}), after_filter, "d(f, 1)");
}

// A non-linear scan along a dimension of its own (Halide's autodiff test
// shape): v(x, 0) = in(x), v(x, k + 1) = 0.3 v(x, k)^2 + in(k); the loss
// sums v(x, 3). The derivative 0.6 v(x, k) reads the scan's own values.
TEST_P(DerivativeUpdates_, NonLinearScanAlongADimension) {
    const int W = 3, K = 3;
    Buffer<float> in = values(W, "in", 0.3f, 0.2f);
    Var x("x"), y("y");
    RDom r(0, K, "r");
    Func v("v"), loss("loss");
    v(x, y) = 0.0f;
    v(x, 0) = in(x);
    v(x, r + 1) = 0.3f * v(x, r) * v(x, r) + in(r);
    RDom rx(0, W, "rx");
    loss() = 0.0f;
    loss() += v(rx, K);
    Derivative d = propagate_adjoints(loss);

    std::vector<double> din(W, 0.0);
    for (int i = 0; i < W; i++) {
        std::vector<double> vk(K + 1);
        vk[0] = in(i);
        for (int k = 0; k < K; k++) vk[k + 1] = 0.3 * vk[k] * vk[k] + in(k);
        double adj = 1.0;
        for (int k = K - 1; k >= 0; k--) {
            din[k] += adj;
            adj *= 0.6 * vk[k];
        }
        din[i] += adj;
    }
    expect_near(d(in).realize({W}), din, "d in");
}

// Horner's rule written backwards along y (Halide's test shape): the
// update writes p(x, 4 - r) from p(x, 5 - r), so the RVar enters the
// left-hand side negated. d coeffs(i) = sum_x w(x) t(x)^(4 - i) and
// d t(x) = w(x) sum_i c_i (4 - i) t(x)^(3 - i).
TEST_P(DerivativeUpdates_, HornerPolynomialWithANegatedRVar) {
    const int W = 7, K = 5;
    Buffer<float> coeffs = values(K, "coeffs", 0.5f, -0.8f);
    Buffer<float> t(std::vector<int>{W}, "t");
    for (int i = 0; i < W; i++) t(i) = -0.9f + 0.3f * (float)i;
    Var x("x"), y("y");
    RDom r(0, K, "r");
    Func p("p"), value("value"), w("w");
    p(x, y) = 0.0f;
    p(x, K - 1 - r) = p(x, K - r) * t(x) + coeffs(r);
    value(x) = p(x, 0);
    w(x) = 1.0f + cast<float>(x % 3);
    Derivative d = propagate_adjoints(value, w, {{0, W}});

    std::vector<double> dc(K, 0.0), dt(W, 0.0);
    for (int i = 0; i < W; i++) {
        const double wi = 1.0 + i % 3, ti = t(i);
        for (int k = 0; k < K; k++) {
            dc[k] += wi * std::pow(ti, K - 1 - k);
            if (K - 1 - k >= 1) dt[i] += wi * coeffs(k) * (K - 1 - k) * std::pow(ti, K - 2 - k);
        }
    }
    expect_near(d(coeffs).realize({K}), dc, "d coeffs");
    expect_near(d(t).realize({W}), dt, "d t");
}

// A 2-D scan over a 2-D RDom that reads the written point (before the
// write), its left neighbour in the row and the point above (both written
// earlier): f(i, j) = 0.5 f(i, j) + 0.25 f(i - 1, j) + k(i) f(i, j - 1).
TEST_P(DerivativeUpdates_, TwoDimensionalScanWithTheWrittenPoint) {
    const int W = 5, H = 4;
    Buffer<float> in(std::vector<int>{W, H}, "in");
    in.for_each_element([&](const std::vector<int> &q) { in(q) = 0.1f * (float)((q[0] * 3 + q[1] * 5) % 7) - 0.2f; });
    Buffer<float> k = values(W, "k", 0.15f, 0.3f);
    Var x("x"), y("y");
    RDom r(1, W - 1, 1, H - 1, "r");
    Func f("f"), w("w");
    f(x, y) = in(x, y) * in(x, y);
    f(r.x, r.y) = 0.5f * f(r.x, r.y) + 0.25f * f(r.x - 1, r.y) + k(r.x) * f(r.x, r.y - 1);
    w(x, y) = 1.0f + 0.1f * cast<float>(x * y);
    Derivative d = propagate_adjoints(f, w, {{0, W}, {0, H}});

    // Forward, keeping f before the update (f0) and after (f1).
    std::vector<std::vector<double>> f0(W, std::vector<double>(H)), f1, A, dk_unused;
    for (int i = 0; i < W; i++) {
        for (int j = 0; j < H; j++) f0[i][j] = (double)in(i, j) * in(i, j);
    }
    f1 = f0;
    for (int j = 1; j < H; j++) {
        for (int i = 1; i < W; i++) f1[i][j] = 0.5 * f0[i][j] + 0.25 * f1[i - 1][j] + k(i) * f1[i][j - 1];
    }
    // Reverse: A is the adjoint of the update's values; before, of f0.
    A.assign(W, std::vector<double>(H));
    for (int i = 0; i < W; i++) {
        for (int j = 0; j < H; j++) A[i][j] = 1.0 + 0.1f * (float)(i * j);
    }
    std::vector<std::vector<double>> before(W, std::vector<double>(H, 0.0));
    std::vector<double> dk(W, 0.0);
    for (int j = H - 1; j >= 1; j--) {
        for (int i = W - 1; i >= 1; i--) {
            const double a = A[i][j];
            A[i - 1][j] += 0.25 * a;
            A[i][j - 1] += k(i) * a;
            dk[i] += a * f1[i][j - 1];
            before[i][j] += 0.5 * a;
        }
    }
    for (int i = 0; i < W; i++) {
        for (int j = 0; j < H; j++) {
            if (i == 0 || j == 0) before[i][j] += A[i][j];
        }
    }
    Buffer<float> d_in = d(in).realize({W, H});
    d_in.for_each_element([&](const std::vector<int> &q) {
        const double e = before[q[0]][q[1]] * 2.0 * in(q);
        EXPECT_NEAR(d_in(q), e, 1e-4 * (1 + std::fabs(e))) << q[0] << ", " << q[1];
    });
    expect_near(d(k).realize({W}), dk, "d k");
}

TEST_P(DerivativeUpdates_, UpdatesLoomCannotDifferentiateAreCompileErrors) {
    Buffer<float> in = values(8, "in", 1.0f, 0.0f);
    Var x("x");
    RDom r(0, 4, "r");
    Func ones("ones");
    ones(x) = 1.0f;

    // A product over an RDom writes each point four times.
    Func prod("prod");
    prod(x) = 1.0f;
    prod(x) = prod(x) * in(x + r);
    std::string m = compile_error_message([&] { propagate_adjoints(prod, ones, {{0, 4}}); });
    EXPECT_NE(m.find("update 0 of prod is not an addition"), std::string::npos) << m;
    EXPECT_NE(m.find("may write a point more than once: RVar r"), std::string::npos) << m;
    EXPECT_NE(m.find("Give the iterations a dimension of their own"), std::string::npos) << m;

    // Several iterations overwrite one point.
    Func last("last");
    last(x) = 0.0f;
    last(0) = in(r);
    m = compile_error_message([&] { propagate_adjoints(last, ones, {{0, 4}}); });
    EXPECT_NE(m.find("update 0 of last is not an addition"), std::string::npos) << m;

    // Reads a point another iteration writes, at a distance that varies
    // (iteration r reads what iteration 3 - r writes: the earlier ones see
    // the value before the update, the later ones the new one). Halide takes
    // the reads as simultaneous; Loom refuses.
    Func reverse("reverse");
    reverse(x) = in(x);
    reverse(r) = reverse(3 - r);
    m = compile_error_message([&] { propagate_adjoints(reverse, ones, {{0, 4}}); });
    EXPECT_NE(m.find("update 0 of reverse reads reverse("), std::string::npos) << m;
    EXPECT_NE(m.find("at a varying distance from the one that reads it"), std::string::npos) << m;
}

// A scan that reads both neighbours: f(k) = f(k + 1) in(k) + 0.5 f(k - 1)
// over k in [1, N - 1). f(k - 1) is the value the previous iteration wrote;
// f(k + 1) is the value before the update (the next iteration writes it
// later, or nothing writes it). The reference is reverse mode of the loop.
TEST_P(DerivativeUpdates_, ScanReadingPointsALaterIterationWrites) {
    const int N = 9;
    Buffer<float> in = values(N, "in", 0.35f, -0.8f);
    Var x("x");
    RDom r(1, N - 2, "r");
    Func f("f"), w("w");
    f(x) = in(x);
    f(r) = f(r + 1) * in(r) + 0.5f * f(r - 1);
    w(x) = 1.0f + cast<float>(x * x) / 8.0f;
    Derivative d = propagate_adjoints(f, w, {{0, N}});

    std::vector<double> fv(N), seen(N);  // seen[k]: f(k + 1) as iteration k read it
    for (int i = 0; i < N; i++) fv[i] = in(i);
    for (int k = 1; k < N - 1; k++) {
        seen[k] = fv[k + 1];
        fv[k] = fv[k + 1] * in(k) + 0.5 * fv[k - 1];
    }
    std::vector<double> A(N), din(N, 0.0);
    for (int i = 0; i < N; i++) A[i] = 1.0 + (i * i) / 8.0;
    for (int k = N - 2; k >= 1; k--) {
        const double t = A[k];
        A[k] = 0.0;
        A[k + 1] += t * in(k);
        A[k - 1] += 0.5 * t;
        din[k] += t * seen[k];
    }
    for (int i = 0; i < N; i++) din[i] += A[i];
    expect_near(d(in).realize({N}), din, "d in");
    expect_near(d(f).realize({N}), A, "d(f): the pure definition's adjoint");
}

// A 2-D scan over r (r.x innermost) reading f(r.x - 1, r.y), written by the
// previous iteration, f(r.x - 1, r.y + 1), which a later row writes (or
// nothing does), so the value before the update, and f(r.x, r.y) itself.
TEST_P(DerivativeUpdates_, TwoDimensionalScanReadingALaterRow) {
    const int W = 5, H = 4;
    Buffer<float> in(std::vector<int>{W, H}, "in");
    in.for_each_element([&](const std::vector<int> &q) { in(q) = 0.3f + 0.1f * (float)((q[0] * 3 + q[1] * 5) % 7); });
    Var x("x"), y("y");
    RDom r(1, W - 1, 0, H - 1, "r");
    Func f("f"), w("w");
    f(x, y) = in(x, y);
    f(r.x, r.y) = 0.5f * f(r.x - 1, r.y) + f(r.x - 1, r.y + 1) * f(r.x, r.y);
    w(x, y) = 1.0f + cast<float>(x) / 4.0f - cast<float>(y) / 5.0f;
    Derivative d = propagate_adjoints(f, w, {{0, W}, {0, H}});

    std::vector<std::vector<double>> fv(W, std::vector<double>(H)), A = fv, up = fv, self = fv;
    for (int i = 0; i < W; i++) {
        for (int j = 0; j < H; j++) {
            fv[i][j] = in(i, j);
            A[i][j] = 1.0 + i / 4.0 - j / 5.0;
        }
    }
    for (int j = 0; j < H - 1; j++) {
        for (int i = 1; i < W; i++) {
            up[i][j] = fv[i - 1][j + 1];
            self[i][j] = fv[i][j];
            fv[i][j] = 0.5 * fv[i - 1][j] + up[i][j] * self[i][j];
        }
    }
    for (int j = H - 2; j >= 0; j--) {
        for (int i = W - 1; i >= 1; i--) {
            const double t = A[i][j];
            A[i][j] = t * up[i][j];
            A[i - 1][j] += 0.5 * t;
            A[i - 1][j + 1] += t * self[i][j];
        }
    }
    Buffer<float> d_in = d(in).realize({W, H});
    d_in.for_each_element([&](const std::vector<int> &q) {
        const double e = A[q[0]][q[1]];
        EXPECT_NEAR(d_in(q), e, 1e-4 * (1 + std::fabs(e))) << q[0] << ", " << q[1];
    });
}

// A Tuple scan: s(k) = {a s(k - 1)[0] + in(k), s(k - 1)[1] + s(k - 1)[0] in(k)},
// both elements read by the output, out = s[0] + 2 s[1].
TEST_P(DerivativeUpdates_, TupleScan) {
    const int N = 8;
    Buffer<float> in = values(N, "in", 0.25f, -0.4f);
    Param<float> a("a");
    a.set(0.8f);
    Var x("x");
    RDom r(1, N - 1, "r");
    Func s("s"), out("out"), w("w");
    s(x) = Tuple(in(x), 0.0f);
    s(r) = Tuple(a * s(r - 1)[0] + in(r), s(r - 1)[1] + s(r - 1)[0] * in(r));
    out(x) = s(x)[0] + 2.0f * s(x)[1];
    w(x) = 1.0f - cast<float>(x) / 10.0f;
    Derivative d = propagate_adjoints(out, w, {{0, N}});

    std::vector<double> s0(N), s1(N, 0.0), prev0(N);
    for (int i = 0; i < N; i++) s0[i] = in(i);
    for (int k = 1; k < N; k++) {
        prev0[k] = s0[k - 1];
        const double n0 = 0.8 * s0[k - 1] + in(k), n1 = s1[k - 1] + s0[k - 1] * in(k);
        s0[k] = n0;
        s1[k] = n1;
    }
    std::vector<double> A0(N), A1(N), din(N, 0.0);
    double da = 0.0;
    for (int i = 0; i < N; i++) {
        A0[i] = 1.0 - i / 10.0;
        A1[i] = 2.0 * (1.0 - i / 10.0);
    }
    for (int k = N - 1; k >= 1; k--) {
        const double t0 = A0[k], t1 = A1[k];
        A0[k] = A1[k] = 0.0;
        A0[k - 1] += 0.8 * t0 + t1 * in(k);
        A1[k - 1] += t1;
        din[k] += t0 + t1 * prev0[k];
        da += t0 * prev0[k];
    }
    for (int i = 0; i < N; i++) din[i] += A0[i];
    expect_near(d(in).realize({N}), din, "d in");
    Buffer<float> d_a = d(a).realize();
    EXPECT_NEAR(d_a(), da, 1e-4 * (1 + std::fabs(da)));
    Realization before = d(s).realize({N});
    expect_near(Buffer<float>(before[0]), A0, "d(s)[0]");
    expect_near(Buffer<float>(before[1]), A1, "d(s)[1]");
}

}  // namespace

LOOM_INSTANTIATE_BACKENDS(DerivativeUpdates_);
