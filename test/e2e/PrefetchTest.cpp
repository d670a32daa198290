// Func::prefetch: prefetches of the region a later iteration reads, with each
// PrefetchBoundStrategy, for Funcs and input buffers. Results never change
// (compared with plain C++ loops on every backend); the LLVM back end emits
// prefetch instructions; misplaced prefetches are CompileErrors.

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "e2e/E2ETest.h"

using namespace loom;
using loom_test::compile_error_message;
using loom_test::contains;
using loom_test::expect_buffer_eq;
using loom_test::lowered_stmt;

namespace {

class Prefetch : public loom_test::BackendTest {};

bool is_llvm() { return loom::internal::jit_backend() == loom::internal::Backend::LLVM; }

Buffer<int> input_2d(int w, int h) {
    Buffer<int> in(std::vector<int>{w, h}, "in");
    in.for_each_element([&](const std::vector<int> &p) { in(p) = p[0] * 3 - p[1] * 7 + 11; });
    return in;
}

class PrefetchStrategies : public Prefetch {
protected:
    void run(PrefetchBoundStrategy strategy, const std::string &tag) {
        const int W = 70, H = 9;
        Buffer<int> in = input_2d(W + 2, H);
        Var x("x"), y("y");
        Func f("f"), g("g");
        f(x, y) = in(x, y) * 2 + in(x + 1, y);
        g(x, y) = f(x, y) + f(x + 1, y);
        f.compute_root();
        g.prefetch(f, x, x, 4, strategy);
        f.prefetch(in, y, y, 1, strategy);

        Buffer<int> out = g.realize({W, H});
        auto fv = [&](int i, int j) { return in(i, j) * 2 + in(i + 1, j); };
        expect_buffer_eq(out, [&](const std::vector<int> &p) { return fv(p[0], p[1]) + fv(p[0] + 1, p[1]); });
        if (is_llvm()) {
            std::string stmt = lowered_stmt(g, std::string("prefetch_") + tag + ".stmt");
            EXPECT_TRUE(contains(stmt, "prefetch(f[")) << stmt;
            EXPECT_TRUE(contains(stmt, "prefetch(in[")) << stmt;
        }
    }
};

TEST_P(PrefetchStrategies, GuardWithIf) { run(PrefetchBoundStrategy::GuardWithIf, "guard"); }
TEST_P(PrefetchStrategies, Clamp) { run(PrefetchBoundStrategy::Clamp, "clamp"); }
TEST_P(PrefetchStrategies, NonFaulting) { run(PrefetchBoundStrategy::NonFaulting, "nonfaulting"); }

TEST_P(Prefetch, FromAnOuterLoopPrefetchesATile) {
    // Halide's example: placed in loop y, looking ahead in loop w (outside it).
    const int N = 6;
    Var x("x"), y("y"), z("z"), w("w");
    Func f("f"), g("g");
    f(x, y, z, w) = x + 10 * y + 100 * z + 1000 * w;
    g(x, y, z, w) = 2 * f(x, y, z, w);
    f.compute_root();
    g.prefetch(f, y, w, 2, PrefetchBoundStrategy::Clamp);
    Buffer<int> out = g.realize({N, N, N, N});
    expect_buffer_eq(out, [](const std::vector<int> &p) { return 2 * (p[0] + 10 * p[1] + 100 * p[2] + 1000 * p[3]); });
}

TEST_P(Prefetch, InAnUpdateAndAParallelLoop) {
    const int N = 200;
    Buffer<float> in(std::vector<int>{N, 4}, "in");
    in.for_each_element([&](const std::vector<int> &p) { in(p) = float(p[0] % 17) * 0.5f + float(p[1]); });
    RDom r(0, N, "r");
    Var c("c");
    Func sum("sum");
    sum(c) = 0.0f;
    sum(c) += in(r, c);
    sum.update().parallel(c).prefetch(in, r, r, 16);
    Buffer<float> out = sum.realize({4});
    for (int j = 0; j < 4; j++) {
        float s = 0.0f;
        for (int i = 0; i < N; i++) s += in(i, j);
        EXPECT_EQ(out(j), s) << "c = " << j;
    }
}

TEST_P(Prefetch, AssemblyHasPrefetchInstructions) {
    if (!is_llvm()) GTEST_SKIP() << "looks at the LLVM back end's assembly";
    ImageParam in(Int(32), 2, "in");
    Var x("x"), y("y");
    Func g("g");
    g(x, y) = in(x, y) + in(x, y + 1);
    g.prefetch(in, y, y, 2);
    std::string file = ::testing::TempDir() + std::to_string(getpid()) + "_prefetch.s";
    g.compile_to_assembly(file, {in}, "prefetching");
    std::ifstream s(file);
    std::stringstream text;
    text << s.rdbuf();
    std::remove(file.c_str());
    const std::string assembly = text.str();
    // x86: prefetcht0; AArch64: prfm.
    EXPECT_TRUE(contains(assembly, "prefetcht0") || contains(assembly, "prfm")) << assembly.substr(0, 4000);

    Func plain("plain");
    plain(x, y) = in(x, y) + in(x, y + 1);
    std::string file2 = ::testing::TempDir() + std::to_string(getpid()) + "_plain.s";
    plain.compile_to_assembly(file2, {in}, "plain");
    std::ifstream s2(file2);
    std::stringstream text2;
    text2 << s2.rdbuf();
    std::remove(file2.c_str());
    EXPECT_FALSE(contains(text2.str(), "prefetcht0")) << "a pipeline without prefetch() has none";
}

TEST_P(Prefetch, Errors) {
    if (!is_llvm()) GTEST_SKIP() << "schedule errors do not depend on the backend";
    Var x("x"), y("y"), xo("xo"), xi("xi");
    Func f("f"), g("g"), other("other");
    f(x, y) = x + y;
    other(x, y) = x * y;
    g(x, y) = f(x, y) * 2;
    f.compute_root();
    other.compute_root();
    std::string m = compile_error_message([&] { g.prefetch(f, y, x, 1); });
    EXPECT_TRUE(contains(m, "'from' must be the loop 'at' or a loop outside it")) << m;
    m = compile_error_message([&] { g.prefetch(f, Var("nope"), x, 1); });
    EXPECT_TRUE(contains(m, "nope")) << m;
    m = compile_error_message([&] { g.prefetch(f, x, x, Expr(1.5f)); });
    EXPECT_TRUE(contains(m, "offset must be a scalar integer")) << m;

    Func h("h");
    h(x, y) = f(x, y) + 1;
    h.prefetch(other, x, x, 1);
    m = compile_error_message([&] { h.realize({8, 8}); });
    EXPECT_TRUE(contains(m, "does not read other")) << m;

    Func k("k");
    k(x, y) = f(x, y) + 2;
    k.prefetch(f, x, x, 1).split(x, xo, xi, 4);
    m = compile_error_message([&] { k.realize({8, 8}); });
    EXPECT_TRUE(contains(m, "does not have")) << m;

    Func v("v");
    v(x, y) = f(x, y) + 3;
    v.prefetch(f, x, x, 1).vectorize(x);
    m = compile_error_message([&] { v.realize({8, 8}); });
    EXPECT_TRUE(contains(m, "vectorized")) << m;
}

}  // namespace

LOOM_INSTANTIATE_BACKENDS(Prefetch);
LOOM_INSTANTIATE_BACKENDS(PrefetchStrategies);
