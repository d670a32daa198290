#ifndef LOOM_TOOLS_BENCHMARK_H
#define LOOM_TOOLS_BENCHMARK_H

/** \file
 * Timing a piece of code: Loom's counterpart of Halide's
 * tools/halide_benchmark.h, with the same names in loom::Tools, so a Halide
 * program that includes halide_benchmark.h ports by including this header
 * (header-only; no library).
 *
 *     #include <loom/tools/Benchmark.h>
 *     using namespace loom::Tools;
 *     double best = benchmark(10, 5, [&] { f.realize(out); });    // seconds per call
 *     BenchmarkResult r = benchmark([&] { f.realize(out); });     // adaptive
 *     printf("%g s (%llu samples of %llu)\n", r.wall_time, r.samples, r.iterations);
 *
 * Times are wall-clock seconds of std::chrono::steady_clock. For the
 * Google Benchmark suites of the project itself, see bench/.
 */

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

namespace loom {
namespace Tools {

namespace benchmark_internal {
inline double seconds_now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
/** Seconds per call of one sample of `iterations` calls. */
inline double time_sample(uint64_t iterations, const std::function<void()> &op) {
    const double start = seconds_now();
    for (uint64_t i = 0; i < iterations; i++) op();
    return (seconds_now() - start) / static_cast<double>(iterations);
}
}  // namespace benchmark_internal

/** Runs op samples * iterations times, in `samples` groups of `iterations`
 * calls, and returns the best group's time per call, in seconds (Halide's
 * benchmark(samples, iterations, op)). samples and iterations of 0 count as 1. */
inline double benchmark(uint64_t samples, uint64_t iterations, const std::function<void()> &op) {
    samples = std::max<uint64_t>(samples, 1);
    iterations = std::max<uint64_t>(iterations, 1);
    double best = 0;
    for (uint64_t s = 0; s < samples; s++) {
        const double t = benchmark_internal::time_sample(iterations, op);
        best = s == 0 ? t : std::min(best, t);
    }
    return best;
}

/** How long the adaptive benchmark() may run, and when it stops. */
struct BenchmarkConfig {
    /** Run at least this long (seconds), calibration included. */
    double min_time = 0.1;
    /** Stop after this long (seconds) even if the accuracy is not reached. */
    double max_time = 0.1 * 4;
    /** Stop once the best three samples are within this fraction of the best. */
    double accuracy = 0.03;
};

struct BenchmarkResult {
    /** The best sample's time per call, in seconds. */
    double wall_time = 0;
    /** Samples taken, and calls per sample. */
    uint64_t samples = 0;
    uint64_t iterations = 0;
    /** (third best - best) / best of the samples taken; 0 with fewer than three. */
    double accuracy = 0;
    operator double() const { return wall_time; }
};

/** Times op adaptively (Halide's benchmark(op, config)): first doubles the
 * calls per sample until one sample takes at least min_time / 10, then takes
 * samples until the best three agree within `accuracy` and min_time has
 * passed, or until max_time has passed. Returns the best time per call. */
inline BenchmarkResult benchmark(const std::function<void()> &op, const BenchmarkConfig &config = {}) {
    using benchmark_internal::seconds_now;
    using benchmark_internal::time_sample;
    const double start = seconds_now();
    BenchmarkResult result;
    uint64_t iterations = 1;
    std::vector<double> times;
    for (;;) {
        const double t = time_sample(iterations, op);
        const bool long_enough = t * static_cast<double>(iterations) >= config.min_time / 10;
        if (long_enough || seconds_now() - start >= config.max_time || iterations >= (uint64_t(1) << 40)) {
            times.push_back(t);  // a full sample: keep it
            break;
        }
        iterations *= 2;
    }
    for (;;) {
        std::sort(times.begin(), times.end());
        const double elapsed = seconds_now() - start;
        const bool accurate = times.size() >= 3 && (times[2] - times[0]) <= config.accuracy * times[0];
        if ((accurate && elapsed >= config.min_time) || elapsed >= config.max_time) break;
        times.push_back(time_sample(iterations, op));
    }
    result.wall_time = times[0];
    result.samples = times.size();
    result.iterations = iterations;
    result.accuracy = times.size() >= 3 && times[0] > 0 ? (times[2] - times[0]) / times[0] : 0;
    return result;
}

}  // namespace Tools
}  // namespace loom

#endif
