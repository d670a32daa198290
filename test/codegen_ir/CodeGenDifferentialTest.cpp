// The LLVM back end against the reference interpreter (ir/Interpreter.h):
// the same LoweredFuncs run through both, and every output byte, message
// and return code must agree.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>

#include "CodeGenTestUtil.h"
#include "ir/Interpreter.h"
#include "loom/runtime/Buffer.h"

namespace loom_test_ir {
namespace {

using loom::Float;
using loom::Int;
using loom::UInt;
using loom::Runtime::Buffer;

// Runs f through both back ends on fresh copies of the same buffers and
// compares outputs, return codes and captured messages.
template<typename In, typename Out>
void run_both(const LoweredFunc &f, const std::vector<Buffer<In>> &inputs, const std::vector<std::vector<int>> &out_shapes,
              std::vector<void *> scalars = {}) {
    JITPipeline p = compile_jit(f, jit_target());
    struct Result {
        int code;
        std::string errors, prints;
        std::vector<Buffer<Out>> outputs;
    };
    auto run = [&](bool jit) {
        Result r;
        std::vector<void *> args;
        for (const auto &in : inputs) args.push_back(const_cast<Buffer<In> &>(in).raw_buffer());
        for (void *s : scalars) args.push_back(s);
        for (const auto &shape : out_shapes) {
            r.outputs.emplace_back(shape);
            // A fill pattern, so that stores the two back ends skip show up as equal.
            Buffer<Out> &o = r.outputs.back();
            std::memset(o.data(), 0x5a, o.size_in_bytes());
            args.push_back(o.raw_buffer());
        }
        CapturedMessages captured;
        r.code = jit ? p.argv(args.data()) : interpret(f, args.data());
        r.errors = captured.errors();
        r.prints = captured.prints();
        return r;
    };
    Result compiled = run(true), interpreted = run(false);
    EXPECT_EQ(compiled.code, interpreted.code);
    EXPECT_EQ(compiled.errors, interpreted.errors);
    EXPECT_EQ(compiled.prints, interpreted.prints);
    for (size_t k = 0; k < out_shapes.size(); k++) {
        const Buffer<Out> &c = compiled.outputs[k], &i = interpreted.outputs[k];
        const size_t count = c.number_of_elements();
        for (size_t e = 0; e < count; e++) {
            // NaN payloads are not part of the semantics: any NaN equals any NaN.
            if constexpr (std::is_floating_point_v<Out>) {
                if (std::isnan(c.data()[e]) && std::isnan(i.data()[e])) continue;
            }
            if (std::memcmp(c.data() + e, i.data() + e, sizeof(Out)) != 0) {
                ADD_FAILURE() << "output " << k << " element " << e << ": compiled " << +c.data()[e]
                              << ", interpreted " << +i.data()[e];
                return;
            }
        }
    }
}

// ------------------------------------------------------------------ floats

TEST(CodeGenDifferential, FloatArithmeticWithNaNsZerosAndInfinities) {
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    const std::vector<float> values = {nan, -inf, -3.5f, -1.0f, -0.0f, 0.0f, 0.25f, 1.0f, 2.5f, 7.0f, inf, 1e30f};
    const int n = (int)values.size();
    Expr x = var("x"), y = var("y");
    Expr a = Load::make(Float(32), "in", flat_index("in", {x})), b = Load::make(Float(32), "in", flat_index("in", {y}));
    auto call = [](const char *name, std::vector<Expr> args) {
        return Call::make(args[0].type(), name, args, CallType::PureExtern);
    };
    std::vector<Expr> exprs = {
        Add::make(a, b), Sub::make(a, b), Mul::make(a, b), Div::make(a, b), Mod::make(a, b), Min::make(a, b),
        Max::make(a, b), Select::make(LT::make(a, b), a, b), Select::make(NE::make(a, b), f32(1), f32(0)),
        Select::make(EQ::make(a, b), f32(1), f32(0)), Select::make(GE::make(a, b), f32(1), f32(0)),
        call("floorf", {a}), call("sqrtf", {a}), call("nearbyintf", {a}), call("fabsf", {a}),
        Cast::make(Float(32), Cast::make(Int(32), a)), Cast::make(Float(32), Cast::make(Float(64), Mul::make(a, b))),
        Cast::make(Float(32), Cast::make(UInt(16), b)),
        Reinterpret::make(Float(32), Call::make(Int(32), intrinsic::bitwise_xor,
                                                 {Reinterpret::make(Int(32), a), Reinterpret::make(Int(32), b)},
                                                 CallType::PureIntrinsic)),
    };
    std::vector<Stmt> stores;
    for (size_t k = 0; k < exprs.size(); k++) {
        stores.push_back(Store::make("out", exprs[k], flat_index("out", {x, y, i32((int)k)})));
    }
    Stmt body = loop_over("y", "in", 0, loop_over("x", "in", 0, Block::make(stores)));
    LoweredFunc f = make_func("floats",
                              {buffer_arg("in", LoweredArgument::InputBuffer, Float(32), 1),
                               buffer_arg("out", LoweredArgument::OutputBuffer, Float(32), 3)},
                              with_buffer_lets("in", 1, with_buffer_lets("out", 3, body)));
    Buffer<float> in(n);
    for (int i = 0; i < n; i++) in(i) = values[i];
    run_both<float, float>(f, {in}, {{n, n, (int)exprs.size()}});
}

// ------------------------------------------------------------------ random integer expressions

// Random Int(32) expressions of a and b with narrow casts, shifts, bit
// operations, division by divisors of either sign (including 0, -1 and
// INT32_MIN: Euclidean, as IRUtil's div_euclid defines it), selects and lets.
class ExprGenerator {
public:
    explicit ExprGenerator(uint32_t seed) : rng_(seed) {}

