// The sampling profiler behind the `profile` target feature
// (runtime/Profiler.c, lower/InjectProfiling.h): a thread samples the Func
// each run is computing. What the tests can rely on whatever the machine's
// speed or thread count: every Func is listed; a Func that does nearly all
// the work gets most of the sampled time once a run lasts long enough (the
// work doubles until the report has enough samples, and the share asked
// for is half, where the true one is near all); a serial pipeline reports
// no thread counts; parallel loops and forks are tasks in the lowered
// statement; a failing run is not reported and does not disturb the next.
// Values are checked against C++ loops. The interpreter refuses profile
// (ProfileDebug tests that); on Vulkan a profiled pipeline runs on the CPU.

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <mutex>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "e2e/E2ETest.h"
#include "e2e/ProfileReport.h"

// The profiler's list of runs in flight (runtime/Profiler.c).
extern "C" void *loom_rt_profiler_running;

namespace {

using namespace loom;
using loom::internal::Backend;
using loom_test::contains;

using loom_test::PrintedContext;
using loom_test::record;

Target profiled() { return get_jit_target_from_environment().with_feature(Target::Profile); }

using loom_test::func_line;
using loom_test::percent_of;

long long samples_of(const std::string &report) {
    std::smatch m;
    if (!std::regex_search(report, m, std::regex(R"(samples: (\d+))"))) return -1;
    return std::stoll(m[1]);
}

/** busy_in(x, y) = x + 3y; busy(x, y) = a recurrence of `terms` steps over
 * it (integer work of a fixed size per point); out = busy + busy_in. */
struct BusyPipeline {
    static constexpr int kWidth = 64, kHeight = 32;
    Var x{"x"}, y{"y"};
    Param<int> terms{"profile_terms"};
    RDom r{0, terms, "profile_r"};
    Func busy_in, busy, out;
    explicit BusyPipeline(const std::string &name)
        : busy_in(name + "_in"), busy(name + "_busy"), out(name + "_out") {
        busy_in(x, y) = cast<uint32_t>(x + 3 * y);
        busy(x, y) = busy_in(x, y);
        busy(x, y) = busy(x, y) * cast<uint32_t>(1664525) + cast<uint32_t>(r.x) + cast<uint32_t>(1013904223);
        out(x, y) = busy(x, y) + busy_in(x, y);
    }
    static uint32_t expected(int xx, int yy, int n) {
        const uint32_t in = uint32_t(xx + 3 * yy);
        uint32_t v = in;
        for (int k = 0; k < n; k++) v = v * 1664525u + uint32_t(k) + 1013904223u;
        return v + in;
    }
    /** Realizes with more and more work until a run's report has at least
     * 40 samples (at most 12 doublings), checks the values and returns the
     * last report. */
    std::string profile_until_sampled() {
        std::string report;
        int n = 256;
        for (int attempt = 0; attempt < 12; attempt++, n *= 2) {
            terms.set(n);
            PrintedContext ctx;
            ctx.handlers.custom_print = record;
            Buffer<uint32_t> result = out.realize(&ctx, {kWidth, kHeight}, profiled());
            report = ctx.text;
            if (samples_of(report) >= 40 || attempt == 11) {
                loom_test::expect_buffer_eq(result, [&](const std::vector<int> &p) { return expected(p[0], p[1], n); });
                break;
            }
        }
        return report;
    }
};

class ProfileSampling : public loom_test::BackendTest {
protected:
    void SetUp() override {
        loom_test::BackendTest::SetUp();
        if (GetParam() == Backend::Interpreter) GTEST_SKIP() << "the interpreter refuses profile";
    }
};

/** Every Func has its line, and the busy one has at least half the time
 * and more than any other. */
void expect_busy_dominates(const std::string &report, const std::vector<std::string> &names,
                           const std::string &busy) {
    ASSERT_GE(samples_of(report), 40) << report;
    int largest = -1;
    std::string largest_name;
    for (const std::string &name : names) {
        const std::string line = func_line(report, name);
        ASSERT_FALSE(line.empty()) << name << " is not in\n" << report;
        if (percent_of(line) > largest) largest = percent_of(line), largest_name = name;
    }
    EXPECT_EQ(largest_name, busy) << report;
    EXPECT_GE(percent_of(func_line(report, busy)), 50) << report;
}

TEST_P(ProfileSampling, TheFuncThatDoesTheWorkGetsMostOfTheSamples) {
    BusyPipeline p("prof_root");
    p.busy_in.compute_root();
    p.busy.compute_root();
    const std::string report = p.profile_until_sampled();
    expect_busy_dominates(report, {"prof_root_in", "prof_root_busy", "prof_root_out"}, "prof_root_busy");
    EXPECT_TRUE(std::regex_search(report, std::regex(R"(^jit_prof_root_out\n total time: [0-9.]+ ms  samples: \d+  )"
                                                     R"(runs: 1  time/run: [0-9.]+ ms\n heap allocations: )")))
        << report;
    // One thread computes all of it: no thread counts, as in Halide.
    EXPECT_FALSE(contains(report, "average threads used")) << report;
    EXPECT_FALSE(contains(report, "threads:")) << report;
    // Each allocation of busy_in and busy: 64 x 32 x 4 bytes.
    EXPECT_TRUE(contains(func_line(report, "prof_root_in"), "peak: 8192")) << report;
    EXPECT_TRUE(contains(func_line(report, "prof_root_busy"), "peak: 8192")) << report;
}

TEST_P(ProfileSampling, AFuncSwitchedPerScanlineIsSampledAsOften) {
    // busy_in and busy are computed per row of out: two switches of the
    // current Func and back per row, the samples still follow the work.
    BusyPipeline p("prof_rows");
    p.busy_in.compute_at(p.out, p.y);
    p.busy.compute_at(p.out, p.y);
    const std::string report = p.profile_until_sampled();
    expect_busy_dominates(report, {"prof_rows_in", "prof_rows_busy", "prof_rows_out"}, "prof_rows_busy");
}

TEST_P(ProfileSampling, ParallelRowsAreSampledInTheirFunc) {
    BusyPipeline p("prof_par");
    p.busy_in.compute_root();
    p.busy.compute_root().parallel(p.y);
    p.busy.update().parallel(p.y);
    const std::string report = p.profile_until_sampled();
    expect_busy_dominates(report, {"prof_par_in", "prof_par_busy", "prof_par_out"}, "prof_par_busy");
    // Where more than one thread was seen working, every Func line says how
    // many on average (the count depends on the machine, not the format).
    if (contains(report, "average threads used")) {
        for (const char *name : {"prof_par_in", "prof_par_busy", "prof_par_out"}) {
            EXPECT_TRUE(contains(func_line(report, name), "threads: ")) << name << "\n" << report;
        }
    }
}

std::string profiled_stmt(Func &f, const std::string &name) {
    const std::string file = ::testing::TempDir() + std::to_string(getpid()) + "_" + name + ".stmt";
    f.compile_to_lowered_stmt(file, profiled());
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    std::remove(file.c_str());
    return text.str();
}

int count_of(const std::string &text, const std::string &part) {
    int n = 0;
    for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) n++;
    return n;
}

