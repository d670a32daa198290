// loom::internal::weaken_calls_among (loom/internal/WeakenCalls.h): a state
// whose update reads a step Func that reads the state is a cycle of Funcs
// that strong references never free; weakening the calls among them frees
// them with the last outside reference, and they still compute the same
// while something holds them.

#include <gtest/gtest.h>

#include <memory>

#include "loom/Loom.h"
#include "loom/internal/WeakenCalls.h"

namespace {

using namespace loom;

struct Recurrence {
    Func state{"state"}, step{"step"}, out{"out"};
};

/** state(x, t + 1) = step(x, t) with step(x, t) = state(x, t) * 2 + x,
 * over 5 steps from state(x, 0) = x (as the ONNX importer builds a loop). */
Recurrence make_recurrence() {
    Recurrence r;
    Var x("x"), t("t");
    RDom steps(0, 5, "steps");
    r.state(x, t) = undef<int>();  // the updates write every state read
    r.state(x, 0) = x;
    r.step(x, t) = r.state(x, t) * 2 + x;
    r.state(x, steps + 1) = r.step(x, steps);
    r.out(x) = r.state(x, 5);
    r.state.compute_root().bound(x, 0, 4);
    r.step.compute_at(r.state, RVar(steps.x));
    return r;
}

int expected(int x) {
    int v = x;
    for (int i = 0; i < 5; i++) v = v * 2 + x;
    return v;
}

std::weak_ptr<internal::FunctionContents> watch(const Func &f) { return f.function().strong; }

TEST(WeakenCalls, WeakenedCycleStillComputesAndIsFreed) {
    std::weak_ptr<internal::FunctionContents> state, step, out;
    {
        Recurrence r = make_recurrence();
        state = watch(r.state);
        step = watch(r.step);
        out = watch(r.out);
        internal::weaken_calls_among({r.state, r.step});
        Buffer<int> result = r.out.realize({4});
        for (int x = 0; x < 4; x++) EXPECT_EQ(result(x), expected(x)) << x;
    }
    EXPECT_TRUE(state.expired());
    EXPECT_TRUE(step.expired());
    EXPECT_TRUE(out.expired());
}

}  // namespace
