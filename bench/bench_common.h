#ifndef LOOM_BENCH_COMMON_H
#define LOOM_BENCH_COMMON_H

// Shared pieces of the pipeline benchmarks (bench_pipelines): problem sizes,
// aligned arrays, the plain C++ reference kernels (reference_kernels.cpp,
// built with -O3 -march=native), result checks, and a small "API" trait per
// DSL so that each workload's algorithm and schedule are written once and
// instantiated for Loom and for Halide 14 alike.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include <loom/Loom.h>

#ifdef LOOM_BENCH_HAVE_HALIDE
#include <Halide.h>
#endif

namespace bench {

// ---- Problem sizes ----------------------------------------------------------

/** Side of the square images (4096; LOOM_BENCH_IMAGE overrides, for smoke runs). */
int image_size();
/** Side of the square matrices (1024; LOOM_BENCH_MATMUL overrides). */
int matmul_size();
/** Threads every runtime uses (LOOM_NUM_THREADS, HL_NUM_THREADS and
 * OMP_NUM_THREADS are set to this before anything starts). */
int thread_count();

// ---- Memory ----------------------------------------------------------------

/** A 64-byte aligned array of n T, zeroed. */
template<typename T>
class Array {
public:
    Array() = default;
    explicit Array(size_t n) : size_(n) {
        size_t bytes = (n * sizeof(T) + 63) / 64 * 64;
        data_.reset(static_cast<T *>(std::aligned_alloc(64, bytes ? bytes : 64)));
        if (!data_) throw std::bad_alloc();
        for (size_t i = 0; i < n; i++) data_.get()[i] = T(0);
    }
    T *data() { return data_.get(); }
    const T *data() const { return data_.get(); }
    size_t size() const { return size_; }
    T &operator[](size_t i) { return data_.get()[i]; }
    const T &operator[](size_t i) const { return data_.get()[i]; }

private:
    struct Free {
        void operator()(T *p) const { std::free(p); }
    };
    std::unique_ptr<T, Free> data_;
    size_t size_ = 0;
};

/** Deterministic pseudo-random integers in [0, bound). */
uint32_t next_random(uint64_t &state, uint32_t bound);

// ---- Checks ----------------------------------------------------------------

/** "" when got equals want element for element; else a message naming who,
 * the first differing (x, y) and the number of differing values. The arrays
 * are width x height, dense, row-major. Floats compare bit-exactly as values
 * (the workloads are built so that every order of evaluation is exact). */
std::string compare_2d(const std::string &who, const uint16_t *got, const uint16_t *want, int width, int height);
std::string compare_2d(const std::string &who, const int32_t *got, const int32_t *want, int width, int height);
std::string compare_2d(const std::string &who, const float *got, const float *want, int width, int height);

// ---- Plain C++ reference kernels (reference_kernels.cpp) ---------------------

/** out(x, y) = 3x3 box mean of in over [x, x+2] x [y, y+2]; in has
 * in_stride elements a row and height + 2 rows. */
void blur_reference(const uint16_t *in, int in_stride, uint16_t *out, int width, int height);
/** 256-bin histogram of n bytes. */
void histogram_reference(const uint8_t *in, size_t n, int32_t *hist);
/** C = A * B, n x n, row-major. */
void matmul_reference(const float *a, const float *b, float *c, int n);
/** Along each row: y[x] = a*y[x-1] + b*in[x] forwards, then
 * z[x] = a*z[x+1] + b*y[x] backwards; out holds z. */
void iir_reference(const float *in, float *out, int width, int height, float a, float b);
/** out(x, y) = sum of in over [0, x] x [0, y]. */
void summed_area_reference(const int32_t *in, int32_t *out, int width, int height);
/** a[i] = b[i] + s * c[i] (STREAM triad). */
void triad_reference(double *a, const double *b, const double *c, double s, size_t n);
/** Runs `iterations` steps of ten independent register-only FMA chains on
 * every thread; returns the flops executed (the machine's usable peak). */
double fma_peak_reference(long iterations);
/** Fills the triad arrays in parallel, so pages land where they are used. */
void triad_init(double *a, double *b, double *c, size_t n);

// ---- Benchmark plumbing ------------------------------------------------------

/** The result of checking one implementation once: empty error means OK. */
struct Verdict {
    bool checked = false;
    std::string error;
};

/** Checks once (verify returns "" or an error; exceptions become errors),
 * then times `once` in the benchmark loop. On an error the benchmark is
 * skipped with that message, so it is reported, not timed. bytes and flops
 * are per run, stored as counters for scripts/bench.sh. */
void run_checked(benchmark::State &state, Verdict &verdict, const std::function<std::string()> &verify,
                 const std::function<void()> &once, double bytes, double flops);

/** Times `compile` (which defines a pipeline afresh and JIT-compiles it), one
 * compile per iteration, after one untimed warm-up compile the first time
 * (warmed remembers it). */
void run_compile(benchmark::State &state, bool &warmed, const std::function<void()> &compile);

/** Registers name with the settings every pipeline benchmark shares
 * (milliseconds, wall-clock time since the work is multi-threaded). */
benchmark::internal::Benchmark *register_run(const std::string &name, std::function<void(benchmark::State &)> fn);
benchmark::internal::Benchmark *register_compile(const std::string &name,
                                                 std::function<void(benchmark::State &)> fn);

/** When LOOM_BENCH_STMT_DIR is set, writes the lowered statement of a Loom
 * (and Halide) pipeline there as <workload>.<dsl>.stmt, and for Halide its
 * assembly as <workload>.halide.s (Loom's: --loom_compile_breakdown). */
void dump_loom_stmt(loom::Func &output, const std::string &workload);
#ifdef LOOM_BENCH_HAVE_HALIDE
void dump_halide_stmt(Halide::Func &output, const std::string &workload);
Halide::Target halide_target();
#endif

/** Lanes of a native vector of T on the Loom JIT target (the schedules use
 * the same widths for Halide). */
template<typename T>
int vector_lanes() {
    return loom::get_jit_target_from_environment().natural_vector_size<T>();
}

// ---- The two DSLs behind one set of names ------------------------------------

struct LoomApi {
    using Func = loom::Func;
    using Var = loom::Var;
    using RDom = loom::RDom;
    using ImageParam = loom::ImageParam;
    using Expr = loom::Expr;
    template<typename T>
    using Buffer = loom::Buffer<T>;
    template<typename T>
    static loom::Type type() {
        return loom::type_of<T>();
    }
    static constexpr const char *name = "loom";
    static constexpr bool gpu = false;  // the workload's CPU schedule
    static void compile(Func &f) { f.compile_jit(); }
    template<typename T>
    static void realize(Func &f, Buffer<T> &out) {
        f.realize(out);
    }
    static void dump(Func &f, const std::string &workload) { dump_loom_stmt(f, workload); }
    template<typename T>
    static Buffer<T> wrap(T *data, int w, int h) {
        return Buffer<T>(data, std::vector<int>{w, h});
    }
    template<typename T>
    static Buffer<T> wrap(T *data, int w) {
        return Buffer<T>(data, std::vector<int>{w});
    }
};

/** Loom's JIT with Vulkan (host-vulkan): the workloads take their GPU
 * schedule; realize() waits for the kernels and copies the output back. */
struct LoomVulkanApi : LoomApi {
    static constexpr const char *name = "loom_vulkan";
    static constexpr bool gpu = true;
    static loom::Target target() {
        loom::Target t("host-vulkan");
        t.set_feature(loom::Target::JIT);
        return t;
    }
    static void compile(Func &f) { f.compile_jit(target()); }
    template<typename T>
    static void realize(Func &f, Buffer<T> &out) {
        f.realize(out, target());
    }
    static void dump(Func &, const std::string &) {}
};

/** "" when a Vulkan device is there, else the reason to skip. */
std::string vulkan_unavailable();

#ifdef LOOM_BENCH_HAVE_HALIDE
struct HalideApi {
    using Func = Halide::Func;
    using Var = Halide::Var;
    using RDom = Halide::RDom;
    using ImageParam = Halide::ImageParam;
    using Expr = Halide::Expr;
    template<typename T>
    using Buffer = Halide::Buffer<T>;
    template<typename T>
    static Halide::Type type() {
        return Halide::type_of<T>();
    }
    static constexpr const char *name = "halide";
    static constexpr bool gpu = false;
    static void compile(Func &f) { f.compile_jit(halide_target()); }
    template<typename T>
    static void realize(Func &f, Buffer<T> &out) {
        f.realize(out, halide_target());
    }
    static void dump(Func &f, const std::string &workload) { dump_halide_stmt(f, workload); }
    template<typename T>
    static Buffer<T> wrap(T *data, int w, int h) {
        return Buffer<T>(data, w, h);
    }
    template<typename T>
    static Buffer<T> wrap(T *data, int w) {
        return Buffer<T>(data, w);
    }
};
#endif

// ---- Workload registration (one file each) -----------------------------------

/** Each workload's Loom pipeline, freshly defined (its output Func). */
loom::Func make_loom_blur();
loom::Func make_loom_histogram();
loom::Func make_loom_matmul();
loom::Func make_loom_iir();
loom::Func make_loom_summed_area();

/** bench_pipelines --loom_compile_breakdown[=N]: times each phase of Loom's
 * JIT compile per workload (compile_breakdown.cpp). */
int run_compile_breakdown(int repetitions);

void register_machine();
void register_blur();
void register_histogram();
void register_matmul();
void register_iir();
void register_summed_area();
void register_vulkan_dispatch();

}  // namespace bench

#endif
