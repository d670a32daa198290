// Halide's aligned split (split(x, xo, xi, factor, align, tail)) and loop
// partitioning policies (partition, never_partition, always_partition and
// their _all forms), against plain C++ loops on every backend; the lowered
// statement shows what each did to the loops.

#include "E2ETest.h"

#include <vector>

using namespace loom;
using namespace loom_test;

namespace {

class AlignedSplit : public BackendTest {};
class LoopPartitionPolicy : public BackendTest {};

int mux_reference(int x, int offset) {
    const int selector = ((x - offset) % 4 + 4) % 4;
    switch (selector) {
    case 0: return x;
    case 1: return x * x;
    case 2: return 2 * x;
    default: return -x * (x + 1);
    }
}

/** f(x) = mux((x - offset) % 4, ...), as Halide's lesson 25 has it. */
struct MuxPipeline {
    Param<int> offset{"offset"};
    Var x{"x"}, xo{"xo"}, xi{"xi"};
    Func f{"f"};
    MuxPipeline() { f(x) = mux((x - offset) % 4, {x, x * x, 2 * x, -x * (x + 1)}); }
};

/** Realizes f over [min, min + extent) for each offset and compares. */
void check_mux(MuxPipeline &p, int min, int extent) {
    for (int o = -5; o < 6; o++) {
        p.offset.set(o);
        Buffer<int> out(extent);
        out.set_min({min});
        p.f.realize(out);
        expect_buffer_eq(out, [&](const std::vector<int> &pos) { return mux_reference(pos[0], o); });
    }
}

TEST_P(AlignedSplit, GuardWithIfTilesStartAtTheAlignment) {
    MuxPipeline p;
    p.f.split(p.x, p.xo, p.xi, 4, p.offset, TailStrategy::GuardWithIf).unroll(p.xi);
    for (int min : {0, 3, -7}) {
        for (int extent : {1, 3, 4, 13, 32}) check_mux(p, min, extent);
    }
}

// The point of the alignment: (x - offset) % 4 is the unrolled xi itself, so
// every copy of the body selects one case (no select is left), where the
// unaligned split keeps the selects.
TEST_P(AlignedSplit, UnrolledSelectorFoldsOnlyWhenAligned) {
    if (GetParam() != internal::Backend::LLVM) GTEST_SKIP() << "the lowered statement is the same on every backend";
    MuxPipeline aligned, plain;
    aligned.f.split(aligned.x, aligned.xo, aligned.xi, 4, aligned.offset, TailStrategy::GuardWithIf)
        .unroll(aligned.xi)
        .never_partition_all();
    plain.f.split(plain.x, plain.xo, plain.xi, 4, TailStrategy::GuardWithIf).unroll(plain.xi).never_partition_all();
    const std::string a = lowered_stmt(aligned.f, "aligned.stmt"), u = lowered_stmt(plain.f, "plain.stmt");
    EXPECT_FALSE(contains(a, "select(")) << a;
    EXPECT_FALSE(contains(a, " % ")) << a;
    EXPECT_TRUE(contains(u, "select(")) << u;
}

TEST_P(AlignedSplit, ShiftInwardsAndRoundUpComputeTheSameValues) {
    for (TailStrategy tail : {TailStrategy::ShiftInwards, TailStrategy::RoundUp, TailStrategy::Auto}) {
        MuxPipeline p;
        Func out("out");
        // Through a consumer, so RoundUp's extra points (before the min and
        // past the max) land in a buffer bounds inference sized.
        p.f.compute_root().split(p.x, p.xo, p.xi, 4, p.offset + 1, tail);
        out(p.x) = p.f(p.x) + 1;
        for (int extent : {2, 5, 16, 17}) {
            for (int o = -3; o < 4; o++) {
                p.offset.set(o);
                Buffer<int> b(extent);
                b.set_min({1});
                out.realize(b);
                expect_buffer_eq(b, [&](const std::vector<int> &pos) { return mux_reference(pos[0], o) + 1; });
            }
        }
    }
}

TEST_P(AlignedSplit, UpdateStageWithAConstantAlignment) {
    Var x("x"), xo("xo"), xi("xi");
    RDom r(0, 3);
    Func g("g");
    g(x) = x;
    g(x) += r * x;
    g.update(0).split(x, xo, xi, 8, 5, TailStrategy::GuardWithIf);
    for (int min : {0, 4, 6}) {
        Buffer<int> b(21);
        b.set_min({min});
        g.realize(b);
        expect_buffer_eq(b, [&](const std::vector<int> &pos) { return pos[0] + 3 * pos[0]; });
    }
}

TEST_P(AlignedSplit, TwoDimensionsTiledAndAligned) {
    Param<int> ox("ox"), oy("oy");
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    Func f("f");
    f(x, y) = mux(2 * ((y - oy) % 2) + (x - ox) % 2, {x * x, x * y, y * y, x + y});
    f.split(x, xo, xi, 2, ox, TailStrategy::GuardWithIf)
        .split(y, yo, yi, 2, oy, TailStrategy::GuardWithIf)
        .reorder(xi, yi, xo, yo)
        .unroll(xi)
        .unroll(yi);
    for (int a = 0; a < 2; a++) {
        ox.set(a);
        oy.set(1 - a);
        Buffer<int> b = f.realize({7, 5});
        expect_buffer_eq(b, [&](const std::vector<int> &pos) {
            const int x = pos[0], y = pos[1];
            const int s = 2 * (((y - (1 - a)) % 2 + 2) % 2) + ((x - a) % 2 + 2) % 2;
            const int cases[] = {x * x, x * y, y * y, x + y};
            return cases[s];
        });
    }
}

TEST(AlignedSplitErrors, AlignmentMustBeAnIntegerOfParams) {
    Var x("x"), xo("xo"), xi("xi"), y("y");
    Func f("f");
    f(x, y) = x + y;
    std::string m = compile_error_message([&] { f.split(x, xo, xi, 4, Expr(1.5f)); });
    EXPECT_TRUE(contains(m, "alignment of the split of Var x has type float32")) << m;
    m = compile_error_message([&] { f.split(x, xo, xi, 4, y); });
    EXPECT_TRUE(contains(m, "alignment of the split of Var x uses the variable y")) << m;
    m = compile_error_message([&] { f.split(x, xo, xi, 4, Expr()); });
    EXPECT_TRUE(contains(m, "alignment of the split of x is undefined")) << m;
}

// ---- partition policies ----------------------------------------------------

/** A 3-tap stencil of a clamped input: the x loop has boundary tests. */
struct ClampedStencil {
    Buffer<int> in{10};
    Var x{"x"}, xo{"xo"}, xi{"xi"};
    Func f{"f"};
    ClampedStencil() {
        in.for_each_element([&](int i) { in(i) = i * 7 % 5; });
        Func clamped("clamped");
        clamped(x) = in(clamp(x, 0, 9));
        f(x) = clamped(x - 1) + clamped(x) + clamped(x + 1);
    }
    void check() {
        Buffer<int> out = f.realize({16});
        expect_buffer_eq(out, [&](const std::vector<int> &pos) {
            auto at = [&](int i) { return in(std::min(std::max(i, 0), 9)); };
            return at(pos[0] - 1) + at(pos[0]) + at(pos[0] + 1);
        });
    }
};

TEST_P(LoopPartitionPolicy, AutoPartitionsAClampedLoopAndNeverDoesNot) {
    ClampedStencil automatic, never;
    never.f.partition(never.x, Partition::Never);
    automatic.check();
    never.check();
    if (GetParam() != internal::Backend::LLVM) return;
    EXPECT_TRUE(contains(lowered_stmt(automatic.f, "auto.stmt"), "f.s0.x.steady_min"));
    const std::string n = lowered_stmt(never.f, "never.stmt");
    EXPECT_FALSE(contains(n, "steady_min")) << n;
}

TEST_P(LoopPartitionPolicy, SplitLoopsInheritNeverPartitionAll) {
    ClampedStencil s;
    s.f.never_partition_all().split(s.x, s.xo, s.xi, 4, TailStrategy::GuardWithIf);
    s.check();
    if (GetParam() != internal::Backend::LLVM) return;
    const std::string text = lowered_stmt(s.f, "inherit.stmt");
    EXPECT_FALSE(contains(text, "steady_min")) << text;
}

// The GPU conformance mode maps these loops to the GPU: Always on a loop
// that is not serial or parallel is a CompileError (tested below).
#define SKIP_ALWAYS_ON_VULKAN()                                                                        \
    if (GetParam() == internal::Backend::Vulkan) GTEST_SKIP() << "Partition::Always needs a CPU loop"

TEST_P(LoopPartitionPolicy, VariadicNeverAndAlwaysPartition) {
    SKIP_ALWAYS_ON_VULKAN();
    ClampedStencil s;
    // The unrolled xi's guards make tests of xo (Loom partitions a loop on
    // tests of its own variable, and of unrolled and vectorized loops of
    // constant range inside it).
    s.f.split(s.x, s.xo, s.xi, 4, TailStrategy::GuardWithIf)
        .unroll(s.xi)
        .never_partition(s.xi, s.xo)
        .always_partition(s.xo);
    s.check();
    if (GetParam() != internal::Backend::LLVM) return;
    const std::string text = lowered_stmt(s.f, "variadic.stmt");
    EXPECT_TRUE(contains(text, "f.s0.xo.steady_min")) << text;
    EXPECT_FALSE(contains(text, "f.s0.xi.steady_min")) << text;
}

// Loom partitions a loop on tests of the lanes of a vectorized loop inside
// it (a clamp at an image's edge) only when its body is not too large (see
// kMaxLaneTestBodySize in lower/PartitionLoops.cpp; a body above it is left
// whole unless always_partition asks for it: test_lower's
// LoopShapingPartition.LaneTestsOfALargeBodyOnlyWhenAlways, as a body that
// large takes minutes to compile here). A sum of 120 clamped reads is
// partitioned either way, and both compute the same.
TEST_P(LoopPartitionPolicy, AlwaysAndAutoPartitionALongSumOfClampedReads) {
    SKIP_ALWAYS_ON_VULKAN();
    Buffer<int> in(8);
    in.for_each_element([&](int i) { in(i) = i + 1; });
    Var x("x"), xo("xo"), xi("xi");
    constexpr int kTerms = 120;
    auto make = [&](Func &f) {
        Expr sum = 0;
        for (int k = 0; k < kTerms; k++) sum = sum + in(clamp(x + k - kTerms / 2, 0, 7)) * (k % 3 + 1);
        f(x) = sum;
        f.split(x, xo, xi, 8, TailStrategy::GuardWithIf).vectorize(xi);
    };
    Func automatic("automatic"), always("always");
    make(automatic);
    make(always);
    always.always_partition(xo);
    Buffer<int> a = automatic.realize({2 * kTerms + 5}), b = always.realize({2 * kTerms + 5});
    auto reference = [&](const std::vector<int> &pos) {
        int sum = 0;
        for (int k = 0; k < kTerms; k++) sum += in(std::min(std::max(pos[0] + k - kTerms / 2, 0), 7)) * (k % 3 + 1);
        return sum;
    };
    expect_buffer_eq(a, reference);
    expect_buffer_eq(b, reference);
    if (GetParam() != internal::Backend::LLVM) return;
    EXPECT_TRUE(contains(lowered_stmt(automatic, "big_auto.stmt"), "automatic.s0.xo.steady_min"));
    EXPECT_TRUE(contains(lowered_stmt(always, "big_always.stmt"), "always.s0.xo.steady_min"));
}

TEST(LoopPartitionPolicyErrors, AlwaysWithNothingToPartitionIsACompileError) {
    Var x("x");
    Func f("f");
    f(x) = 0;
    f.partition(x, Partition::Always);
    const std::string m = compile_error_message([&] { f.realize({10}); });
    EXPECT_TRUE(contains(m, "Loop Partition Policy is set to Always for f.s0.x, but no loop partitioning was "
                            "performed"))
        << m;
    EXPECT_TRUE(contains(m, "Partition::Auto")) << m;
}

TEST(LoopPartitionPolicyErrors, AlwaysOnAVectorizedLoopIsACompileError) {
    Buffer<int> in(8);
    Var x("x"), xo("xo"), xi("xi");
    Func f("f");
    f(x) = in(clamp(x, 0, 7));
    f.split(x, xo, xi, 8).vectorize(xi).always_partition(xi);
    const std::string m = compile_error_message([&] { f.realize({16}); });
    EXPECT_TRUE(contains(m, "Always for f.s0.xi, but no loop partitioning was performed: it is not a serial or "
                            "parallel loop"))
        << m;
}

TEST(LoopPartitionPolicyErrors, UnknownLoopIsNamed) {
    Var x("x"), y("y");
    Func f("f");
    f(x) = x;
    const std::string m = compile_error_message([&] { f.always_partition(y); });
    EXPECT_TRUE(contains(m, "can't set the loop partitioning of y: it is not a loop of this stage")) << m;
}

LOOM_INSTANTIATE_BACKENDS(AlignedSplit);
LOOM_INSTANTIATE_BACKENDS(LoopPartitionPolicy);

}  // namespace
