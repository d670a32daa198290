// Float(16) end to end: Buffer<float16_t> and Float(16) ImageParams in and
// out, Float(16) Funcs, casts, and arithmetic that rounds to binary16 after
// every operation, checked on both back ends against plain C++ loops that
// use loom::float16_t's own conversions (which compute in float and round,
// as Loom does).

#include "e2e/E2ETest.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "codegen/llvm/CodeGen_LLVM.h"
#include "ir/IR.h"
#include "ir/Interpreter.h"
#include "ir/LoweredFunc.h"

using namespace loom;

namespace {

class Float16 : public loom_test::BackendTest {};

using h16 = float16_t;

// Bit-exact, except that any NaN matches any NaN (back ends may disagree
// on a NaN's payload).
bool same_half(h16 a, h16 b) { return a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()); }

std::string describe(h16 v) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.9g (0x%04x)", (double)float(v), v.to_bits());
    return buf;
}

template<typename F>
void expect_halves(const Buffer<h16> &b, F expected_at) {
    int failures = 0;
    b.for_each_element([&](const std::vector<int> &pos) {
        if (failures >= 5) return;
        h16 expected = expected_at(pos), actual = b(pos);
        if (same_half(expected, actual)) return;
        failures++;
        std::string where;
        for (int c : pos) where += (where.empty() ? "" : ", ") + std::to_string(c);
        ADD_FAILURE() << "at (" << where << "): expected " << describe(expected) << ", got " << describe(actual);
    });
}

// Interesting inputs: ordinary values, ties, the edges of the range,
// subnormals, infinities, NaN and signed zeros.
std::vector<h16> sample_halves() {
    std::vector<h16> v;
    for (int i = -20; i <= 20; i++) v.push_back(h16(i * 0.37f));
    const float extras[] = {1.0f,
                            1.0f + std::ldexp(1.0f, -10),
                            std::ldexp(1.0f, -11),
                            65504.0f,
                            -65504.0f,
                            60000.0f,
                            std::ldexp(1.0f, -14),
                            std::ldexp(1.0f, -24),
                            std::ldexp(3.0f, -24),
                            -std::ldexp(5.0f, -20),
                            0.0f,
                            -0.0f,
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(),
                            3.14159f,
                            1000.5f,
                            2049.0f};
    for (float f : extras) v.push_back(h16(f));
    return v;
}

Buffer<h16> buffer_of(const std::vector<h16> &values) {
    Buffer<h16> b((int)values.size());
    for (size_t i = 0; i < values.size(); i++) b((int)i) = values[i];
    return b;
}

TEST_P(Float16, ArithmeticRoundsAfterEveryOperation) {
    std::vector<h16> values = sample_halves();
    Buffer<h16> in = buffer_of(values);
    const int n = (int)values.size();
    Var x("x");
    Func f("half_math");
    // Each operand and each result is Float(16).
    Expr a = in(x), b = in((x + 7) % n), c = in((x * 5 + 3) % n);
    f(x) = (a + b) * c - a / (b + 1) + a % c;
    EXPECT_EQ(f.output_types()[0], Float(16));
    Buffer<h16> out = f.realize({n});
    expect_halves(out, [&](const std::vector<int> &p) {
        h16 va = values[p[0]], vb = values[(p[0] + 7) % n], vc = values[(p[0] * 5 + 3) % n];
        // a % c is a - c * floor(a / c), computed in float and rounded once.
        float fa = float(va), fc = float(vc);
        h16 mod(fa - fc * std::floor(fa / fc));
        return (va + vb) * vc - va / (vb + h16(1)) + mod;
    });
}

