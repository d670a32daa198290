// Fuzz seed 1144856 (docs/FUZZING.md, issue 12): an update whose RDom has a
// where() on a pure Var, r.where(r.y + y < 28), reads a producer f2 at rows
// y + r.y + 2 and x + r.y. With f2 computed per iteration of the RDom's
// innermost loop (or at the consumer's innermost loop, unscheduled) each
// f2 region's last row is max(min(y, 27 - r.y) + min(r.y, 27 - y) + 2,
// x + min(r.y, 27 - y)), at most 29; bounds inference bounded it by 31
// (each min on its own) and asked for rows of the input up to 33 where 31
// are read, refusing an input of exactly the rows read. Both schedules must
// run on an input of exactly the rows the pipeline reads (a plain C++ loop
// over the output and the RDom finds them) and compute that loop's values.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <string>

#include "common/BackendTest.h"
#include "lang/Backend.h"
#include "loom/Loom.h"

using namespace loom;
using loom::internal::Backend;

namespace {

class FuzzRegressionWhereComputeAt : public loom_test::BackendTest {};

int floor_div(int a, int b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }

// The output's region: columns [-3, 16], rows [8, 27].
constexpr int kX0 = -3, kW = 20, kY0 = 8, kH = 20;

bool holds(int y, int ry) { return ry + y < 28; }

template<typename F>
void for_each_f2_point(F f) {  // the points of f2 the output reads
    for (int y = kY0; y < kY0 + kH; y++) {
        for (int x = kX0; x < kX0 + kW; x++) {
            for (int ry = -2; ry <= 2; ry++) {
                if (!holds(y, ry)) continue;
                f(x + 2, y + ry + 2);
                f(y * 2, x + ry);
            }
        }
    }
}

TEST_P(FuzzRegressionWhereComputeAt, ProducerAtTheRDomLoopAsksForTheRowsRead) {
    // The rows and columns of in1 read: f2(x, y) reads in1(x + 1, y / 2 + r - 2)
    // and in1(x + 2, y + r) for r in [-2, 2].
    int c0 = INT_MAX, c1 = INT_MIN, r0 = INT_MAX, r1 = INT_MIN;
    for_each_f2_point([&](int x, int y) {
        c0 = std::min(c0, x + 1), c1 = std::max(c1, x + 2);
        r0 = std::min({r0, floor_div(y, 2) - 4, y - 2}), r1 = std::max({r1, floor_div(y, 2), y + 2});
    });
    ASSERT_EQ(r1, 31);  // the seed's region

    for (bool at_rdom_loop : {false, true}) {
        const std::string what = at_rdom_loop ? "f2.compute_at(f3, r.x)" : "unscheduled";
        ImageParam in1(Float(32), 2, "wc_in1");
        Var x("x"), y("y");
        Func f2("wc_f2"), f3("wc_f3");
        RDom r2(-2, 5, "wc_r2");
        f2(x, y) = 1.0f;
        f2(x, y) += in1(x + 1, y / 2 + r2 - 2) / 4.0f * in1(x + 2, y + r2);
        RDom r(0, 1, -2, 5, "wc_r3");
        r.where(r.y + y < 28);
        f3(x, y) = 0.0f;
        f3(x, y) += f2(x + r.x + 2, y + r.y + 2) + f2(y * 2 + r.x, x + r.y);
        if (at_rdom_loop) f2.compute_at(f3, r.x);

        Buffer<float> input(c1 - c0 + 1, r1 - r0 + 1);
        input.set_min({c0, r0});
        input.for_each_element([&](int i, int j) { input(i, j) = (float)((i * 7 + j * 3) % 11 - 5); });
        in1.set(input);
        Buffer<float> out(kW, kH);
        out.set_min({kX0, kY0});
        ASSERT_NO_THROW(f3.realize(out)) << what << ": the input holds exactly the rows and columns read";

        auto f2_ref = [&](int i, int j) {
            float v = 1.0f;
            for (int k = -2; k <= 2; k++) v += input(i + 1, floor_div(j, 2) + k - 2) / 4.0f * input(i + 2, j + k);
            return v;
        };
        int failures = 0;
        out.for_each_element([&](int i, int j) {
            float v = 0.0f;
            for (int ry = -2; ry <= 2; ry++) {
                if (holds(j, ry)) v += f2_ref(i + 2, j + ry + 2) + f2_ref(j * 2, i + ry);
            }
            if (failures < 3 && out(i, j) != v) {
                failures++;
                ADD_FAILURE() << what << ": at (" << i << ", " << j << ") expected " << v << ", got " << out(i, j);
            }
        });
    }
}

INSTANTIATE_TEST_SUITE_P(Backends, FuzzRegressionWhereComputeAt,
                         ::testing::Values(Backend::LLVM, Backend::Interpreter),
                         loom_test::backend_test_name);

}  // namespace
