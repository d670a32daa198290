// Funcs that call each other share one lifetime (ir/FunctionGroup.h): a
// state whose update reads a step Func that reads the state is freed with
// the last outside reference to any of them, and any one of them, kept
// alone, still computes.

#include <gtest/gtest.h>

#include <memory>

#include "ir/Function.h"
#include "lang/LangTestUtil.h"
#include "loom/Loom.h"

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

/** Expires when f's definition is freed. */
std::weak_ptr<internal::FunctionContents> watch(const Func &f) { return f.function().weakened().weak; }

void expect_out(Func out) {
    Buffer<int> result = out.realize({4});
    for (int x = 0; x < 4; x++) EXPECT_EQ(result(x), expected(x)) << x;
}

TEST(FunctionGroup, RecurrenceThroughAnotherFuncIsFreedWithItsLastHandle) {
    std::weak_ptr<internal::FunctionContents> state, step, out;
    {
        Recurrence r = make_recurrence();
        state = watch(r.state);
        step = watch(r.step);
        out = watch(r.out);
        expect_out(r.out);
        // The two share a group: each holds the other weakly.
        EXPECT_EQ(r.state.function().get()->group, r.step.function().get()->group);
        EXPECT_NE(r.out.function().get()->group, r.state.function().get()->group);
    }
    EXPECT_TRUE(state.expired());
    EXPECT_TRUE(step.expired());
    EXPECT_TRUE(out.expired());
}

TEST(FunctionGroup, AnyOneFuncOfTheCycleKeepsTheOthersAlive) {
    // Only out (which calls state) is kept.
    std::weak_ptr<internal::FunctionContents> state, step;
    Func out;
    {
        Recurrence r = make_recurrence();
        state = watch(r.state);
        step = watch(r.step);
        out = r.out;
    }
    EXPECT_FALSE(state.expired());
    EXPECT_FALSE(step.expired());
    expect_out(out);
    out = Func();
    EXPECT_TRUE(state.expired());
    EXPECT_TRUE(step.expired());

    // Only step (read by state's update, reading state) is kept: a new
    // consumer of the state reached through it still computes.
    Func kept_step;
    {
        Recurrence r = make_recurrence();
        state = watch(r.state);
        kept_step = r.step;
    }
    EXPECT_FALSE(state.expired());
    kept_step.compute_inline();  // its consumer is no longer the state
    Var x("x");
    Func again("again");
    again(x) = kept_step(x, 4);  // state(x, 4) * 2 + x: state(x, 5)
    expect_out(again);
    kept_step = Func();
    again = Func();
    EXPECT_TRUE(state.expired());
}

TEST(FunctionGroup, TwoRecurrencesOfOneStateMakeOneGroup) {
    // a's first updates run through s1, its next ones through s2, which
    // reads a and s1: one group of three.
    std::weak_ptr<internal::FunctionContents> a_watch, s1_watch, s2_watch;
    {
        Func a("a"), s1("s1"), s2("s2"), out("out");
        Var x("x"), t("t");
        RDom first(0, 4, "first"), second(4, 4, "second");
        a(x, t) = x;
        s1(x, t) = a(x, t) + 1;
        a(x, first + 1) = s1(x, first);
        EXPECT_EQ(a.function().get()->group, s1.function().get()->group);
        s2(x, t) = a(x, t) * 2 + s1(x, t);
        EXPECT_NE(a.function().get()->group, s2.function().get()->group);
        a(x, second + 1) = s2(x, second);
        EXPECT_EQ(a.function().get()->group, s2.function().get()->group);
        EXPECT_EQ(a.function().get()->group, s1.function().get()->group);
        out(x) = a(x, 8);
        a.compute_root();
        a_watch = watch(a);
        s1_watch = watch(s1);
        s2_watch = watch(s2);

        auto reference = [](int x) {
            int v = x;
            for (int i = 0; i < 4; i++) v = v + 1;
            for (int i = 0; i < 4; i++) v = v * 2 + (v + 1);
            return v;
        };
        Buffer<int> result = out.realize({6});
        for (int x = 0; x < 6; x++) EXPECT_EQ(result(x), reference(x)) << x;
    }
    EXPECT_TRUE(a_watch.expired());
    EXPECT_TRUE(s1_watch.expired());
    EXPECT_TRUE(s2_watch.expired());
}

TEST(FunctionGroup, TwoFuncsComputedApartThatReadEachOtherAreRefused) {
    // a's update reads step, which reads b; b's update reads step, which
    // reads a: each would need the other finished first.
    Func a("a"), b("b"), step("step"), out("out");
    Var x("x"), t("t");
    RDom r(0, 4, "r");
    a(x, t) = x;
    b(x, t) = 2 * x;
    step(x, t) = a(x, t) + b(x, t);
    a(x, r + 1) = step(x, r);
    b(x, r + 1) = step(x, r) - b(x, r);
    EXPECT_EQ(a.function().get()->group, b.function().get()->group);
    out(x) = a(x, 4) + b(x, 4);
    a.compute_root();
    b.compute_root();
    const std::string m = loom_test::compile_error_message([&] { out.realize({6}); });
    EXPECT_NE(m.find("Funcs a and b read each other"), std::string::npos) << m;
    EXPECT_NE(m.find("compute_at("), std::string::npos) << m;
}

TEST(FunctionGroup, SelfRecursionIsFreed) {
    std::weak_ptr<internal::FunctionContents> f_watch;
    {
        Func f("f");
        Var x("x");
        RDom r(1, 7, "r");
        f(x) = x;
        f(r) = f(r - 1) + f(r);
        f_watch = watch(f);
        Buffer<int> result = f.realize({8});
        int sum = 0;
        for (int x = 0; x < 8; x++) {
            sum += x;
            EXPECT_EQ(result(x), sum) << x;
        }
    }
    EXPECT_TRUE(f_watch.expired());
}

}  // namespace
