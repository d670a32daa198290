// Halide's storage directives: align_bounds and align_extent (the region a
// Func computes), align_storage and bound_storage (the size of its
// storage), hoist_storage (where the allocation is made). Values against
// plain C++ loops; regions through infer_input_bounds; the user errors.
// The sizes of the allocations are checked in test/lower/StoragePassesTest.
#include "e2e/E2ETest.h"

#include "lang/LangTestUtil.h"

using namespace loom;
using loom_test::expect_buffer_eq;

namespace {

class StorageDirectives : public loom_test::BackendTest {};

/** p(x) = in(x) * 3 computed at the root, c(x) = p(x) + p(x + 2): p needs
 * [0, 11] for a 10-wide c, and reads exactly what it computes of in. */
struct AlignedProducer {
    ImageParam in{Int(32), 1, "align_in"};
    Var x{"x"};
    Func p{"align_p"}, c{"align_c"};
    AlignedProducer() {
        p(x) = in(x) * 3;
        c(x) = p(x) + p(x + 2);
        p.compute_root();
    }
    /** The region of in (= the region of p computed) for a 10-wide c. */
    std::pair<int, int> region() {
        c.infer_input_bounds({10});
        Buffer<int> b = in.get();
        return {b.dim(0).min(), b.dim(0).extent()};
    }
    void expect_values() {
        Buffer<int> input = in.get();
        input.for_each_element([&](int i) { input(i) = i * i - 7; });
        Buffer<int> out = c.realize({10});
        expect_buffer_eq(out, [&](const std::vector<int> &q) { return (q[0] * q[0] - 7) * 3 + ((q[0] + 2) * (q[0] + 2) - 7) * 3; });
    }
};

}  // namespace

TEST_P(StorageDirectives, AlignBoundsWidensTheRegionToTheModulus) {
    {
        AlignedProducer a;
        EXPECT_EQ(a.region(), std::make_pair(0, 12));  // without alignment
    }
    {
        AlignedProducer a;
        a.p.align_bounds(a.x, 8);
        EXPECT_EQ(a.region(), std::make_pair(0, 16));
        a.expect_values();
    }
    {
        // min = 3 (mod 8) at or below 0: -5; extent a multiple of 8 covering 11.
        AlignedProducer a;
        a.p.align_bounds(a.x, 8, 3);
        EXPECT_EQ(a.region(), std::make_pair(-5, 24));
        a.expect_values();
    }
    {
        // The remainder is taken modulo the modulus, as in Halide.
        AlignedProducer a;
        a.p.align_bounds(a.x, 8, -5);
        EXPECT_EQ(a.region(), std::make_pair(-5, 24));
    }
}

TEST_P(StorageDirectives, AlignExtentKeepsTheMin) {
    AlignedProducer a;
    a.p.align_extent(a.x, 5);
    EXPECT_EQ(a.region(), std::make_pair(0, 15));
    a.expect_values();
}

// align_storage pads the rows of p to 16 elements; the values do not change
// (the padded size itself: test/lower/StoragePassesTest).
TEST_P(StorageDirectives, AlignStorageKeepsTheValues) {
    Var x("x"), y("y");
    Func p("astore_p"), c("astore_c");
    p(x, y) = x * 5 - y;
    c(x, y) = p(x, y) + p(x + 1, y + 1);
    p.compute_root().align_storage(x, 16);
    Buffer<int> out = c.realize({13, 7});
    auto P = [](int a, int b) { return a * 5 - b; };
    expect_buffer_eq(out, [&](const std::vector<int> &q) { return P(q[0], q[1]) + P(q[0] + 1, q[1] + 1); });
}

