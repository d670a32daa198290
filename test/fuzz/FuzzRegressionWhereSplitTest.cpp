// Fuzz seed 1030343 (docs/FUZZING.md, issue 12): an update whose RDom has a
// where() on a pure Var, where(4 < y + r.y), with y split twice (GuardWithIf,
// then PredicateStores) asked rows [5, 10] of its input where [7, 10] are
// read. Every schedule here must ask for exactly the rows and columns the
// pipeline reads (a plain C++ loop over the output and the RDom finds them),
// and compute the values of that loop, on both back ends.
//
// Fuzz seed 1104 (the CI GPU fuzz, RegionOfTheVarAndTheRVarReads below):
// r.where(r.x + x < 17), x split by 11 onto GPU blocks and threads, and
// reads of x and of r.x in one dimension of an input.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <functional>
#include <string>

#include "common/BackendTest.h"
#include "lang/Backend.h"
#include "loom/Loom.h"

using namespace loom;
using loom::internal::Backend;

namespace {

class FuzzRegressionWhereSplit : public loom_test::BackendTest {};

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
                         loom_test::backend_test_name);

/** The 1104-shaped update's schedules: unscheduled (x outside r.x), x
 * split by 11 as the seed's GPU blocks and threads (PredicateStores, r.x
 * innermost) and guarded, r.x outermost, and the reads' producer g
 * computed at the root. */
struct Schedule1104 {
    const char *name;
    std::function<void(Func f, Func g, Var x, RVar r)> apply;
};

std::vector<Schedule1104> schedules_1104() {
    return {
        {"unscheduled", [](Func, Func, Var, RVar) {}},
        {"g at the root", [](Func, Func g, Var, RVar) { g.compute_root(); }},
        {"split(x, 11, PredicateStores), r.x innermost (the seed's GPU loops on the CPU)",
         [](Func f, Func, Var x, RVar r) {
             Var xb("x_b1"), xt("x_t2");
             f.update(0).split(x, xb, xt, 11, TailStrategy::PredicateStores).reorder(r, xt, xb);
         }},
        {"split(x, 11, PredicateStores), r.x innermost, g at the root",
         [](Func f, Func g, Var x, RVar r) {
             Var xb("x_b1"), xt("x_t2");
             f.update(0).split(x, xb, xt, 11, TailStrategy::PredicateStores).reorder(r, xt, xb);
             g.compute_root();
         }},
        {"split(x, 4, GuardWithIf).split(xo, 3, GuardWithIf), r.x between",
         [](Func f, Func, Var x, RVar r) {
             Var xo("xo"), xi("xi"), xoi("xoi");
             f.update(0)
                 .split(x, xo, xi, 4, TailStrategy::GuardWithIf)
                 .split(xo, xo, xoi, 3, TailStrategy::GuardWithIf)
                 .reorder(xi, r, xoi, xo);
         }},
        {"split(x, 5, GuardWithIf), r.x outermost",
         [](Func f, Func, Var x, RVar r) {
             Var xo("xo"), xi("xi");
             f.update(0).split(x, xo, xi, 5, TailStrategy::GuardWithIf).reorder(xi, xo, r);
         }},
    };
}

// f(x, r.x) = f(x, r.x - 1) + g(x, r.x) + in(r.x + 4, x) where
// r.x + x < 17, r.x in [1, 5], g(x, y) = in(x + 1, y + 2): each dimension
// of in is read at a function of x and at one of r.x (seed 1104's f2 and
// f3 reads, both in one dimension). The where() bounds x by 15, so columns
// 1 to 16 and rows 0 to 15 at most, however wide the output.
TEST_P(FuzzRegressionWhereSplit, RegionOfTheVarAndTheRVarReads) {
    for (const Schedule1104 &s : schedules_1104()) {
        for (int width : {8, 12, 16, 20, 27}) {
            const std::string what = std::string(s.name) + ", " + std::to_string(width) + " columns";
            ImageParam in(Int(32), 2, "w1104_in");
            Var x("x"), y("y");
            Func g("w1104_g"), f("w1104_f");
            g(x, y) = in(x + 1, y + 2);
            RDom r(1, 5, "w1104_r");
            r.where(r.x + x < 17);
            f(x, y) = 0;
            f(x, r.x) = f(x, r.x - 1) + g(x, r.x) + in(r.x + 4, x);
            s.apply(f, g, x, RVar(r.x));

            int col_min = INT_MAX, col_max = INT_MIN, row_min = INT_MAX, row_max = INT_MIN;
            auto read = [&](int i, int j) {
                col_min = std::min(col_min, i);
                col_max = std::max(col_max, i);
                row_min = std::min(row_min, j);
                row_max = std::max(row_max, j);
            };
            for (int i = 0; i < width; i++) {
                for (int ry = 1; ry <= 5; ry++) {
                    if (ry + i >= 17) continue;
                    read(i + 1, ry + 2);
                    read(ry + 4, i);
                }
            }

            f.infer_input_bounds({width, 6});
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
            ASSERT_NO_THROW(out = f.realize({width, 6})) << what;
            int failures = 0;
            for (int i = 0; i < width; i++) {
                int prev = 0;
                for (int j = 0; j < 6; j++) {
                    int want = 0;
                    if (j >= 1 && j + i < 17) want = prev + input(i + 1, j + 2) + input(j + 4, i);
                    prev = want;
                    if (failures < 3 && out(i, j) != want) {
                        failures++;
                        ADD_FAILURE() << what << ": at (" << i << ", " << j << ") expected " << want << ", got "
                                      << out(i, j);
                    }
                }
            }
        }
    }
}

}  // namespace