TEST_P(Float16, OnePlusHalfAnUlpRoundsToEven) {
    // In Float(16), 1 + 2^-11 is a tie and rounds to 1; Float(32) keeps it.
    Buffer<h16> in(4);
    in(0) = h16(1.0f);
    in(1) = h16(1.0f + std::ldexp(1.0f, -10));  // odd: the tie rounds up
    in(2) = h16(2048.0f);                      // 2048 + 1 is a tie too
    in(3) = h16(-1.0f);
    Var x("x");
    Func sum16("sum16"), sum32("sum32");
    Expr tiny = cast<h16>(std::ldexp(1.0f, -11));
    sum16(x) = in(x) + select(x == 2, cast<h16>(1), tiny);
    sum32(x) = cast<float>(in(x)) + select(x == 2, 1.0f, std::ldexp(1.0f, -11));
    Buffer<h16> r16 = sum16.realize({4});
    Buffer<float> r32 = sum32.realize({4});
    EXPECT_EQ(r16(0).to_bits(), 0x3c00);
    EXPECT_EQ(r16(1).to_bits(), 0x3c02);
    EXPECT_EQ(float(r16(2)), 2048.0f);
    EXPECT_EQ(float(r16(3)), -1.0f + std::ldexp(1.0f, -11));  // below 1 the step is 2^-11: exact
    EXPECT_EQ(r32(0), 1.0f + std::ldexp(1.0f, -11));
    EXPECT_EQ(r32(2), 2049.0f);
}

TEST_P(Float16, OverflowSubnormalsAndNaN) {
    std::vector<h16> values = {h16(60000.0f), h16(-40000.0f), h16(std::ldexp(1.0f, -14)), h16(std::ldexp(3.0f, -24)),
                               h16(0.0f), h16(std::numeric_limits<float>::infinity()), h16(-2.0f), h16(0.5f)};
    Buffer<h16> in = buffer_of(values);
    Var x("x");
    Func twice("twice"), shrink("shrink"), nan("nan"), root("root");
    twice(x) = in(x) * 2;             // overflows to +-inf past 65504
    shrink(x) = in(x) / 1024;         // into the subnormals, then to zero
    nan(x) = in(x) - in(x);           // inf - inf is NaN; the rest 0
    root(x) = sqrt(in(x));            // sqrt(-2) is NaN; computed in float, rounded
    Buffer<h16> a = twice.realize({8}), b = shrink.realize({8}), c = nan.realize({8}), d = root.realize({8});
    EXPECT_TRUE(a(0).is_infinity() && !a(0).is_negative());
    EXPECT_TRUE(a(1).is_infinity() && a(1).is_negative());
    expect_halves(a, [&](const std::vector<int> &p) { return values[p[0]] * h16(2); });
    EXPECT_TRUE(b(2).is_denormal());
    EXPECT_EQ(b(3).to_bits(), 0x0000);  // 3 * 2^-24 / 1024 underflows
    expect_halves(b, [&](const std::vector<int> &p) { return values[p[0]] / h16(1024); });
    EXPECT_TRUE(c(5).is_nan());
    expect_halves(c, [&](const std::vector<int> &p) { return values[p[0]] - values[p[0]]; });
    EXPECT_TRUE(d(6).is_nan());
    expect_halves(d, [&](const std::vector<int> &p) { return h16(std::sqrt(float(values[p[0]]))); });
}

TEST_P(Float16, MixedTypesFollowHalidesRules) {
    std::vector<h16> values = sample_halves();
    Buffer<h16> in = buffer_of(values);
    const int n = (int)values.size();
    Var x("x");
    Func with_int("with_int"), with_literal("with_literal"), with_f32("with_f32"), with_f64("with_f64");
    with_int(x) = in(x) * 3 + x;            // Float(16)
    with_literal(x) = in(x) * 0.1f;         // Float(16): the literal is rounded to half
    with_f32(x) = in(x) + cast<float>(x) * 0.1f;  // Float(32)
    with_f64(x) = in(x) * cast<double>(x);  // Float(64)
    EXPECT_EQ(with_int.output_types()[0], Float(16));
    EXPECT_EQ(with_literal.output_types()[0], Float(16));
    EXPECT_EQ(with_f32.output_types()[0], Float(32));
    EXPECT_EQ(with_f64.output_types()[0], Float(64));
    Buffer<h16> a = with_int.realize({n}), b = with_literal.realize({n});
    // with_f32 is Float(32) arithmetic, which may fuse in * 0.1f + ... into
    // an FMA by default; strict_float makes it round like the C++ below.
    Buffer<float> c = with_f32.realize({n}, get_jit_target_from_environment().with_feature(Target::StrictFloat));
    Buffer<double> d = with_f64.realize({n});
    expect_halves(a, [&](const std::vector<int> &p) { return values[p[0]] * h16(3) + h16(p[0]); });
    expect_halves(b, [&](const std::vector<int> &p) { return values[p[0]] * h16(0.1f); });
    for (int i = 0; i < n; i++) {
        float expected32 = float(values[i]) + (float)i * 0.1f;
        double expected64 = double(values[i]) * (double)i;
        EXPECT_TRUE(c(i) == expected32 || (std::isnan(c(i)) && std::isnan(expected32))) << i;
        EXPECT_TRUE(d(i) == expected64 || (std::isnan(d(i)) && std::isnan(expected64))) << i;
    }
}

