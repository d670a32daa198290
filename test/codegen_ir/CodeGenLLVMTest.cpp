// The LLVM code generator on hand-built lowered pipelines: buffers with mins
// and strides, allocations, assertions, vectors, print, and the struct
// layout it shares with loom_runtime.h.

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdio>

#include "CodeGenTestUtil.h"
#include "codegen/llvm/BufferLayout.h"
#include "loom/Error.h"
#include "loom/runtime/Buffer.h"

namespace loom_test_ir {
namespace {

using loom::Float;
using loom::Int;
using loom::UInt;
using loom::Runtime::Buffer;

// ------------------------------------------------------------------ layout

static_assert(offsetof(loom_buffer_t, device) == 0 && offsetof(loom_buffer_t, device_interface) == 8);
static_assert(offsetof(loom_buffer_t, host) == 16 && offsetof(loom_buffer_t, flags) == 24);
static_assert(offsetof(loom_buffer_t, type) == 32 && offsetof(loom_buffer_t, dimensions) == 36);
static_assert(offsetof(loom_buffer_t, dim) == 40 && offsetof(loom_buffer_t, padding) == 48);
static_assert(sizeof(loom_buffer_t) == 56 && sizeof(loom_dimension_t) == 16 && sizeof(loom_type_t) == 4);

TEST(CodeGenLLVM, RuntimeStructLayoutMatchesC) {
    RuntimeStructLayout layout = llvm_runtime_struct_layout(jit_target());
    const std::vector<uint64_t> buffer = {
        offsetof(loom_buffer_t, device), offsetof(loom_buffer_t, device_interface), offsetof(loom_buffer_t, host),
        offsetof(loom_buffer_t, flags),  offsetof(loom_buffer_t, type),             offsetof(loom_buffer_t, dimensions),
        offsetof(loom_buffer_t, dim),    offsetof(loom_buffer_t, padding)};
    const std::vector<uint64_t> dimension = {offsetof(loom_dimension_t, min), offsetof(loom_dimension_t, extent),
                                             offsetof(loom_dimension_t, stride), offsetof(loom_dimension_t, flags)};
    const std::vector<uint64_t> type = {offsetof(loom_type_t, code), offsetof(loom_type_t, bits),
                                        offsetof(loom_type_t, lanes)};
    EXPECT_EQ(layout.buffer_offsets, buffer);
    EXPECT_EQ(layout.buffer_size, sizeof(loom_buffer_t));
    EXPECT_EQ(layout.dimension_offsets, dimension);
    EXPECT_EQ(layout.dimension_size, sizeof(loom_dimension_t));
    EXPECT_EQ(layout.type_offsets, type);
    EXPECT_EQ(layout.type_size, sizeof(loom_type_t));
}

// ------------------------------------------------------------------ loops over buffers

// out(x) = x * 2 over out's own min and extent.
LoweredFunc times_two() {
    Stmt store = Store::make("out", Mul::make(var("x"), i32(2)), flat_index("out", {var("x")}));
    return make_func("times_two", {buffer_arg("out", LoweredArgument::OutputBuffer, Int(32), 1)},
                     with_buffer_lets("out", 1, loop_over("x", "out", 0, store)));
}

TEST(CodeGenLLVM, StoresTwiceXOverALoop) {
    JITPipeline p = compile_jit(times_two(), jit_target());
    ASSERT_NE(p.argv, nullptr);
    Buffer<int32_t> out(10);
    out.set_min(-3);
    void *args[] = {out.raw_buffer()};
    EXPECT_EQ(p.argv(args), 0);
    for (int x = -3; x < 7; x++) EXPECT_EQ(out(x), 2 * x) << "x = " << x;
}

TEST(CodeGenLLVM, ReportsJITCompileTime) {
    auto start = std::chrono::steady_clock::now();
    JITPipeline p = compile_jit(times_two(), jit_target());
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    ASSERT_NE(p.argv, nullptr);
    std::printf("[ info ] compile_jit of a one-loop pipeline took %.1f ms\n", ms);
    RecordProperty("compile_jit_ms", std::to_string(ms));
    EXPECT_LT(ms, 10000.0);
}

// out(x, y) = float(in(x, y)) * k + y, with `out` stored transposed (x has
// the larger stride) and both buffers starting at (5, -2).
TEST(CodeGenLLVM, TwoDimensionsWithMinsAndStrides) {
    Expr x = var("x"), y = var("y");
    Expr in_value = Load::make(Int(16), "in", flat_index("in", {x, y}));
    Expr value = Add::make(Mul::make(Cast::make(Float(32), in_value), var("k", Float(32))), Cast::make(Float(32), y));
    Stmt store = Store::make("out", value, flat_index("out", {x, y}));
    Stmt body = loop_over("y", "out", 1, loop_over("x", "out", 0, store));
    body = with_buffer_lets("in", 2, with_buffer_lets("out", 2, body));
    LoweredFunc f = make_func("two_d",
                              {buffer_arg("in", LoweredArgument::InputBuffer, Int(16), 2),
                               scalar_arg("k", Float(32)), buffer_arg("out", LoweredArgument::OutputBuffer, Float(32), 2)},
                              body);
    JITPipeline p = compile_jit(f, jit_target());

    Buffer<int16_t> in(4, 3);
    in.set_min(5, -2);
    for (int yy = -2; yy < 1; yy++) {
        for (int xx = 5; xx < 9; xx++) in(xx, yy) = int16_t(xx * 10 + yy);
    }
    std::vector<float> storage(12, -1.0f);
    RawBuffer out(storage.data(), loom_type_t{loom_type_float, 32, 1}, {{5, 4, 3, 0}, {-2, 3, 1, 0}});
    float k = 0.5f;
    void *args[] = {in.raw_buffer(), &k, &out.buffer};
    ASSERT_EQ(p.argv(args), 0);
    for (int yy = -2; yy < 1; yy++) {
        for (int xx = 5; xx < 9; xx++) {
            EXPECT_EQ(storage[(xx - 5) * 3 + (yy + 2)], float(xx * 10 + yy) * 0.5f + float(yy)) << xx << "," << yy;
        }
    }
}

// ------------------------------------------------------------------ allocations

// tmp(i) = i * i over [0, n); out(x) = tmp(i) + tmp(n - 1 - i) for i = x - min.
LoweredFunc with_intermediate(MemoryType memory, Expr extent, bool explicit_free, Expr condition = Expr()) {
    Expr n = var("out.extent.0"), i = var("i");
    Stmt fill = For::make("i", i32(0), n, ForType::Serial, DeviceAPI::None,
                          Store::make("tmp", Mul::make(i, i), i));
    Expr local = Sub::make(var("x"), var("out.min.0"));
    Expr sum = Add::make(Load::make(Int(32), "tmp", local),
                         Load::make(Int(32), "tmp", Sub::make(Sub::make(n, i32(1)), local)));
    Stmt use = loop_over("x", "out", 0, Store::make("out", sum, flat_index("out", {var("x")})));
    Stmt body = Block::make({fill, use, explicit_free ? Free::make("tmp") : Stmt()});
    body = Allocate::make("tmp", Int(32), memory, {extent}, condition, body);
    return make_func("intermediate", {buffer_arg("out", LoweredArgument::OutputBuffer, Int(32), 1)},
                     with_buffer_lets("out", 1, body));
}

void check_intermediate(const LoweredFunc &f) {
    JITPipeline p = compile_jit(f, jit_target());
    Buffer<int32_t> out(16);
    out.set_min(100);
    void *args[] = {out.raw_buffer()};
    ASSERT_EQ(p.argv(args), 0);
    for (int i = 0; i < 16; i++) EXPECT_EQ(out(100 + i), i * i + (15 - i) * (15 - i)) << "i = " << i;
}

TEST(CodeGenLLVM, HeapIntermediateWithRuntimeExtent) {
    check_intermediate(with_intermediate(MemoryType::Heap, var("out.extent.0"), true));
    check_intermediate(with_intermediate(MemoryType::Auto, var("out.extent.0"), false));
}

TEST(CodeGenLLVM, StackIntermediateWithConstantExtent) {
    check_intermediate(with_intermediate(MemoryType::Stack, i32(16), false));
    check_intermediate(with_intermediate(MemoryType::Register, i32(16), true));
    // Too large for the stack: goes to the heap instead.
    check_intermediate(with_intermediate(MemoryType::Stack, i32(1 << 20), false));
}

TEST(CodeGenLLVM, ConditionalAllocation) {
    Expr always = LT::make(i32(0), var("out.extent.0"));
    check_intermediate(with_intermediate(MemoryType::Heap, var("out.extent.0"), true, always));
}

// ------------------------------------------------------------------ assertions

Expr error_call(int code, const std::vector<Expr> &pieces) {
    std::vector<Expr> args = {i32(code)};
    args.insert(args.end(), pieces.begin(), pieces.end());
    return Call::make(Int(32), intrinsic::error, args, CallType::Intrinsic);
}

TEST(CodeGenLLVM, AssertionFailureReturnsCodeAndFormatsMessage) {
    Expr extent = var("out.extent.0");
    Expr message = error_call(loom_error_code_buffer_too_small,
                              {str("Buffer out has extent "), extent, str(" but needs "), i32(10), str(", ratio "),
                               f32(2.5f), str(" x "), UIntImm::make(UInt(8), 200), str(" "),
                               IntImm::make(Int(64), -5), str(" "), UIntImm::make(loom::Bool(), 1)});
    Stmt check = AssertStmt::make(GE::make(extent, i32(10)), message);
    Stmt store = loop_over("x", "out", 0, Store::make("out", i32(7), flat_index("out", {var("x")})));
    LoweredFunc f = make_func("checked", {buffer_arg("out", LoweredArgument::OutputBuffer, Int(32), 1)},
                              with_buffer_lets("out", 1, Block::make(check, store)));
    JITPipeline p = compile_jit(f, jit_target());

    CapturedMessages captured;
    Buffer<int32_t> small(5);
    void *small_args[] = {small.raw_buffer()};
    EXPECT_EQ(p.argv(small_args), loom_error_code_buffer_too_small);
    EXPECT_EQ(captured.errors(), "Buffer out has extent 5 but needs 10, ratio 2.5 x 200 -5 1\n");
    EXPECT_EQ(small(0), 0) << "nothing runs after a failed assertion";

    captured.errors().clear();
    Buffer<int32_t> big(12);
    void *big_args[] = {big.raw_buffer()};
    EXPECT_EQ(p.argv(big_args), 0);
    EXPECT_EQ(captured.errors(), "");
    EXPECT_EQ(big(11), 7);
}

// An assertion that fails inside a loop inside heap and stack allocations
// returns through the frees.
TEST(CodeGenLLVM, AssertionFailureInsideAllocations) {
    Expr x = var("x");
    Stmt check = AssertStmt::make(LT::make(x, i32(3)), error_call(loom_error_code_user_assertion,
                                                                   {str("x too big: "), x}));
    Stmt body = Block::make({Store::make("heap", x, x), Store::make("stack", x, x), check,
                             Store::make("out", Add::make(Load::make(Int(32), "heap", x), Load::make(Int(32), "stack", x)),
                                         flat_index("out", {x}))});
    Stmt loop = loop_over("x", "out", 0, body);
    loop = Allocate::make("stack", Int(32), MemoryType::Stack, {i32(64)}, Expr(), loop);
    loop = Allocate::make("heap", Int(32), MemoryType::Heap, {var("out.extent.0")}, Expr(), loop);
    LoweredFunc f = make_func("assert_in_alloc", {buffer_arg("out", LoweredArgument::OutputBuffer, Int(32), 1)},
                              with_buffer_lets("out", 1, loop));
    JITPipeline p = compile_jit(f, jit_target());
    CapturedMessages captured;
    Buffer<int32_t> out(8);
    void *args[] = {out.raw_buffer()};
    EXPECT_EQ(p.argv(args), loom_error_code_user_assertion);
    EXPECT_EQ(captured.errors(), "x too big: 3\n");
    EXPECT_EQ(out(2), 4);
    EXPECT_EQ(out(3), 0);
}

// ------------------------------------------------------------------ print

TEST(CodeGenLLVM, PrintGoesToThePrintHandler) {
    Expr x = var("x");
    Expr scaled = Mul::make(Cast::make(Float(32), x), f32(2.5f));
    Expr pv = Call::make(Int(32), intrinsic::print_value, {x, str("times 2.5 is"), scaled}, CallType::Intrinsic);
    Expr when = Call::make(Int(32), intrinsic::print_value_when, {EQ::make(x, i32(1)), x, str("is one")},
                           CallType::Intrinsic);
    Stmt loop = For::make("x", i32(0), i32(3), ForType::Serial, DeviceAPI::None,
                          Block::make(Evaluate::make(pv), Evaluate::make(when)));
    Expr done = Call::make(Int(32), intrinsic::print, {str("done"), f32(0.25f), Ramp::make(i32(0), i32(1), 3)},
                           CallType::Intrinsic);
    LoweredFunc f = make_func("printer", {}, Block::make(loop, Evaluate::make(done)));
    JITPipeline p = compile_jit(f, jit_target());
    CapturedMessages captured;
    EXPECT_EQ(p.argv(nullptr), 0);
    EXPECT_EQ(captured.prints(), "0 times 2.5 is 0\n1 times 2.5 is 2.5\n1 is one\n2 times 2.5 is 5\ndone 0.25 [0, 1, 2]\n");
}

// ------------------------------------------------------------------ vectors

// out[8k .. 8k+7] = in[8k .. 8k+7] * 3 + ramp, as dense vector loads/stores.
TEST(CodeGenLLVM, DenseVectorRampLoop) {
    Expr base = Mul::make(var("xo"), i32(8));
    Expr ramp = Ramp::make(base, i32(1), 8);
    Expr value = Add::make(Mul::make(Load::make(Int(32, 8), "in", ramp), Broadcast::make(i32(3), 8)), ramp);
    Stmt loop = For::make("xo", i32(0), Div::make(var("out.extent.0"), i32(8)), ForType::Vectorized, DeviceAPI::None,
                          Store::make("out", value, ramp));
    LoweredFunc f = make_func("dense",
                              {buffer_arg("in", LoweredArgument::InputBuffer, Int(32), 1),
                               buffer_arg("out", LoweredArgument::OutputBuffer, Int(32), 1)},
                              with_buffer_lets("in", 1, with_buffer_lets("out", 1, loop)));
    JITPipeline p = compile_jit(f, jit_target());
    Buffer<int32_t> in(32), out(32);
    for (int i = 0; i < 32; i++) in(i) = 100 - i;
    void *args[] = {in.raw_buffer(), out.raw_buffer()};
    ASSERT_EQ(p.argv(args), 0);
    for (int i = 0; i < 32; i++) EXPECT_EQ(out(i), (100 - i) * 3 + i) << i;
}

// Strided gather, reversed scatter, predicated (masked) store, shuffle and
// reductions.
TEST(CodeGenLLVM, GatherScatterPredicatesShufflesReductions) {
    Expr xo = var("xo");
    Expr gathered = Load::make(Float(32, 8), "in", Ramp::make(Mul::make(xo, i32(16)), i32(2), 8));
    Expr reversed_index = Ramp::make(Add::make(Mul::make(xo, i32(8)), i32(7)), i32(-1), 8);
    Stmt scatter = Store::make("rev", gathered, reversed_index);
    Expr lane = Ramp::make(i32(0), i32(1), 8);
    Stmt masked_store = Store::make("masked", Broadcast::make(f32(1.0f), 8), Ramp::make(Mul::make(xo, i32(8)), i32(1), 8),
                              LT::make(lane, Broadcast::make(i32(5), 8)));
    Expr wide = Load::make(Float(32, 16), "in", Ramp::make(Mul::make(xo, i32(16)), i32(1), 16));
    Stmt sums = Store::make("sum", VectorReduce::make(VectorReduce::Add, wide, 4),
                            Ramp::make(Mul::make(xo, i32(4)), i32(1), 4));
    Stmt mins_store = Store::make("mins", VectorReduce::make(VectorReduce::Min, wide, 1), xo);
    Expr odd_lanes = Shuffle::make({gathered}, {1, 3, 5, 7});
    Stmt shuffled = Store::make("odd", odd_lanes, Ramp::make(Mul::make(xo, i32(4)), i32(1), 4));
    Stmt body = Block::make({scatter, masked_store, sums, mins_store, shuffled});
    Stmt loop = For::make("xo", i32(0), i32(2), ForType::Serial, DeviceAPI::None, body);
    std::vector<std::string> outputs = {"rev", "masked", "sum", "mins", "odd"};
    std::vector<LoweredArgument> args = {buffer_arg("in", LoweredArgument::InputBuffer, Float(32), 1)};
    for (const auto &o : outputs) args.push_back(buffer_arg(o, LoweredArgument::OutputBuffer, Float(32), 1));
    for (auto it = outputs.rbegin(); it != outputs.rend(); ++it) loop = with_buffer_lets(*it, 1, loop);
    JITPipeline p = compile_jit(make_func("vectors", args, with_buffer_lets("in", 1, loop)), jit_target());

    Buffer<float> in(32), rev(16), masked(16), sum(8), mins(2), odd(8);
    for (int i = 0; i < 32; i++) in(i) = float((i * 7) % 11) - 3.0f;
    void *argv[] = {in.raw_buffer(), rev.raw_buffer(), masked.raw_buffer(), sum.raw_buffer(), mins.raw_buffer(),
                    odd.raw_buffer()};
    ASSERT_EQ(p.argv(argv), 0);
    for (int k = 0; k < 2; k++) {
        for (int l = 0; l < 8; l++) {
            EXPECT_EQ(rev(k * 8 + 7 - l), in(k * 16 + 2 * l));
            EXPECT_EQ(masked(k * 8 + l), l < 5 ? 1.0f : 0.0f);
        }
        for (int g = 0; g < 4; g++) {
            float s = in(k * 16 + 4 * g);
            for (int j = 1; j < 4; j++) s += in(k * 16 + 4 * g + j);
            EXPECT_EQ(sum(k * 4 + g), s);
            EXPECT_EQ(odd(k * 4 + g), in(k * 16 + 2 * (2 * g + 1)));
        }
        float m = in(k * 16);
        for (int j = 1; j < 16; j++) m = std::min(m, in(k * 16 + j));
        EXPECT_EQ(mins(k), m);
    }
}

// Bool elements are bytes in memory, i1 in registers; a bool scalar
// argument arrives through argv as one byte.
TEST(CodeGenLLVM, BoolElementsAndArguments) {
    Expr x = var("x");
    Expr flag = Load::make(loom::Bool(), "in", x);
    Expr chosen = Select::make(NE::make(flag, var("flip", loom::Bool())), UIntImm::make(UInt(8), 10),
                               UIntImm::make(UInt(8), 20));
    Stmt scalar = For::make("x", i32(0), i32(16), ForType::Serial, DeviceAPI::None, Store::make("out", chosen, x));
    Expr lanes = Ramp::make(i32(0), i32(1), 16);
    Expr every_third = EQ::make(Mod::make(lanes, Broadcast::make(i32(3), 16)), Broadcast::make(i32(0), 16));
    Stmt vector = Store::make("flags", And::make(every_third, Load::make(loom::Bool(16), "in", lanes)), lanes);
    LoweredFunc f = make_func("bools",
                              {buffer_arg("in", LoweredArgument::InputBuffer, loom::Bool(), 1),
                               scalar_arg("flip", loom::Bool()),
                               buffer_arg("out", LoweredArgument::OutputBuffer, UInt(8), 1),
                               buffer_arg("flags", LoweredArgument::OutputBuffer, loom::Bool(), 1)},
                              with_buffer_lets("in", 1, with_buffer_lets("out", 1, with_buffer_lets("flags", 1,
                                  Block::make(scalar, vector)))));
    JITPipeline p = compile_jit(f, jit_target());
    Buffer<bool> in(16), flags(16);
    Buffer<uint8_t> out(16);
    for (int i = 0; i < 16; i++) in(i) = i % 2 == 0;
    bool flip = true;
    void *args[] = {in.raw_buffer(), &flip, out.raw_buffer(), flags.raw_buffer()};
    ASSERT_EQ(p.argv(args), 0);
    for (int i = 0; i < 16; i++) {
        EXPECT_EQ(out(i), i % 2 == 0 ? 20 : 10) << i;
        EXPECT_EQ(flags(i), i % 6 == 0) << i;
        EXPECT_EQ(reinterpret_cast<uint8_t *>(flags.data())[i], i % 6 == 0 ? 1 : 0) << "a bool byte is 0 or 1";
    }
}

// ------------------------------------------------------------------ control flow

// A While loop with an IfThenElse: count the Collatz steps of n.
TEST(CodeGenLLVM, WhileAndIfThenElse) {
    Expr n = Load::make(Int(32), "state", i32(0));
    Expr steps = Load::make(Int(32), "state", i32(1));
    Stmt even = Store::make("state", Div::make(n, i32(2)), i32(0));
    Stmt odd = Store::make("state", Add::make(Mul::make(n, i32(3)), i32(1)), i32(0));
    Stmt step = Block::make(IfThenElse::make(EQ::make(Mod::make(n, i32(2)), i32(0)), even, odd),
                            Store::make("state", Add::make(steps, i32(1)), i32(1)));
    Stmt body = Block::make({Store::make("state", var("start"), i32(0)), Store::make("state", i32(0), i32(1)),
                             While::make(NE::make(n, i32(1)), step),
                             Store::make("out", Load::make(Int(32), "state", i32(1)), i32(0))});
    body = Allocate::make("state", Int(32), MemoryType::Stack, {i32(2)}, Expr(), body);
    LoweredFunc f = make_func("collatz",
                              {scalar_arg("start", Int(32)), buffer_arg("out", LoweredArgument::OutputBuffer, Int(32), 1)},
                              with_buffer_lets("out", 1, body));
    JITPipeline p = compile_jit(f, jit_target());
    Buffer<int32_t> out(1);
    int32_t start = 27;
    void *args[] = {&start, out.raw_buffer()};
    ASSERT_EQ(p.argv(args), 0);
    EXPECT_EQ(out(0), 111);
}

// ------------------------------------------------------------------ errors

TEST(CodeGenLLVM, RejectsProvideRealizeAndUnboundNames) {
    LoweredFunc provide = make_func("provide", {}, Provide::make("f", {i32(1)}, {i32(0)}));
    EXPECT_THROW(compile_jit(provide, jit_target()), loom::InternalError);
    LoweredFunc realize = make_func(
        "realize", {}, Realize::make("f", {Int(32)}, MemoryType::Auto, {Range(i32(0), i32(4))}, Expr(),
                                     Evaluate::make(i32(0))));
    EXPECT_THROW(compile_jit(realize, jit_target()), loom::InternalError);
    LoweredFunc unbound = make_func("unbound", {}, Evaluate::make(var("nowhere")));
    EXPECT_THROW(compile_jit(unbound, jit_target()), loom::InternalError);
    LoweredFunc unknown = make_func(
        "unknown", {}, Evaluate::make(Call::make(Int(32), "no_such_intrinsic", {}, CallType::PureIntrinsic)));
    EXPECT_THROW(compile_jit(unknown, jit_target()), loom::InternalError);
}

}  // namespace
}  // namespace loom_test_ir
