// Ahead of time, a loop that stops early (RDom::loop_while) is a real exit:
// a pipeline with a run-time bound on its iterations is compiled to a static
// library and called from C with a bound of INT_MAX. Only the iterations
// before the condition turns false run (the call returns at once), and the
// trip count and last state match a plain C++ loop.

#include <gtest/gtest.h>

#include <climits>
#include <sstream>
#include <vector>

#include "AotTestSupport.h"
#include "loom/Loom.h"

using namespace loom;
using namespace loom_test;

namespace {

constexpr int kWidth = 6;

const char *kProgram = R"(
#include <limits.h>
#include <stdio.h>
#include "walk.h"

int main(void) {
    const loom_type_t f32 = {loom_type_float, 32, 1}, i32 = {loom_type_int, 32, 1};
    float last_host[6];
    int count_host = -1;
    loom_dimension_t last_dim = {0, 6, 1, 0};
    loom_buffer_t last = {0}, count = {0};
    last.host = (uint8_t *)last_host; last.type = f32; last.dimensions = 1; last.dim = &last_dim;
    count.host = (uint8_t *)&count_host; count.type = i32; count.dimensions = 0;
    const int bounds[3] = {INT_MAX, 5, 0};
    for (int k = 0; k < 3; k++) {
        int rc = walk(bounds[k], 40.0f, &last, &count);
        printf("%d %d", rc, count_host);
        for (int x = 0; x < 6; x++) printf(" %.9g", last_host[x]);
        printf("\n");
    }
    return 0;
}
)";

struct Reference {
    std::vector<float> state;
    int trips = 0;
};

Reference reference(long max_steps, float limit) {
    Reference r;
    for (int x = 0; x < kWidth; x++) r.state.push_back((float)x * 0.5f);
    while (r.trips < max_steps && r.state[0] < limit) {
        std::vector<float> next(kWidth);
        for (int x = 0; x < kWidth; x++) next[x] = r.state[(x + 1) % kWidth] + 1.5f;
        r.state = next;
        r.trips++;
    }
    return r;
}

TEST(LoopWhileAot, RealExitInAStaticLibrary) {
    ASSERT_TRUE(have_tool("cc")) << kToolsHint;
    Param<int> max_steps("max_steps");
    Param<float> limit("limit");
    Var i("i"), x("x");
    Func state("state"), step("step"), last("last"), count("count");
    state(i, x) = undef<float>();
    state(0, x) = cast<float>(x) * 0.5f;
    step(i, x) = state(i, (x + 1) % kWidth) + 1.5f;
    RDom r(0, max_steps, "r");
    r.loop_while(state(r, 0) < limit);
    state(r + 1, x) = step(r, x);
    last(x) = state(r.trip_count(), x);
    count() = r.trip_count();
    state.compute_root().fold_storage(i, 2);
    step.compute_at(state, r);

    ScratchDir dir;
    Pipeline({last, count}).compile_to_static_library(dir.file("walk"), {max_steps, limit}, "walk");
    write_file(dir.file("main.c"), kProgram);
    CommandResult build =
        run_command("cd '" + dir.path() + "' && cc -std=c11 -O1 -Wall -o main main.c walk.a -lpthread -ldl -lm 2>&1");
    ASSERT_EQ(build.exit_code, 0) << build.output;
    CommandResult run = run_command("timeout 60 '" + dir.file("main") + "' 2>&1");
    ASSERT_EQ(run.exit_code, 0) << run.output;

    std::istringstream out(run.output);
    for (long bound : {(long)INT_MAX, 5L, 0L}) {
        Reference ref = reference(bound, 40.0f);
        int rc = -1, trips = -1;
        out >> rc >> trips;
        EXPECT_EQ(rc, 0) << run.output;
        EXPECT_EQ(trips, ref.trips) << "bound " << bound;
        for (int k = 0; k < kWidth; k++) {
            float v = 0;
            out >> v;
            EXPECT_EQ(v, ref.state[k]) << "bound " << bound << ", x = " << k;
        }
    }
}

// A scan output in a static library: the rows buffer the C caller passes is
// the loop's capacity, and the pipeline crops its extent to the rows that ran.
const char *kScanProgram = R"(
#include <stdio.h>
#include "scan.h"

int main(void) {
    const loom_type_t f32 = {loom_type_float, 32, 1};
    const float limits[2] = {4.0f, 1000.0f};
    for (int k = 0; k < 2; k++) {
        float rows_host[8 * 6];
        loom_dimension_t rows_dim[2] = {{0, 8, 1, 0}, {0, 6, 8, 0}};
        loom_buffer_t rows = {0};
        rows.host = (uint8_t *)rows_host; rows.type = f32; rows.dimensions = 2; rows.dim = rows_dim;
        int rc = scan(limits[k], &rows);
        printf("%d %d %d", rc, rows_dim[0].min, rows_dim[0].extent);
        for (int i = 0; i < rows_dim[0].extent; i++) printf(" %.9g", rows_host[i + 8 * 2]);
        printf("\n");
    }
    return 0;
}
)";

TEST(LoopWhileAot, ScanOutputCroppedToTheRowsThatRan) {
    ASSERT_TRUE(have_tool("cc")) << kToolsHint;
    Param<float> limit("limit");
    Var i("i"), x("x");
    Func state("state"), step("step"), rows("rows");
    state(i, x) = undef<float>();
    state(0, x) = cast<float>(x) * 0.5f;
    step(i, x) = state(i, (x + 1) % kWidth) + 1.5f;
    RDom r(0, INT_MAX, "r");
    r.loop_while(state(r, 0) < limit);
    state(r + 1, x) = step(r, x);
    rows(i, x) = state(i + 1, x);
    rows.bound(i, 0, r.trip_count()).bound(x, 0, kWidth);
    state.compute_root();
    step.compute_at(state, r);

    ScratchDir dir;
    rows.compile_to_static_library(dir.file("scan"), {limit}, "scan");
    write_file(dir.file("main.c"), kScanProgram);
    CommandResult build =
        run_command("cd '" + dir.path() + "' && cc -std=c11 -O1 -Wall -o main main.c scan.a -lpthread -ldl -lm 2>&1");
    ASSERT_EQ(build.exit_code, 0) << build.output;
    CommandResult run = run_command("timeout 60 '" + dir.file("main") + "' 2>&1");
    ASSERT_EQ(run.exit_code, 0) << run.output;

    std::istringstream out(run.output);
    for (float lim : {4.0f, 1000.0f}) {
        // At most 8 iterations: the buffer's rows.
        std::vector<std::vector<float>> states;
        for (long steps = 1; steps <= 8; steps++) {
            Reference next = reference(steps, lim);
            if (next.trips < steps) break;
            states.push_back(next.state);
        }
        int rc = -1, min = -1, extent = -1;
        out >> rc >> min >> extent;
        EXPECT_EQ(rc, 0) << run.output;
        EXPECT_EQ(min, 0) << run.output;
        ASSERT_EQ(extent, (int)states.size()) << "limit " << lim << "\n" << run.output;
        for (int k = 0; k < extent; k++) {
            float v = 0;
            out >> v;
            EXPECT_EQ(v, states[k][2]) << "limit " << lim << ", row " << k;
        }
    }
}

}  // namespace
