// loom/tools/Benchmark.h: Halide's benchmark() helpers. Only facts that hold
// on any host are checked: how often the code runs, lower bounds of times
// (a sleep lasts at least its duration), and the stopping rules' counts.
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include <loom/Loom.h>
#include <loom/tools/Benchmark.h>

using namespace loom;
using namespace loom::Tools;

namespace {

TEST(Benchmark, SamplesTimesIterationsCallsAndTheBestTimePerCall) {
    int calls = 0;
    double t = benchmark(4, 3, [&] {
        calls++;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    });
    EXPECT_EQ(calls, 12);
    EXPECT_GE(t, 0.002);
    calls = 0;
    benchmark(0, 0, [&] { calls++; });  // counted as 1 x 1
    EXPECT_EQ(calls, 1);
}

TEST(Benchmark, AdaptiveFormStopsAtMaxTimeAndReportsWhatItDid) {
    BenchmarkConfig config;
    config.min_time = 0.02;
    config.max_time = 0.05;
    config.accuracy = 0.0;  // never reached (unless three samples tie): max_time ends it
    uint64_t calls = 0;
    auto start = std::chrono::steady_clock::now();
    BenchmarkResult r = benchmark([&] {
        calls++;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }, config);
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_GE(r.samples, 1u);
    EXPECT_GE(r.iterations, 1u);
    EXPECT_GE(calls, r.samples * r.iterations);  // calibration runs come on top
    EXPECT_GE(r.wall_time, 0.001);
    EXPECT_EQ(double(r), r.wall_time);
    EXPECT_GE(elapsed, config.min_time);
    // Calibration doubles the calls per sample until one sample takes
    // min_time / 10 = 2 ms. How many that is depends on how long a 1 ms
    // sleep takes on a loaded machine (one call of 2.5 ms is enough), so
    // only the doubling is checked, not a count.
    EXPECT_EQ(r.iterations & (r.iterations - 1), 0u) << r.iterations << " is not a power of two";
}

TEST(Benchmark, TimesAJitPipeline) {
    Var x("x");
    Func f("bench_tool_f");
    f(x) = x * 2;
    Buffer<int> out(1000);
    f.compile_jit();
    double t = benchmark(3, 2, [&] { f.realize(out); });
    EXPECT_GT(t, 0.0);
    for (int i = 0; i < 1000; i++) ASSERT_EQ(out(i), 2 * i);
}

}  // namespace