int count_matches(const std::string &text, const std::string &pattern) {
    const std::regex re(pattern);
    return (int)std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator());
}

TEST_P(ProfileSampling, ParallelLoopsAndForksAreTasks) {
    // An outer parallel loop over a Func with a parallel loop of its own:
    // the inner loop's tasks are leaves and claim the sampling token (last
    // argument 1), the outer ones do not (0). A Func produced inside a leaf
    // task (row_in, per row of the parallel rows) switches the current Func
    // only where its task holds the token. An async producer forks: both
    // branches are tasks that claim nothing.
    Var x("x"), y("y");
    Func inner("prof_tasks_inner"), outer("prof_tasks_outer"), producer("prof_tasks_p"), consumer("prof_tasks_c");
    Func row_in("prof_tasks_row_in"), rows("prof_tasks_rows");
    inner(x, y) = x * y;
    outer(x, y) = inner(x, y) + inner(x + 1, y);
    outer.parallel(y);
    inner.compute_at(outer, y).parallel(x, 4);
    row_in(x, y) = x - y;
    rows(x, y) = row_in(x, y) * 3;
    rows.compute_root().parallel(y);
    row_in.compute_at(rows, y);
    producer(x, y) = x + y;
    consumer(x, y) = producer(x, y) * 2 + outer(x, y) + rows(x, y);
    producer.compute_root().async();
    outer.compute_root();
    const std::string stmt = profiled_stmt(consumer, "prof_tasks");
    const std::string claiming = R"(loom_profiler_task_start\([^\n]*, 1\))";
    const std::string not_claiming = R"(loom_profiler_task_start\([^\n]*, 0\))";
    const int tasks = count_of(stmt, "loom_profiler_task_start(");
    EXPECT_GE(tasks, 5) << stmt;  // the outer loop, the inner one, rows, the fork's two branches
    EXPECT_EQ(count_of(stmt, "loom_profiler_task_end("), tasks) << stmt;
    EXPECT_GE(count_matches(stmt, claiming), 2) << stmt;
    EXPECT_GE(count_matches(stmt, not_claiming), 3) << stmt;
    // The thread that starts a loop or the fork waits: one call before, one after.
    EXPECT_EQ(count_of(stmt, "loom_profiler_add_active_threads("), 2 * (tasks - 1)) << stmt;
    EXPECT_GE(count_of(stmt, "loom_profiler_set_task_func("), 2) << stmt;  // row_in's production, in and out
    PrintedContext ctx;
    ctx.handlers.custom_print = record;
    Buffer<int> out = consumer.realize(&ctx, {40, 24}, profiled());
    loom_test::expect_buffer_eq(out, [](const std::vector<int> &p) {
        return (p[0] + p[1]) * 2 + p[0] * p[1] + (p[0] + 1) * p[1] + (p[0] - p[1]) * 3;
    });
    for (const char *name :
         {"prof_tasks_inner", "prof_tasks_outer", "prof_tasks_row_in", "prof_tasks_rows", "prof_tasks_p", "prof_tasks_c"}) {
        EXPECT_FALSE(func_line(ctx.text, name).empty()) << name << " is not in\n" << ctx.text;
    }
}