TEST_P(Float16, CastsToAndFromHalf) {
    Var x("x");
    Func from_f32("from_f32"), from_f64("from_f64"), from_int("from_int"), to_int("to_int"), to_u8("to_u8");
    // x * 0.013 in float covers many ties and roundings.
    from_f32(x) = cast<h16>(cast<float>(x) * 0.013f + 1.0f);
    // 1 + 2^-11 + 2^-40: a double just above a tie. Via float it would look
    // like the tie itself and round down; a direct cast rounds up.
    from_f64(x) = cast(Float(16), 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40) + cast<double>(x) * 3000.0);
    from_int(x) = cast<h16>(x * 37 - 1000);  // above 2048, not every integer is a half
    Buffer<h16> a = from_f32.realize({1000}), b = from_f64.realize({30}), c = from_int.realize({1000});
    expect_halves(a, [](const std::vector<int> &p) { return h16((float)p[0] * 0.013f + 1.0f); });
    EXPECT_EQ(b(0).to_bits(), 0x3c01);
    expect_halves(b, [](const std::vector<int> &p) {
        return h16(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40) + (double)p[0] * 3000.0);
    });
    EXPECT_TRUE(b(29).is_infinity());
    expect_halves(c, [](const std::vector<int> &p) { return h16(p[0] * 37 - 1000); });

    std::vector<h16> values = {h16(2.75f), h16(-2.75f), h16(300.5f), h16(65504.0f), h16(-0.5f), h16(7.0f)};
    Buffer<h16> in = buffer_of(values);
    to_int(x) = cast<int>(in(x));      // truncates toward zero
    to_u8(x) = cast<uint8_t>(in(x) + 0.5f);
    Buffer<int> d = to_int.realize({6});
    Buffer<uint8_t> e = to_u8.realize({6});
    EXPECT_EQ(d(0), 2);
    EXPECT_EQ(d(1), -2);
    EXPECT_EQ(d(2), 300);
    EXPECT_EQ(d(3), 65504);
    EXPECT_EQ(e(0), 3);
    EXPECT_EQ(e(5), 7);
}

TEST_P(Float16, ImageParamMinMaxSelectAndCompare) {
    std::vector<h16> values = sample_halves();
    const int n = (int)values.size();
    ImageParam img(Float(16), 1, "halves");
    img.set(buffer_of(values));
    Var x("x");
    Func lo("lo"), hi("hi"), picked("picked"), less("less"), magnitude("magnitude");
    Expr a = img(x), b = img((x + 11) % n);
    lo(x) = min(a, b);
    hi(x) = max(a, cast<h16>(0.25f));
    picked(x) = select(a > b, a - b, b * 0.5f);
    less(x) = cast<uint8_t>(a < b) + cast<uint8_t>(a == b) * 2;
    magnitude(x) = abs(a);
    Buffer<h16> r_lo = lo.realize({n}), r_hi = hi.realize({n}), r_pick = picked.realize({n}),
                r_abs = magnitude.realize({n});
    Buffer<uint8_t> r_less = less.realize({n});
    auto at = [&](int i) { return values[i]; };
    // min/max return their first operand when the comparison fails (NaN).
    expect_halves(r_lo, [&](const std::vector<int> &p) {
        h16 va = at(p[0]), vb = at((p[0] + 11) % n);
        return vb < va ? vb : va;
    });
    expect_halves(r_hi, [&](const std::vector<int> &p) {
        h16 va = at(p[0]), q(0.25f);
        return q > va ? q : va;
    });
    expect_halves(r_pick, [&](const std::vector<int> &p) {
        h16 va = at(p[0]), vb = at((p[0] + 11) % n);
        return va > vb ? va - vb : vb * h16(0.5f);
    });
    expect_halves(r_abs, [&](const std::vector<int> &p) { return h16::make_from_bits(at(p[0]).to_bits() & 0x7fff); });
    for (int i = 0; i < n; i++) {
        h16 va = at(i), vb = at((i + 11) % n);
        EXPECT_EQ(r_less(i), (va < vb ? 1 : 0) + (va == vb ? 2 : 0)) << i;
    }
}

