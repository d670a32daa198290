// Types and Halide's integer semantics end to end: division rounds down
// (for positive divisors),
// % is Euclidean, narrow types wrap, float-to-int truncates; and every math
// function against <cmath>.

#include "e2e/E2ETest.h"

#include <cmath>
#include <cstring>
#include <functional>

using namespace loom;
using loom_test::expect_buffer_eq;

namespace {

class Semantics : public loom_test::BackendTest {};

// Halide's integer division is Euclidean: a == b * (a / b) + a % b with
// 0 <= a % b < |b| (so it rounds down for positive b).
int euclid_mod(int a, int b) {
    int m = a % b;
    return m < 0 ? m + std::abs(b) : m;
}
int euclid_div(int a, int b) { return (a - euclid_mod(a, b)) / b; }

TEST_P(Semantics, SignedDivisionAndModulus) {
    Var x("x"), y("y");
    Func div("div"), mod("mod");
    // x in [-6, 6], y in [-3, 3] without 0.
    Expr a = x - 6, b = select(y < 3, y - 3, y - 2);
    div(x, y) = a / b;
    mod(x, y) = a % b;
    Buffer<int> d = div.realize({13, 6}), m = mod.realize({13, 6});
    auto B = [](int y) { return y < 3 ? y - 3 : y - 2; };
    expect_buffer_eq(d, [&](const std::vector<int> &p) { return euclid_div(p[0] - 6, B(p[1])); });
    expect_buffer_eq(m, [&](const std::vector<int> &p) { return euclid_mod(p[0] - 6, B(p[1])); });
}

TEST_P(Semantics, DivisionByZeroIsZero) {
    Var x("x");
    Param<int> zero("zero", 0);
    Func f("div0");
    f(x) = (x + 5) / zero + (x + 5) % zero;
    Buffer<int> out = f.realize({3});
    expect_buffer_eq(out, [](const std::vector<int> &) { return 0; });
}

TEST_P(Semantics, NarrowTypesWrap) {
    Var x("x");
    Func u8("u8"), i8("i8"), u16("u16");
    u8(x) = cast<uint8_t>(x) * cast<uint8_t>(37) + cast<uint8_t>(200);
    i8(x) = cast<int8_t>(x) * cast<int8_t>(50);
    u16(x) = cast<uint16_t>(x) - cast<uint16_t>(5);
    Buffer<uint8_t> a = u8.realize({16});
    Buffer<int8_t> b = i8.realize({16});
    Buffer<uint16_t> c = u16.realize({16});
    expect_buffer_eq(a, [](const std::vector<int> &p) { return uint8_t(uint8_t(p[0] * 37) + 200); });
    expect_buffer_eq(b, [](const std::vector<int> &p) { return int8_t(p[0] * 50); });
    expect_buffer_eq(c, [](const std::vector<int> &p) { return uint16_t(p[0] - 5); });
}

TEST_P(Semantics, UnsignedDivision) {
    Var x("x");
    Func f("udiv");
    f(x) = cast<uint8_t>(x * 17 + 3) / cast<uint8_t>(7) + cast<uint8_t>(x * 17 + 3) % cast<uint8_t>(7);
    Buffer<uint8_t> out = f.realize({15});
    expect_buffer_eq(out, [](const std::vector<int> &p) {
        uint8_t v = uint8_t(p[0] * 17 + 3);
        return uint8_t(v / 7 + v % 7);
    });
}

TEST_P(Semantics, FloatToIntTruncates) {
    Var x("x");
    Func f("trunc");
    Expr v = (cast<float>(x) - 10.0f) * 0.7f;
    f(x) = cast<int>(v) * 1000 + cast<int>(cast<uint8_t>(cast<float>(x) * 9.9f));
    Buffer<int> out = f.realize({21});
    expect_buffer_eq(out, [](const std::vector<int> &p) {
        float v = (float(p[0]) - 10.0f) * 0.7f;
        return int(v) * 1000 + int(uint8_t(float(p[0]) * 9.9f));
    });
}

TEST_P(Semantics, ImplicitTypeRules) {
    Var x("x");
    Func f("rules");
    // u8 + int literal stays u8 (and wraps); int + float becomes float.
    f(x) = cast<float>(cast<uint8_t>(x + 250) + 10) + x * 0.25f;
    Buffer<float> out = f.realize({10});
    expect_buffer_eq(out, [](const std::vector<int> &p) {
        return float(uint8_t(uint8_t(p[0] + 250) + 10)) + p[0] * 0.25f;
    });
}

TEST_P(Semantics, MinMaxClampSelectAbs) {
    Var x("x");
    Func f("misc");
    Expr v = x - 8;
    f(x) = min(v, 3) * 1000 + max(v, -2) * 100 + clamp(v, -1, 1) * 10 + select(v > 0, 1, v < 0, -1, 0) +
           cast<int>(abs(v)) * 100000 + cast<int>(absd(v, 2)) * 10000000;
    Buffer<int> out = f.realize({17});
    expect_buffer_eq(out, [](const std::vector<int> &p) {
        int v = p[0] - 8;
        int s = v > 0 ? 1 : (v < 0 ? -1 : 0);
        return std::min(v, 3) * 1000 + std::max(v, -2) * 100 + std::max(std::min(v, 1), -1) * 10 + s +
               std::abs(v) * 100000 + std::abs(v - 2) * 10000000;
    });
}

TEST_P(Semantics, BitwiseAndShifts) {
    Var x("x");
    Func f("bits");
    f(x) = ((x & 5) | (x << 3)) ^ (x >> 1) ^ ~x;
    Buffer<int> out = f.realize({20});
    expect_buffer_eq(out, [](const std::vector<int> &p) {
        int x = p[0];
        return ((x & 5) | (x << 3)) ^ (x >> 1) ^ ~x;
    });
}

struct MathCase {
    const char *name;
    std::function<Expr(Expr)> loom_fn;
    std::function<float(float)> reference;
    float lo, hi;
};

TEST_P(Semantics, FloatMathFunctions) {
    const MathCase cases[] = {
        {"sqrt", [](Expr v) { return sqrt(v); }, [](float v) { return std::sqrt(v); }, 0.0f, 10.0f},
        {"exp", [](Expr v) { return exp(v); }, [](float v) { return std::exp(v); }, -3.0f, 3.0f},
        {"log", [](Expr v) { return log(v); }, [](float v) { return std::log(v); }, 0.1f, 10.0f},
        {"sin", [](Expr v) { return sin(v); }, [](float v) { return std::sin(v); }, -4.0f, 4.0f},
        {"cos", [](Expr v) { return cos(v); }, [](float v) { return std::cos(v); }, -4.0f, 4.0f},
        {"tan", [](Expr v) { return tan(v); }, [](float v) { return std::tan(v); }, -1.2f, 1.2f},
        {"asin", [](Expr v) { return asin(v); }, [](float v) { return std::asin(v); }, -1.0f, 1.0f},
        {"acos", [](Expr v) { return acos(v); }, [](float v) { return std::acos(v); }, -1.0f, 1.0f},
        {"atan", [](Expr v) { return atan(v); }, [](float v) { return std::atan(v); }, -5.0f, 5.0f},
        {"sinh", [](Expr v) { return sinh(v); }, [](float v) { return std::sinh(v); }, -3.0f, 3.0f},
        {"cosh", [](Expr v) { return cosh(v); }, [](float v) { return std::cosh(v); }, -3.0f, 3.0f},
        {"tanh", [](Expr v) { return tanh(v); }, [](float v) { return std::tanh(v); }, -3.0f, 3.0f},
        {"floor", [](Expr v) { return floor(v); }, [](float v) { return std::floor(v); }, -3.0f, 3.0f},
        {"ceil", [](Expr v) { return ceil(v); }, [](float v) { return std::ceil(v); }, -3.0f, 3.0f},
        {"round", [](Expr v) { return round(v); }, [](float v) { return std::nearbyint(v); }, -3.0f, 3.0f},
        {"trunc", [](Expr v) { return trunc(v); }, [](float v) { return std::trunc(v); }, -3.0f, 3.0f},
        {"fract", [](Expr v) { return fract(v); }, [](float v) { return v - std::trunc(v); }, -3.0f, 3.0f},
    };
    const int n = 25;
    for (const MathCase &c : cases) {
        SCOPED_TRACE(c.name);
        Var x("x");
        Func f(std::string("math_") + c.name);
        Expr v = c.lo + cast<float>(x) * ((c.hi - c.lo) / (n - 1));
        f(x) = c.loom_fn(v);
        Buffer<float> out = f.realize({n});
        for (int i = 0; i < n; i++) {
            float in = c.lo + float(i) * ((c.hi - c.lo) / (n - 1));
            float expected = c.reference(in);
            EXPECT_NEAR(out(i), expected, 1e-5f * std::max(1.0f, std::fabs(expected))) << c.name << "(" << in << ")";
        }
    }
}

TEST_P(Semantics, TwoArgumentMathAndLerp) {
    Var x("x");
    Func f("pow_atan2"), g("lerp");
    Expr a = cast<float>(x) * 0.5f + 0.25f;
    f(x) = pow(a, 1.5f) + atan2(a - 2.0f, 1.5f);
    g(x) = lerp(10.0f, 20.0f, cast<float>(x) / 8.0f);
    Buffer<float> out = f.realize({9}), l = g.realize({9});
    for (int i = 0; i < 9; i++) {
        float av = i * 0.5f + 0.25f;
        EXPECT_NEAR(out(i), std::pow(av, 1.5f) + std::atan2(av - 2.0f, 1.5f), 1e-4f);
        EXPECT_NEAR(l(i), 10.0f + 10.0f * (i / 8.0f), 1e-5f);
    }
}

TEST_P(Semantics, DoubleMathAndClassification) {
    Var x("x");
    Func f("dmath"), g("classify");
    Expr v = cast<double>(x) * 0.3 - 1.0;
    f(x) = exp(v) + sqrt(v + 1.5) + sin(v);
    Expr inf = cast<float>(x) / 0.0f;  // x = 0 gives NaN, others inf
    g(x) = select(is_nan(inf), 1, 0) + select(is_inf(inf), 10, 0) + select(is_finite(cast<float>(x)), 100, 0);
    Buffer<double> out = f.realize({8});
    Buffer<int> cls = g.realize({3});
    for (int i = 0; i < 8; i++) {
        double d = i * 0.3 - 1.0;
        EXPECT_NEAR(out(i), std::exp(d) + std::sqrt(d + 1.5) + std::sin(d), 1e-12);
    }
    EXPECT_EQ(cls(0), 101);
    EXPECT_EQ(cls(1), 110);
    EXPECT_EQ(cls(2), 110);
}

TEST_P(Semantics, Reinterpret) {
    Var x("x");
    Func f("bits_of");
    f(x) = reinterpret<uint32_t>(cast<float>(x) + 0.5f);
    Buffer<uint32_t> out = f.realize({4});
    for (int i = 0; i < 4; i++) {
        float v = i + 0.5f;
        uint32_t bits;
        std::memcpy(&bits, &v, 4);
        EXPECT_EQ(out(i), bits);
    }
}

LOOM_INSTANTIATE_BACKENDS(Semantics);

}  // namespace
