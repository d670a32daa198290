// Stage::atomic(): updates whose RVar loops run in parallel or vectorized
// although iterations update the same elements (histograms, sums, min/max),
// compared with plain C++ loops on every backend, and the errors for updates
// that can't be made atomic.

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "e2e/E2ETest.h"

using namespace loom;
using loom_test::compile_error_message;
using loom_test::contains;
using loom_test::lowered_stmt;

namespace {

class Atomic : public loom_test::BackendTest {};

constexpr int kBins = 7;

/** in(i) = (i * i + 3 * i) % kBins, a skewed histogram input. */
Buffer<int> bins_input(int n) {
    Buffer<int> in(std::vector<int>{n}, "in");
    for (int i = 0; i < n; i++) in(i) = (i * i + 3 * i) % kBins;
    return in;
}

std::vector<int> reference_histogram(const Buffer<int> &in) {
    std::vector<int> h(kBins, 0);
    for (int i = 0; i < in.dim(0).extent(); i++) h[in(i)]++;
    return h;
}

bool is_llvm() { return loom::internal::jit_backend() == loom::internal::Backend::LLVM; }

TEST_P(Atomic, ParallelHistogram) {
    const int N = 10000;
    Buffer<int> in = bins_input(N);
    RDom r(0, N, "r");
    Var x("x");
    Func hist("hist");
    hist(x) = 0;
    hist(clamp(in(r), 0, kBins - 1)) += 1;
    hist.update().atomic().parallel(r, 64);

    Buffer<int> out = hist.realize({kBins});
    std::vector<int> expected = reference_histogram(in);
    for (int b = 0; b < kBins; b++) EXPECT_EQ(out(b), expected[b]) << "bin " << b;
    if (is_llvm()) {
        std::string stmt = lowered_stmt(hist, "atomic_parallel_hist.stmt");
        EXPECT_TRUE(contains(stmt, "atomic_update")) << stmt;
        EXPECT_TRUE(contains(stmt, "parallel")) << stmt;
    }
}

TEST_P(Atomic, VectorizedHistogramWithATail) {
    const int N = 1003;  // not a multiple of 8: a GuardWithIf tail
    Buffer<int> in = bins_input(N);
    RDom r(0, N, "r");
    Var x("x");
    RVar ro("ro"), ri("ri");
    Func hist("hist");
    hist(x) = 0;
    hist(clamp(in(r), 0, kBins - 1)) += 1;
    hist.update().atomic().split(r, ro, ri, 8).vectorize(ri).parallel(ro);

    Buffer<int> out = hist.realize({kBins});
    std::vector<int> expected = reference_histogram(in);
    for (int b = 0; b < kBins; b++) EXPECT_EQ(out(b), expected[b]) << "bin " << b;
}

TEST_P(Atomic, VectorizedSumIntoOneElement) {
    // Every lane updates the same element.
    const int N = 800;
    Buffer<int> in(std::vector<int>{N}, "in");
    for (int i = 0; i < N; i++) in(i) = (i * 7) % 23 - 11;
    RDom r(0, N, "r");
    Func total("total");
    total() = 5;
    total() += in(r);
    total.update().atomic().vectorize(r, 16);

    Buffer<int> out = total.realize();
    int expected = 5;
    for (int i = 0; i < N; i++) expected += in(i);
    EXPECT_EQ(out(), expected);
}

TEST_P(Atomic, FloatHistogramOfWeights) {
    // Weights that are small multiples of 1/4: every partial sum is exact,
    // so any order of the float additions gives the same result.
    const int N = 4000;
    Buffer<int> in = bins_input(N);
    Buffer<float> w(std::vector<int>{N}, "w");
    for (int i = 0; i < N; i++) w(i) = float(i % 5) * 0.25f;
    RDom r(0, N, "r");
    Var x("x");
    Func hist("hist");
    hist(x) = 0.0f;
    hist(clamp(in(r), 0, kBins - 1)) += w(r);
    hist.update().atomic().parallel(r, 32);

    Buffer<float> out = hist.realize({kBins});
    std::vector<float> expected(kBins, 0.0f);
    for (int i = 0; i < N; i++) expected[in(i)] += w(i);
    for (int b = 0; b < kBins; b++) EXPECT_EQ(out(b), expected[b]) << "bin " << b;
}

TEST_P(Atomic, MinMaxAndNarrowTypes) {
    const int N = 3000;
    Buffer<int16_t> in(std::vector<int>{N}, "in");
    for (int i = 0; i < N; i++) in(i) = int16_t((i * 7919) % 20011 - 10000);
    RDom r(0, N, "r");
    Var x("x");
    // Per bin (i % 5): the smallest and the largest value.
    Func lo("lo"), hi("hi");
    lo(x) = int16_t(SHRT_MAX);
    lo(r % 5) = min(lo(r % 5), in(r));
    hi(x) = int16_t(SHRT_MIN);
    hi(r % 5) = max(hi(r % 5), in(r));
    lo.update().atomic().parallel(r, 100);
    hi.update().atomic().vectorize(r, 8);

    Buffer<int16_t> out_lo = lo.realize({5}), out_hi = hi.realize({5});
    for (int b = 0; b < 5; b++) {
        int16_t mn = SHRT_MAX, mx = SHRT_MIN;
        for (int i = b; i < N; i += 5) {
            mn = std::min(mn, in(i));
            mx = std::max(mx, in(i));
        }
        EXPECT_EQ(out_lo(b), mn) << "bin " << b;
        EXPECT_EQ(out_hi(b), mx) << "bin " << b;
    }
}

TEST_P(Atomic, CompareAndSwapForOtherOperators) {
    // No atomicrmw for these: a product of integers (wrapping), a float
    // maximum and a boolean "any", each a compare-and-swap loop.
    const int N = 2000;
    Buffer<int> in(std::vector<int>{N}, "in");
    for (int i = 0; i < N; i++) in(i) = (i * 31) % 97 - 48;
    RDom r(0, N, "r");
    Var x("x");
    Func prod("prod"), fmax_("fmax_"), any("any");
    prod(x) = 1;
    prod(r % 3) = prod(r % 3) * (in(r) | 1);
    fmax_(x) = -1000.0f;
    fmax_(r % 4) = max(fmax_(r % 4), cast<float>(in(r)) * 0.5f);
    any(x) = x < 0;  // false for every bin
    any(r % 2) = any(r % 2) || in(r) == 47;
    prod.update().atomic().parallel(r, 50);
    fmax_.update().atomic().vectorize(r, 4).parallel(r);
    any.update().atomic().parallel(r, 64);

    Buffer<int> out_prod = prod.realize({3});
    Buffer<float> out_max = fmax_.realize({4});
    Buffer<bool> out_any = any.realize({2});
    for (int b = 0; b < 3; b++) {
        uint32_t p = 1;
        for (int i = b; i < N; i += 3) p *= uint32_t(in(i) | 1);
        EXPECT_EQ(out_prod(b), int(p)) << "bin " << b;
    }
    for (int b = 0; b < 4; b++) {
        float m = -1000.0f;
        for (int i = b; i < N; i += 4) m = std::max(m, float(in(i)) * 0.5f);
        EXPECT_EQ(out_max(b), m) << "bin " << b;
    }
    for (int b = 0; b < 2; b++) {
        bool a = false;
        for (int i = b; i < N; i += 2) a = a || in(i) == 47;
        EXPECT_EQ(out_any(b), a) << "bin " << b;
    }
}

TEST_P(Atomic, AssignmentNeedsNoAssociativity) {
    // Every iteration writes a value that does not read the Func: any
    // order leaves one of the candidates, here all equal per bin.
    const int N = 500;
    RDom r(0, N, "r");
    Var x("x");
    Func f("f");
    f(x) = -1;
    f(r % 10) = (r % 10) * 3;
    f.update().atomic().parallel(r, 16);
    Buffer<int> out = f.realize({10});
    for (int b = 0; b < 10; b++) EXPECT_EQ(out(b), b * 3);
}

TEST_P(Atomic, SerialAtomicUpdateIsPlain) {
    // atomic() without a parallel or vectorized loop changes nothing.
    Buffer<int> in = bins_input(300);
    RDom r(0, 300, "r");
    Var x("x");
    Func hist("hist");
    hist(x) = 0;
    hist(clamp(in(r), 0, kBins - 1)) += 1;
    hist.update().atomic();
    Buffer<int> out = hist.realize({kBins});
    std::vector<int> expected = reference_histogram(in);
    for (int b = 0; b < kBins; b++) EXPECT_EQ(out(b), expected[b]);
    if (is_llvm()) {
        std::string stmt = lowered_stmt(hist, "atomic_serial_hist.stmt");
        EXPECT_FALSE(contains(stmt, "atomic_update")) << stmt;
    }
}

std::string assembly_of(Func &f, const std::vector<Argument> &args, const std::string &name) {
    std::string file = ::testing::TempDir() + std::to_string(getpid()) + "_" + name + ".s";
    f.compile_to_assembly(file, args, name);
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    std::remove(file.c_str());
    return text.str();
}

TEST_P(Atomic, AssemblyHasAtomicInstructions) {
    if (!is_llvm()) GTEST_SKIP() << "looks at the LLVM back end's assembly";
    ImageParam in(Int(32), 1, "in");
    RDom r(0, in.dim(0).extent(), "r");
    Var x("x");
    Func hist("hist"), prod("prod");
    hist(x) = 0;
    hist(clamp(in(r), 0, kBins - 1)) += 1;
    hist.update().atomic().parallel(r, 64);
    prod(x) = 1;
    prod(clamp(in(r), 0, kBins - 1)) *= in(r);
    prod.update().atomic().parallel(r, 64);
    const std::string add = assembly_of(hist, {in}, "atomic_hist"), mul = assembly_of(prod, {in}, "atomic_prod");
    // x86: a lock-prefixed add / xadd, and lock cmpxchg for the product's
    // compare-and-swap loop; AArch64: ldadd or an exclusive-load loop, cas.
    EXPECT_TRUE(contains(add, "\tlock") || contains(add, "ldadd") || contains(add, "ldxr")) << add.substr(0, 3000);
    EXPECT_TRUE(contains(mul, "cmpxchg") || contains(mul, "cas") || contains(mul, "ldxr")) << mul.substr(0, 3000);
    // Without atomic() the serial update has no atomic instruction.
    Func plain("plain");
    plain(x) = 0;
    plain(clamp(in(r), 0, kBins - 1)) += 1;
    const std::string serial = assembly_of(plain, {in}, "plain_hist");
    EXPECT_FALSE(contains(serial, "\tlock")) << serial.substr(0, 3000);
}

// ---- errors -------------------------------------------------------------

TEST_P(Atomic, ParallelWithoutAtomicIsRefusedAndSuggestsIt) {
    if (!is_llvm()) GTEST_SKIP() << "schedule errors do not depend on the backend";
    Buffer<int> in = bins_input(100);
    RDom r(0, 100, "r");
    Var x("x");
    Func hist("hist");
    hist(x) = 0;
    hist(in(r)) += 1;
    std::string m = compile_error_message([&] { hist.update().parallel(r); });
    EXPECT_TRUE(contains(m, "may depend on each other")) << m;
    EXPECT_TRUE(contains(m, "hist.update(0).atomic()")) << m;
}

TEST_P(Atomic, NonAssociativeUpdateIsRefusedUnlessOverridden) {
    if (!is_llvm()) GTEST_SKIP() << "schedule errors do not depend on the backend";
    Buffer<int> in = bins_input(100);
    RDom r(0, 100, "r");
    Var x("x");
    Func f("f");
    f(x) = 0;
    f(in(r)) = f(in(r)) * 2 + 1;
    std::string m = compile_error_message([&] { f.update().atomic().parallel(r); });
    EXPECT_TRUE(contains(m, "Failed to call atomic() on f.update(0)")) << m;
    EXPECT_TRUE(contains(m, "atomic(true)")) << m;
    // The user vouches for it: accepted (its result then depends on the order).
    Func g("g");
    g(x) = 0;
    g(in(r)) = g(in(r)) * 2 + 1;
    EXPECT_EQ(compile_error_message([&] { g.update().atomic(true).parallel(r); }), "<no error>");
}

TEST_P(Atomic, IndexReadingTheFuncIsRefused) {
    if (!is_llvm()) GTEST_SKIP() << "schedule errors do not depend on the backend";
    RDom r(0, 100, "r");
    Var x("x");
    Func f("f");
    f(x) = 0;
    f(clamp(f(r), 0, 99)) = f(r) + 1;
    std::string m = compile_error_message([&] { f.update().atomic(true); });
    EXPECT_TRUE(contains(m, "index written to depends on the current value of the Func")) << m;
}

TEST_P(Atomic, ReadingAnotherElementIsRefused) {
    if (!is_llvm()) GTEST_SKIP() << "schedule errors do not depend on the backend";
    RDom r(1, 99, "r");
    Var x("x");
    Func f("f");
    f(x) = x;
    f(r) = f(r - 1) + f(r);
    std::string m = compile_error_message([&] { f.update().atomic(); });
    EXPECT_TRUE(contains(m, "Can't use atomic() on f.update(0)")) << m;
    EXPECT_TRUE(contains(m, "another element")) << m;
    EXPECT_TRUE(contains(m, "f((r$x + -1))") || contains(m, "f(r$x - 1)") || contains(m, "f((r$x - 1))")) << m;
}

TEST_P(Atomic, GpuScheduleIsRefused) {
    if (!is_llvm()) GTEST_SKIP() << "a compile-time error; the Target names Vulkan";
    // One histogram per column c: c is a pure Var, a GPU block loop.
    Buffer<int> in = bins_input(64);
    RDom r(0, 64, "r");
    Var x("x"), c("c");
    Func hist("hist");
    hist(x, c) = 0;
    hist(clamp(in(r), 0, kBins - 1), c) += c;
    hist.update().atomic().gpu_blocks(c);
    std::string file = ::testing::TempDir() + "atomic_gpu.stmt";
    std::string m = compile_error_message([&] { hist.compile_to_lowered_stmt(file, Target("host-vulkan")); });
    EXPECT_TRUE(contains(m, "Can't use atomic() on hist.update(0) with GPU loops")) << m;
}

}  // namespace

LOOM_INSTANTIATE_BACKENDS(Atomic);
