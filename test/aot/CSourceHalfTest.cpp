// The C back end with Float(16) and BFloat(16) (compile_to_c): a pipeline
// with half and bfloat inputs, scalar Params and outputs, converting and
// computing in both types, is emitted as C++, built with the host compiler
// next to a main() that feeds it rounding edge cases (ties, overflow to
// infinity, subnormals, NaN payloads, signed zeros) through conversions,
// + - * /, %, fma, comparisons and select, and its results are
// compared bit for bit with the JIT's and with a plain C++ reference that
// rounds by searching every half / bfloat value for the nearest.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "CSourceTestSupport.h"

using namespace loom;
using namespace loom_test;

namespace {

constexpr int kN = 24;

// Float(32) inputs, as bits: conversion edge cases.
const uint32_t kFloatBits[kN] = {
    0x3f801000u,  // 1 + 2^-11: a tie, to even (1)
    0x3f803000u,  // 1 + 3 * 2^-11: a tie, to even (1 + 2^-9)
    0x477fe000u,  // 65504, the largest half
    0x477fefffu,  // just under 65520: 65504
    0x477ff000u,  // 65520: a tie between 65504 and 2^16, to even: infinity
    0x49742400u,  // 1e6: infinity
    0xc9742400u,  // -1e6: -infinity
    0x33800000u,  // 2^-24, the smallest subnormal half
    0x33000000u,  // 2^-25: a tie between 0 and 2^-24, to even: 0
    0x33000001u,  // just over 2^-25: 2^-24
    0x33c00000u,  // 1.5 * 2^-24: a tie, to even (2 * 2^-24)
    0x34200000u,  // 2.5 * 2^-24: a tie, to even (2 * 2^-24)
    0x38800000u,  // 2^-14, the smallest normal half
    0x387fc000u,  // 2^-14 - 2^-25: a tie between the largest subnormal and 2^-14
    0x7fc00000u,  // NaN
    0x7fd55000u,  // NaN with a payload: its top bits stay
    0x80000000u,  // -0
    0x7f800000u,  // infinity
    0x3dcccccdu,  // 0.1
    0xc0490fd0u,  // -3.14159
    0x322bcc77u,  // 1e-8: 0
    0xb380d959u,  // -6e-8: -2^-24
    0x37fba882u,  // 3e-5: a subnormal
    0x45001000u,  // 2049: a tie between 2048 and 2050, to even (2048)
};

// Float(64) inputs: each rounds once, straight to half.
const double kDoubles[kN] = {
    1.0 + 0x1p-11 + 0x1p-40,  // over the tie: 1 + 2^-10 (through float it would tie and give 1)
    1.0 + 0x1p-11,  65519.99999,  65520.0, -65520.0, 0x1p-25, 0x1p-25 + 0x1p-60, 0x1.8p-24, 0x1p-14 - 0x1p-25,
    1e300,          -1e300,       1e-300,  -1e-300, 0.1,     -2.5,              1e-5,       6e-5,
    0.333333333333, 2047.5,       4097.0,  -0.0,    12.0,    0x1.ffcp-15,       3.0e4,
};

// Float(16) inputs (kN + 1: out reads x + 1), as bits.
const uint16_t kHalfBits[kN + 1] = {
    0x3c00, 0x3c01, 0x7bff, 0x4000, 0x0001, 0x03ff, 0x8000, 0x0000, 0x7c00, 0x3555, 0x7e00, 0xc500, 0x5bff,
    0x7d01 /* a signaling NaN */, 0x0200, 0x3800, 0xfc00, 0x4248, 0x2e66, 0x6400, 0x6401, 0xbc00, 0x7800, 0x0400, 0x3c00,
};

// BFloat(16) inputs, as bits.
const uint16_t kBFloatBits[kN] = {
    0x3f80, 0x3f81, 0x7f7f, 0x4000, 0x0001, 0x007f, 0x8000, 0x0000, 0x7f80, 0x3eab, 0xc0a0, 0x7fc0,
    0x4b7f, 0x3dcd, 0x0080, 0x3f00, 0xff80, 0x4049, 0xc2f7, 0x4480, 0x4481, 0xbf80, 0x7f00, 0x0180,
};

const uint16_t kHalfParam = 0x3e00;   // 1.5
const uint16_t kBFloatParam = 0xbf33; // -0.69921875

float float_of_bits(uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

// ------------------------------------------------------------------ reference

/** The value of half bits, computed from the fields (NaN for a NaN). */
double half_value(uint16_t h) {
    const int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
    double v;
    if (exponent == 0x1f) {
        v = mantissa ? NAN : INFINITY;
    } else if (exponent == 0) {
        v = std::ldexp((double)mantissa, -24);
    } else {
        v = std::ldexp((double)(1024 + mantissa), exponent - 25);
    }
    return (h & 0x8000) ? -v : v;
}

double bfloat_value(uint16_t b) { return (double)float_of_bits((uint32_t)b << 16); }

/** The bits nearest to x among the finite non-negative values of a format
 * (value(bits) for bits in [0, infinity)), infinity counting as the next
 * power of two (IEEE's overflow rule), ties to the even bits. */
template<typename Value>
uint16_t nearest(double x, uint16_t infinity, double infinity_as, Value value) {
    const double m = std::fabs(x);
    uint16_t best = 0;
    double best_distance = INFINITY;
    for (uint32_t b = 0; b <= infinity; b++) {
        const double v = b == infinity ? infinity_as : value((uint16_t)b);
        const double d = std::fabs(v - m);
        if (d < best_distance || (d == best_distance && (b & 1) == 0)) {
            best = (uint16_t)b;
            best_distance = d;
        }
    }
    if (m == INFINITY) best = infinity;
    return (uint16_t)(best | (std::signbit(x) ? 0x8000 : 0));
}

uint16_t reference_half(double x) {
    if (std::isnan(x)) return 0x7e00;  // any NaN: compared as a NaN
    return nearest(x, 0x7c00, 65536.0, half_value);
}

uint16_t reference_bfloat(double x) {
    if (std::isnan(x)) return 0x7fc0;
    return nearest(x, 0x7f80, std::ldexp(1.0, 128), bfloat_value);
}

bool half_is_nan(uint16_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0; }
bool bfloat_is_nan(uint16_t b) { return (b & 0x7f80) == 0x7f80 && (b & 0x7f) != 0; }

// ------------------------------------------------------------------ the pipeline

struct Outputs {
    std::vector<uint16_t> from_float, from_double, product_sum, quotient, modulus, chosen, bfloat;
    std::vector<uint32_t> sum;
    std::vector<int16_t> integer;
};

Func half_pipeline(ImageParam &fin, ImageParam &din, ImageParam &hin, ImageParam &bin, Param<float16_t> &hp,
                   Param<bfloat16_t> &bp) {
    Var x("x");
    Func f("halves_c");
    Expr h = hin(x), h1 = hin(x + 1);
    f(x) = Tuple(cast(Float(16), fin(x)),                                  // 0 conversions
                 cast(Float(16), din(x)),                                  // 1
                 h * h1 + hp,                                              // 2 rounds twice
                 (h - hp) / h1 + cast(Float(16), Expr(0.1)),               // 3 with a half constant
                 h % hp,                                                   // 4 in float, rounded once
                 select(is_nan(h), hp, select(h < h1, max(h, hp), min(h1, -hp))),  // 5 compares
                 bin(x) * bp + cast(BFloat(16), fin(x)),                   // 6 bfloat
                 cast<float>(h) + cast<float>(bin(x)),                     // 7 exact widening
                 cast<int16_t>(h * hp),                                    // 8 saturates, NaN -> 0
                 fma(h, h1, hp),                                           // 9 in float, rounded once
                 cast<float>(h));                                          // 10 exact (a NaN made quiet)
    f.vectorize(x, 8);
    return f;
}

const char *kHalfMain = R"(
#include <loom/runtime/bfloat16.h>
#include <loom/runtime/float16.h>
#include <cstring>
#include "halves_c.h"

static const uint32_t float_bits[24] = {@FLOATS@};
static const double doubles[24] = {@DOUBLES@};
static const uint16_t half_bits[25] = {@HALVES@};
static const uint16_t bfloat_bits[24] = {@BFLOATS@};

int main() {
    loom::Runtime::Buffer<float> fin(24);
    loom::Runtime::Buffer<double> din(24);
    loom::Runtime::Buffer<loom::float16_t> hin(25);
    loom::Runtime::Buffer<loom::bfloat16_t> bin(24);
    for (int x = 0; x < 24; x++) {
        std::memcpy(&fin(x), &float_bits[x], 4);
        din(x) = doubles[x];
        bin(x) = loom::bfloat16_t::make_from_bits(bfloat_bits[x]);
    }
    for (int x = 0; x < 25; x++) hin(x) = loom::float16_t::make_from_bits(half_bits[x]);
    loom::Runtime::Buffer<loom::float16_t> o0(24), o1(24), o2(24), o3(24), o4(24), o5(24), o9(24);
    loom::Runtime::Buffer<loom::bfloat16_t> o6(24);
    loom::Runtime::Buffer<float> o7(24), o10(24);
    loom::Runtime::Buffer<int16_t> o8(24);
    const loom::float16_t hp = loom::float16_t::make_from_bits(@HALF_PARAM@);
    const loom::bfloat16_t bp = loom::bfloat16_t::make_from_bits(@BFLOAT_PARAM@);
    int rc = halves_c(fin, din, hin, bin, hp, bp, o0, o1, o2, o3, o4, o5, o6, o7, o8, o9, o10);
    std::printf("rc %d\n", rc);
    for (int x = 0; x < 24; x++) {
        uint32_t sum, widened;
        std::memcpy(&sum, &o7(x), 4);
        std::memcpy(&widened, &o10(x), 4);
        std::printf("%u %u %u %u %u %u %u %u %d %u %u\n", (unsigned)o0(x).to_bits(), (unsigned)o1(x).to_bits(),
                    (unsigned)o2(x).to_bits(), (unsigned)o3(x).to_bits(), (unsigned)o4(x).to_bits(),
                    (unsigned)o5(x).to_bits(), (unsigned)o6(x).to_bits(), (unsigned)sum, (int)o8(x),
                    (unsigned)o9(x).to_bits(), (unsigned)widened);
    }
    // The argv form passes the scalars by address.
    loom::float16_t hp_slot = hp;
    loom::bfloat16_t bp_slot = bp;
    void *args[] = {(loom_buffer_t *)fin, (loom_buffer_t *)din, (loom_buffer_t *)hin, (loom_buffer_t *)bin,
                    &hp_slot, &bp_slot, (loom_buffer_t *)o0, (loom_buffer_t *)o1, (loom_buffer_t *)o2,
                    (loom_buffer_t *)o3, (loom_buffer_t *)o4, (loom_buffer_t *)o5, (loom_buffer_t *)o6,
                    (loom_buffer_t *)o7, (loom_buffer_t *)o8, (loom_buffer_t *)o9,
                    (loom_buffer_t *)o10};
    loom::Runtime::Buffer<loom::float16_t> first(24);
    for (int x = 0; x < 24; x++) first(x) = o2(x);
    rc = halves_c_argv(args);
    int same = 1;
    for (int x = 0; x < 24; x++) same = same && first(x).to_bits() == o2(x).to_bits();
    std::printf("argv %d %d\n", rc, same);
    return 0;
}
)";

std::string replace_all(std::string text, const std::string &from, const std::string &to) {
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
        text.replace(at, from.size(), to);
    }
    return text;
}

