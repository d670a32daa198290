// BFloat(16) end to end: Buffer<bfloat16_t> in and out, BFloat(16) Funcs,
// casts to and from floats and integers, arithmetic that rounds to bfloat16
// after every operation, math functions, a reduction and vectorized loops,
// checked against plain C++ loops that use loom::bfloat16_t's
// conversions (compute in float, round to nearest even). The Vulkan runs
// fall back to the CPU: kernels refuse BFloat(16) (the last test).

#include "e2e/E2ETest.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

using namespace loom;

namespace {

class BFloat16 : public loom_test::BackendTest {};

using bf16 = bfloat16_t;

bool same_bf16(bf16 a, bf16 b) { return a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()); }

std::string describe(bf16 v) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.9g (0x%04x)", (double)v.to_float(), v.to_bits());
    return buf;
}

template<typename F>
void expect_bf16(const Buffer<bf16> &b, F expected_at) {
    int failures = 0;
    b.for_each_element([&](const std::vector<int> &pos) {
        if (failures >= 5) return;
        bf16 expected = expected_at(pos), actual = b(pos);
        if (same_bf16(expected, actual)) return;
        failures++;
        ADD_FAILURE() << "at " << pos[0] << ": expected " << describe(expected) << ", got " << describe(actual);
    });
}

// Ordinary values, values that round (ties included), the edges of the
// range, subnormals, infinities, NaN and signed zeros.
std::vector<float> sample_floats() {
    std::vector<float> v;
    for (int i = -20; i <= 20; i++) v.push_back(i * 0.37f);
    const float extras[] = {1.0f,
                            1.0f + std::ldexp(1.0f, -8),  // a tie in bfloat16
                            1.0f + std::ldexp(3.0f, -8),  // a tie, rounds up
                            1.00390637f,
                            3.3895313892515355e38f,  // the largest finite bfloat16
                            3.3961775e38f,           // rounds to infinity
                            std::ldexp(1.0f, -126),
                            std::ldexp(1.0f, -133),  // the smallest bfloat16 subnormal
                            std::ldexp(3.0f, -135),
                            0.0f,
                            -0.0f,
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(),
                            3.14159265f,
                            65504.0f,
                            1e10f,
                            -7.5e-20f};
    for (float f : extras) v.push_back(f);
    return v;
}

TEST_P(BFloat16, CastsFromFloatRoundToNearestEven) {
    std::vector<float> values = sample_floats();
    const int n = (int)values.size();
    Buffer<float> in(n);
    for (int i = 0; i < n; i++) in(i) = values[i];
    Var x("x");
    Func narrow("narrow"), wide("wide");
    narrow(x) = cast<bf16>(in(x));
    wide(x) = cast<float>(narrow(x)) * 2.0f;  // BFloat(16) -> Float(32) is exact
    narrow.compute_root();
    EXPECT_EQ(narrow.output_types()[0], BFloat(16));
    Buffer<bf16> out = narrow.realize({n});
    expect_bf16(out, [&](const std::vector<int> &p) { return bf16(values[p[0]]); });
    Buffer<float> back = wide.realize({n});
    for (int i = 0; i < n; i++) {
        const float expected = bf16(values[i]).to_float() * 2.0f;
        EXPECT_TRUE(back(i) == expected || (std::isnan(back(i)) && std::isnan(expected))) << i;
    }
}

