// Loops that stop early (RDom::loop_while), trip counts (RDom::trip_count),
// RDom extents computed by the pipeline, and loop-carried state with an
// iteration dimension folded to the live iterations: the recurrences of
// the ONNX Loop operator, checked against plain C++ loops.

#include <climits>
#include <vector>

#include "E2ETest.h"

using namespace loom;

namespace {

class LoopWhile : public loom_test::BackendTest {};

constexpr int kWidth = 5;

/** The C++ reference of the state machine below: s(x) starts at x; each
 * iteration s'(x) = s((x + 1) % kWidth) + 1, while s(0) < limit and fewer
 * than max_steps iterations ran. */
struct Reference {
    std::vector<float> state;
    int trips = 0;
};
Reference run_reference(int max_steps, float limit) {
    Reference ref;
    for (int x = 0; x < kWidth; x++) ref.state.push_back((float)x);
    while (ref.trips < max_steps && ref.state[0] < limit) {
        std::vector<float> next(kWidth);
        for (int x = 0; x < kWidth; x++) next[x] = ref.state[(x + 1) % kWidth] + 1.0f;
        ref.state = next;
        ref.trips++;
    }
    return ref;
}

/** state(i, x): the state before iteration i, two iterations kept. */
struct StateMachine {
    Var i{"i"}, x{"x"};
    Func state{"state"}, step{"step"}, last{"last"}, count{"count"};
    RDom r;
    StateMachine(const Expr &max_steps, const Expr &limit, bool fold = true) : r(0, max_steps, "r") {
        state(i, x) = undef<float>();  // the updates write every state read
        state(0, x) = cast<float>(x);
        step(i, x) = state(i, (x + 1) % kWidth) + 1.0f;
        r.loop_while(state(r, 0) < limit);
        state(r + 1, x) = step(r, x);
        last(x) = state(r.trip_count(), x);
        count() = r.trip_count();
        state.compute_root();
        if (fold) state.fold_storage(i, 2);
        step.compute_at(state, r);
    }
};

TEST_P(LoopWhile, StopsAtTheFirstFalseConditionWithFoldedState) {
    Param<int> max_steps("max_steps");
    Param<float> limit("limit");
    StateMachine m(max_steps, limit);
    Pipeline p({m.last, m.count});
    for (auto [steps, lim] : std::vector<std::pair<int, float>>{{100, 20.0f}, {3, 20.0f}, {0, 20.0f}, {50, -1.0f}}) {
        max_steps.set(steps);
        limit.set(lim);
        Buffer<float> last(kWidth);
        Buffer<int> count = Buffer<int>::make_scalar();
        p.realize({last, count});  // Halide's spelling: a Realization of two buffers
        Reference ref = run_reference(steps, lim);
        EXPECT_EQ(count(), ref.trips) << "max_steps " << steps << ", limit " << lim;
        loom_test::expect_buffer_eq(last, [&](const std::vector<int> &pos) { return ref.state[pos[0]]; });
    }
}

TEST_P(LoopWhile, EndlessLoopStoppedByItsConditionRunsOnlyItsIterations) {
    // An extent of INT_MAX: only a real exit finishes.
    Param<float> limit("limit");
    StateMachine m(Expr(INT_MAX), limit);
    limit.set(30.0f);
    Buffer<float> last(kWidth);
    Buffer<int> count = Buffer<int>::make_scalar();
    Realization outputs(last, count);
    Pipeline({m.last, m.count}).realize(outputs);
    Reference ref = run_reference(INT_MAX, 30.0f);
    EXPECT_EQ(count(), ref.trips);
    loom_test::expect_buffer_eq(last, [&](const std::vector<int> &pos) { return ref.state[pos[0]]; });
}

TEST_P(LoopWhile, NoIterationRunsAfterTheExit) {
    // Unfolded state: rows after the trip count keep the pure definition's
    // value, so an iteration after the exit would show.
    Var i("i"), x("x");
    Func state("state");
    state(i, x) = -7;
    state(0, x) = x;
    RDom r(0, 20, "r");
    r.loop_while(state(r, 0) != 4);
    state(r + 1, x) = state(r, x) + 1;
    Func out("out");
    out(i, x) = state(i, x);
    state.compute_root();
    Buffer<int> b = out.realize({21, 3});
    loom_test::expect_buffer_eq(b, [](const std::vector<int> &p) { return p[0] <= 4 ? p[1] + p[0] : -7; });
}

TEST_P(LoopWhile, TripCountWithoutConditionIsTheExtent) {
    Param<int> n("n");
    Var x("x");
    Func f("f");
    f(x) = 0;
    RDom r(2, n, "r");
    f(x) += r;
    Func g("g");
    g(x) = f(x) * 100 + r.trip_count();
    f.compute_root();
    for (int extent : {0, 1, 6}) {
        n.set(extent);
        Buffer<int> b = g.realize({3});
        int sum = 0;
        for (int k = 2; k < 2 + extent; k++) sum += k;
        loom_test::expect_buffer_eq(b, [&](const std::vector<int> &) { return sum * 100 + extent; });
    }
}

TEST_P(LoopWhile, ExtentsComputedByTheRealizedPipeline) {
    // The trip count comes from a Func (the sum of a buffer), an ImageParam
    // value and a Buffer value, each read once before its loop.
    Buffer<int> counts(3);
    counts(0) = 2;
    counts(1) = 1;
    counts(2) = 1;
    ImageParam limits(Int(32), 1, "limits");
    Buffer<int> limits_buffer(1);
    limits_buffer(0) = 3;
    limits.set(limits_buffer);

    Var x("x");
    Func n("n");
    RDom all(counts);
    n() = 0;
    n() += counts(all);
    n.compute_root();
    Func f("f");
    f(x) = 0;
    RDom r(0, n(), "r");
    f(x) += x + r;
    RDom s(0, limits(0), "s");
    f(x) += 10 * (s + 1);
    RDom t(0, counts(0), "t");
    f(x) += 1000;
    f(x) += 1000 * (t + 1);
    Buffer<int> b = f.realize({4});
    loom_test::expect_buffer_eq(b, [](const std::vector<int> &p) {
        int v = 0;
        for (int k = 0; k < 4; k++) v += p[0] + k;
        for (int k = 0; k < 3; k++) v += 10 * (k + 1);
        v += 1000;
        for (int k = 0; k < 2; k++) v += 1000 * (k + 1);
        return v;
    });
}

TEST_P(LoopWhile, UpdateWritesAtAnRVarWhoseExtentIsComputed) {
    // The output's region depends on n(): it is checked once n is computed
    // (a too-small output is a RuntimeError, not a write past its end).
    Param<int> p("p");
    Var x("x");
    Func n("n"), f("f");
    n() = p * 2;
    n.compute_root();
    f(x) = 0;
    RDom r(0, n(), "r");
    f(r) = r + 1;
    p.set(3);
    Buffer<int> b = f.realize({8});
    loom_test::expect_buffer_eq(b, [](const std::vector<int> &pos) { return pos[0] < 6 ? pos[0] + 1 : 0; });
    p.set(5);
    std::string msg = loom_test::runtime_error_message([&] { f.realize({8}); });
    EXPECT_TRUE(loom_test::contains(msg, "Output buffer f is accessed at 9")) << msg;
}

TEST_P(LoopWhile, RankTwoStateAndTupleOfTypesCarried) {
    // A 2-D state and an integer counter carried together as a Tuple; the
    // loop stops when the counter reaches the limit the body computes.
    Var i("i"), x("x"), y("y");
    Func state("state"), next("next"), out("out");
    state(i, x, y) = Tuple(0.0f, 0);
    state(0, x, y) = Tuple(cast<float>(x + 10 * y), 0);
    next(i, x, y) = Tuple(state(i, (x + 1) % 3, y)[0] * 0.5f + cast<float>(y), state(i, x, y)[1] + 1);
    RDom r(0, 100, "r");
    r.loop_while(state(r, 0, 0)[1] < 7);
    state(r + 1, x, y) = next(r, x, y);
    out(x, y) = state(r.trip_count(), x, y)[0];
    state.compute_root().fold_storage(i, 2);
    next.compute_at(state, r);
    state.update(1).reorder(x, y, r);
    Buffer<float> b = out.realize({3, 2});
    std::vector<float> s(6);
    for (int y2 = 0; y2 < 2; y2++) {
        for (int x2 = 0; x2 < 3; x2++) s[x2 + 3 * y2] = (float)(x2 + 10 * y2);
    }
    for (int k = 0; k < 7; k++) {
        std::vector<float> next(6);
        for (int y2 = 0; y2 < 2; y2++) {
            for (int x2 = 0; x2 < 3; x2++) next[x2 + 3 * y2] = s[(x2 + 1) % 3 + 3 * y2] * 0.5f + (float)y2;
        }
        s = next;
    }
    loom_test::expect_buffer_eq(b, [&](const std::vector<int> &p) { return s[p[0] + 3 * p[1]]; });
}

TEST_P(LoopWhile, ScanOutputCroppedToTheTripCount) {
    // A scan output: one row per iteration, realized at the bound and
    // cropped to the rows that ran. Zero iterations give zero rows.
    Param<int> max_steps("max_steps");
    Param<float> limit("limit");
    StateMachine m(max_steps, limit, /*fold=*/false);  // the scan reads every state
    Var i("i"), x("x");
    Func scan("scan");
    scan(i, x) = m.state(i + 1, x) * 2.0f;
    Pipeline p({scan, m.count});
    for (auto [steps, lim] : std::vector<std::pair<int, float>>{{10, 12.0f}, {4, 100.0f}, {6, -1.0f}}) {
        max_steps.set(steps);
        limit.set(lim);
        Buffer<float> rows(std::max(steps, 1), kWidth);
        Buffer<int> count = Buffer<int>::make_scalar();
        Realization outputs(rows, count);
        p.realize(outputs);
        Reference ref = run_reference(steps, lim);
        ASSERT_EQ(count(), ref.trips);
        Buffer<float> ran = rows.cropped(0, 0, count());
        EXPECT_EQ(ran.dim(0).extent(), ref.trips);
        for (int k = 0; k < ref.trips; k++) {
            Reference partial = run_reference(k + 1, lim);
            for (int x2 = 0; x2 < kWidth; x2++) EXPECT_EQ(ran(k, x2), partial.state[x2] * 2.0f) << k << "," << x2;
        }
    }
}

// The state is itself an output, and another output reads it at the trip
// count: the output buffer's region check that depends on the trip count
// runs once the loop has run (it used to reach code generation as an
// unlowered trip_count).
TEST_P(LoopWhile, OutputStateReadAtTheTripCountByAnotherOutput) {
    Var i("i"), x("x");
    Func counter("tc_counter"), last("tc_last");
    counter(i, x) = x;
    RDom s(0, 100, "tc_s");
    s.loop_while(counter(s, 0) < 37);
    counter(s + 1, x) = counter(s, x) + 1;
    last(x) = counter(s.trip_count(), x) + s.trip_count();
    Buffer<int> states(101, 4), ends(4);
    Pipeline({counter, last}).realize(Realization(states, ends));
    for (int k = 0; k < 4; k++) {
        EXPECT_EQ(ends(k), k + 37 + 37) << k;
        EXPECT_EQ(states(37, k), k + 37) << k;
    }
}

TEST_P(LoopWhile, ConditionReadingOtherFuncsOnly) {
    // The condition reads Funcs that nothing else reads: they are part of
    // the pipeline (they used to be left out of it, and lowering failed
    // with "map::at").
    Var x("x");
    Func values("values"), not_nine("not_nine"), sum("sum");
    values(x) = select(x == 6, 9, x % 3 - 1);
    not_nine(x) = values(x) != 9;
    RDom r(0, 8, "r");
    r.loop_while(not_nine(r));
    sum(x) = x;
    sum(x) += r;
    Buffer<int> out = sum.realize({4});
    for (int xx = 0; xx < 4; xx++) EXPECT_EQ(out(xx), xx + 0 + 1 + 2 + 3 + 4 + 5) << xx;
}

LOOM_INSTANTIATE_BACKENDS(LoopWhile);

// ---------------------------------------------------------------- errors

using loom_test::compile_error_message;

TEST(LoopWhileErrors, ConditionMustBeBoolean) {
    RDom r(0, 10, "r");
    std::string msg = compile_error_message([&] { r.loop_while(r + 1); });
    EXPECT_TRUE(loom_test::contains(msg, "RDom r")) << msg;
    EXPECT_TRUE(loom_test::contains(msg, "boolean")) << msg;
}

TEST(LoopWhileErrors, ConditionAfterTheRDomIsUsed) {
    Var x("x");
    Func f("f");
    f(x) = 0;
    RDom r(0, 10, "r");
    f(x) += r;
    std::string msg = compile_error_message([&] { r.loop_while(r < 3); });
    EXPECT_TRUE(loom_test::contains(msg, "before using the RDom")) << msg;
}

TEST(LoopWhileErrors, ConditionWithAPureVar) {
    Var x("x");
    Func f("f");
    f(x) = 0;
    RDom r(0, 10, "r");
    r.loop_while(f(x) < 3);
    std::string msg = compile_error_message([&] { f(x) += r; });
    EXPECT_TRUE(loom_test::contains(msg, "Func f")) << msg;
    EXPECT_TRUE(loom_test::contains(msg, "uses x")) << msg;
}

TEST(LoopWhileErrors, ExtentThatDependsOnItsOwnLoop) {
    Var x("x");
    Func f("f");
    f(x) = 1;
    RDom r(0, f(0), "r");
    std::string msg = compile_error_message([&] { f(x) += r; });
    EXPECT_TRUE(loom_test::contains(msg, "Func f")) << msg;
    EXPECT_TRUE(loom_test::contains(msg, "RVar r$x")) << msg;
    EXPECT_TRUE(loom_test::contains(msg, "depend on the loop they bound")) << msg;
}

TEST(LoopWhileErrors, TripCountInsideItsOwnLoop) {
    Var x("x");
    Func f("f");
    f(x) = 0;
    RDom r(0, 10, "r");
    f(x) += r;
    Expr n = r.trip_count();
    std::string msg = compile_error_message([&] { f(x) += r + n; });
    EXPECT_TRUE(loom_test::contains(msg, "r.trip_count()")) << msg;
    EXPECT_TRUE(loom_test::contains(msg, "inside the loop")) << msg;
}

TEST(LoopWhileErrors, TripCountBeforeTheLoopIsDefined) {
    Var x("x");
    Func f("f"), g("g");
    f(x) = 0;
    RDom r(0, 10, "r");
    f(x) += r;
    std::string msg = compile_error_message([&] { g(x) = RDom(0, 3, "q").trip_count(); });
    EXPECT_TRUE(loom_test::contains(msg, "RDom q: trip_count() is asked before")) << msg;
}

TEST(LoopWhileErrors, TripCountAloneOfAnUnboundedState) {
    Var i("i"), x("x");
    Func s("s"), count("count");
    s(i, x) = 0;
    RDom r(0, 10, "r");
    r.loop_while(s(r, 0) < 5);
    s(r + 1, x) = s(r, x) + 1;
    count() = r.trip_count();
    s.compute_root();
    std::string msg = compile_error_message([&] { count.realize({}); });
    EXPECT_TRUE(loom_test::contains(msg, "Func 's' is computed only for the trip count")) << msg;
    EXPECT_TRUE(loom_test::contains(msg, "bound()")) << msg;
}

TEST(LoopWhileErrors, UndefOnlyAsAWholePureDefinition) {
    Var x("x");
    Func f("f"), g("g"), h("h");
    std::string msg = compile_error_message([&] { f(x) = undef<int>() + 1; });
    EXPECT_TRUE(loom_test::contains(msg, "pure definition of Func f")) << msg;
    EXPECT_TRUE(loom_test::contains(msg, "only as the whole value")) << msg;
    msg = compile_error_message([&] { g(x) = Tuple(undef<int>(), 1); });
    EXPECT_TRUE(loom_test::contains(msg, "some Tuple elements are undef()")) << msg;
    h(x) = undef<int>();
    Func use("use");
    use(x) = h(x);
    msg = compile_error_message([&] { use.realize({2}); });
    EXPECT_TRUE(loom_test::contains(msg, "Func 'h' is defined as undef() and has no update")) << msg;
}

TEST(LoopWhileErrors, ScheduleThatWouldBreakTheExit) {
    auto schedule_error = [](const std::function<void(Func &, RVar, Var)> &schedule) {
        Var i("i"), x("x");
        Func s("s");
        s(i, x) = 0;
        RDom r(0, 10, "r");
        r.loop_while(s(r, 0) < 5);
        s(r + 1, x) = s(r, x) + 1;
        s.bound(x, 0, 8);
        schedule(s, r, x);
        return compile_error_message([&] { s.realize({11, 8}); });
    };
    std::string msg = schedule_error([](Func &s, RVar r, Var) { s.update(0).split(r, RVar("ro"), RVar("ri"), 2); });
    EXPECT_TRUE(loom_test::contains(msg, "update 0 of Func 's'")) << msg;
    EXPECT_TRUE(loom_test::contains(msg, "can't be split")) << msg;
    msg = schedule_error([](Func &s, RVar r, Var x) { s.update(0).reorder(r, x); });
    EXPECT_TRUE(loom_test::contains(msg, "must be the outermost loop")) << msg;
    msg = schedule_error([](Func &s, RVar r, Var) { s.update(0).unroll(r); });
    EXPECT_TRUE(loom_test::contains(msg, "r$x")) << msg;
}

}  // namespace