// bound_storage fixes the size of p's rows at 16: a 15-wide c needs 16, a
// 16-wide one 17, which is a run-time error naming the Func and the bound.
TEST_P(StorageDirectives, BoundStorageFailsAtRunTimeWhenTooSmall) {
    Var x("x"), y("y");
    Func p("bstore_p"), c("bstore_c");
    p(x, y) = x + 10 * y;
    c(x, y) = p(x, y) + p(x + 1, y);
    p.compute_at(c, y).bound_storage(x, 16);
    Buffer<int> out = c.realize({15, 4});
    expect_buffer_eq(out, [&](const std::vector<int> &q) { return 2 * (q[0] + 10 * q[1]) + 1; });
    std::string msg = loom_test::runtime_error_message([&] { c.realize({16, 4}); });
    EXPECT_TRUE(loom_test::contains(msg, "bstore_p")) << msg;
    EXPECT_TRUE(loom_test::contains(msg, "bound_storage(x, 16)")) << msg;
    EXPECT_TRUE(loom_test::contains(msg, "needs 17")) << msg;
}

// hoist_storage: p computed per point of c, its allocation made once per
// strip of rows, or once for the pipeline; the values do not change (where
// the allocation goes: test/lower/StoragePassesTest).
TEST_P(StorageDirectives, HoistStorageKeepsTheValues) {
    for (int root = 0; root < 2; root++) {
        SCOPED_TRACE(root ? "hoist_storage_root()" : "hoist_storage(c, yo)");
        Var x("x"), y("y"), yo("yo"), yi("yi");
        Func p("hoist_p"), c("hoist_c");
        p(x, y) = x * y + 1;
        c(x, y) = p(x, y) + p(x + 1, y) * 2 + p(x, y + 2);
        c.split(y, yo, yi, 4);
        p.compute_at(c, yi);
        if (root) p.hoist_storage_root();
        else p.hoist_storage(c, yo);
        Buffer<int> out = c.realize({9, 10});
        auto P = [](int a, int b) { return a * b + 1; };
        expect_buffer_eq(out, [&](const std::vector<int> &q) {
            return P(q[0], q[1]) + P(q[0] + 1, q[1]) * 2 + P(q[0], q[1] + 2);
        });
    }
}

// hoist_storage with a size that changes from strip to strip: the last
// strip of c (GuardWithIf) is shorter; the hoisted allocation is the largest.
TEST_P(StorageDirectives, HoistStorageOfAVaryingSize) {
    Var x("x"), y("y"), yo("yo"), yi("yi");
    Func p("hoistv_p"), c("hoistv_c");
    p(x, y) = x - 3 * y;
    c(x, y) = p(x, y) + p(x, y + 1);
    c.split(y, yo, yi, 4, TailStrategy::GuardWithIf);
    p.compute_at(c, yo).hoist_storage_root();
    Buffer<int> out = c.realize({5, 10});
    auto P = [](int a, int b) { return a - 3 * b; };
    expect_buffer_eq(out, [&](const std::vector<int> &q) { return P(q[0], q[1]) + P(q[0], q[1] + 1); });
}

LOOM_INSTANTIATE_BACKENDS(StorageDirectives);

// ---- User errors (no backend involved) ----------------------------------------

TEST(StorageDirectiveErrors, AlignAndBoundNeedAPureVar) {
    Var x("x"), y("y"), z("z");
    RDom r(0, 4, "sd_r");
    Func f("sd_f");
    f(x, y) = x + y;
    EXPECT_COMPILE_ERROR(f.align_bounds(z, 4), "align_bounds", "z", "sd_f", "pure Vars (x, y)");
    EXPECT_COMPILE_ERROR(f.align_extent(Var(r.x.name()), 4), "align_extent", "sd_r", "sd_f");
    EXPECT_COMPILE_ERROR(f.align_storage(z, 4), "align_storage", "z", "sd_f");
    EXPECT_COMPILE_ERROR(f.bound_storage(z, 4), "bound_storage", "z", "sd_f");
}