TEST_P(BFloat16, CastsFromDoublesIntegersAndHalves) {
    std::vector<double> doubles = {1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40),  // just above a tie
                                   1.0 + std::ldexp(1.0, -8),
                                   -2.0 - std::ldexp(3.0, -8),
                                   1e300,
                                   -1e-300,
                                   0.1,
                                   123456.789,
                                   -0.0};
    const int n = (int)doubles.size();
    Buffer<double> d(n);
    Buffer<int32_t> i32(n);
    Buffer<float16_t> h(n);
    for (int i = 0; i < n; i++) {
        d(i) = doubles[i];
        i32(i) = (int32_t)(i * 16777219 - 33554433);  // odd values beyond float's 24 bits
        h(i) = float16_t((float)(i * 3.3 - 7));
    }
    Var x("x");
    Func from_double("from_double"), from_int("from_int"), from_half("from_half"), to_int("to_int");
    from_double(x) = cast<bf16>(d(x));
    from_int(x) = cast<bf16>(i32(x));
    from_half(x) = cast<bf16>(h(x));
    to_int(x) = cast<int32_t>(from_double(x) * 1000);
    Buffer<bf16> a = from_double.realize({n}), b = from_int.realize({n}), c = from_half.realize({n});
    Buffer<int32_t> e = to_int.realize({n});
    expect_bf16(a, [&](const std::vector<int> &p) { return bf16(doubles[p[0]]); });
    expect_bf16(b, [&](const std::vector<int> &p) { return bf16((double)i32(p[0])); });
    expect_bf16(c, [&](const std::vector<int> &p) { return bf16(float(h(p[0]))); });
    EXPECT_EQ(a(0).to_bits(), 0x3f81);  // rounded once: not to the float 1 + 2^-8, then to 1
    for (int i = 0; i < n; i++) {
        const float product = (bf16(doubles[i]) * bf16(1000)).to_float();
        if (std::isfinite(product)) {
            EXPECT_EQ(e(i), (int32_t)product) << i;
        }
    }
}

TEST_P(BFloat16, ArithmeticRoundsAfterEveryOperation) {
    std::vector<float> floats = sample_floats();
    const int n = (int)floats.size();
    Buffer<bf16> in(n);
    for (int i = 0; i < n; i++) in(i) = bf16(floats[i]);
    Var x("x");
    Func f("bf16_math");
    Expr a = in(x), b = in((x + 7) % n), c = in((x * 5 + 3) % n);
    f(x) = (a + b) * c - a / (b + 1) + min(a, c) - max(b, 0.5f);
    EXPECT_EQ(f.output_types()[0], BFloat(16));  // a C++ float literal keeps BFloat(16)
    Buffer<bf16> out = f.realize({n});
    expect_bf16(out, [&](const std::vector<int> &p) {
        bf16 va = in(p[0]), vb = in((p[0] + 7) % n), vc = in((p[0] * 5 + 3) % n);
        // (Where an operand is NaN the result is NaN whatever min/max do.)
        bf16 lo = va.to_float() < vc.to_float() ? va : vc;
        bf16 hi = vb.to_float() > 0.5f ? vb : bf16(0.5f);
        if (va.is_nan() || vb.is_nan() || vc.is_nan()) return bf16::make_nan();
        return (va + vb) * vc - va / (vb + bf16(1)) + lo - hi;
    });
}

TEST_P(BFloat16, TiesRoundToEvenInBFloat16NotInFloat) {
    Buffer<bf16> in(3);
    in(0) = bf16(1.0f);
    in(1) = bf16(1.0f + std::ldexp(1.0f, -7));  // odd last bit: the tie rounds up
    in(2) = bf16(256.0f);                       // 256 + 1 is a tie too
    Var x("x");
    Func sum16("sum16"), sum32("sum32");
    sum16(x) = in(x) + select(x == 2, cast<bf16>(1), cast<bf16>(std::ldexp(1.0f, -8)));
    sum32(x) = cast<float>(in(x)) + select(x == 2, 1.0f, std::ldexp(1.0f, -8));
    Buffer<bf16> r16 = sum16.realize({3});
    Buffer<float> r32 = sum32.realize({3});
    EXPECT_EQ(r16(0).to_bits(), 0x3f80);  // 1 + 2^-8 -> 1
    EXPECT_EQ(r16(1).to_bits(), 0x3f82);  // 1 + 3 * 2^-8 -> 1 + 2^-6
    EXPECT_EQ(r16(2).to_float(), 256.0f);
    EXPECT_EQ(r32(0), 1.0f + std::ldexp(1.0f, -8));
    EXPECT_EQ(r32(2), 257.0f);
}

