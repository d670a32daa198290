// Shared by the app benchmarks (<app>_bench, built with -DLOOM_BUILD_BENCH=ON):
// the input image at benchmark size and the pattern every benchmark follows.
//
// Each benchmark binary registers two benchmarks on the same input: "loom"
// (the generated library, on the runtime's thread pool: LOOM_NUM_THREADS,
// default all cores) and "cpp" (the plain C++ reference, one thread, -O3
// -march=native). Before timing, the Loom result is compared with the
// reference within the app's tolerance; a mismatch or an error code makes
// the benchmark report an error instead of a time.
#ifndef LOOM_APPS_BENCH_UTIL_H
#define LOOM_APPS_BENCH_UTIL_H

#include <cstdio>
#include <cstdlib>
#include <string>

#include <benchmark/benchmark.h>

#include "image_util.h"
#include "synthetic_image.h"

namespace apps {

/** Benchmark image size: 1920 x 1080 unless LOOM_APPS_BENCH_SIZE=WxH. */
inline void bench_image_size(int &width, int &height) {
    width = 1920;
    height = 1080;
    if (const char *s = std::getenv("LOOM_APPS_BENCH_SIZE")) {
        int w = 0, h = 0;
        if (std::sscanf(s, "%dx%d", &w, &h) == 2 && w > 0 && h > 0) {
            width = w;
            height = h;
        }
    }
}

/** The synthetic RGB picture at benchmark size, 16 bits per sample. */
inline Buffer<uint16_t> bench_image16() {
    int width, height;
    bench_image_size(width, height);
    Buffer<uint8_t> rgb8 = synthetic_image(width, height);
    Buffer<uint16_t> rgb(width, height, 3);
    rgb.for_each_element([&](int x, int y, int c) { rgb(x, y, c) = static_cast<uint16_t>(rgb8(x, y, c) * 257); });
    return rgb;
}

/** Runs `body` (returning a generated function's error code) in the timing
 * loop, after `verify` (returning "" or what is wrong) passed once. */
template<typename Verify, typename Body>
void run_benchmark(benchmark::State &state, Verify &&verify, Body &&body, double bytes_per_run) {
    const std::string problem = verify();
    if (!problem.empty()) {
        state.SkipWithError(problem.c_str());
        return;
    }
    for (auto _ : state) {
        const int error = body();
        if (error != 0) {
            state.SkipWithError(("error code " + std::to_string(error)).c_str());
            return;
        }
    }
    if (bytes_per_run > 0) state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes_per_run));
}

/** "" if result matches reference within tolerance, else a description. */
template<typename T>
std::string mismatch(const Buffer<T> &result, const Buffer<T> &reference, double tolerance) {
    Comparison c = compare(result, reference, tolerance);
    if (c.ok()) return "";
    return "the Loom result differs from the C++ reference: " + std::to_string(c.beyond_tolerance) +
           " elements beyond " + std::to_string(tolerance) + ", worst " + c.worst;
}

}  // namespace apps

#endif
