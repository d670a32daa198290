// Func::memoize: a Func's realizations (compute_root or compute_at) are
// cached across runs, keyed by the region and the Params it depends on; eviction keys,
// loom_memoization_cache_evict and _set_size; the errors. Each production
// of the memoized Func prints one line per row, counted by a custom print
// handler, so a run that reuses the cache prints nothing.

#include <atomic>
#include <string>
#include <vector>

#include "e2e/E2ETest.h"

using namespace loom;
using loom_test::compile_error_message;
using loom_test::contains;
using loom_test::expect_buffer_eq;

namespace {

class Memoize : public loom_test::BackendTest {
protected:
    void TearDown() override {
        loom_memoization_cache_set_size(1 << 20);  // the default, for the next test
        loom_test::BackendTest::TearDown();
    }
};

std::atomic<int> rows_computed{0};

void count_rows(JITUserContext *, const char *) { rows_computed++; }

/** f(x, y) = x * scale + y, printing once per row it computes. */
Func memoized_rows(const std::string &name, const Param<int> &scale) {
    Var x("x"), y("y");
    Func f(name);
    f(x, y) = print_when(x == 0, x * scale + y, "row of", name);
    return f;
}

TEST_P(Memoize, SameParamsReuseTheCache) {
    Param<int> scale("scale");
    Var x("x"), y("y");
    Func f = memoized_rows("memo_f", scale);
    f.compute_root().memoize();
    Func g("memo_g");
    g(x, y) = f(x, y) * 2 + 1;
    g.jit_handlers().custom_print = count_rows;
    auto expected = [&](int s) {
        return [s](const std::vector<int> &p) { return (p[0] * s + p[1]) * 2 + 1; };
    };

    scale.set(3);
    rows_computed = 0;
    expect_buffer_eq(Buffer<int>(g.realize({16, 8})), expected(3));
    EXPECT_EQ(rows_computed, 8);

    rows_computed = 0;
    expect_buffer_eq(Buffer<int>(g.realize({16, 8})), expected(3));
    EXPECT_EQ(rows_computed, 0) << "the second run with the same scale must reuse the cached f";

    scale.set(4);
    rows_computed = 0;
    expect_buffer_eq(Buffer<int>(g.realize({16, 8})), expected(4));
    EXPECT_EQ(rows_computed, 8) << "a new scale is a new key";

    scale.set(3);
    rows_computed = 0;
    expect_buffer_eq(Buffer<int>(g.realize({16, 8})), expected(3));
    EXPECT_EQ(rows_computed, 0) << "the scale 3 entry is still cached";

    rows_computed = 0;
    expect_buffer_eq(Buffer<int>(g.realize({16, 9})), expected(3));
    EXPECT_EQ(rows_computed, 9) << "another region is another key";
}

TEST_P(Memoize, ThroughCalledFuncsAndTuples) {
    // The Param is read by a Func that the memoized one calls.
    Param<int> offset("offset");
    Var x("x");
    Func base("memo_base"), pair("memo_pair"), out("memo_out");
    base(x) = x + offset;
    pair(x) = Tuple(print_when(x == 0, base(x) * 3, "pair"), base(x) - 1);
    pair.compute_root().memoize();
    out(x) = pair(x)[0] + pair(x)[1];
    out.jit_handlers().custom_print = count_rows;
    for (int round = 0; round < 2; round++) {
        for (int o : {5, -2}) {
            offset.set(o);
            rows_computed = 0;
            Buffer<int> r = out.realize({20});
            expect_buffer_eq(r, [o](const std::vector<int> &p) { return (p[0] + o) * 3 + (p[0] + o) - 1; });
            EXPECT_EQ(rows_computed, round == 0 ? 1 : 0) << "offset " << o << ", round " << round;
        }
    }
}

TEST_P(Memoize, EvictionKeyAndCacheSize) {
    Param<int> scale("scale"), version("version");
    Var x("x"), y("y");
    Func f = memoized_rows("memo_ev", scale);
    f.compute_root().memoize(EvictionKey(version));
    Func g("memo_ev_out");
    g(x, y) = f(x, y);
    g.jit_handlers().custom_print = count_rows;
    scale.set(2);
    version.set(7);
    auto run = [&] {
        rows_computed = 0;
        expect_buffer_eq(Buffer<int>(g.realize({8, 4})), [](const std::vector<int> &p) { return p[0] * 2 + p[1]; });
        return rows_computed.load();
    };
    EXPECT_EQ(run(), 4);
    EXPECT_EQ(run(), 0);
    loom_memoization_cache_evict(nullptr, 8);  // another key: nothing goes
    EXPECT_EQ(run(), 0);
    loom_memoization_cache_evict(nullptr, 7);
    EXPECT_EQ(run(), 4) << "evicted entries are computed again";
    EXPECT_EQ(run(), 0);

    loom_memoization_cache_set_size(0);  // nothing fits
    EXPECT_EQ(run(), 4);
    EXPECT_EQ(run(), 4);
    loom_memoization_cache_set_size(1 << 20);
    EXPECT_EQ(run(), 4);
    EXPECT_EQ(run(), 0);
    loom_memoization_cache_cleanup();
    EXPECT_EQ(run(), 4);
}

// compute_at: each realization (here one per row of g) is cached under its
// own region, so a second run computes no row, and a run over more rows
// computes only the new ones.
TEST_P(Memoize, ComputeAtCachesEachRealization) {
    Param<int> scale("scale");
    Var x("x"), y("y");
    Func f = memoized_rows("memo_at_f", scale);
    Func g("memo_at_g");
    g(x, y) = f(x, y) + f(x + 1, y);
    f.compute_at(g, y).memoize();
    g.jit_handlers().custom_print = count_rows;
    auto expected = [](int s) {
        return [s](const std::vector<int> &p) { return (p[0] * s + p[1]) + ((p[0] + 1) * s + p[1]); };
    };
    scale.set(5);
    rows_computed = 0;
    expect_buffer_eq(Buffer<int>(g.realize({12, 6})), expected(5));
    EXPECT_EQ(rows_computed, 6);
    rows_computed = 0;
    expect_buffer_eq(Buffer<int>(g.realize({12, 6})), expected(5));
    EXPECT_EQ(rows_computed, 0) << "every row's realization of f must come from the cache";
    rows_computed = 0;
    expect_buffer_eq(Buffer<int>(g.realize({12, 9})), expected(5));
    EXPECT_EQ(rows_computed, 3) << "rows 6..8 are new";
    scale.set(6);
    rows_computed = 0;
    expect_buffer_eq(Buffer<int>(g.realize({12, 6})), expected(6));
    EXPECT_EQ(rows_computed, 6);
}

// The cache is shared by the threads of a parallel loop.
TEST_P(Memoize, ComputeAtInsideAParallelLoop) {
    Param<int> scale("scale");
    Var x("x"), y("y");
    Func f = memoized_rows("memo_par_f", scale);
    Func g("memo_par_g");
    g(x, y) = f(x, y) * 3;
    f.compute_at(g, y).memoize();
    g.parallel(y);
    g.jit_handlers().custom_print = count_rows;
    scale.set(2);
    rows_computed = 0;
    expect_buffer_eq(Buffer<int>(g.realize({8, 32})),
                     [](const std::vector<int> &p) { return (p[0] * 2 + p[1]) * 3; });
    EXPECT_EQ(rows_computed, 32);
    rows_computed = 0;
    expect_buffer_eq(Buffer<int>(g.realize({8, 32})),
                     [](const std::vector<int> &p) { return (p[0] * 2 + p[1]) * 3; });
    EXPECT_EQ(rows_computed, 0);
}

TEST_P(Memoize, Errors) {
    if (loom::internal::jit_backend() != loom::internal::Backend::LLVM) {
        GTEST_SKIP() << "compile errors do not depend on the backend";
    }
    Param<int> p("p");
    Var x("x");
    Func out("memo_err_out");
    out(x) = x * p;
    out.memoize();
    p.set(1);
    std::string m = compile_error_message([&] { out.realize({4}); });
    EXPECT_TRUE(contains(m, "memo_err_out can't be memoized: it is an output")) << m;

    Func inl("memo_inline"), user("memo_user");
    inl(x) = x + p;
    inl.memoize();
    user(x) = inl(x);
    m = compile_error_message([&] { user.realize({4}); });
    EXPECT_TRUE(contains(m, "memo_inline can't be memoized: it is computed inline")) << m;

    Func at("memo_at"), user2("memo_user2");
    Var y("y");
    at(x) = x + p;
    user2(x, y) = at(x) + y;
    at.store_root().compute_at(user2, y).memoize();
    m = compile_error_message([&] { user2.realize({4, 4}); });
    EXPECT_TRUE(contains(m, "memo_at can't be memoized: it is stored outside the loop it is computed in")) << m;

    Func aligned("memo_aligned"), user4("memo_user4");
    aligned(x) = x + p;
    user4(x) = aligned(x);
    aligned.compute_root().align_storage(x, 16).memoize();
    m = compile_error_message([&] { user4.realize({4}); });
    EXPECT_TRUE(contains(m, "memo_aligned can't be memoized: its storage is aligned or bounded")) << m;

    // An ImageParam's contents (a concrete Buffer is a constant of the
    // pipeline instead: MemoizeConcreteBuffer.*).
    ImageParam in(Int(32), 1, "memo_in");
    in.set(Buffer<int>(std::vector<int>{4}));
    Func reads("memo_reads"), user3("memo_user3");
    reads(x) = in(x) + 1;
    reads.compute_root().memoize();
    user3(x) = reads(x);
    m = compile_error_message([&] { user3.realize({4}); });
    EXPECT_TRUE(contains(m, "reads the buffer memo_in")) << m;

    Func f("memo_key");
    f(x) = x;
    m = compile_error_message([&] { f.memoize(EvictionKey(Expr(1.5f))); });
    EXPECT_TRUE(contains(m, "EvictionKey must be a scalar integer")) << m;
    f.memoize(EvictionKey(Expr(42)));
    m = compile_error_message([&] { f.memoize(EvictionKey(Expr(1764))); });
    EXPECT_TRUE(contains(m, "already memoized with another EvictionKey")) << m;
}

}  // namespace

LOOM_INSTANTIATE_BACKENDS(Memoize);
