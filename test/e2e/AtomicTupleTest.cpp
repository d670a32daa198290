// Stage::atomic() on Tuple updates (Halide's rules): an update whose values
// read the Func runs under a lock of the element it writes (Halide's mutex),
// so its RVar loop may be parallel, but not vectorized; one that only
// assigns is plain stores. Compared with plain C++ loops on each backend.

#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include "e2e/E2ETest.h"

using namespace loom;
using loom_test::compile_error_message;
using loom_test::contains;
using loom_test::lowered_stmt;

namespace {

class AtomicTuple : public loom_test::BackendTest {};

constexpr int kBins = 7;

bool is_llvm() { return loom::internal::jit_backend() == loom::internal::Backend::LLVM; }

/** in(i) = (i * i + 3 * i) % kBins. */
Buffer<int> bins_input(int n) {
    Buffer<int> in(std::vector<int>{n}, "in");
    for (int i = 0; i < n; i++) in(i) = (i * i + 3 * i) % kBins;
    return in;
}

// A count and a sum per bin, updated together from a parallel loop.
TEST_P(AtomicTuple, ParallelCountAndSum) {
    const int N = 20000;
    Buffer<int> in = bins_input(N);
    RDom r(0, N, "r");
    Var x("x");
    Func hist("tuple_hist");
    hist(x) = Tuple(0, 0);
    Expr bin = clamp(in(r), 0, kBins - 1);
    hist(bin) = Tuple(hist(bin)[0] + 1, hist(bin)[1] + r % 1000);
    hist.update().atomic().parallel(r, 64);

    Realization out = hist.realize({kBins});
    Buffer<int> count = out[0], sum = out[1];
    std::vector<int> expected_count(kBins, 0), expected_sum(kBins, 0);
    for (int i = 0; i < N; i++) {
        expected_count[in(i)]++;
        expected_sum[in(i)] += i % 1000;
    }
    for (int b = 0; b < kBins; b++) {
        EXPECT_EQ(count(b), expected_count[b]) << "bin " << b;
        EXPECT_EQ(sum(b), expected_sum[b]) << "bin " << b;
    }
    if (is_llvm()) {
        std::string stmt = lowered_stmt(hist, "atomic_tuple_hist.stmt");
        EXPECT_TRUE(contains(stmt, "loom_atomic_mutex_lock")) << stmt;
        EXPECT_TRUE(contains(stmt, "loom_atomic_mutex_unlock")) << stmt;
    }
}

// argmax per bin: the value and its index must come from the same
// iteration, which one atomic operation per element could not promise.
TEST_P(AtomicTuple, ParallelArgMaxPerBin) {
    const int N = 5000;
    Buffer<int> in = bins_input(N);
    Buffer<int> value(std::vector<int>{N}, "value");
    for (int i = 0; i < N; i++) value(i) = (i * 7919) % N;  // a permutation: no ties
    RDom r(0, N, "r");
    Var x("x");
    Func best("tuple_best");
    best(x) = Tuple(INT_MIN, -1);
    Expr bin = clamp(in(r), 0, kBins - 1);
    Expr better = value(r) > best(bin)[0];
    best(bin) = Tuple(select(better, value(r), best(bin)[0]), select(better, r, best(bin)[1]));
    best.update().atomic(true).parallel(r, 16);

    Realization out = best.realize({kBins});
    Buffer<int> max_value = out[0], where = out[1];
    std::vector<int> expected_max(kBins, INT_MIN), expected_where(kBins, -1);
    for (int i = 0; i < N; i++) {
        if (value(i) > expected_max[in(i)]) {
            expected_max[in(i)] = value(i);
            expected_where[in(i)] = i;
        }
    }
    for (int b = 0; b < kBins; b++) {
        EXPECT_EQ(max_value(b), expected_max[b]) << "bin " << b;
        EXPECT_EQ(where(b), expected_where[b]) << "bin " << b;
    }
}

// A Tuple update that does not read the Func is plain stores (as in Halide):
// no lock, and vectorizing is allowed.
TEST_P(AtomicTuple, AssignmentTakesNoLock) {
    const int N = 256;
    Buffer<int> in = bins_input(N);
    RDom r(0, N, "r");
    Var x("x");
    Func f("tuple_assign");
    f(x) = Tuple(0, 0);
    f(clamp(in(r), 0, kBins - 1)) = Tuple(1, 2);
    RVar ro("ro"), ri("ri");
    f.update().atomic().split(r, ro, ri, 8).parallel(ro).vectorize(ri);
    Realization out = f.realize({kBins});
    Buffer<int> a = out[0], b = out[1];
    std::vector<bool> hit(kBins, false);
    for (int i = 0; i < N; i++) hit[in(i)] = true;
    for (int k = 0; k < kBins; k++) {
        EXPECT_EQ(a(k), hit[k] ? 1 : 0) << k;
        EXPECT_EQ(b(k), hit[k] ? 2 : 0) << k;
    }
    if (is_llvm()) {
        std::string stmt = lowered_stmt(f, "atomic_tuple_assign.stmt");
        EXPECT_FALSE(contains(stmt, "loom_atomic_mutex_lock")) << stmt;
    }
}

// Serial RVar loops need no lock.
TEST_P(AtomicTuple, SerialUpdateTakesNoLock) {
    if (!is_llvm()) GTEST_SKIP() << "a property of the lowered statement";
    RDom r(0, 50, "r");
    Var x("x");
    Func f("tuple_serial");
    f(x) = Tuple(0, 0);
    f(r % 5) = Tuple(f(r % 5)[0] + 1, f(r % 5)[1] + r);
    f.update().atomic();
    std::string stmt = lowered_stmt(f, "atomic_tuple_serial.stmt");
    EXPECT_FALSE(contains(stmt, "loom_atomic_mutex_lock")) << stmt;
}

TEST_P(AtomicTuple, VectorizedLockedUpdateIsRefused) {
    if (!is_llvm()) GTEST_SKIP() << "compile errors do not depend on the backend";
    Buffer<int> in = bins_input(1000);
    RDom r(0, 1000, "r");
    Var x("x");
    Func hist("tuple_vec_hist");
    hist(x) = Tuple(0, 0);
    Expr bin = clamp(in(r), 0, kBins - 1);
    hist(bin) = Tuple(hist(bin)[0] + 1, hist(bin)[1] + 2);
    RVar ro("ro"), ri("ri");
    hist.update().atomic().split(r, ro, ri, 8).parallel(ro).vectorize(ri);
    std::string m = compile_error_message([&] { hist.realize({kBins}); });
    EXPECT_TRUE(contains(m, "Can't vectorize the loop")) << m;
    EXPECT_TRUE(contains(m, "tuple_vec_hist")) << m;
    EXPECT_TRUE(contains(m, "lock")) << m;
}

TEST_P(AtomicTuple, IndexReadingTheFuncIsRefused) {
    if (!is_llvm()) GTEST_SKIP() << "schedule errors do not depend on the backend";
    RDom r(0, 100, "r");
    Var x("x");
    Func f("tuple_self_index");
    f(x) = Tuple(0, 0);
    f(clamp(f(r)[0], 0, 99)) = Tuple(f(r)[0] + 1, f(r)[1]);
    std::string m = compile_error_message([&] { f.update().atomic(true); });
    EXPECT_TRUE(contains(m, "index written to depends on the current value of the Func")) << m;
}

}  // namespace

LOOM_INSTANTIATE_BACKENDS(AtomicTuple);
