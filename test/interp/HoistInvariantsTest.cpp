// The interpreter's loop-invariant code motion (ir/interpreter/HoistInvariants.cpp):
// the exact statement it makes, and results of whole programs against plain
// C++ loops where moving work out of a loop could go wrong (wrap-around of
// regrouped sums, loads of memory the loop writes, names bound in the loop,
// loops that run no iteration).

#include <gtest/gtest.h>

#include "InterpTestUtil.h"
#include "ir/IREquality.h"
#include "ir/interpreter/InterpCore.h"

namespace loom {
namespace internal {
namespace {

using namespace interp_test;
using interp::hoist_loop_invariant_work;

Expr f32(float v) { return FloatImm::make(Float(32), v); }
Expr hoisted(int k) { return var("interp.invariant." + std::to_string(k)); }

// for (y, 0, 4) { for (r, -3, 29) { f[r + y*30 - z*30 + 34] = f[r + y*30 - z*30 + 33] + 1 } }
// (fuzz seed 982345's scan): the inner loop's index sums become r + one
// variable each, and those variables' own sums y*30 + one variable each.
TEST(InterpHoistInvariants, IndexSumsSplitAcrossTheLoopsThatChangeThem) {
    Expr r = var("r"), y = var("y"), z = var("z");
    auto index = [&](int c) {
        return Add::make(Sub::make(Add::make(r, Mul::make(y, i32(30))), Mul::make(z, i32(30))), i32(c));
    };
    Stmt store = Store::make("f", Add::make(Load::make(Float(32), "f", index(33)), f32(1)), index(34));
    Stmt loops = serial_for("y", i32(0), i32(4), serial_for("r", i32(-3), i32(29), store));

    Stmt actual = hoist_loop_invariant_work(loops, {"z", "f"});

    // Positive terms first: y*30 + 33 - z*30. The load's index is met first.
    Stmt inner_store = Store::make("f", Add::make(Load::make(Float(32), "f", Add::make(r, hoisted(0))), f32(1)),
                                   Add::make(r, hoisted(1)));
    Stmt inner = serial_for("r", i32(-3), i32(29), inner_store);
    inner = LetStmt::make("interp.invariant.1", Add::make(Mul::make(y, i32(30)), hoisted(3)), inner);
    inner = LetStmt::make("interp.invariant.0", Add::make(Mul::make(y, i32(30)), hoisted(2)), inner);
    Stmt expected = serial_for("y", i32(0), i32(4), inner);
    expected = LetStmt::make("interp.invariant.3", Sub::make(i32(34), Mul::make(z, i32(30))), expected);
    expected = LetStmt::make("interp.invariant.2", Sub::make(i32(33), Mul::make(z, i32(30))), expected);
    EXPECT_TRUE(equal(actual, expected)) << "actual:\n" << actual << "expected:\n" << expected;
}

// What stays in the loop: loads, calls, names bound in the loop, names bound
// nowhere, lone variables and constants, and float sums (their order).
TEST(InterpHoistInvariants, LoadsCallsInnerNamesAndFloatSumsStay) {
    Expr x = var("x"), a = var("a"), b = var("b"), inner = var("inner"), unbound = var("unbound");
    Expr fa = var("fa", Float(32)), fb = var("fb", Float(32));
    Expr load = Load::make(Int(32), "buf", Mul::make(a, b));
    Expr call = Call::make(Int(32), "abs", {a}, CallType::PureExtern);
    // x + load + call + inner*b + unbound + a: a lone variable is not worth a let.
    Expr value = Add::make(Add::make(Add::make(Add::make(x, load), call), Mul::make(inner, b)), unbound);
    Stmt body = Block::make(Store::make("buf", Add::make(value, a), x),
                            Store::make("fbuf", Add::make(Add::make(var("xf", Float(32)), fa), fb), x));
    body = LetStmt::make("xf", Cast::make(Float(32), x), body);
    body = LetStmt::make("inner", Add::make(x, i32(1)), body);
    Stmt loop = serial_for("x", i32(0), i32(8), body);

    Stmt actual = hoist_loop_invariant_work(loop, {"a", "b", "fa", "fb", "buf", "fbuf"});

    // Only a * b (inside the load's index) moves; the rest is as it was.
    Expr moved_load = Load::make(Int(32), "buf", hoisted(0));
    Expr expected_value = Add::make(Add::make(Add::make(Add::make(x, moved_load), call), Mul::make(inner, b)), unbound);
    Stmt expected_body = Block::make(Store::make("buf", Add::make(expected_value, a), x),
                                     Store::make("fbuf", Add::make(Add::make(var("xf", Float(32)), fa), fb), x));
    expected_body = LetStmt::make("xf", Cast::make(Float(32), x), expected_body);
    expected_body = LetStmt::make("inner", Add::make(x, i32(1)), expected_body);
    Stmt expected = LetStmt::make("interp.invariant.0", Mul::make(a, b), serial_for("x", i32(0), i32(8), expected_body));
    EXPECT_TRUE(equal(actual, expected)) << "actual:\n" << actual << "expected:\n" << expected;
}

// A let of the pass's own name form that the pass did not make (it loads
// memory the loop writes) stays in its loop.
TEST(InterpHoistInvariants, ALetNamedLikeTheHoistedOnesThatLoadsStays) {
    Expr x = var("x"), own = var("interp.invariant.7");
    Stmt body = LetStmt::make("interp.invariant.7", Load::make(Int(32), "buf", i32(0)),
                              Store::make("buf", Add::make(own, i32(1)), x));
    Stmt inner = serial_for("x", i32(0), i32(4), body);
    Stmt loops = serial_for("y", i32(0), i32(3), inner);
    Stmt actual = hoist_loop_invariant_work(loops, {"buf"});
    EXPECT_TRUE(equal(actual, loops)) << actual;
}

// out[x + y*w] over (w, h) gets, for each point:
//   int8(x*100 + y*90 - k*70 + 120)    (wraps, whatever the grouping)
//   + in[y*w - k + w]                  (a load: read in the loop)
//   + (k > 1000 ? 5 / (k - k) : 0)     (division by zero, never reached)
// while the loop also writes in[y*w - k + w] (so the load must stay in the
// loop), and the inner loop may run no iteration (w = 0).
LoweredFunc wrapping_sums_func() {
    Expr x = var("x"), y = var("y"), w = var("w"), k = var("k");
    Expr narrow = Cast::make(Int(8), Add::make(Sub::make(Add::make(Mul::make(x, i32(100)), Mul::make(y, i32(90))),
                                                         Mul::make(k, i32(70))),
                                               i32(120)));
    Expr sum8 = Add::make(Sub::make(Add::make(Cast::make(Int(8), x), narrow), Cast::make(Int(8), Mul::make(y, i32(3)))),
                          Cast::make(Int(8), Mul::make(k, i32(5))));
    Expr in_index = Add::make(Sub::make(Mul::make(y, w), k), w);
    Expr guarded = Select::make(GT::make(k, i32(1000)), Div::make(i32(5), Sub::make(k, k)), i32(0));
    Expr value = Add::make(Add::make(Cast::make(Int(32), sum8), Load::make(Int(32), "in", in_index)), guarded);
    Stmt body = Block::make(Store::make("out", value, Add::make(x, Mul::make(y, w))),
                            Store::make("in", Add::make(Load::make(Int(32), "in", in_index), x), in_index));
    Stmt loops = serial_for("y", i32(0), var("h"), serial_for("x", i32(0), w, body));
    LoweredFunc f;
    f.name = "wrapping_sums";
    f.args = {scalar_arg("w", Int(32)), scalar_arg("h", Int(32)), scalar_arg("k", Int(32)),
              buffer_arg("in", Int(32), 1, true), buffer_arg("out", Int(32), 1, true)};
    f.body = with_host("in", with_host("out", loops));
    return f;
}

void check_wrapping_sums(int w, int h, int k) {
    const int n = std::max(w * h, 1);
    TestBuffer in(Int(32), {0}, {n + w + 8}), out(Int(32), {0}, {n});
    std::vector<int32_t> in_ref(n + w + 8), out_ref(n, 0);
    for (int i = 0; i < n + w + 8; i++) in.at<int32_t>({i}) = in_ref[i] = i * 7 - 3;
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            const int8_t narrow = (int8_t)(x * 100 + y * 90 - k * 70 + 120);
            const int8_t sum8 = (int8_t)((int8_t)((int8_t)((int8_t)x + narrow) - (int8_t)(y * 3)) + (int8_t)(k * 5));
            const int i = y * w - k + w;
            out_ref[x + y * w] = (int32_t)sum8 + in_ref[i];
            in_ref[i] += x;
        }
    }
    int32_t wv = w, hv = h, kv = k;
    void *args[] = {&wv, &hv, &kv, &in.buf, &out.buf};
    ASSERT_EQ(interpret(wrapping_sums_func(), args), 0) << w << " " << h << " " << k;
    for (int i = 0; i < n; i++) EXPECT_EQ(out.at<int32_t>({i}), out_ref[i]) << "out " << i << " w " << w << " k " << k;
    for (int i = 0; i < n + w + 8; i++) EXPECT_EQ(in.at<int32_t>({i}), in_ref[i]) << "in " << i << " w " << w << " k " << k;
}

TEST(InterpHoistInvariants, ResultsMatchAPlainLoop) {
    check_wrapping_sums(5, 4, 3);
    check_wrapping_sums(13, 3, 7);
    check_wrapping_sums(0, 4, 2);  // the inner loop runs no iteration
    check_wrapping_sums(3, 0, 1);  // nor does the outer one
}

}  // namespace
}  // namespace internal
}  // namespace loom