template<typename T>
std::string list(const T *values, int n) {
    std::string s;
    for (int i = 0; i < n; i++) {
        char text[64];
        if constexpr (std::is_floating_point_v<T>) {
            std::snprintf(text, sizeof text, "%a", (double)values[i]);
        } else {
            std::snprintf(text, sizeof text, "%lluu", (unsigned long long)values[i]);
        }
        s += (i ? ", " : "") + std::string(text);
    }
    return s;
}

TEST(CSource, Float16AndBFloat16MatchTheJITBitForBit) {
    ImageParam fin(Float(32), 1, "fin"), din(Float(64), 1, "din"), hin(Float(16), 1, "hin"),
        bin(BFloat(16), 1, "bin");
    Param<float16_t> hp("hp");
    Param<bfloat16_t> bp("bp");
    Func f = half_pipeline(fin, din, hin, bin, hp, bp);

    // The JIT.
    Buffer<float> fb(std::vector<int>{kN});
    Buffer<double> db(std::vector<int>{kN});
    Buffer<float16_t> hb(std::vector<int>{kN + 1});
    Buffer<bfloat16_t> bb(std::vector<int>{kN});
    for (int x = 0; x < kN; x++) {
        fb(x) = float_of_bits(kFloatBits[x]);
        db(x) = kDoubles[x];
        bb(x) = bfloat16_t::make_from_bits(kBFloatBits[x]);
    }
    for (int x = 0; x <= kN; x++) hb(x) = float16_t::make_from_bits(kHalfBits[x]);
    fin.set(fb);
    din.set(db);
    hin.set(hb);
    bin.set(bb);
    hp.set(float16_t::make_from_bits(kHalfParam));
    bp.set(bfloat16_t::make_from_bits(kBFloatParam));
    Realization jit = f.realize({kN});

    // The C back end.
    ScratchDir dir;
    Pipeline(f).compile_to({{OutputFileType::c_source, dir.file("halves_c.loom_generated.cpp")},
                            {OutputFileType::c_header, dir.file("halves_c.h")}},
                           {fin, din, hin, bin, hp, bp}, "halves_c");
    std::string main_source = kHalfMain;
    main_source = replace_all(main_source, "@FLOATS@", list(kFloatBits, kN));
    main_source = replace_all(main_source, "@DOUBLES@", list(kDoubles, kN));
    main_source = replace_all(main_source, "@HALVES@", list(kHalfBits, kN + 1));
    main_source = replace_all(main_source, "@BFLOATS@", list(kBFloatBits, kN));
    main_source = replace_all(main_source, "@HALF_PARAM@", std::to_string(kHalfParam));
    main_source = replace_all(main_source, "@BFLOAT_PARAM@", std::to_string(kBFloatParam));
    ProgramRun run = build_and_run(dir, compile_c_source_command("halves_c"), "", main_source);
    ASSERT_TRUE(run.built) << run.log;
    ASSERT_EQ(run.exit_code, 0) << run.output;
    std::vector<double> v = run.numbers();
    ASSERT_EQ(v.size(), 1u + 11 * kN + 2) << run.output;
    EXPECT_EQ(v[0], 0);
    EXPECT_EQ(v[v.size() - 2], 0);
    EXPECT_EQ(v[v.size() - 1], 1) << "the argv form differs";

    Buffer<float16_t> j0 = jit[0], j1 = jit[1], j2 = jit[2], j3 = jit[3], j4 = jit[4], j5 = jit[5], j9 = jit[9];
    Buffer<bfloat16_t> j6 = jit[6];
    Buffer<float> j7 = jit[7], j10 = jit[10];
    Buffer<int16_t> j8 = jit[8];
    const double hpv = half_value(kHalfParam), bpv = bfloat_value(kBFloatParam);
    auto expect_half = [&](uint16_t got, uint16_t want, const char *what, int x) {
        if (half_is_nan(want)) {
            EXPECT_TRUE(half_is_nan(got)) << what << " at " << x << ": " << got;
        } else {
            EXPECT_EQ(got, want) << what << " at " << x;
        }
    };
    for (int x = 0; x < kN; x++) {
        const size_t row = 1 + 11 * (size_t)x;
        uint16_t got[7];
        for (int k = 0; k < 7; k++) got[k] = (uint16_t)v[row + k];
        const uint32_t sum = (uint32_t)v[row + 7];
        const int16_t integer = (int16_t)v[row + 8];
        const uint16_t fused = (uint16_t)v[row + 9];
        const uint32_t widened_half = (uint32_t)v[row + 10];

        // Bit for bit with the JIT.
        EXPECT_EQ(got[0], j0(x).to_bits()) << "float -> half at " << x;
        EXPECT_EQ(got[1], j1(x).to_bits()) << "double -> half at " << x;
        EXPECT_EQ(got[2], j2(x).to_bits()) << "h * h1 + hp at " << x;
        EXPECT_EQ(got[3], j3(x).to_bits()) << "(h - hp) / h1 + 0.1 at " << x;
        EXPECT_EQ(got[4], j4(x).to_bits()) << "h % hp at " << x;
        EXPECT_EQ(got[5], j5(x).to_bits()) << "select at " << x;
        EXPECT_EQ(got[6], j6(x).to_bits()) << "bfloat at " << x;
        uint32_t jit_sum;
        std::memcpy(&jit_sum, &j7(x), 4);
        EXPECT_EQ(sum, jit_sum) << "widened sum at " << x;
        EXPECT_EQ(integer, j8(x)) << "int16 at " << x;
        EXPECT_EQ(fused, j9(x).to_bits()) << "fma at " << x;
        uint32_t jit_widened;
        std::memcpy(&jit_widened, &j10(x), 4);
        EXPECT_EQ(widened_half, jit_widened) << "half -> float at " << x;

        // Against the reference.
        const double fx = (double)float_of_bits(kFloatBits[x]);
        const double h = half_value(kHalfBits[x]), h1 = half_value(kHalfBits[x + 1]), b = bfloat_value(kBFloatBits[x]);
        expect_half(got[0], reference_half(fx), "float -> half", x);
        expect_half(got[1], reference_half(kDoubles[x]), "double -> half", x);
        expect_half(got[2], reference_half(half_value(reference_half(h * h1)) + hpv), "h * h1 + hp", x);
        const double tenth = half_value(reference_half(0.1));
        const double quotient = half_value(reference_half(half_value(reference_half(h - hpv)) / h1));
        expect_half(got[3], reference_half(quotient + tenth), "(h - hp) / h1 + 0.1", x);
        {
            const float a = (float)h, q = (float)hpv;
            const float ratio = std::floor(a / q);
            const float product = q * ratio;
            const float r = a - product;
            expect_half(got[4], reference_half((double)r), "h % hp", x);
        }
        const uint16_t chosen = std::isnan(h) ? kHalfParam
                                : h < h1 ? (hpv > h ? kHalfParam : kHalfBits[x])
                                       : (-hpv < h1 ? (uint16_t)(kHalfParam ^ 0x8000) : kHalfBits[x + 1]);
        expect_half(got[5], chosen, "select", x);
        const double bfloat_product = bfloat_value(reference_bfloat(b * bpv));
        const uint16_t bfloat_want = reference_bfloat(bfloat_product + bfloat_value(reference_bfloat(fx)));
        if (bfloat_is_nan(bfloat_want)) {
            EXPECT_TRUE(bfloat_is_nan(got[6])) << "bfloat at " << x;
        } else {
            EXPECT_EQ(got[6], bfloat_want) << "bfloat at " << x;
        }
        const float widened = (float)h + (float)b;
        uint32_t widened_bits;
        std::memcpy(&widened_bits, &widened, 4);
        if (std::isnan(widened)) {
            EXPECT_TRUE(std::isnan(float_of_bits(sum))) << "widened sum at " << x;
        } else {
            EXPECT_EQ(sum, widened_bits) << "widened sum at " << x;
        }
        const double scaled = half_value(reference_half(h * hpv));
        const int16_t saturated = std::isnan(scaled) ? 0
                                  : scaled >= 32767.0 ? 32767
                                  : scaled <= -32768.0 ? -32768
                                                       : (int16_t)scaled;
        EXPECT_EQ(integer, saturated) << "int16 at " << x;
        expect_half(fused, reference_half((double)std::fma((float)h, (float)h1, (float)hpv)), "fma", x);
        if (std::isnan(h)) {
            EXPECT_TRUE(std::isnan(float_of_bits(widened_half))) << "half -> float at " << x;
        } else {
            EXPECT_EQ(float_of_bits(widened_half), (float)h) << "half -> float at " << x;
            EXPECT_EQ(widened_half >> 31, (uint32_t)(kHalfBits[x] >> 15)) << "half -> float's sign at " << x;
        }
    }
}

}  // namespace