TEST(StorageDirectiveErrors, ConstantPositiveAmounts) {
    Var x("x");
    Param<int> n("sd_n");
    Func f("sd_g");
    f(x) = x;
    EXPECT_COMPILE_ERROR(f.bound_storage(x, n), "sd_g", "bound_storage(x, ...)", "bound must be a constant", "sd_n");
    EXPECT_COMPILE_ERROR(f.bound_storage(x, 0), "bound is 0", "must be positive");
    EXPECT_COMPILE_ERROR(f.align_storage(x, n * 2), "alignment must be a constant");
    EXPECT_COMPILE_ERROR(f.align_bounds(x, -4), "modulus is -4", "must be positive");
    EXPECT_COMPILE_ERROR(f.align_extent(x, n), "modulus must be a constant");
    EXPECT_COMPILE_ERROR(f.align_bounds(x, 4, 1.5f), "remainder has type float32", "integer");
}

TEST(StorageDirectiveErrors, InlinedFuncHasNoStorageToShape) {
    Var x("x");
    {
        Func p("sdi_p"), c("sdi_c");
        p(x) = x * 2;
        c(x) = p(x) + 1;
        p.hoist_storage_root();
        EXPECT_COMPILE_ERROR(c.realize({4}), "sdi_p", "hoist_storage()", "computed inline", "compute_at()");
    }
    {
        Func p("sdj_p"), c("sdj_c");
        p(x) = x * 2;
        c(x) = p(x) + 1;
        p.align_storage(x, 8);
        EXPECT_COMPILE_ERROR(c.realize({4}), "sdj_p", "align_storage()/bound_storage()", "computed inline");
    }
    {
        Func p("sdk_p"), c("sdk_c");
        p(x) = x * 2;
        c(x) = p(x) + 1;
        p.align_bounds(x, 8);
        EXPECT_COMPILE_ERROR(c.realize({4}), "sdk_p", "align_bounds()", "computed inline");
    }
}

// Halide's BadHoistStorage: a hoist level inside the compute (and store)
// level has no storage to hoist.
TEST(StorageDirectiveErrors, HoistLevelInsideTheStorage) {
    Var x("x"), y("y");
    Func f("sdh_f"), g("sdh_g"), h("sdh_h");
    f(x) = x;
    g(x) = f(x);
    h(x, y) = g(x);
    g.compute_at(h, y);
    f.hoist_storage(h, y).compute_root();
    EXPECT_COMPILE_ERROR(h.realize({10, 10}), "sdh_f", "hoist_storage(sdh_h, y)", "does not enclose its storage");
}

TEST(StorageDirectiveErrors, HoistAcrossAParallelLoop) {
    Var x("x"), y("y");
    Func p("sdp_p"), c("sdp_c");
    p(x, y) = x + y;
    c(x, y) = p(x, y) * 2;
    c.parallel(y);
    p.compute_at(c, y).hoist_storage_root();
    EXPECT_COMPILE_ERROR(c.realize({4, 4}), "sdp_p", "hoist_storage_root()", "parallel", "sdp_c.s0.y");
}

TEST(StorageDirectiveErrors, HoistOwnLoop) {
    Var x("x"), y("y");
    Func p("sdo_p");
    p(x, y) = x + y;
    EXPECT_COMPILE_ERROR(p.hoist_storage(p, y), "sdo_p", "a loop of its own");
}

// A Func stored inside a GPU loop: no kernel can check bound_storage at run
// time.
TEST(StorageDirectiveErrors, BoundStorageInsideAGpuLoop) {
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    Func p("sdg_p"), c("sdg_c");
    p(x, y) = x + y;
    c(x, y) = p(x, y) + p(x + 1, y);
    c.gpu_tile(x, y, xo, yo, xi, yi, 4, 4);
    p.compute_at(c, xi).bound_storage(x, 8);
    EXPECT_COMPILE_ERROR(c.compile_to_lowered_stmt(::testing::TempDir() + "sdg.stmt", Target("host-vulkan")), "sdg_p",
                         "bound_storage()", "GPU loop");
}
