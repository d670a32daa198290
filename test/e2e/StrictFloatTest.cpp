// Floating-point contraction end to end. By default a float32 a*b + c may be
// computed as one fused multiply-add; with the strict_float target feature
// it is a rounded multiply followed by a rounded add, exactly like the C++
// expression `a * b + c` compiled without contraction.
//
// The inputs make the difference visible: c = -(a * b rounded to float), so
// the unfused result is exactly 0 and the fused one is the rounding error of
// the product, which is not 0 for most a, b.

#include "e2e/E2ETest.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

using namespace loom;

namespace {

class StrictFloat : public loom_test::BackendTest {};

constexpr int kSize = 256;

struct Inputs {
    Buffer<float> a{kSize}, b{kSize}, c{kSize};
    Inputs() {
        std::mt19937 rng(12345);
        std::uniform_real_distribution<float> dist(-3.0f, 3.0f);
        for (int i = 0; i < kSize; i++) {
            a(i) = dist(rng);
            b(i) = dist(rng);
            volatile float product = a(i) * b(i);  // rounded to float here
            c(i) = -product;
        }
    }
};

// The C++ reference, one rounding per operation (no contraction: the
// product is stored to a volatile float before the add).
float unfused(float a, float b, float c) {
    volatile float product = a * b;
    return product + c;
}

uint32_t bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}

Func multiply_add(Inputs &in, const char *name) {
    Var x("x");
    Func f(name);
    f(x) = in.a(x) * in.b(x) + in.c(x);
    f.vectorize(x, 8);
    return f;
}

TEST_P(StrictFloat, MultiplyAddIsRoundedTwiceBitExactly) {
    Inputs in;
    Func f = multiply_add(in, "strict_madd");
    Buffer<float> out = f.realize({kSize}, get_jit_target_from_environment().with_feature(Target::StrictFloat));
    for (int i = 0; i < kSize; i++) {
        ASSERT_EQ(bits(out(i)), bits(unfused(in.a(i), in.b(i), in.c(i))))
            << "at " << i << ": a=" << in.a(i) << " b=" << in.b(i) << " c=" << in.c(i) << " got " << out(i);
    }
}

TEST_P(StrictFloat, MultiplySubtractIsRoundedTwiceBitExactly) {
    Inputs in;
    Var x("x");
    Func f("strict_msub");
    f(x) = in.a(x) * in.b(x) - (Expr(0.0f) - in.c(x));
    f.vectorize(x, 8);
    Buffer<float> out = f.realize({kSize}, get_jit_target_from_environment().with_feature(Target::StrictFloat));
    for (int i = 0; i < kSize; i++) {
        volatile float product = in.a(i) * in.b(i);
        volatile float negated = 0.0f - in.c(i);
        const float expected = product - negated;
        ASSERT_EQ(bits(out(i)), bits(expected)) << "at " << i;
    }
}

TEST(StrictFloatLLVM, DefaultTargetFusesOnAnFmaHost) {
    // Shows that the inputs above tell fused from unfused: without
    // strict_float, the JIT on an FMA machine computes fma(a, b, c).
    const Target host = get_jit_target_from_environment();
    if (host.arch != Target::X86 || !host.has_feature(Target::FMA)) {
        GTEST_SKIP() << "the host " << host.to_string() << " has no x86 FMA instructions";
    }
    const internal::Backend previous = internal::jit_backend();
    internal::set_jit_backend(internal::Backend::LLVM);
    Inputs in;
    Func f = multiply_add(in, "default_madd");
    Buffer<float> out = f.realize({kSize}, host);
    internal::set_jit_backend(previous);
    int differ = 0;
    for (int i = 0; i < kSize; i++) {
        ASSERT_EQ(bits(out(i)), bits(std::fma(in.a(i), in.b(i), in.c(i)))) << "at " << i;
        if (bits(out(i)) != bits(unfused(in.a(i), in.b(i), in.c(i)))) differ++;
    }
    EXPECT_GT(differ, kSize / 2);
}

LOOM_INSTANTIATE_BACKENDS(StrictFloat);

}  // namespace
