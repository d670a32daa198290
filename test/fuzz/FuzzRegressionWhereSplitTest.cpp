// Fuzz seed 1030343 (docs/FUZZING.md, issue 12): an update whose RDom has a
// where() on a pure Var, where(4 < y + r.y), with y split twice (GuardWithIf,
// then PredicateStores) asked rows [5, 10] of its input where [7, 10] are
// read. Every schedule here must ask for exactly the rows and columns the
// pipeline reads (a plain C++ loop over the output and the RDom finds them),
// and compute the values of that loop, on both back ends.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <functional>
#include <string>

#include "lang/Backend.h"
#include "loom/Loom.h"

using namespace loom;
using loom::internal::Backend;

namespace {

class FuzzRegressionWhereSplit : public ::testing::TestWithParam<Backend> {
protected:
    void SetUp() override {
        previous_ = internal::jit_backend();
        internal::set_jit_backend(GetParam());
    }
    void TearDown() override { internal::set_jit_backend(previous_); }

private:
    Backend previous_ = Backend::LLVM;
};

struct Schedule {
    const char *name;
    std::function<void(Stage, Var, RVar, RVar)> apply;
};

/** The update stage's schedules: unscheduled, y split once and twice with
 * guarded tails (the seed's two splits), and the loops of y inside the
 * RDom's. */
std::vector<Schedule> schedules() {
    return {
        {"unscheduled", [](Stage, Var, RVar, RVar) {}},
        {"split(y, 5, GuardWithIf)",
         [](Stage s, Var y, RVar, RVar) { s.split(y, Var("yo"), Var("yi"), 5, TailStrategy::GuardWithIf); }},
        {"split(y, 5, GuardWithIf).split(yo, 5, PredicateStores)",
         [](Stage s, Var y, RVar, RVar) {
             Var yo("yo"), yi("yi"), yoi("yoi");
             s.split(y, yo, yi, 5, TailStrategy::GuardWithIf).split(yo, yo, yoi, 5, TailStrategy::PredicateStores);
         }},
        {"split(y, 3, GuardWithIf).split(yo, 2, GuardWithIf)",
         [](Stage s, Var y, RVar, RVar) {
             Var yo("yo"), yi("yi"), yoi("yoi");
             s.split(y, yo, yi, 3, TailStrategy::GuardWithIf).split(yo, yo, yoi, 2, TailStrategy::GuardWithIf);
         }},
        {"split(y, 4, GuardWithIf), y's loops inside the RDom's",
         [](Stage s, Var y, RVar rx, RVar ry) {
             Var yo("yo"), yi("yi");
             s.split(y, yo, yi, 4, TailStrategy::GuardWithIf).reorder(yi, yo, rx, ry);
         }},
    };
}

struct Predicate {
    const char *name;
    std::function<Expr(Var, RDom)> expr;
    std::function<bool(int, int)> holds;  // at (y, r.y)
};

std::vector<Predicate> predicates() {
    return {
        {"4 < y + r.y", [](Var y, RDom r) { return 4 < y + r.y; }, [](int y, int ry) { return 4 < y + ry; }},
        {"y + r.y < 6", [](Var y, RDom r) { return y + r.y < 6; }, [](int y, int ry) { return y + ry < 6; }},
        {"r.y - y >= -3 && y + r.y > 2", [](Var y, RDom r) { return r.y - y >= -3 && y + r.y > 2; },
         [](int y, int ry) { return ry - y >= -3 && y + ry > 2; }},
    };
}

// f(x, y) += in(x + r.x, y + r.y + 2) over r in [-2, 2] x [-1, 1] where the
// predicate holds, for outputs of 4 columns and 8, 13 and 27 rows (one, a
// partial and two outer blocks of the seed's splits).
TEST_P(FuzzRegressionWhereSplit, RegionIsWhatThePipelineReads) {
    for (const Predicate &p : predicates()) {
        for (const Schedule &s : schedules()) {
            for (int height : {8, 13, 27}) {
                const std::string what = std::string(p.name) + ", " + s.name + ", " + std::to_string(height) + " rows";
                ImageParam in(Int(32), 2, "wsplit_in");
                Var x("x"), y("y");
                Func f("wsplit_f");
                RDom r(-2, 5, -1, 3, "wsplit_r");
                r.where(p.expr(y, r));
                f(x, y) = 0;
                f(x, y) += in(x + r.x, y + r.y + 2);
                s.apply(f.update(0), y, RVar(r.x), RVar(r.y));

                int col_min = INT_MAX, col_max = INT_MIN, row_min = INT_MAX, row_max = INT_MIN;
                for (int j = 0; j < height; j++) {
                    for (int ry = -1; ry <= 1; ry++) {
                        if (!p.holds(j, ry)) continue;
                        col_min = std::min(col_min, -2);
                        col_max = std::max(col_max, 3 + 2);
                        row_min = std::min(row_min, j + ry + 2);
                        row_max = std::max(row_max, j + ry + 2);
                    }
                }
                ASSERT_LE(row_min, row_max) << what << ": the predicate holds somewhere";

                f.infer_input_bounds({4, height});
                Buffer<> asked = in.get();
                EXPECT_EQ(asked.min(0), col_min) << what;
                EXPECT_EQ(asked.min(0) + asked.extent(0) - 1, col_max) << what;
                EXPECT_EQ(asked.min(1), row_min) << what;
                EXPECT_EQ(asked.min(1) + asked.extent(1) - 1, row_max) << what;

                Buffer<int> input(col_max - col_min + 1, row_max - row_min + 1);
                input.set_min({col_min, row_min});
                input.for_each_element([&](int i, int j) { input(i, j) = i * 7 + j * 31; });
                in.set(input);
                Buffer<int> out;
                ASSERT_NO_THROW(out = f.realize({4, height})) << what;
                int failures = 0;
                out.for_each_element([&](int i, int j) {
                    int sum = 0;
                    for (int ry = -1; ry <= 1; ry++) {
                        for (int rx = -2; rx <= 2; rx++) {
                            if (p.holds(j, ry)) sum += input(i + rx, j + ry + 2);
                        }
                    }
                    if (failures < 3 && out(i, j) != sum) {
                        failures++;
                        ADD_FAILURE() << what << ": at (" << i << ", " << j << ") expected " << sum << ", got "
                                      << out(i, j);
                    }
                });
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Backends, FuzzRegressionWhereSplit, ::testing::Values(Backend::LLVM, Backend::Interpreter),
                         [](const ::testing::TestParamInfo<Backend> &info) {
                             return std::string(internal::backend_name(info.param));
                         });

}  // namespace
