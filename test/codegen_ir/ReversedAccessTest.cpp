// Vector loads and stores at Ramp(base, -1, n) indices: one dense access of
// the n elements below base and a reverse shuffle, plain or masked. The LLVM
// back end must agree with the interpreter and with the element-by-element
// meaning.

#include <gtest/gtest.h>

#include <vector>

#include "CodeGenTestUtil.h"
#include "ir/Interpreter.h"
#include "loom/runtime/Buffer.h"

namespace loom_test_ir {
namespace {

using loom::Int;
using loom::Runtime::Buffer;

Expr ramp(Expr base, int stride) { return Ramp::make(base, i32(stride), 8); }

// for xo in [0, 2): out[reversed block xo] = in[block xo] + (in[reversed block xo] if predicate)
// i.e. out(8 xo + 7 - l) = in(8 xo + l) + in(8 xo + 7 - l), lanes l with 8 xo + l < limit only
// when masked.
LoweredFunc reverse_blocks(bool masked) {
    Expr xo8 = Mul::make(var("xo"), i32(8));
    Expr up = ramp(xo8, 1), down = ramp(Add::make(xo8, i32(7)), -1);
    Expr mask = masked ? LT::make(up, Broadcast::make(i32(13), 8)) : Expr();
    Expr value = Add::make(Load::make(Int(32, 8), "in", up, mask), Load::make(Int(32, 8), "in", down, mask));
    Stmt body = For::make("xo", i32(0), i32(2), ForType::Serial, DeviceAPI::None, Store::make("out", value, down, mask));
    return make_func(masked ? "reverse_masked" : "reverse",
                     {buffer_arg("in", LoweredArgument::InputBuffer, Int(32), 1),
                      buffer_arg("out", LoweredArgument::OutputBuffer, Int(32), 1)},
                     with_buffer_lets("in", 1, with_buffer_lets("out", 1, body)));
}

void check(bool masked) {
    LoweredFunc f = reverse_blocks(masked);
    JITPipeline p = compile_jit(f, jit_target());
    Buffer<int> in(16);
    for (int i = 0; i < 16; i++) in(i) = i * i + 1;
    for (bool jit : {true, false}) {
        SCOPED_TRACE(jit ? "llvm" : "interpreter");
        Buffer<int> out(16);
        out.fill(-1);
        std::vector<void *> args = {in.raw_buffer(), out.raw_buffer()};
        ASSERT_EQ(jit ? p.argv(args.data()) : interpret(f, args.data()), 0);
        for (int xo = 0; xo < 2; xo++) {
            for (int l = 0; l < 8; l++) {
                const int i = 8 * xo + l, mirrored = 8 * xo + 7 - l;
                const bool active = !masked || i < 13;
                EXPECT_EQ(out(mirrored), active ? in(i) + in(mirrored) : -1) << "lane " << l << " of block " << xo;
            }
        }
    }
}

TEST(ReversedAccess, DenseReversedLoadAndStore) { check(false); }

TEST(ReversedAccess, MaskedReversedLoadAndStore) { check(true); }

}  // namespace
}  // namespace loom_test_ir
