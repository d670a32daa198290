// Fuzz seed 1210954 (docs/FUZZING.md, session 19): a consumer's x and y
// fused and the fused loop split with a guarded tail (PredicateStores; the
// same with GuardWithIf), a producer with an update computed per iteration
// of the inner loop and stored per iteration of the outer one. The tail
// runs the fused variable past its extent; only the consumer's store is
// guarded. The producer's region there was computed from the fused rows'
// promise that they stay in their loop's range, which does not hold past
// the extent: it asked for a row its storage, sized under that promise, did
// not have, and the producer stored past its allocation (the interpreter's
// bounds check; the LLVM build wrote out of bounds). Every tail strategy
// that guards must compute the values of a plain C++ loop, with the output
// of exactly the bound rows.
#include <gtest/gtest.h>

#include <string>

#include "common/BackendTest.h"
#include "lang/Backend.h"
#include "loom/Loom.h"

using namespace loom;
using loom::internal::Backend;

namespace {

class FuzzRegressionFusedGuardedTail : public loom_test::BackendTest {};

// f3(x, y) = x + 100 y after its update; the output reads f3(x, y + 2).
float reference(int x, int y) { return (float)(x + 100 * (y + 2)); }

TEST_P(FuzzRegressionFusedGuardedTail, ProducerPerIterationStaysInItsStorage) {
    struct Case {
        TailStrategy tail;
        const char *name;
        int width, rows, factor;
    };
    // 11 x 1 split by 6 is the seed's: one tail iteration, on the next row.
    const Case cases[] = {
        {TailStrategy::PredicateStores, "PredicateStores", 11, 1, 6},
        {TailStrategy::PredicateLoads, "PredicateLoads", 11, 1, 6},
        {TailStrategy::GuardWithIf, "GuardWithIf", 11, 1, 6},
        {TailStrategy::GuardWithIf, "GuardWithIf", 7, 3, 4},
    };
    for (const Case &c : cases) {
        const std::string what = std::string(c.name) + ", " + std::to_string(c.width) + " x " +
                                 std::to_string(c.rows) + " split by " + std::to_string(c.factor);
        Var x("x"), y("y"), xy("xy"), xyi("xyi");
        RDom r(2, 19, "fg_r");
        Func f3("fg_f3"), f4("fg_f4");
        f3(x, y) = cast<float>(x + 100 * y);
        f3(r.x, y) = f3(r.x - 1, y) + 1.0f;
        f4(x, y) = f3(x, y + 2);
        f4.bound(y, 5, c.rows);
        f4.fuse(x, y, xy);
        f4.split(xy, xy, xyi, c.factor, c.tail);
        f3.compute_at(f4, xyi);
        f3.store_at(f4, xy);

        Buffer<float> out(c.width, c.rows);
        out.set_min({0, 5});
        ASSERT_NO_THROW(f4.realize(out)) << what;
        int failures = 0;
        out.for_each_element([&](int i, int j) {
            if (failures < 3 && out(i, j) != reference(i, j)) {
                failures++;
                ADD_FAILURE() << what << ": at (" << i << ", " << j << ") expected " << reference(i, j) << ", got "
                              << out(i, j);
            }
        });
    }
}

INSTANTIATE_TEST_SUITE_P(Backends, FuzzRegressionFusedGuardedTail,
                         ::testing::Values(Backend::LLVM, Backend::Interpreter),
                         loom_test::backend_test_name);

}  // namespace
