// The plain C++ side of every comparison, written the way a C++ programmer
// would write it without a DSL: straightforward loops, OpenMP for the
// threads, and the compiler (-O3 -march=native, set in CMakeLists.txt) left
// to vectorise. Every Loom and Halide result is checked against these.
#include "bench_common.h"

#include <algorithm>

#include <immintrin.h>

namespace bench {

void blur_reference(const uint16_t *in, int in_stride, uint16_t *out, int width, int height) {
    // One pass; the horizontal sums of the three input rows are recomputed
    // per output row, which costs arithmetic but no extra memory traffic.
#pragma omp parallel for schedule(static)
    for (int y = 0; y < height; y++) {
        const uint16_t *r0 = in + size_t(y) * size_t(in_stride);
        const uint16_t *r1 = r0 + in_stride;
        const uint16_t *r2 = r1 + in_stride;
        uint16_t *o = out + size_t(y) * size_t(width);
        for (int x = 0; x < width; x++) {
            uint16_t a = uint16_t((r0[x] + r0[x + 1] + r0[x + 2]) / 3);
            uint16_t b = uint16_t((r1[x] + r1[x + 1] + r1[x + 2]) / 3);
            uint16_t c = uint16_t((r2[x] + r2[x + 1] + r2[x + 2]) / 3);
            o[x] = uint16_t((a + b + c) / 3);
        }
    }
}

void histogram_reference(const uint8_t *in, size_t n, int32_t *hist) {
    std::fill(hist, hist + 256, 0);
#pragma omp parallel
    {
        int32_t local[256] = {0};
#pragma omp for schedule(static) nowait
        for (size_t i = 0; i < n; i++) local[in[i]]++;
#pragma omp critical
        for (int b = 0; b < 256; b++) hist[b] += local[b];
    }
}

void matmul_reference(const float *a, const float *b, float *c, int n) {
    // i-k-j order: the inner loop streams a row of B and a row of C, so it
    // vectorises; rows of C are split between threads.
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++) {
        float *crow = c + size_t(i) * size_t(n);
        std::fill(crow, crow + n, 0.0f);
        for (int k = 0; k < n; k++) {
            float aik = a[size_t(i) * size_t(n) + size_t(k)];
            const float *brow = b + size_t(k) * size_t(n);
            for (int j = 0; j < n; j++) crow[j] += aik * brow[j];
        }
    }
}

void iir_reference(const float *in, float *out, int width, int height, float a, float b) {
#pragma omp parallel for schedule(static)
    for (int y = 0; y < height; y++) {
        const float *src = in + size_t(y) * size_t(width);
        float *dst = out + size_t(y) * size_t(width);
        dst[0] = src[0];
        for (int x = 1; x < width; x++) dst[x] = a * dst[x - 1] + b * src[x];
        for (int x = width - 2; x >= 0; x--) dst[x] = a * dst[x + 1] + b * dst[x];
    }
}

void summed_area_reference(const int32_t *in, int32_t *out, int width, int height) {
    // Prefix sums along each row, then down each column; columns go to
    // threads in blocks of 64 so each thread streams whole cache lines.
#pragma omp parallel for schedule(static)
    for (int y = 0; y < height; y++) {
        const int32_t *src = in + size_t(y) * size_t(width);
        int32_t *dst = out + size_t(y) * size_t(width);
        int32_t sum = 0;
        for (int x = 0; x < width; x++) {
            sum += src[x];
            dst[x] = sum;
        }
    }
    const int block = 64;
#pragma omp parallel for schedule(static)
    for (int x0 = 0; x0 < width; x0 += block) {
        int x1 = std::min(width, x0 + block);
        for (int y = 1; y < height; y++) {
            int32_t *row = out + size_t(y) * size_t(width);
            const int32_t *above = row - width;
            for (int x = x0; x < x1; x++) row[x] += above[x];
        }
    }
}

void triad_reference(double *a, const double *b, const double *c, double s, size_t n) {
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) a[i] = b[i] + s * c[i];
}

void triad_init(double *a, double *b, double *c, size_t n) {
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) {
        a[i] = 0.0;
        b[i] = 1.0;
        c[i] = 2.0;
    }
}

}  // namespace bench

namespace bench {

double fma_peak_reference(long iterations) {
    // Ten independent accumulators per thread: enough to cover the FMA
    // latency (4 cycles) times the FMA pipes (2) of current x86 cores, and
    // few enough to live in registers. No memory is touched in the loop.
    double flops = 0;
    float sink = 0;
#pragma omp parallel reduction(+ : flops, sink)
    {
#if defined(__AVX512F__)
        using Vec = __m512;
        constexpr int lanes = 16;
        auto splat = [](float v) { return _mm512_set1_ps(v); };
        auto fma = [](Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); };
        auto first = [](Vec a) { return _mm512_cvtss_f32(a); };
#elif defined(__AVX__) && defined(__FMA__)
        using Vec = __m256;
        constexpr int lanes = 8;
        auto splat = [](float v) { return _mm256_set1_ps(v); };
        auto fma = [](Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); };
        auto first = [](Vec a) { return _mm256_cvtss_f32(a); };
#else
        using Vec = __m128;
        constexpr int lanes = 4;
        auto splat = [](float v) { return _mm_set1_ps(v); };
        auto fma = [](Vec a, Vec b, Vec c) { return _mm_add_ps(_mm_mul_ps(a, b), c); };
        auto first = [](Vec a) { return _mm_cvtss_f32(a); };
#endif
        Vec acc[10];
        const Vec m = splat(0.999f), c = splat(0.001f);
        for (int i = 0; i < 10; i++) acc[i] = splat(float(i));
        for (long it = 0; it < iterations; it++) {
#pragma GCC unroll 10
            for (int i = 0; i < 10; i++) acc[i] = fma(acc[i], m, c);
        }
        for (int i = 0; i < 10; i++) sink += first(acc[i]);
        flops += 2.0 * lanes * 10.0 * double(iterations);
    }
    volatile float keep = sink;
    (void)keep;
    return flops;
}

}  // namespace bench