TEST_P(Float16, HalfFuncsScheduledAndReduced) {
    const int n = 67;
    Buffer<h16> in(n);
    for (int i = 0; i < n; i++) in(i) = h16(std::sin(i * 0.7f) * 40.0f);
    Var x("x");
    Func stage("stage"), out("out"), total("total");
    stage(x) = in(x) * in(x) + cast<h16>(0.3f);  // a Float(16) intermediate
    out(x) = (stage(x) + stage(min(x + 1, n - 1))) / 3;
    stage.compute_root().vectorize(x, 8);
    out.vectorize(x, 16);
    // Sequential Float(16) accumulation rounds at every step.
    RDom r(0, n);
    total() = cast<h16>(0);
    total() += stage(r);
    Buffer<h16> result = out.realize({n});
    auto stage_ref = [&](int i) { return in(i) * in(i) + h16(0.3f); };
    expect_halves(result, [&](const std::vector<int> &p) {
        return (stage_ref(p[0]) + stage_ref(std::min(p[0] + 1, n - 1))) / h16(3);
    });
    Buffer<h16> t = total.realize();
    h16 acc(0);
    for (int i = 0; i < n; i++) acc += stage_ref(i);
    EXPECT_TRUE(same_half(t(), acc)) << describe(t()) << " vs " << describe(acc);
    // Accumulating in Float(32) would give a different answer here.
    float wide = 0;
    for (int i = 0; i < n; i++) wide += float(stage_ref(i));
    EXPECT_NE(float(acc), wide);
}

TEST_P(Float16, OutputIntoExistingBuffer) {
    Buffer<h16> out(5, 3);
    out.set_min(-2, 1);
    Var x("x"), y("y");
    Func f("grid");
    f(x, y) = cast<h16>(x) / cast<h16>(y) + cast<h16>(0.1f);
    f.realize(out);
    expect_halves(out, [](const std::vector<int> &p) { return h16(p[0]) / h16(p[1]) + h16(0.1f); });
}

TEST_P(Float16, ScalarParamOfFloat16) {
    Param<> scale(Float(16), "scale");
    scale.set(h16(1.5f));
    Var x("x");
    Func f("scaled");
    f(x) = cast<h16>(x) * scale + cast<h16>(0.25f);
    Buffer<h16> a = f.realize({6});
    expect_halves(a, [](const std::vector<int> &p) { return h16(p[0]) * h16(1.5f) + h16(0.25f); });
    scale.set(h16(-1000.0f));
    Buffer<h16> b = f.realize({6});
    expect_halves(b, [](const std::vector<int> &p) { return h16(p[0]) * h16(-1000.0f) + h16(0.25f); });
}

LOOM_INSTANTIATE_BACKENDS(Float16);

// ------------------------------------------------------------ vector IR, both back ends

// Lowering may not produce every vector form yet, so this builds them by
// hand: dense and gathered half loads, VectorReduce to one and two lanes,
// a Ramp of halves, a vector Mod, a Float(16) math call and Reinterpret.
// The LLVM back end and the interpreter must agree bit for bit (NaNs aside),
// and the reductions must round after every step.
namespace ir = loom::internal;

Expr half_load(const std::string &buffer, Expr index, int lanes) {
    return ir::Load::make(Float(16, lanes), buffer, std::move(index));
}

ir::LoweredArgument buffer_argument(const std::string &name, ir::LoweredArgument::Kind kind) {
    ir::LoweredArgument a;
    a.name = name;
    a.kind = kind;
    a.type = Float(16);
    a.dimensions = 1;
    return a;
}

Stmt with_host_pointer(const std::string &name, Stmt body) {
    Expr buffer = ir::Variable::make(Handle(), name + ".buffer");
    Expr host = ir::Call::make(Handle(), ir::intrinsic::buffer_get_host, {buffer}, ir::CallType::PureIntrinsic);
    return ir::LetStmt::make(name, host, std::move(body));
}

