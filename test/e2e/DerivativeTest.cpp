// propagate_adjoints (loom/Derivative.h): gradients of pipelines compared
// with derivatives written out by hand in C++ loops.

#include <cmath>
#include <string>
#include <vector>

#include "e2e/E2ETest.h"
#include "ir/Function.h"

using namespace loom;
using loom_test::compile_error_message;

namespace {

class Derivative_ : public loom_test::BackendTest {};

/** Expects a 1-D float buffer to match expected within a relative 1e-4. */
void expect_near(const Buffer<float> &b, const std::vector<double> &expected, int min = 0) {
    ASSERT_EQ(b.dim(0).extent(), (int)expected.size());
    for (int i = 0; i < (int)expected.size(); i++) {
        EXPECT_NEAR(b(min + i), expected[i], 1e-4 * (1 + std::fabs(expected[i]))) << "at " << min + i;
    }
}

Buffer<float> ramp_buffer(int n, const std::string &name, float scale, float offset) {
    Buffer<float> b(std::vector<int>{n}, name);
    for (int i = 0; i < n; i++) b(i) = offset + scale * (float)((i * 7) % 11);
    return b;
}

// out(x) = sin(f(x)) / 2 with f(x) = in(x)^2 + 3 in(x + 1), over [0, 10) with
// adjoint 1: d in(j) = cos(f(j)) in(j) + 1.5 cos(f(j - 1)) (where in range).
TEST_P(Derivative_, PureChainThroughAMathFunction) {
    const int N = 10;
    Buffer<float> in = ramp_buffer(N + 1, "in", 0.1f, -0.4f);
    Var x("x");
    Func f("f"), out("out"), ones("ones");
    f(x) = in(x) * in(x) + 3.0f * in(x + 1);
    out(x) = sin(f(x)) / 2.0f;
    ones(x) = 1.0f;
    Derivative d = propagate_adjoints(out, ones, {{0, N}});
    Buffer<float> d_in = d(in).realize({N + 1});

    auto fx = [&](int i) { return (double)in(i) * in(i) + 3.0 * in(i + 1); };
    std::vector<double> expected(N + 1, 0.0);
    for (int i = 0; i < N; i++) {
        double a = std::cos(fx(i)) / 2.0;
        expected[i] += a * 2.0 * in(i);
        expected[i + 1] += a * 3.0;
    }
    expect_near(d_in, expected);

    // The intermediate Func's adjoint, also over points outside the region.
    Buffer<float> d_f = d(f).realize({N + 2});
    for (int i = 0; i < N + 2; i++) {
        double e = i < N ? std::cos(fx(i)) / 2.0 : 0.0;
        EXPECT_NEAR(d_f(i), e, 1e-5) << i;
    }
}

// A scalar loss: loss = sum_r (w * blur(r) - target(r))^2, with blur a
// 3-tap box over a clamped input; gradients with respect to the input and
// the Param w.
TEST_P(Derivative_, ScalarLossOfABlurWithAParam) {
    const int N = 12;
    Buffer<float> in = ramp_buffer(N, "in", 0.25f, -1.0f);
    Buffer<float> target = ramp_buffer(N, "target", -0.5f, 2.0f);
    Param<float> w("w");
    w.set(1.5f);
    Var x("x");
    Func clamped("clamped"), blur("blur"), loss("loss");
    clamped(x) = in(clamp(x, 0, N - 1));
    blur(x) = (clamped(x - 1) + clamped(x) + clamped(x + 1)) / 3.0f;
    RDom r(0, N, "r");
    Expr diff = w * blur(r) - target(r);
    loss() = sum(diff * diff);
    Derivative d = propagate_adjoints(loss);
    Buffer<float> d_in = d(in).realize({N});
    Buffer<float> d_w = d(w).realize();

    auto c = [&](int i) { return (double)in(std::min(std::max(i, 0), N - 1)); };
    std::vector<double> expected_in(N, 0.0);
    double expected_w = 0.0;
    for (int i = 0; i < N; i++) {
        double b = (c(i - 1) + c(i) + c(i + 1)) / 3.0;
        double g = 2.0 * (1.5 * b - target(i));  // d loss / d diff
        expected_w += g * b;
        for (int k = -1; k <= 1; k++) expected_in[std::min(std::max(i + k, 0), N - 1)] += g * 1.5 / 3.0;
    }
    expect_near(d_in, expected_in);
    EXPECT_NEAR(d_w(), expected_w, 1e-4 * (1 + std::fabs(expected_w)));
}

// C(x, y) = sum_k A(k, y) B(x, k) as a pure definition and an additive
// update; the adjoint of C is a Buffer G: d A(k, y) = sum_x G(x, y) B(x, k)
// and d B(x, k) = sum_y G(x, y) A(k, y).
TEST_P(Derivative_, MatrixProductWithABufferAdjoint) {
    const int M = 5, K = 4, P = 3;
    Buffer<float> A(std::vector<int>{K, P}, "A"), B(std::vector<int>{M, K}, "B"), G(std::vector<int>{M, P}, "G");
    A.for_each_element([&](const std::vector<int> &p) { A(p) = 0.5f * (float)((p[0] * 3 + p[1]) % 5) - 1.0f; });
    B.for_each_element([&](const std::vector<int> &p) { B(p) = 0.25f * (float)((p[0] + 2 * p[1]) % 7); });
    G.for_each_element([&](const std::vector<int> &p) { G(p) = (float)(p[0] - p[1]); });
    Var x("x"), y("y");
    RDom k(0, K, "k");
    Func C("C");
    C(x, y) = 0.0f;
    C(x, y) += A(k, y) * B(x, k);
    Derivative d = propagate_adjoints(C, G);
    Buffer<float> d_A = d(A).realize({K, P});
    Buffer<float> d_B = d(B).realize({M, K});
    for (int kk = 0; kk < K; kk++) {
        for (int yy = 0; yy < P; yy++) {
            double e = 0;
            for (int xx = 0; xx < M; xx++) e += (double)G(xx, yy) * B(xx, kk);
            EXPECT_NEAR(d_A(kk, yy), e, 1e-4 * (1 + std::fabs(e))) << kk << ", " << yy;
        }
    }
    for (int xx = 0; xx < M; xx++) {
        for (int kk = 0; kk < K; kk++) {
            double e = 0;
            for (int yy = 0; yy < P; yy++) e += (double)G(xx, yy) * A(kk, yy);
            EXPECT_NEAR(d_B(xx, kk), e, 1e-4 * (1 + std::fabs(e))) << xx << ", " << kk;
        }
    }
    // Every stage of C has the one adjoint.
    Buffer<float> d_C0 = d(C, 0).realize({M, P});
    d_C0.for_each_element([&](const std::vector<int> &p) { EXPECT_EQ(d_C0(p), G(p)); });
}

// Each differentiable operation against its derivative in C++.
TEST_P(Derivative_, EachOperationsDerivative) {
    const int N = 8;
    Buffer<float> a(std::vector<int>{N}, "a"), b(std::vector<int>{N}, "b");
    for (int i = 0; i < N; i++) {
        a(i) = 0.3f + 0.2f * (float)i;        // in (0, 2)
        b(i) = 0.9f - 0.1f * (float)(i % 5);  // in (0.5, 1)
    }
    Var x("x");
    struct Case {
        std::string name;
        Expr value;
        std::function<double(double, double)> da, db;
    };
    Expr ea = a(x), eb = b(x);
    std::vector<Case> cases = {
        {"div", ea / eb, [](double, double q) { return 1 / q; }, [](double p, double q) { return -p / (q * q); }},
        {"exp", exp(ea * eb), [](double p, double q) { return q * std::exp(p * q); },
         [](double p, double q) { return p * std::exp(p * q); }},
        {"log_sqrt", log(ea) + sqrt(eb), [](double p, double) { return 1 / p; },
         [](double, double q) { return 0.5 / std::sqrt(q); }},
        {"pow", pow(ea, eb), [](double p, double q) { return q * std::pow(p, q - 1); },
         [](double p, double q) { return std::pow(p, q) * std::log(p); }},
        {"tanh_cos", tanh(ea) * cos(eb), [](double p, double q) { return (1 - std::tanh(p) * std::tanh(p)) * std::cos(q); },
         [](double p, double q) { return -std::tanh(p) * std::sin(q); }},
        {"atan2", atan2(ea, eb), [](double p, double q) { return q / (p * p + q * q); },
         [](double p, double q) { return -p / (p * p + q * q); }},
        {"max_min", max(ea, eb) - 2.0f * min(ea, eb), [](double p, double q) { return p >= q ? 1.0 : -2.0; },
         [](double p, double q) { return p >= q ? -2.0 : 1.0; }},
        {"select_abs", select(ea > 1.0f, abs(eb - ea), ea * ea),
         [](double p, double q) { return p > 1 ? (q - p < 0 ? 1.0 : -1.0) : 2 * p; },
         [](double p, double q) { return p > 1 ? (q - p < 0 ? -1.0 : 1.0) : 0.0; }},
        {"floor_cast", floor(ea * 3.0f) + cast<float>(cast<int>(eb * 10.0f)) + eb,
         [](double, double) { return 0.0; }, [](double, double) { return 1.0; }},
        {"asin_atan", asin(eb * 0.5f) + atan(ea), [](double p, double) { return 1 / (1 + p * p); },
         [](double, double q) { return 0.5 / std::sqrt(1 - 0.25 * q * q); }},
    };
    for (const Case &c : cases) {
        SCOPED_TRACE(c.name);
        Func f("f_" + c.name), ones("ones_" + c.name);
        f(x) = c.value;
        ones(x) = 1.0f;
        Derivative d = propagate_adjoints(f, ones, {{0, N}});
        Buffer<float> d_a = d(a).realize({N}), d_b = d(b).realize({N});
        std::vector<double> ea_expected, eb_expected;
        for (int i = 0; i < N; i++) {
            ea_expected.push_back(c.da(a(i), b(i)));
            eb_expected.push_back(c.db(a(i), b(i)));
        }
        expect_near(d_a, ea_expected);
        expect_near(d_b, eb_expected);
    }
}

// A subtracting update with a where() predicate, over a region not at 0.
TEST_P(Derivative_, SubtractingUpdateWithAPredicate) {
    const int N = 9;
    Buffer<float> in = ramp_buffer(N + 4, "in", 0.5f, 0.0f);
    Var x("x");
    RDom r(0, 4, "r");
    r.where(r != 2);
    Func g("g");
    g(x) = 2.0f * in(x);
    g(x) -= in(x + r) * in(x + r);
    Func ones("ones");
    ones(x) = 1.0f;
    Derivative d = propagate_adjoints(g, ones, {{3, 5}});
    Buffer<float> d_in = d(in).realize({N + 4});
    std::vector<double> expected(N + 4, 0.0);
    for (int i = 3; i < 8; i++) {
        expected[i] += 2.0;
        for (int k = 0; k < 4; k++) {
            if (k != 2) expected[i + k] -= 2.0 * in(i + k);
        }
    }
    expect_near(d_in, expected);
}

// A Func read by two consumers (a diamond), on a 2-D region, with lerp:
// a = in^2, b(x, y) = a(x, y) + a(x + 1, y), c = lerp(a, b, 0.25),
// adjoint of c given as a Func of the coordinates.
TEST_P(Derivative_, DiamondOfFuncsIn2D) {
    const int W = 6, H = 4;
    Buffer<float> in(std::vector<int>{W + 1, H}, "in");
    in.for_each_element([&](const std::vector<int> &p) { in(p) = 0.1f * (float)((p[0] * 5 + p[1] * 3) % 9) - 0.3f; });
    Var x("x"), y("y");
    Func a("a"), b("b"), c("c"), adj("adj");
    a(x, y) = in(x, y) * in(x, y);
    b(x, y) = a(x, y) + a(x + 1, y);
    c(x, y) = lerp(a(x, y), b(x, y), 0.25f);
    adj(x, y) = cast<float>(x - 2 * y);
    Derivative d = propagate_adjoints(c, adj, {{0, W}, {0, H}});
    Buffer<float> d_in = d(in).realize({W + 1, H});
    // c = 0.75 a(x) + 0.25 (a(x) + a(x + 1)) = a(x) + 0.25 a(x + 1).
    d_in.for_each_element([&](const std::vector<int> &p) {
        const int i = p[0], j = p[1];
        double da = 0;
        if (i < W) da += (double)(i - 2 * j);
        if (i >= 1) da += 0.25 * (double)(i - 1 - 2 * j);
        double e = da * 2.0 * in(i, j);
        EXPECT_NEAR(d_in(i, j), e, 1e-4 * (1 + std::fabs(e))) << i << ", " << j;
    });
}

// The shapes of Halide's own autodiff tests: a scalar Func of a scalar Func,
// and a loss accumulated by an update of a Func of no Vars.
TEST_P(Derivative_, HalideStyleScalarAndLossUpdate) {
    Func x0("x0"), y0("y0");
    x0() = 5.0f;
    y0() = x0() * x0() + 2.0f * x0() + 5.0f;
    Derivative d0 = propagate_adjoints(y0);
    Buffer<float> dydx = d0(x0).realize();
    EXPECT_FLOAT_EQ(dydx(), 12.0f);  // 2x + 2

    Var x("x");
    float input_data[] = {1.0f, 2.0f};
    Buffer<float> input(input_data, 2, "input");
    Func clamped("clamped"), blur("blur"), loss("loss");
    clamped(x) = input(clamp(x, 0, input.width() - 1));
    blur(x) = clamped(x) + clamped(x + 1);
    RDom r(0, 2);
    loss() = 0.0f;
    loss() += blur(r.x) * blur(r.x);
    Derivative d = propagate_adjoints(loss);
    Buffer<float> blur_buf = blur.realize({2});
    Buffer<float> d_blur = d(blur).realize({2});
    EXPECT_FLOAT_EQ(d_blur(0), 2 * blur_buf(0));
    EXPECT_FLOAT_EQ(d_blur(1), 2 * blur_buf(1));
    Buffer<float> d_clamped = d(clamped).realize({2});
    EXPECT_FLOAT_EQ(d_clamped(0), d_blur(0));
    EXPECT_FLOAT_EQ(d_clamped(1), d_blur(0) + d_blur(1));
    Buffer<float> d_input = d(input).realize({2});
    EXPECT_FLOAT_EQ(d_input(0), d_blur(0));
    EXPECT_FLOAT_EQ(d_input(1), d_blur(0) + 2 * d_blur(1));  // blur(1) reads input(1) twice (clamped)
}

// A 2-D stencil reads its input at shifts of its own Vars: each adjoint
// update then gathers over the adjoint's Vars (no RDom), so it can be
// vectorized and parallelized like any update.
TEST_P(Derivative_, ShiftedReadsGatherAndCanBeScheduled) {
    const int W = 19, H = 7;
    Buffer<float> in(std::vector<int>{W + 2, H}, "in");
    in.for_each_element([&](const std::vector<int> &p) { in(p) = 0.05f * (float)((p[0] * 7 + p[1] * 3) % 13); });
    Var x("x"), y("y");
    Func blur("blur"), sq("sq"), ones("ones");
    blur(x, y) = in(x, y) + 2.0f * in(x + 1, y) + in(x + 2, y);
    sq(x, y) = blur(x, y) * blur(x, y);
    ones(x, y) = 1.0f;
    Derivative d = propagate_adjoints(sq, ones, {{0, W}, {0, H}});
    Func d_in = d(in);
    ASSERT_EQ(d_in.num_update_definitions(), 3);
    std::vector<Var> v = d_in.args();
    for (int i = 0; i < 3; i++) {
        EXPECT_FALSE(d_in.function().get()->updates[i].rdom.defined()) << "update " << i << " scatters";
        d_in.update(i).vectorize(v[0], 4).parallel(v[1]);
    }
    Buffer<float> out = d_in.realize({W + 2, H});
    out.for_each_element([&](const std::vector<int> &p) {
        const int i = p[0], j = p[1];
        double e = 0;
        const double taps[3] = {1, 2, 1};
        for (int k = 0; k < 3; k++) {
            const int xc = i - k;  // the blur point that reads in(i) through tap k
            if (xc < 0 || xc >= W) continue;
            double b = (double)in(xc, j) + 2.0 * in(xc + 1, j) + in(xc + 2, j);
            e += 2.0 * b * taps[k];
        }
        EXPECT_NEAR(out(i, j), e, 1e-4 * (1 + std::fabs(e))) << i << ", " << j;
    });
}

// A Tuple-valued producer, as in Halide: its adjoint is a Tuple, element i
// the derivative with respect to element i; an integer element's is zero.
// out(x) = 3 t(x)[0] + t(x + 1)[1] in(x) + t(x)[2] with t(x) = {in(x)^2,
// sin(in(x)), int(x)}, adjoint w(x) = 1 + x / 4 over [0, N).
TEST_P(Derivative_, TupleElementsHaveTheirOwnAdjoints) {
    const int N = 9;
    Buffer<float> in = ramp_buffer(N + 1, "in", 0.15f, -0.6f);
    Var x("x");
    Func t("t"), out("out"), w("w");
    t(x) = Tuple(in(x) * in(x), sin(in(x)), x);
    out(x) = 3.0f * t(x)[0] + t(x + 1)[1] * in(x) + cast<float>(t(x)[2]);
    w(x) = 1.0f + cast<float>(x) / 4.0f;
    Derivative d = propagate_adjoints(out, w, {{0, N}});

    std::vector<double> d0(N + 1, 0.0), d1(N + 1, 0.0), din(N + 1, 0.0);
    for (int i = 0; i < N; i++) {
        const double wi = 1.0 + i / 4.0;
        d0[i] += 3.0 * wi;
        d1[i + 1] += wi * in(i);
        din[i] += wi * std::sin((double)in(i + 1));
    }
    for (int i = 0; i <= N; i++) din[i] += d0[i] * 2.0 * in(i) + d1[i] * std::cos((double)in(i));

    Func dt = d(t);
    ASSERT_TRUE(dt.defined());
    ASSERT_EQ(dt.outputs(), 3);
    Realization r = dt.realize({N + 1});
    Buffer<float> r0 = r[0], r1 = r[1];
    Buffer<int> r2 = r[2];
    expect_near(r0, d0);
    expect_near(r1, d1);
    for (int i = 0; i <= N; i++) EXPECT_EQ(r2(i), 0) << i;
    expect_near(d(in).realize({N + 1}), din);
}

// A Tuple's stages: an addition to one element over an RDom (the other
// element stays), then a product of the elements at each point. The
// adjoint of each stage's value is a Tuple (d(acc, k)), against the chain
// rule written out.
TEST_P(Derivative_, TupleUpdatesHaveStageAdjoints) {
    const int N = 7;
    Buffer<float> in = ramp_buffer(N + 2, "in", 0.2f, -0.5f);
    Var x("x");
    RDom r(0, 3, "r");
    Func acc("acc"), out("out"), w("w");
    acc(x) = Tuple(in(x), 2.0f * in(x));
    acc(x)[0] += in(x + r);
    acc(x)[1] = acc(x)[1] * acc(x)[0];
    out(x) = acc(x)[0] + 0.5f * acc(x)[1];
    w(x) = 2.0f - cast<float>(x) / 3.0f;
    Derivative d = propagate_adjoints(out, w, {{0, N}});

    std::vector<double> after0(N), after1(N), before0(N), before1(N), din(N + 2, 0.0);
    for (int i = 0; i < N; i++) {
        const double wi = 2.0 - i / 3.0;
        const double a0 = 2.0 * in(i) + in(i + 1) + in(i + 2), a1 = 2.0 * in(i);
        after0[i] = wi;
        after1[i] = 0.5 * wi;
        // acc1' = acc1 * acc0: both read at the written point.
        before0[i] = wi + 0.5 * wi * a1;
        before1[i] = 0.5 * wi * a0;
        // The addition's adjoint is the product's earlier value's, for both stages before it.
        for (int k = 0; k < 3; k++) din[i + k] += before0[i];
        din[i] += before0[i] + 2.0 * before1[i];
    }
    auto element = [&](Func f, int i) {
        Realization rz = f.realize({N});
        return Buffer<float>(rz[i]);
    };
    expect_near(element(d(acc, 1), 0), after0);
    expect_near(element(d(acc, 1), 1), after1);
    expect_near(element(d(acc, 0), 0), before0);
    expect_near(element(d(acc, 0), 1), before1);
    expect_near(element(d(acc), 0), before0);
    expect_near(element(d(acc), 1), before1);
    expect_near(d(in).realize({N + 2}), din);
}

TEST_P(Derivative_, UnsupportedProgramsAreCompileErrors) {
    Buffer<float> in = ramp_buffer(8, "in", 1.0f, 0.0f);
    Buffer<int> idx(std::vector<int>{8}, "idx");
    for (int i = 0; i < 8; i++) idx(i) = 7 - i;
    Var x("x");
    RDom r(0, 4, "r");
    Func ones("ones");
    ones(x) = 1.0f;

    Func prod("prod");
    prod(x) = 1.0f;
    prod(x) = prod(x) * in(x + r);
    std::string m = compile_error_message([&] { propagate_adjoints(prod, ones, {{0, 4}}); });
    EXPECT_NE(m.find("update 0 of prod is not an addition"), std::string::npos) << m;

    Func integer("integer");
    integer(x) = cast<int>(in(x));
    m = compile_error_message([&] { propagate_adjoints(integer, ones, {{0, 4}}); });
    EXPECT_NE(m.find("must have one floating-point value"), std::string::npos) << m;

    Func gathered("gathered"), lookup("lookup");
    lookup(x) = in(x) * 2.0f;
    gathered(x) = lookup(idx(x));
    m = compile_error_message([&] { propagate_adjoints(gathered, ones, {{0, 8}}); });
    EXPECT_NE(m.find("can't bound coordinate 0 of lookup"), std::string::npos) << m;

    Func logs("logs");
    logs(x) = fast_log(in(x) + 1.0f);
    m = compile_error_message([&] { propagate_adjoints(logs, ones, {{0, 8}}); });
    EXPECT_NE(m.find("can't differentiate a reinterpret of bits"), std::string::npos) << m;
    EXPECT_NE(m.find("logs's pure definition"), std::string::npos) << m;

    Func ext("ext"), after_ext("after_ext");
    ext.define_extern("loom_test_not_called", {in}, Float(32), {x});
    after_ext(x) = ext(x) * 2.0f;
    m = compile_error_message([&] { propagate_adjoints(after_ext, ones, {{0, 8}}); });
    EXPECT_NE(m.find("ext is an extern stage"), std::string::npos) << m;

    // A Tuple is differentiated inside the pipeline, but the output has one
    // value (the adjoint given is one Func of one value).
    Func tuple("tuple");
    tuple(x) = Tuple(in(x), in(x) * 2.0f);
    m = compile_error_message([&] { propagate_adjoints(tuple, ones, {{0, 8}}); });
    EXPECT_NE(m.find("the output tuple must have one floating-point value"), std::string::npos) << m;

    Func vec("vec");
    vec(x) = in(x);
    m = compile_error_message([&] { propagate_adjoints(vec); });
    EXPECT_NE(m.find("must be a Func of no Vars"), std::string::npos) << m;
    m = compile_error_message([&] { propagate_adjoints(vec, ones, {{0, 4}, {0, 4}}); });
    EXPECT_NE(m.find("Give one {min, extent} per dimension"), std::string::npos) << m;

    // As in Halide, what has no adjoint is an undefined Func.
    Derivative d = propagate_adjoints(vec, ones, {{0, 4}});
    EXPECT_TRUE(d(in).defined());
    EXPECT_FALSE(d(idx).defined());
    EXPECT_FALSE(d(vec, 1).defined());
    EXPECT_TRUE(d(vec, -1).defined());
}

}  // namespace

LOOM_INSTANTIATE_BACKENDS(Derivative_);