    Expr make(int depth) {
        const Type t = Int(32);
        if (depth == 0 || pick(5) == 0) return leaf();
        Expr a = make(depth - 1), b = make(depth - 1);
        switch (pick(17)) {
        case 0: return Add::make(a, b);
        case 1: return Sub::make(a, b);
        case 2: return Mul::make(a, b);
        case 3: return Div::make(a, pick(2) ? b : Max::make(b, i32(0)));
        case 4: return Mod::make(a, pick(2) ? b : Max::make(b, i32(0)));
        case 5: return Div::make(a, i32(constants[pick(std::size(constants))]));
        case 6: return Mod::make(a, i32(constants[pick(std::size(constants))]));
        case 7: return Min::make(a, b);
        case 8: return Max::make(a, b);
        case 9: return Select::make(LT::make(a, b), a, Sub::make(b, i32(1)));
        case 10: return Cast::make(t, Cast::make(pick(2) ? Int(8) : UInt(16), a));
        case 11: return Cast::make(t, Mul::make(Cast::make(UInt(8), a), Cast::make(UInt(8), b)));
        case 12: return intrinsic_call(pick(2) ? intrinsic::shift_left : intrinsic::shift_right, {a, b}, t);
        case 13:
            return intrinsic_call(pick(2) ? intrinsic::shift_right : intrinsic::shift_left,
                                  {Cast::make(UInt(16), a), Cast::make(UInt(16), b)}, UInt(16));
        case 14: return intrinsic_call(pick(2) ? intrinsic::bitwise_xor : intrinsic::bitwise_and, {a, b}, t);
        case 15: return Reinterpret::make(t, intrinsic_call(intrinsic::abs, {a}, UInt(32)));
        default: {
            const std::string name = "t" + std::to_string(next_let_++);
            return Let::make(name, a, Add::make(Variable::make(t, name), Mul::make(Variable::make(t, name), b)));
        }
        }
    }

    static constexpr int32_t constants[] = {1, 2, 3, 7, 8, 16, 100, 255, 1 << 20, 0, -1, -9, INT32_MIN, INT32_MAX};

private:
    size_t pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }
    Expr leaf() {
        switch (pick(3)) {
        case 0: return Load::make(Int(32), "a", var("i"));
        case 1: return Load::make(Int(32), "b", var("i"));
        default: return i32(constants[pick(std::size(constants))]);
        }
    }
    static Expr intrinsic_call(const char *name, std::vector<Expr> args, Type t) {
        Expr e = Call::make(args[0].type(), name, args, CallType::PureIntrinsic);
        if (e.type() != t) e = Cast::make(t, e);
        return e.type() == Int(32) ? e : Cast::make(Int(32), e);
    }
    std::mt19937 rng_;
    int next_let_ = 0;
};

TEST(CodeGenDifferential, RandomIntegerExpressions) {
    const int n = 48, count = 40;
    Buffer<int32_t> a(n), b(n);
    std::mt19937 rng(7);
    for (int i = 0; i < n; i++) {
        a(i) = i < 14 ? ExprGenerator::constants[i] : (int32_t)rng();
        b(i) = i < 14 ? ExprGenerator::constants[13 - i] : (int32_t)(rng() % 64) - 32;
    }
    for (uint32_t seed : {1u, 2u, 3u}) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        ExprGenerator gen(seed);
        std::vector<Stmt> stores;
        for (int k = 0; k < count; k++) {
            Expr e = gen.make(4);
            if (e.type() != Int(32)) e = Cast::make(Int(32), e);
            stores.push_back(Store::make("out", e, Add::make(var("i"), i32(k * n))));
        }
        Stmt body = For::make("i", i32(0), i32(n), ForType::Serial, DeviceAPI::None, Block::make(stores));
        LoweredFunc f = make_func("random_ints",
                                  {buffer_arg("a", LoweredArgument::InputBuffer, Int(32), 1),
                                   buffer_arg("b", LoweredArgument::InputBuffer, Int(32), 1),
                                   buffer_arg("out", LoweredArgument::OutputBuffer, Int(32), 2)},
                                  with_buffer_lets("a", 1, with_buffer_lets("b", 1, with_buffer_lets("out", 2, body))));
        run_both<int32_t, int32_t>(f, {a, b}, {{n, count}});
    }
}

