// Reproductions of bugs the schedule fuzzer found, kept in the suite so they
// stay fixed. Each runs on both back ends and compares with a plain C++
// loop. Bugs not fixed yet live in KnownFailures.cpp.txt (not compiled);
// move a test here when its bug is fixed. The tests below are the working
// neighbours of those known failures (the same schedules with RoundUp
// tails), so a fix cannot break them unnoticed.

#include <gtest/gtest.h>

#include "lang/Backend.h"
#include "loom/Loom.h"

using namespace loom;
using loom::internal::Backend;

namespace {

class FuzzRegression : public ::testing::TestWithParam<Backend> {
protected:
    void SetUp() override {
        previous_ = internal::jit_backend();
        internal::set_jit_backend(GetParam());
    }
    void TearDown() override { internal::set_jit_backend(previous_); }

private:
    Backend previous_ = Backend::LLVM;
};

template<typename F>
void expect_all(const Buffer<int> &b, F reference) {
    int failures = 0;
    b.for_each_element([&](int x, int y) {
        if (failures < 5 && b(x, y) != reference(x, y)) {
            failures++;
            ADD_FAILURE() << "at (" << x << ", " << y << "): expected " << reference(x, y) << ", got " << b(x, y);
        }
    });
}

// Neighbour of KnownFailures' ProducerComputedInsideGuardedSplitTail.
TEST_P(FuzzRegression, ProducerComputedInsideRoundUpSplit) {
    Var x("x"), y("y"), yo("yo"), yi("yi");
    Func g("reg_roundup_g"), f("reg_roundup_f");
    g(x, y) = x + y;
    f(x, y) = g(x, y) * 2;
    Func out("reg_roundup_out");
    out(x, y) = f(x, y);
    f.compute_root().split(y, yo, yi, 4, TailStrategy::RoundUp);
    g.compute_at(f, yi);
    Buffer<int> b;
    ASSERT_NO_THROW(b = out.realize({5, 9}));
    expect_all(b, [](int x, int y) { return (x + y) * 2; });
}

// Neighbour of KnownFailures' VectorizeOuterLoopOfGuardedSplit.
TEST_P(FuzzRegression, VectorizeOuterLoopOfRoundUpSplit) {
    Var x("x"), y("y"), xo("xo"), xi("xi");
    Func f("reg_outer_vec_roundup");
    f(x, y) = x * 3 + y;
    f.split(x, xo, xi, 2, TailStrategy::RoundUp).reorder(xo, xi, y).vectorize(xo, 4);
    Buffer<int> b;
    ASSERT_NO_THROW(b = f.realize({16, 9}));
    expect_all(b, [](int x, int y) { return x * 3 + y; });
}

// Neighbour of KnownFailures' VectorizeFusedLoopOfGuardedSplit.
TEST_P(FuzzRegression, VectorizeFusedLoopOfRoundUpSplits) {
    Var x("x"), y("y"), xo("xo"), xi("xi"), yo("yo"), yi("yi"), xy("xy");
    Func f("reg_fused_vec_roundup");
    f(x, y) = x * 3 + y;
    f.split(x, xo, xi, 2, TailStrategy::RoundUp)
        .split(y, yo, yi, 3, TailStrategy::RoundUp)
        .reorder(xi, yi, xo, yo)
        .fuse(xi, yi, xy)
        .vectorize(xy);
    Buffer<int> b;
    ASSERT_NO_THROW(b = f.realize({12, 9}));
    expect_all(b, [](int x, int y) { return x * 3 + y; });
}

INSTANTIATE_TEST_SUITE_P(Backends, FuzzRegression, ::testing::Values(Backend::LLVM, Backend::Interpreter),
                         [](const ::testing::TestParamInfo<Backend> &info) {
                             return std::string(internal::backend_name(info.param));
                         });

}  // namespace
