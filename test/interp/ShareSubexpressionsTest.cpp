// The interpreter computes what a Store's value, index and predicate share
// once (ir/interpreter/ShareSubexpressions.cpp): the statement it makes, and
// results of whole programs against plain C++ loops (an update that reads
// the element it writes, a vector store whose lanes share a ramp % k).

#include <gtest/gtest.h>

#include "InterpTestUtil.h"
#include "ir/IREquality.h"
#include "ir/interpreter/InterpCore.h"

namespace loom {
namespace internal {
namespace {

using namespace interp_test;
using interp::share_store_subexpressions;

// f[x*3 + 1] = f[x*3 + 1] + g[x*3 + 1]*2: the index is computed once.
TEST(InterpShareSubexpressions, AnUpdateComputesItsIndexOnce) {
    Expr x = var("x");
    Expr index = Add::make(Mul::make(x, i32(3)), i32(1));
    Expr value = Add::make(Load::make(Int(32), "f", index), Mul::make(Load::make(Int(32), "g", index), i32(2)));
    Stmt store = Store::make("f", value, index);

    Stmt shared = share_store_subexpressions(store.as<Store>());

    const LetStmt *let = shared.as<LetStmt>();
    ASSERT_NE(let, nullptr) << shared;
    EXPECT_TRUE(equal(let->value, index)) << shared;
    const Store *inner = let->body.as<Store>();
    ASSERT_NE(inner, nullptr) << shared;
    Expr name = Variable::make(Int(32), let->name);
    Expr expected_value = Add::make(Load::make(Int(32), "f", name), Mul::make(Load::make(Int(32), "g", name), i32(2)));
    EXPECT_TRUE(equal(inner->index, name)) << shared;
    EXPECT_TRUE(equal(inner->value, expected_value)) << shared;
}

// Nothing repeated, or an atomic update: the Store itself.
TEST(InterpShareSubexpressions, StoresWithNothingToShareAndAtomicUpdatesStay) {
    Expr x = var("x");
    Stmt plain = Store::make("f", Add::make(Load::make(Int(32), "g", x), i32(1)), Mul::make(x, i32(2)));
    EXPECT_TRUE(share_store_subexpressions(plain.as<Store>()).same_as(plain));

    Expr index = Add::make(x, i32(1));
    Expr update = Call::make(Int(32), intrinsic::atomic_update,
                             {Add::make(Load::make(Int(32), "f", index), Load::make(Int(32), "g", index))},
                             CallType::Intrinsic);
    Stmt atomic = Store::make("f", update, index);
    EXPECT_TRUE(share_store_subexpressions(atomic.as<Store>()).same_as(atomic));
}

// for (i, 0, n) { f[i % 5] = f[i % 5]*3 + g[i % 5] - i }
TEST(InterpShareSubexpressions, UpdatesMatchAPlainLoop) {
    Expr i = var("i");
    Expr slot = Mod::make(i, i32(5));
    Expr value = Sub::make(Add::make(Mul::make(Load::make(Int(32), "f", slot), i32(3)), Load::make(Int(32), "g", slot)), i);
    LoweredFunc func;
    func.name = "updates";
    func.args = {scalar_arg("n", Int(32)), buffer_arg("f", Int(32), 1, true), buffer_arg("g", Int(32), 1, false)};
    func.body = with_host("f", with_host("g", serial_for("i", i32(0), var("n"), Store::make("f", value, slot))));

    const int n = 23;
    TestBuffer f(Int(32), {0}, {5}), g(Int(32), {0}, {5});
    std::vector<int32_t> f_ref(5), g_ref(5);
    for (int k = 0; k < 5; k++) {
        f.at<int32_t>({k}) = f_ref[k] = k * 11 - 7;
        g.at<int32_t>({k}) = g_ref[k] = 100 - k * k;
    }
    for (int k = 0; k < n; k++) f_ref[k % 5] = (int32_t)((uint32_t)f_ref[k % 5] * 3u + (uint32_t)g_ref[k % 5] - (uint32_t)k);
    int32_t nv = n;
    void *args[] = {&nv, &f.buf, &g.buf};
    ASSERT_EQ(interpret(func, args), 0);
    for (int k = 0; k < 5; k++) EXPECT_EQ(f.at<int32_t>({k}), f_ref[k]) << k;
}

// for (x, 0, 6) {
//   out[ramp(x*4, 1, 4)] = select(r % k < 2, (r % k)*10, in[r % k + x]) where r = ramp(x*4, 1, 4)
// } with k a scalar argument: r % k is shared by the condition and both values.
TEST(InterpShareSubexpressions, VectorStoresMatchAPlainLoop) {
    Expr x = var("x"), k = var("k");
    Expr r = Ramp::make(Mul::make(x, i32(4)), i32(1), 4);
    Expr m = Mod::make(r, Broadcast::make(k, 4));
    Expr value = Select::make(LT::make(m, Broadcast::make(i32(2), 4)), Mul::make(m, Broadcast::make(i32(10), 4)),
                              Load::make(Int(32, 4), "in", Add::make(m, Broadcast::make(x, 4))));
    LoweredFunc func;
    func.name = "vector_store";
    func.args = {scalar_arg("k", Int(32)), buffer_arg("in", Int(32), 1, false), buffer_arg("out", Int(32), 1, true)};
    func.body = with_host("in", with_host("out", serial_for("x", i32(0), i32(6), Store::make("out", value, r))));

    for (int kv : {3, 7, -5}) {
        TestBuffer in(Int(32), {0}, {16}), out(Int(32), {0}, {24});
        std::vector<int32_t> in_ref(16);
        for (int j = 0; j < 16; j++) in.at<int32_t>({j}) = in_ref[j] = j * j - 40;
        int32_t k_arg = kv;
        void *args[] = {&k_arg, &in.buf, &out.buf};
        ASSERT_EQ(interpret(func, args), 0) << kv;
        for (int xv = 0; xv < 6; xv++) {
            for (int lane = 0; lane < 4; lane++) {
                const int rv = xv * 4 + lane;
                // Euclidean modulus (the result is never negative).
                const int mv = ((rv % kv) + std::abs(kv)) % std::abs(kv);
                const int32_t expected = mv < 2 ? mv * 10 : in_ref[mv + xv];
                EXPECT_EQ(out.at<int32_t>({rv}), expected) << "k " << kv << " at " << rv;
            }
        }
    }
}

}  // namespace
}  // namespace internal
}  // namespace loom