// ------------------------------------------------------------------ vectors and memory

TEST(CodeGenDifferential, VectorsAllocationsAndControlFlow) {
    const int n = 64;
    Expr xo = var("xo");
    Expr dense = Ramp::make(Mul::make(xo, i32(8)), i32(1), 8);
    Expr in_dense = Load::make(Int(16, 8), "in", dense);
    Expr strided = Load::make(Int(16, 8), "in", Ramp::make(Mod::make(Mul::make(xo, i32(5)), i32(n - 16)), i32(2), 8));
    Expr lane = Ramp::make(i32(0), i32(1), 8);
    Expr predicate = LT::make(Ramp::make(xo, i32(1), 8), Broadcast::make(i32(9), 8));
    Expr masked = Load::make(Int(16, 8), "in", dense, predicate);
    Expr mixed = Shuffle::make({in_dense, strided}, {0, 8, 1, 9, 15, 7, 3, 11});
    Expr reduced = VectorReduce::make(VectorReduce::Max, Load::make(Int(16, 16), "in", Ramp::make(i32(0), i32(4), 16)), 8);
    Expr value = Add::make(Add::make(Mul::make(mixed, masked), reduced),
                           Cast::make(Int(16, 8), Mul::make(lane, Broadcast::make(xo, 8))));
    // Through a heap scratch buffer, then a predicated scatter into out.
    Stmt to_tmp = Store::make("tmp", value, lane);
    Expr back = Load::make(Int(16, 8), "tmp", Ramp::make(i32(7), i32(-1), 8));
    Stmt to_out = Store::make("out", back, Ramp::make(Add::make(Mul::make(xo, i32(8)), i32(7)), i32(-1), 8),
                              Not::make(predicate));
    Stmt odd = IfThenElse::make(EQ::make(Mod::make(xo, i32(2)), i32(1)),
                                Store::make("out", Broadcast::make(IntImm::make(Int(16), -1), 8), dense, predicate));
    Stmt body = Allocate::make("tmp", Int(16), MemoryType::Heap, {i32(8)}, Expr(), Block::make({to_tmp, to_out, odd}));
    Stmt loop = For::make("xo", i32(0), i32(n / 8), ForType::Serial, DeviceAPI::None, body);
    LoweredFunc f = make_func("vectors",
                              {buffer_arg("in", LoweredArgument::InputBuffer, Int(16), 1),
                               buffer_arg("out", LoweredArgument::OutputBuffer, Int(16), 1)},
                              with_buffer_lets("in", 1, with_buffer_lets("out", 1, loop)));
    Buffer<int16_t> in(n);
    for (int i = 0; i < n; i++) in(i) = int16_t((i * 37) % 101 - 50);
    run_both<int16_t, int16_t>(f, {in}, {{n}});
}

// ------------------------------------------------------------------ messages

TEST(CodeGenDifferential, PrintAndErrorMessages) {
    Expr x = var("x");
    Expr fx = Div::make(Cast::make(Float(32), x), f32(3.0f));
    Expr pv = Call::make(Float(32), intrinsic::print_value,
                         {fx, str("x ="), x, str("u8"), UIntImm::make(UInt(8), 250), Ramp::make(fx, f32(0.5f), 3),
                          Cast::make(Float(64), fx), IntImm::make(Int(64), -1234567890123LL)},
                         CallType::Intrinsic);
    Stmt print = Store::make("out", Cast::make(Int(32), Mul::make(pv, f32(100.0f))), x);
    Expr message = Call::make(Int(32), intrinsic::error,
                              {i32(loom_error_code_bad_argument), str("x reached "), x, str(" of "),
                               var("limit"), str(" ("), fx, str(")")},
                              CallType::Intrinsic);
    Stmt check = AssertStmt::make(LT::make(x, var("limit")), message);
    Stmt loop = For::make("x", i32(0), i32(6), ForType::Serial, DeviceAPI::None, Block::make(check, print));
    LoweredFunc f = make_func("messages",
                              {scalar_arg("limit", Int(32)), buffer_arg("out", LoweredArgument::OutputBuffer, Int(32), 1)},
                              with_buffer_lets("out", 1, loop));
    for (int32_t limit : {4, 10}) {
        SCOPED_TRACE("limit " + std::to_string(limit));
        int32_t l = limit;
        // run_both passes inputs, then scalars, then outputs: here just the scalar and out.
        std::vector<Buffer<int32_t>> no_inputs;
        run_both<int32_t, int32_t>(f, no_inputs, {{6}}, {&l});
    }
}

}  // namespace
}  // namespace loom_test_ir