TEST_P(BFloat16, ComparisonsSelectsMathAndMixedTypes) {
    std::vector<float> floats = sample_floats();
    const int n = (int)floats.size();
    Buffer<bf16> in(n);
    for (int i = 0; i < n; i++) in(i) = bf16(floats[i]);
    Var x("x");
    Func larger("larger"), root("root"), widened("widened"), is_big("is_big");
    Expr a = in(x), b = in((x + 3) % n);
    larger(x) = select(a > b, a, b);
    root(x) = sqrt(abs(a));
    widened(x) = a * 3.0f + cast<float>(b) * 0.5f;  // BFloat(16) with Float(32) is Float(32)
    is_big(x) = cast<uint8_t>(a >= 100);
    EXPECT_EQ(root.output_types()[0], BFloat(16));
    EXPECT_EQ(widened.output_types()[0], Float(32));
    Buffer<bf16> l = larger.realize({n}), r = root.realize({n});
    Buffer<float> w = widened.realize({n});
    Buffer<uint8_t> big = is_big.realize({n});
    for (int i = 0; i < n; i++) {
        bf16 va = in(i), vb = in((i + 3) % n);
        bf16 expected_larger = va.to_float() > vb.to_float() ? va : vb;
        EXPECT_TRUE(same_bf16(l(i), expected_larger)) << i << ": " << describe(l(i));
        bf16 expected_root(std::sqrt(std::fabs(va.to_float())));
        EXPECT_TRUE(same_bf16(r(i), expected_root)) << i << ": " << describe(r(i));
        // Float(32) arithmetic: a is widened, the product rounds to float.
        // a * 3.0f stays BFloat(16) (rounded), then meets a Float(32).
        const float expected_w = (va * bf16(3.0f)).to_float() + vb.to_float() * 0.5f;
        // (Float(32) arithmetic may use a fused multiply-add.)
        if (std::isfinite(expected_w)) {
            EXPECT_NEAR(w(i), expected_w, 1e-6 * std::fabs(expected_w) + 1e-30) << i;
        } else {
            EXPECT_TRUE(w(i) == expected_w || (std::isnan(w(i)) && std::isnan(expected_w))) << i;
        }
        EXPECT_EQ(big(i), va.to_float() >= 100 ? 1 : 0) << i;
    }
}

TEST_P(BFloat16, VectorizedReduction) {
    const int w = 40, h = 5;
    Buffer<bf16> in(w, h);
    in.fill([](int x, int y) { return bf16((float)(x * 0.3 - y * 1.7 + 0.01 * x * x)); });
    Expr scale = cast<bf16>(1.25f);
    Var x("x"), y("y");
    RDom r(0, h);
    Func scaled("scaled"), total("total");
    scaled(x, y) = in(x, y) * scale;
    total(x) = cast<bf16>(0);
    total(x) += scaled(x, r);  // accumulates in BFloat(16): rounds at every step
    scaled.compute_root().vectorize(x, 8);
    total.vectorize(x, 8).update().vectorize(x, 8);
    Buffer<bf16> out = total.realize({w});
    expect_bf16(out, [&](const std::vector<int> &p) {
        bf16 acc(0.0f);
        for (int yy = 0; yy < h; yy++) acc = acc + in(p[0], yy) * bf16(1.25f);
        return acc;
    });
}

LOOM_INSTANTIATE_BACKENDS(BFloat16);

TEST(BFloat16Generators, TypeNameIsBFloat16) {
    // As Halide's generators spell it: output.type=bfloat16.
    EXPECT_EQ(internal::parse_generator_type("output.type", "bfloat16"), BFloat(16));
    EXPECT_EQ(BFloat(16).to_string(), "bfloat16");
}

TEST(BFloat16Errors, GpuKernelsRefuseBFloat16) {
    Buffer<bf16> in(64);
    Var x("x"), xo("xo"), xi("xi");
    Func f("bf16_kernel");
    f(x) = in(x) * 2;
    f.gpu_tile(x, xo, xi, 16);
    try {
        f.compile_jit(Target("host-vulkan"));
        ADD_FAILURE() << "a BFloat(16) kernel compiled";
    } catch (const CompileError &e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("bfloat16"), std::string::npos) << message;
        EXPECT_NE(message.find("bf16_kernel"), std::string::npos) << message;
    }
}

}  // namespace
