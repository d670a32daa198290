// Scan outputs: an output bounded by an RDom's trip count holds one row per
// iteration. Its buffer is the loop's capacity (the loop also stops when the
// buffer is full), the pipeline crops it to the rows that ran, and realize()
// without sizes allocates from the loop's bound or grows the rows
// geometrically. Checked against a plain C++ loop.

#include <climits>
#include <vector>

#include "E2ETest.h"

using namespace loom;

namespace {

class ScanOutput : public loom_test::BackendTest {};

constexpr int kWidth = 4;

/** Every state of the C++ reference, the first one included: s(x) starts at
 * x; each iteration s'(x) = s((x + 1) % kWidth) + 1, while s(0) < limit and
 * fewer than max_steps iterations ran. */
std::vector<std::vector<float>> reference_states(long max_steps, float limit) {
    std::vector<std::vector<float>> states(1);
    for (int x = 0; x < kWidth; x++) states[0].push_back((float)x);
    while ((long)states.size() - 1 < max_steps && states.back()[0] < limit) {
        std::vector<float> next(kWidth);
        for (int x = 0; x < kWidth; x++) next[x] = states.back()[(x + 1) % kWidth] + 1.0f;
        states.push_back(next);
    }
    return states;
}

/** The state machine, with every state kept, and its scan output: row k is
 * twice the state after iteration k. */
struct Scan {
    Var i{"i"}, x{"x"};
    Func state{"state"}, step{"step"}, rows{"rows"}, count{"count"};
    RDom r;
    Scan(const Expr &max_steps, const Expr &limit) : r(0, max_steps, "r") {
        state(i, x) = undef<float>();
        state(0, x) = cast<float>(x);
        step(i, x) = state(i, (x + 1) % kWidth) + 1.0f;
        r.loop_while(state(r, 0) < limit);
        state(r + 1, x) = step(r, x);
        rows(i, x) = state(i + 1, x) * 2.0f;
        rows.bound(i, 0, r.trip_count()).bound(x, 0, kWidth);
        count() = r.trip_count();
        state.compute_root();
        step.compute_at(state, r);
    }
};

void expect_rows(const Buffer<float> &rows, const std::vector<std::vector<float>> &states, const std::string &what) {
    const int trips = (int)states.size() - 1;
    ASSERT_EQ(rows.dim(0).min(), 0) << what;
    ASSERT_EQ(rows.dim(0).extent(), trips) << what;
    ASSERT_EQ(rows.dim(1).extent(), kWidth) << what;
    for (int k = 0; k < trips; k++) {
        for (int x = 0; x < kWidth; x++) EXPECT_EQ(rows(k, x), states[k + 1][x] * 2.0f) << what << ": " << k << "," << x;
    }
}

TEST_P(ScanOutput, RealizedWithoutSizesFromTheLoopsBound) {
    // The loop's extent is a Param known before the run: the rows are
    // allocated at it and cropped to the iterations that ran.
    Param<int> max_steps("max_steps");
    Param<float> limit("limit");
    Scan s(max_steps, limit);
    for (auto [steps, lim] : std::vector<std::pair<int, float>>{{10, 12.0f}, {4, 100.0f}, {6, -1.0f}, {0, 5.0f}}) {
        max_steps.set(steps);
        limit.set(lim);
        Buffer<float> rows = s.rows.realize();
        expect_rows(rows, reference_states(steps, lim), "max_steps " + std::to_string(steps));
    }
}

TEST_P(ScanOutput, EndlessLoopGrowsItsRowsGeometrically) {
    // No usable bound (INT_MAX): the rows start at 16 and double while the
    // loop fills them, so 0, 1, 16, 17 and 300 iterations all come back
    // whole and cropped.
    Param<float> limit("limit");
    Scan s(Expr(INT_MAX), limit);
    Pipeline p({s.rows, s.count});
    for (float lim : {-1.0f, 1.0f, 16.0f, 17.0f, 300.0f}) {
        limit.set(lim);
        Realization out = p.realize();
        const auto states = reference_states(LONG_MAX, lim);
        Buffer<int> count = out[1];
        EXPECT_EQ(count(), (int)states.size() - 1) << "limit " << lim;
        expect_rows(out[0], states, "limit " + std::to_string(lim));
    }
}

TEST_P(ScanOutput, TheOutputBufferIsTheLoopsCapacity) {
    // Realized into a buffer of 8 rows, an endless loop runs 8 iterations
    // (not one more: nothing is written outside the buffer), and the buffer
    // is cropped to the rows that ran.
    Param<float> limit("limit");
    Scan s(Expr(INT_MAX), limit);
    Pipeline p({s.rows, s.count});
    for (float lim : {5.0f, 1000.0f}) {
        limit.set(lim);
        Buffer<float> rows(8, kWidth);
        Buffer<int> count = Buffer<int>::make_scalar();
        p.realize({rows, count});
        const auto states = reference_states(8, lim);
        EXPECT_EQ(count(), (int)states.size() - 1) << "limit " << lim;
        expect_rows(rows, states, "limit " + std::to_string(lim));
    }
}

TEST_P(ScanOutput, TupleScanOutputAndTwoOutputsOfOneLoop) {
    // Every buffer of a Tuple output is cropped, and two scan outputs of the
    // same loop share its capacity.
    Param<float> limit("limit");
    Scan s(Expr(INT_MAX), limit);
    Var i("i"), x("x");
    Func pairs("pairs");
    pairs(i, x) = Tuple(s.state(i + 1, x), cast<int>(s.state(i + 1, x)) + x);
    pairs.bound(i, 0, s.r.trip_count()).bound(x, 0, kWidth);
    limit.set(40.0f);
    Realization out = Pipeline({s.rows, pairs}).realize();
    const auto states = reference_states(LONG_MAX, 40.0f);
    expect_rows(out[0], states, "rows");
    Buffer<float> values = out[1];
    Buffer<int> ints = out[2];
    const int trips = (int)states.size() - 1;
    ASSERT_EQ(values.dim(0).extent(), trips);
    ASSERT_EQ(ints.dim(0).extent(), trips);
    for (int k = 0; k < trips; k++) {
        for (int x2 = 0; x2 < kWidth; x2++) {
            EXPECT_EQ(values(k, x2), states[k + 1][x2]);
            EXPECT_EQ(ints(k, x2), (int)states[k + 1][x2] + x2);
        }
    }
}

TEST_P(ScanOutput, RealizeWithoutSizesNeedsABoundOnEveryDimension) {
    Param<float> limit("limit");
    Scan s(Expr(INT_MAX), limit);
    Var i("i"), x("x");
    Func partial("partial");
    partial(i, x) = s.state(i + 1, x);
    partial.bound(i, 0, s.r.trip_count());
    limit.set(3.0f);
    std::string message = loom_test::compile_error_message([&] { partial.realize(); });
    for (const char *part : {"partial", "bound()", "x has none", "sizes"}) {
        EXPECT_NE(message.find(part), std::string::npos) << message;
    }
    Func twice("twice");
    twice(i, x) = s.state(i + 1, x);
    twice.bound(i, 0, s.r.trip_count()).bound(x, 0, s.r.trip_count());
    message = loom_test::compile_error_message([&] { twice.realize(); });
    for (const char *part : {"twice", "two dimensions", "i and x"}) {
        EXPECT_NE(message.find(part), std::string::npos) << message;
    }
}

int g_scan_prints = 0;
void count_print(JITUserContext *, const char *) { g_scan_prints++; }

TEST_P(ScanOutput, RealizedWithoutSizesUnderAContext) {
    // realize(context) at the bounds runs with the context's handlers: each
    // row's print() reaches custom_print (a loop of 5 iterations, bounded by
    // 10, runs once).
    Param<float> limit("limit");
    Scan s(Expr(10), limit);
    Var i("i"), x("x");
    Func printed("printed");
    printed(i, x) = print(s.state(i + 1, x));
    printed.bound(i, 0, s.r.trip_count()).bound(x, 0, kWidth);
    limit.set(5.0f);
    JITUserContext context;
    context.handlers.custom_print = count_print;
    g_scan_prints = 0;
    Buffer<float> rows = printed.realize(&context);
    const auto states = reference_states(10, 5.0f);
    ASSERT_EQ(rows.dim(0).extent(), (int)states.size() - 1);
    EXPECT_EQ(g_scan_prints, rows.dim(0).extent() * kWidth);
}

LOOM_INSTANTIATE_BACKENDS(ScanOutput);

}  // namespace