TEST_P(ProfileSampling, AFailingRunIsNotReportedAndTheNextOneIs) {
    // The failure is in a parallel loop, on some thread of the pool.
    Param<int> limit("prof_fail_limit");
    Var x("x"), y("y");
    Func f("prof_fail_f"), g("prof_fail_g");
    f(x, y) = require(x + y < limit, x + y, "prof_fail_f is too large at", x, y);
    g(x, y) = f(x, y) * 2;
    f.compute_root().parallel(y);
    // A failing run leaves the pipeline through the abort.
    const std::string stmt = profiled_stmt(g, "prof_fail");
    EXPECT_TRUE(contains(stmt, "cleanup_on_failure(loom_profiler_pipeline_abort(loom.profiler.instance))")) << stmt;
    for (int run = 0; run < 3; run++) {
        limit.set(10);
        PrintedContext failing;
        failing.handlers.custom_print = record;
        const std::string m = loom_test::runtime_error_message([&] { g.realize(&failing, {16, 16}, profiled()); });
        EXPECT_TRUE(contains(m, "prof_fail_f is too large")) << m;
        EXPECT_FALSE(contains(failing.text, "runs:")) << failing.text;
        EXPECT_EQ(loom_rt_profiler_running, nullptr) << "the failed run is still sampled";
        limit.set(100);
        PrintedContext passing;
        passing.handlers.custom_print = record;
        Buffer<int> out = g.realize(&passing, {16, 16}, profiled());
        loom_test::expect_buffer_eq(out, [](const std::vector<int> &p) { return 2 * (p[0] + p[1]); });
        EXPECT_TRUE(contains(passing.text, "runs: 1  ")) << passing.text;
        EXPECT_FALSE(func_line(passing.text, "prof_fail_f").empty()) << passing.text;
    }
}

void *failing_malloc(JITUserContext *, size_t) { return nullptr; }
void unused_free(JITUserContext *, void *) {}

TEST_P(ProfileSampling, ARunOutOfMemoryIsNotReportedAndLeavesTheSampler) {
    // f's storage, sized by a Param, comes from custom_malloc, which fails.
    Param<int> width("prof_oom_width");
    Var x("x");
    Func f("prof_oom_f"), g("prof_oom_g");
    f(x) = x * 3;
    g(x) = f(x) + f(x + width);
    f.compute_root();
    width.set(1000);
    for (int run = 0; run < 2; run++) {
        PrintedContext failing;
        failing.handlers.custom_print = record;
        failing.handlers.custom_malloc = failing_malloc;
        failing.handlers.custom_free = unused_free;
        const std::string m = loom_test::runtime_error_message([&] { g.realize(&failing, {64}, profiled()); });
        EXPECT_TRUE(contains(m, "Out of memory")) << m;
        EXPECT_FALSE(contains(failing.text, "runs:")) << failing.text;
        EXPECT_EQ(loom_rt_profiler_running, nullptr) << "the failed run is still sampled";
        PrintedContext passing;
        passing.handlers.custom_print = record;
        Buffer<int> out = g.realize(&passing, {64}, profiled());
        loom_test::expect_buffer_eq(out, [](const std::vector<int> &p) { return p[0] * 3 + (p[0] + 1000) * 3; });
        EXPECT_TRUE(contains(passing.text, "runs: 1  ")) << passing.text;
    }
}

LOOM_INSTANTIATE_BACKENDS(ProfileSampling);

}  // namespace
