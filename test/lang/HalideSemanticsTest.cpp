// Mistakes Halide reports and Loom must report too (issue 13, "Semantics
// and errors that differ from Halide's"), and places where Loom's results
// must be Halide's: two Funcs named alike, lerp of integers.

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "LangTestUtil.h"
#include "loom/Loom.h"

using namespace loom;

namespace {

TEST(HalideSemantics, FuncsNamedAlikeStayDistinct) {
    Var x("x");
    Func a("same"), b("same");
    a(x) = 1;
    b(x) = a(x) + 2;
    EXPECT_NE(a.name(), b.name());
    Buffer<int> out = b.realize({3});
    for (int i = 0; i < 3; i++) EXPECT_EQ(out(i), 3);
}

TEST(HalideSemantics, ANameIsFreeAgainOnceItsFuncIsGone) {
    std::string first;
    {
        Func f("reused");
        first = f.name();
    }
    Func g("reused");
    EXPECT_EQ(first, "reused");
    EXPECT_EQ(g.name(), "reused");
}

TEST(HalideSemantics, LoopDirectivesOnAnInlinedFunc) {
    Var x("x"), xo("xo"), xi("xi");
    Func f("f"), g("g");
    f(x) = x * 2;
    g(x) = f(x) + 1;
    f.vectorize(x, 8);
    EXPECT_COMPILE_ERROR(g.realize({16}), "Func 'f' is computed inline", "a split", "compute_root()");
    Func h("h"), k("k");
    h(x) = x;
    k(x) = h(x);
    h.parallel(x);
    EXPECT_COMPILE_ERROR(k.realize({16}), "Func 'h' is computed inline", "parallel(x)");
}

TEST(HalideSemantics, StoreAtWithoutComputeAt) {
    Var x("x"), y("y");
    Func f("f"), g("g");
    f(x, y) = x + y;
    g(x, y) = f(x, y);
    f.store_root();
    EXPECT_COMPILE_ERROR(g.realize({4, 4}), "Func 'f' is stored at root but computed inline", "compute_at()");
}

TEST(HalideSemantics, UpdateAfterAnotherFuncUsesIt) {
    Var x("x");
    Func f("f"), g("g");
    f(x) = x;
    g(x) = f(x) * 2;
    EXPECT_COMPILE_ERROR(f(x) += 1, "update definition 0 of Func f", "Func g already uses f",
                         "before defining g");
    // Its own updates may read it as often as they like.
    Func h("h");
    h(x) = x;
    h(x) = h(x) + 1;
    h(x) = h(x) * 3;
    Buffer<int> out = h.realize({2});
    EXPECT_EQ(out(1), 6);
}

TEST(HalideSemantics, LerpOfDifferentTypes) {
    Var x("x");
    EXPECT_COMPILE_ERROR(lerp(cast<uint8_t>(x), cast<uint16_t>(x), 0.5f), "lerp()", "uint8", "uint16",
                         "same type");
}

TEST(HalideSemantics, LerpFloatWeightOutOfRange) {
    Var x("x");
    EXPECT_COMPILE_ERROR(lerp(cast<uint8_t>(x), cast<uint8_t>(x + 1), 1.5f), "lerp()", "outside [0, 1]");
    // Float values take any weight (extrapolation).
    Func f("f");
    f(x) = lerp(0.0f, 1.0f, 1.5f);
    EXPECT_EQ(Buffer<float>(f.realize({1}))(0), 1.5f);
}

TEST(HalideSemantics, LerpWithIntegerWeightsRoundsExactly) {
    // uint16 values and weights: (a * (65535 - w) + b * w) / 65535 rounded to
    // nearest, in exact integers (float32 was off by one here).
    const int n = 4096;
    Buffer<uint16_t> a(n), b(n), w(n);
    for (int i = 0; i < n; i++) {
        a(i) = (uint16_t)((i * 7919u) % 65536u);
        b(i) = (uint16_t)((i * 104729u + 13u) % 65536u);
        w(i) = (uint16_t)((i * 65521u + 7u) % 65536u);
    }
    Var x("x");
    Func f("f");
    f(x) = lerp(a(x), b(x), w(x));
    Buffer<uint16_t> out = f.realize({n});
    int mismatches = 0;
    for (int i = 0; i < n; i++) {
        int64_t num = (int64_t)a(i) * (65535 - w(i)) + (int64_t)b(i) * w(i);
        int64_t expected = (2 * num + 65535) / (2 * 65535);
        if (out(i) != expected && mismatches++ < 5) ADD_FAILURE() << i << ": " << out(i) << " vs " << expected;
    }
    // uint8 with a uint8 weight, every weight.
    Func g("g");
    g(x) = lerp(cast<uint8_t>(10), cast<uint8_t>(250), cast<uint8_t>(x));
    Buffer<uint8_t> small = g.realize({256});
    for (int k = 0; k < 256; k++) {
        const int expected = (int)std::floor((10.0 * (255 - k) + 250.0 * k) / 255.0 + 0.5);
        EXPECT_EQ(small(k), expected) << k;
    }
}

TEST(HalideSemantics, TargetQueriesResolveForTheCompileTarget) {
    Var x("x");
    Func f("f");
    f(x) = select(target_arch_is(Target::X86), 1, 0) + select(target_os_is(Target::Linux), 10, 0) +
           100 * target_bits() + 1000 * select(target_has_feature(Target::AVX2), 1, 0) +
           100000 * target_natural_vector_size<float>();
    // The vector width is the target's, whatever the host's.
    f.vectorize(x, target_natural_vector_size<int32_t>());
    for (const char *name : {"x86-64-linux-sse41", "x86-64-linux-avx2-fma"}) {
        Target t(name);
        Buffer<int> out(16);
        Pipeline p(f);
        std::string stmt_file = ::testing::TempDir() + "target_queries_" + std::to_string(getpid()) + ".stmt";
        p.compile_to_lowered_stmt(stmt_file, {}, t);
        const bool avx2 = t.has_feature(Target::AVX2);
        const int lanes = t.natural_vector_size<float>();
        EXPECT_EQ(lanes, avx2 ? 8 : 4);
        std::ifstream in(stmt_file);
        std::stringstream text;
        text << in.rdbuf();
        std::remove(stmt_file.c_str());
        EXPECT_NE(text.str().find("ramp("), std::string::npos) << name;
        EXPECT_EQ(text.str().find("target_"), std::string::npos) << "a query was left unresolved for " << name;
    }
    Buffer<int> host = f.realize({16});
    Target jit = get_jit_target_from_environment();
    const int expected = 1 + 10 + 100 * 64 + 1000 * (jit.has_feature(Target::AVX2) ? 1 : 0) +
                         100000 * jit.natural_vector_size<float>();
    EXPECT_EQ(host(3), expected);
}

TEST(HalideSemantics, LambdaWithAnyNumberOfVars) {
    Var a("a"), b("b"), c("c"), d("d"), e("e"), g("g");
    Func f = lambda(a, b, c, d, e, g, a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * g);
    Buffer<int> out = f.realize({2, 2, 2, 2, 2, 3});
    EXPECT_EQ(out(1, 1, 1, 1, 1, 2), 1 + 2 + 3 + 4 + 5 + 12);
    Func two = lambda(a, b, a * b);
    EXPECT_EQ(Buffer<int>(two.realize({4, 4}))(3, 2), 6);
}

// Signed 32- and 64-bit overflow between constants is an error when the
// definition is made, as Halide reports it when it folds constants; the same
// arithmetic on values known only at run time wraps.
TEST(HalideSemantics, SignedOverflowBetweenConstantsIsAnError) {
    Var x("x");
    Func f("ovf_f"), g("ovf_g"), h("ovf_h");
    EXPECT_COMPILE_ERROR(f(x) = Expr(2147483647) + 1 + x, "pure definition of Func ovf_f",
                         "2147483647 + 1 does not fit in int32");
    EXPECT_COMPILE_ERROR(g(x) = Expr(65536) * 65536, "65536 * 65536 does not fit in int32");
    EXPECT_COMPILE_ERROR(h(x) = Expr(int64_t(INT64_MIN)) - 1, "does not fit in int64");
    // Unsigned and narrow types wrap by definition; a wider type holds it.
    Func ok("ovf_ok");
    ok(x) = cast<int64_t>(Expr(2147483647)) + 1 + cast<int64_t>(Expr(UINT32_MAX) + Expr(uint32_t(1))) + x;
    EXPECT_EQ(Buffer<int64_t>(ok.realize({1}))(0), int64_t(2147483648));
    // Run time wraps.
    Param<int> big("ovf_big");
    big.set(2147483647);
    Func wraps("ovf_wraps");
    wraps(x) = big + 1 + x;
    EXPECT_EQ(Buffer<int>(wraps.realize({1}))(0), INT32_MIN);
}

}  // namespace
