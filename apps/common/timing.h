// Wall-clock timing for the app runners: the best of several runs, in
// milliseconds (the minimum is the least disturbed by other processes).
#ifndef LOOM_APPS_TIMING_H
#define LOOM_APPS_TIMING_H

#include <chrono>
#include <limits>

namespace apps {

/** Runs f `runs` times (at least once) and returns the fastest run in ms. */
template<typename F>
double best_time_ms(F &&f, int runs) {
    double best = std::numeric_limits<double>::infinity();
    for (int i = 0; i < (runs < 1 ? 1 : runs); i++) {
        auto start = std::chrono::steady_clock::now();
        f();
        auto end = std::chrono::steady_clock::now();
        double ms = std::chrono::duration<double, std::milli>(end - start).count();
        if (ms < best) best = ms;
    }
    return best;
}

}  // namespace apps

#endif