TEST(Float16VectorIR, BackEndsAgreeOnVectorForms) {
    const int n = 40;
    Expr i = ir::Variable::make(Int(32), "i");
    Expr v = half_load("in", ir::Ramp::make(i * 8, 1, 8), 8);
    Expr g = half_load("in", ir::Ramp::make(i * 8 + 7, -1, 8), 8);
    Expr sums = ir::VectorReduce::make(ir::VectorReduce::Add, v, 1);
    Expr products = ir::VectorReduce::make(ir::VectorReduce::Mul, g, 1);
    Expr largest = ir::VectorReduce::make(ir::VectorReduce::Max, v, 1);
    Expr pairs = ir::VectorReduce::make(ir::VectorReduce::Add, ir::Mul::make(v, g), 2);
    Expr ramp = ir::Ramp::make(half_load("in", i * 8, 1), half_load("in", i * 8 + 1, 1), 8);
    Expr modulus = ir::Mod::make(ramp, ir::Broadcast::make(ir::FloatImm::make(Float(16), 1.5), 8));
    Expr root = ir::Call::make(Float(16, 8), "sqrtf", {v}, ir::CallType::PureExtern);
    Expr bits = ir::Reinterpret::make(UInt(16, 8), root);
    Expr body_value = ir::Reinterpret::make(Float(16, 8), bits);
    Stmt body = ir::Block::make({
        ir::Store::make("o1", ir::Sub::make(ir::Add::make(sums, products), largest), i),
        ir::Store::make("o2", pairs, ir::Ramp::make(i * 2, 1, 2)),
        ir::Store::make("o3", modulus, ir::Ramp::make(i * 8, 1, 8)),
        ir::Store::make("o4", body_value, ir::Ramp::make(i * 8, 1, 8)),
    });
    Stmt loop = ir::For::make("i", 0, n, ir::ForType::Serial, ir::DeviceAPI::None, body);
    for (const char *name : {"in", "o1", "o2", "o3", "o4"}) loop = with_host_pointer(name, loop);
    ir::LoweredFunc f;
    f.name = "half_vectors";
    f.args = {buffer_argument("in", ir::LoweredArgument::InputBuffer),
              buffer_argument("o1", ir::LoweredArgument::OutputBuffer),
              buffer_argument("o2", ir::LoweredArgument::OutputBuffer),
              buffer_argument("o3", ir::LoweredArgument::OutputBuffer),
              buffer_argument("o4", ir::LoweredArgument::OutputBuffer)};
    f.body = loop;

    Buffer<h16> in(n * 8);
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> value(-4.0f, 4.0f);
    for (int k = 0; k < n * 8; k++) in(k) = h16(value(rng));
    in(3) = h16::make_nan();
    in(12) = h16::make_infinity();
    in(21) = h16(std::ldexp(3.0f, -24));
    in(30) = h16(-0.0f);

    auto run = [&](bool jit) {
        std::vector<Buffer<h16>> outs = {Buffer<h16>(n), Buffer<h16>(n * 2), Buffer<h16>(n * 8), Buffer<h16>(n * 8)};
        std::vector<void *> args = {in.raw_buffer()};
        for (auto &o : outs) args.push_back(o.raw_buffer());
        int code = jit ? ir::compile_jit(f, get_jit_target_from_environment()).argv(args.data())
                       : ir::interpret(f, args.data());
        EXPECT_EQ(code, 0);
        return outs;
    };
    std::vector<Buffer<h16>> compiled = run(true), interpreted = run(false);
    for (size_t k = 0; k < compiled.size(); k++) {
        SCOPED_TRACE("output o" + std::to_string(k + 1));
        expect_halves(compiled[k], [&](const std::vector<int> &p) { return interpreted[k](p); });
    }
    // Reductions fold lane by lane, rounding to half each step.
    expect_halves(compiled[0], [&](const std::vector<int> &p) {
        const int b = p[0] * 8;
        h16 s = in(b), m = in(b + 7), big = in(b);
        for (int l = 1; l < 8; l++) {
            s += in(b + l);
            m *= in(b + 7 - l);
            if (in(b + l) > big) big = in(b + l);
        }
        return s + m - big;
    });
    expect_halves(compiled[1], [&](const std::vector<int> &p) {
        const int b = (p[0] / 2) * 8 + (p[0] % 2) * 4;  // lanes 4j..4j+3 of v * g
        h16 s = in(b) * in(p[0] / 2 * 8 + 7 - (b % 8));
        for (int l = 1; l < 4; l++) s += in(b + l) * in(p[0] / 2 * 8 + 7 - ((b + l) % 8));
        return s;
    });
}

}  // namespace
