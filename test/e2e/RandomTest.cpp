// random_float(), random_int(), random_uint(): deterministic hashes of a
// definition's coordinates. The same values on every run, under every
// schedule and on every back end (each test compares its back end's bits
// with the LLVM JIT's); random_float in [0, 1) and evenly spread (checked
// on 64k points: deterministic, so the bounds cannot be flaky).

#include "e2e/E2ETest.h"

#include <cmath>
#include <cstring>

using namespace loom;
using loom_test::compile_error_message;
using loom_test::contains;

namespace {

class Random : public loom_test::BackendTest {
protected:
    /** f realized over sizes with the LLVM JIT, whatever this test's back end. */
    template<typename T>
    Buffer<T> realize_on_llvm(Func &f, const std::vector<int> &sizes) {
        const internal::Backend mine = internal::jit_backend();
        internal::set_jit_backend(internal::Backend::LLVM);
        Buffer<T> b = f.realize(sizes);
        internal::set_jit_backend(mine);
        return b;
    }
};

template<typename T>
void expect_same_bits(const Buffer<T> &a, const Buffer<T> &b) {
    int failures = 0;
    a.for_each_element([&](const std::vector<int> &pos) {
        T va = a(pos), vb = b(pos);
        if (std::memcmp(&va, &vb, sizeof(T)) != 0 && failures++ < 5) {
            ADD_FAILURE() << "at (" << pos[0] << ", " << (pos.size() > 1 ? pos[1] : 0) << "): " << +va << " vs "
                          << +vb;
        }
    });
}

TEST_P(Random, FloatIsInUnitIntervalAndEvenlySpread) {
    Var x("x"), y("y");
    Func f("noise");
    f(x, y) = random_float();
    Buffer<float> out = f.realize({256, 256});
    double sum = 0;
    int bins[16] = {0};
    bool in_range = true;
    out.for_each_element([&](const std::vector<int> &p) {
        float v = out(p);
        in_range = in_range && v >= 0.0f && v < 1.0f;
        sum += v;
        bins[std::min(15, int(v * 16))]++;
    });
    EXPECT_TRUE(in_range);
    const double mean = sum / 65536;
    EXPECT_NEAR(mean, 0.5, 0.01);
    for (int b = 0; b < 16; b++) EXPECT_NEAR(bins[b], 4096, 400) << "bin " << b;
    // Neighbours are not correlated: the mean product of horizontal
    // neighbours is that of independent values, 1/4.
    double products = 0;
    for (int y = 0; y < 256; y++) {
        for (int x = 0; x + 1 < 256; x++) products += double(out(x, y)) * out(x + 1, y);
    }
    EXPECT_NEAR(products / (255 * 256), 0.25, 0.01);
    expect_same_bits(out, realize_on_llvm<float>(f, {256, 256}));
}

TEST_P(Random, SameOnEveryRunAndUnderEverySchedule) {
    Var x("x"), y("y"), xi("xi"), yi("yi");
    Func f("noise");
    f(x, y) = random_uint();
    Buffer<uint32_t> first = f.realize({64, 32});
    Buffer<uint32_t> again = f.realize({64, 32});
    expect_same_bits(first, again);
    // A window elsewhere holds the same values at the same coordinates.
    Buffer<uint32_t> shifted(16, 8);
    shifted.set_min({10, 5});
    f.realize(shifted);
    shifted.for_each_element([&](const std::vector<int> &p) { EXPECT_EQ(shifted(p), first(p)); });
    f.tile(x, y, xi, yi, 16, 8).vectorize(xi, 8).parallel(y);
    Buffer<uint32_t> tiled = f.realize({64, 32});
    expect_same_bits(first, tiled);
    expect_same_bits(first, realize_on_llvm<uint32_t>(f, {64, 32}));
}

TEST_P(Random, IntAndUintBitsAreBalanced) {
    Var x("x"), y("y");
    Func f("ints"), g("uints");
    f(x, y) = random_int();
    g(x, y) = random_uint();
    Buffer<int32_t> ints = f.realize({256, 256});
    Buffer<uint32_t> uints = g.realize({256, 256});
    int negative = 0;
    int bit_counts[32] = {0};
    double sum = 0;
    ints.for_each_element([&](const std::vector<int> &p) { negative += ints(p) < 0; });
    uints.for_each_element([&](const std::vector<int> &p) {
        uint32_t v = uints(p);
        sum += v / 4294967296.0;
        for (int b = 0; b < 32; b++) bit_counts[b] += (v >> b) & 1;
    });
    EXPECT_NEAR(negative, 32768, 700);
    EXPECT_NEAR(sum / 65536, 0.5, 0.01);
    for (int b = 0; b < 32; b++) EXPECT_NEAR(bit_counts[b], 32768, 700) << "bit " << b;
    expect_same_bits(ints, realize_on_llvm<int32_t>(f, {256, 256}));
    expect_same_bits(uints, realize_on_llvm<uint32_t>(g, {256, 256}));
}

TEST_P(Random, OneCallIsOneValueTwoCallsAreTwo) {
    Var x("x");
    Func same("same"), different("different");
    Expr r = random_float();
    same(x) = r - r;
    different(x) = random_float() - random_float();
    Buffer<float> zero = same.realize({1000});
    Buffer<float> nonzero = different.realize({1000});
    int zeros = 0;
    for (int i = 0; i < 1000; i++) {
        EXPECT_EQ(zero(i), 0.0f);
        zeros += nonzero(i) == 0.0f;
    }
    EXPECT_LT(zeros, 5);
    expect_same_bits(nonzero, realize_on_llvm<float>(different, {1000}));
}

TEST_P(Random, SeedSelectsTheStream) {
    Var x("x");
    Param<int> seed("seed");
    Func f("seeded");
    f(x) = random_uint(seed);
    seed.set(1);
    Buffer<uint32_t> a = f.realize({512});
    Buffer<uint32_t> a_again = f.realize({512});
    seed.set(2);
    Buffer<uint32_t> b = f.realize({512});
    int equal = 0;
    for (int i = 0; i < 512; i++) {
        EXPECT_EQ(a(i), a_again(i));
        equal += a(i) == b(i);
    }
    EXPECT_LT(equal, 3);
    expect_same_bits(b, realize_on_llvm<uint32_t>(f, {512}));
    // An Expr seed that varies per point works too.
    Func g("per_point_seed");
    g(x) = random_float(x / 4);
    Buffer<float> per_point = g.realize({64});
    for (int i = 0; i < 64; i++) EXPECT_GE(per_point(i), 0.0f);
}

TEST_P(Random, EachFuncAndTupleElementShares) {
    Var x("x");
    Expr r = random_int();
    Func f("f"), g("g"), t("t");
    f(x) = r;
    g(x) = r;
    t(x) = Tuple(r, r % 7);
    Buffer<int> fb = f.realize({256}), gb = g.realize({256});
    Realization tr = t.realize({256});
    Buffer<int> t0 = tr[0], t1 = tr[1];
    int equal = 0;
    for (int i = 0; i < 256; i++) {
        equal += fb(i) == gb(i);  // two Funcs: two streams
        EXPECT_EQ(((t0(i) % 7) + 7) % 7, t1(i));  // one definition: one value per point
    }
    EXPECT_LT(equal, 3);
}

TEST_P(Random, UpdatesHashTheirRVars) {
    Var x("x");
    RDom r(0, 1000, "r");
    Func sum("sum"), jitter("jitter");
    sum() = 0.0f;
    sum() += select(r < 1000, random_float(), -1.0f);  // 1000 values, one per r
    jitter(x) = cast<float>(x);
    jitter(x) += random_float() - 0.5f;
    Buffer<float> s = sum.realize();
    EXPECT_NEAR(s(), 500.0f, 40.0f);
    Buffer<float> j = jitter.realize({100});
    for (int i = 0; i < 100; i++) EXPECT_LT(std::abs(j(i) - i), 0.5f);
    expect_same_bits(s, realize_on_llvm<float>(sum, {}));
    expect_same_bits(j, realize_on_llvm<float>(jitter, {100}));
}

LOOM_INSTANTIATE_BACKENDS(Random);

TEST(RandomErrors, SeedMustBeInt32) {
    Var x("x");
    EXPECT_TRUE(contains(compile_error_message([&] { random_float(cast<float>(x)); }), "pass an Int(32)"));
    EXPECT_TRUE(contains(compile_error_message([&] { random_int(cast<uint8_t>(x)); }), "random_int()"));
}

TEST(RandomErrors, OutsideAFuncDefinitionIsACompileError) {
    // An RDom's extent or a bound() is not a Func's point: there is nothing
    // to draw one value per (it used to reach the back ends as an unknown
    // intrinsic, an InternalError).
    Func f("rand_rdom"), g("rand_bound");
    Var x("x");
    RDom r(0, cast<int>(random_float() * 4.0f) + 1);
    f(x) = 0;
    f(x) += r;
    std::string message = compile_error_message([&] { f.realize({4}); });
    EXPECT_TRUE(contains(message, "can only be used in a Func's definition")) << message;
    EXPECT_TRUE(contains(message, "RDom's bounds")) << message;
    g(x) = x;
    g.bound(x, 0, random_int() % 4 + 4);
    message = compile_error_message([&] { g.realize({4}); });
    EXPECT_TRUE(contains(message, "can only be used in a Func's definition")) << message;
}

}  // namespace
