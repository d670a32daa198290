// The apps (apps/<app>/<app>_algorithm.cpp, algorithm and CPU schedule) as
// JIT-compiled pipelines over plain arrays, in the two languages the same
// source compiles against: Loom (namespace bench_apps::loom_dsl) and Halide 14
// (bench_apps::halide14). app_pipelines.cpp is compiled once for each; this
// header names neither language, so the benchmark's main file includes it
// and calls both.
//
// Images are dense and planar (x innermost, then y, then the channel);
// matmul's matrices are n x n, x (the column) innermost. Each make_* defines
// the pipeline, schedules it, JIT-compiles it for the host and returns a
// runner that writes into `out` each time it runs.
#ifndef LOOM_BENCH_APPS_APP_PIPELINES_H
#define LOOM_BENCH_APPS_APP_PIPELINES_H

#include <cstdint>
#include <memory>

namespace bench_apps {

/** A compiled app; run() realizes it into the output array. */
class Runner {
public:
    virtual ~Runner() = default;
    virtual void run() = 0;
};

#define LOOM_BENCH_APPS_DECLARE(dsl)                                                                                 \
    namespace dsl {                                                                                                  \
    std::unique_ptr<Runner> make_blur(uint16_t *in, int width, int height, uint16_t *out);                           \
    std::unique_ptr<Runner> make_iir_blur(float *in, int width, int height, float alpha, float *out);                \
    std::unique_ptr<Runner> make_matmul(float *a, float *b, int n, float *out);                                      \
    std::unique_ptr<Runner> make_bilateral_grid(float *in, int width, int height, int s_sigma, float r_sigma,        \
                                                float *out);                                                         \
    std::unique_ptr<Runner> make_local_laplacian(uint16_t *in, int width, int height, int levels, float alpha,       \
                                                 float beta, uint16_t *out);                                         \
    std::unique_ptr<Runner> make_histogram_equalize(uint8_t *in, int width, int height, uint8_t *out);               \
    }

LOOM_BENCH_APPS_DECLARE(loom_dsl)
LOOM_BENCH_APPS_DECLARE(halide14)

#undef LOOM_BENCH_APPS_DECLARE

}  // namespace bench_apps

#endif
