// The schedule checks of lowering (lower/ScheduleChecks.cpp) apply to each
// Stage::specialize() branch as to the stage's own schedule: a branch has
// loops of its own, and a compute_at/store_at level must name a loop of
// every branch, in an order that keeps storage outside computation. A
// legal branch-by-branch schedule runs against plain C++ on every backend.

#include <vector>

#include "e2e/E2ETest.h"

using namespace loom;
using loom_test::compile_error_message;
using loom_test::contains;
using loom_test::expect_buffer_eq;

namespace {

class SpecializeChecks : public loom_test::BackendTest {
protected:
    bool is_llvm() const { return GetParam() == loom::internal::Backend::LLVM; }
};

// Each branch splits y its own way, both with a loop yi: the producer is
// computed at yi in both.
TEST_P(SpecializeChecks, ComputeAtALoopEveryBranchHas) {
    Var x("x"), y("y"), yo("yo"), yi("yi");
    Param<int> p("p_both");
    Func g("sc_both_g"), out("sc_both_out");
    g(x, y) = x + 3 * y;
    out(x, y) = g(x, y) + g(x, y + 1);
    out.specialize(p > 0).split(y, yo, yi, 4);
    out.split(y, yo, yi, 2);
    g.compute_at(out, yi);
    for (int v : {1, 0}) {
        p.set(v);
        expect_buffer_eq(Buffer<int>(out.realize({5, 8})),
                         [](const std::vector<int> &c) { return 2 * c[0] + 6 * c[1] + 3; });
    }
}

// The stage's own schedule gets yi after the specialization copied it: the
// branch has no loop yi, so g would be computed nowhere in it.
TEST_P(SpecializeChecks, ComputeAtALoopMissingInABranch) {
    if (!is_llvm()) GTEST_SKIP() << "compile errors do not depend on the backend";
    Var x("x"), y("y"), yo("yo"), yi("yi");
    Param<int> p("p_missing");
    Func g("sc_missing_g"), out("sc_missing_out");
    g(x, y) = x + y;
    out(x, y) = g(x, y) * 2;
    out.specialize(p > 0).vectorize(x, 4);
    out.split(y, yo, yi, 2);
    g.compute_at(out, yi);
    p.set(1);
    std::string m = compile_error_message([&] { out.realize({8, 4}); });
    EXPECT_TRUE(contains(m, "Func sc_missing_g is computed at sc_missing_out.yi")) << m;
    EXPECT_TRUE(contains(m, "has no loop yi")) << m;
    EXPECT_TRUE(contains(m, "specialization of sc_missing_out (pure definition) where p_missing > 0")) << m;
}

// The loop exists only in the branch: the stage's own schedule lacks it.
TEST_P(SpecializeChecks, ComputeAtALoopOnlyABranchHas) {
    if (!is_llvm()) GTEST_SKIP() << "compile errors do not depend on the backend";
    Var x("x"), y("y"), yo("yo"), yi("yi");
    Param<int> p("p_only");
    Func g("sc_only_g"), out("sc_only_out");
    g(x, y) = x + y;
    out(x, y) = g(x, y) * 2;
    out.specialize(p > 0).split(y, yo, yi, 2);
    g.compute_at(out, yi);
    p.set(1);
    std::string m = compile_error_message([&] { out.realize({8, 4}); });
    EXPECT_TRUE(contains(m, "Func sc_only_g is computed at sc_only_out.yi")) << m;
    EXPECT_TRUE(contains(m, "has no loop yi")) << m;
}

// store_at outside compute_at in the stage's own order, but the branch
// reorders the two loops: storage would be inside the computation there.
TEST_P(SpecializeChecks, StoreLevelInsideComputeLevelInABranch) {
    if (!is_llvm()) GTEST_SKIP() << "compile errors do not depend on the backend";
    Var x("x"), y("y"), yo("yo"), yi("yi");
    Param<int> p("p_store");
    Func g("sc_store_g"), out("sc_store_out");
    g(x, y) = x - y;
    out(x, y) = g(x, y) + g(x, y + 1);
    out.split(y, yo, yi, 2);
    out.specialize(p > 0).reorder(x, yo, yi);
    g.store_at(out, yo).compute_at(out, yi);
    p.set(0);
    std::string m = compile_error_message([&] { out.realize({4, 4}); });
    EXPECT_TRUE(contains(m, "Func sc_store_g is stored at sc_store_out.yo but computed at sc_store_out.yi")) << m;
    EXPECT_TRUE(contains(m, "specialization of sc_store_out (pure definition) where p_store > 0")) << m;
}

// Nested specializations are checked too.
TEST_P(SpecializeChecks, NestedBranchIsChecked) {
    if (!is_llvm()) GTEST_SKIP() << "compile errors do not depend on the backend";
    Var x("x"), y("y"), yo("yo"), yi("yi"), yf("yf");
    Param<int> p("p_outer"), q("q_inner");
    Func g("sc_nested_g"), out("sc_nested_out");
    g(x, y) = x * y;
    out(x, y) = g(x, y) + 1;
    out.split(y, yo, yi, 2);
    Stage branch = out.specialize(p > 0);
    branch.specialize(q > 0).fuse(yi, yo, yf);
    g.compute_at(out, yi);
    p.set(1);
    q.set(1);
    std::string m = compile_error_message([&] { out.realize({4, 4}); });
    EXPECT_TRUE(contains(m, "has no loop yi")) << m;
    EXPECT_TRUE(contains(m, "where q_inner > 0")) << m;
}

}  // namespace

LOOM_INSTANTIATE_BACKENDS(SpecializeChecks);
