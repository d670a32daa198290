// Workload 3: 1024x1024 float32 matrix multiply, C = A * B (row-major).
//
//   Bp(xi, k, xo) = B(xo*16 + xi, k)          B packed in panels of 16 columns
//   prod(x, y) = 0
//   prod(x, y) += A(k, y) * Bp(x % 16, k, x / 16)
//   out(x, y) = prod(x, y)
//
// Schedule (Loom and Halide alike): out in 16x32 tiles whose rows are split
// in groups of 4; tile rows run in parallel. prod is computed per group of
// 4 rows: a 16x4 block of accumulators (2 vectors of 8 floats x 4 rows = 8
// registers with AVX2) updated for every k, x vectorised and x and y
// unrolled, so the inner loop is 8 FMAs on registers, 2 vector loads of the
// panel and 4 broadcasts of A.
//
// Why the packing stage: the rows of B are 4 KiB apart, so the 16-wide
// strip of B that one block walks down (one 64-byte line per k) maps to a
// single L1 set and a handful of L2 sets; without packing every B load
// misses both caches and the multiply runs at a quarter of the speed (15
// against 52 GFLOP/s for Halide on this machine). Packed, the panel is 64
// KiB of consecutive lines. out.bound() tells both compilers the extent is
// a multiple of 16, so x % 16 and x / 16 reduce to the tile's own
// coordinates and the panel loads stay dense vectors.
//
// Matrix entries are small integers, so every partial sum is an exact float
// and any summation order (or FMA) gives the same bits as the C++ loop.
#include "bench_common.h"

namespace bench {
namespace {

template<typename Api>
struct MatmulPipeline {
    typename Api::ImageParam a{Api::template type<float>(), 2, "A"}, b{Api::template type<float>(), 2, "B"};
    typename Api::Func packed{"Bp"}, prod{"prod"}, out{"out"};

    MatmulPipeline() {
        typename Api::Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi"), yii("yii");
        typename Api::Var pi("pi"), pk("pk"), po("po");
        const int n = matmul_size(), lanes = vector_lanes<float>(), panel = 2 * lanes;
        typename Api::RDom k(0, n, "k");
        packed(pi, pk, po) = b(po * panel + pi, pk);
        prod(x, y) = 0.0f;
        prod(x, y) += a(k, y) * packed(x % panel, k, x / panel);
        out(x, y) = prod(x, y);

        out.bound(x, 0, n).bound(y, 0, n);
        if constexpr (Api::gpu) {
            // One thread per output in 16 x 16 workgroups, its sum over k in
            // a register; B read in place (packed is inlined): neighbouring
            // threads read neighbouring columns.
            out.gpu_tile(x, y, xo, yo, xi, yi, 16, 16);
            prod.compute_at(out, xi);
            return;
        }
        packed.compute_root().bound(pi, 0, panel).vectorize(pi, lanes).unroll(pi).parallel(po);
        out.tile(x, y, xo, yo, xi, yi, panel, 32)
            .split(yi, yi, yii, 4)
            .vectorize(xi, lanes)
            .unroll(xi)
            .unroll(yii)
            .parallel(yo);
        prod.compute_at(out, yi).vectorize(x, lanes).unroll(x).unroll(y);
        prod.update(0).reorder(x, y, k).vectorize(x, lanes).unroll(x).unroll(y);
    }
};

struct MatmulData {
    int n;
    Array<float> a, b, expected;

    MatmulData() : n(matmul_size()) {
        size_t count = size_t(n) * size_t(n);
        a = Array<float>(count);
        b = Array<float>(count);
        expected = Array<float>(count);
        uint64_t seed = 3;
        for (size_t i = 0; i < count; i++) a[i] = float(int(next_random(seed, 5)) - 2);
        for (size_t i = 0; i < count; i++) b[i] = float(int(next_random(seed, 5)) - 2);
        matmul_reference(a.data(), b.data(), expected.data(), n);
    }
    static MatmulData &get() {
        static MatmulData data;
        return data;
    }
    double flops() const { return 2.0 * double(n) * double(n) * double(n); }
};

template<typename Api>
struct MatmulRun {
    MatmulPipeline<Api> pipeline;
    Array<float> output;
    typename Api::template Buffer<float> a_buf, b_buf, out_buf;

    explicit MatmulRun(MatmulData &d)
        : output(d.expected.size()),
          a_buf(Api::wrap(d.a.data(), d.n, d.n)),
          b_buf(Api::wrap(d.b.data(), d.n, d.n)),
          out_buf(Api::wrap(output.data(), d.n, d.n)) {
        pipeline.a.set(a_buf);
        pipeline.b.set(b_buf);
        Api::dump(pipeline.out, "matmul");
        Api::compile(pipeline.out);
    }
    void once() { Api::realize(pipeline.out, out_buf); }
};

template<typename Api>
void run_dsl(benchmark::State &state) {
    static std::unique_ptr<MatmulRun<Api>> run;
    static Verdict verdict;
    MatmulData &d = MatmulData::get();
    auto verify = [&] {
        if constexpr (Api::gpu) {
            if (std::string why = vulkan_unavailable(); !why.empty()) return why;
        }
        run = std::make_unique<MatmulRun<Api>>(d);
        run->once();
        return compare_2d(std::string(Api::name) + " matmul", run->output.data(), d.expected.data(), d.n, d.n);
    };
    run_checked(state, verdict, verify, [&] { run->once(); }, 0, d.flops());
}

template<typename Api>
void compile_dsl(benchmark::State &state) {
    static bool warmed = false;
    run_compile(state, warmed, [] {
        MatmulPipeline<Api> p;
        Api::compile(p.out);
    });
}

void run_cpp(benchmark::State &state) {
    static Verdict verdict;
    static Array<float> output;
    MatmulData &d = MatmulData::get();
    auto verify = [&] {
        output = Array<float>(d.expected.size());
        return std::string();
    };
    auto once = [&] { matmul_reference(d.a.data(), d.b.data(), output.data(), d.n); };
    run_checked(state, verdict, verify, once, 0, d.flops());
}

}  // namespace

loom::Func make_loom_matmul() {
    MatmulPipeline<LoomApi> p;
    return p.out;
}

void register_matmul() {
    register_run("matmul/cpp", run_cpp);
    register_run("matmul/loom", run_dsl<LoomApi>);
    register_run("matmul/loom_vulkan", run_dsl<LoomVulkanApi>);
#ifdef LOOM_BENCH_HAVE_HALIDE
    register_run("matmul/halide", run_dsl<HalideApi>);
#endif
    register_compile("matmul/compile/loom", compile_dsl<LoomApi>);
#ifdef LOOM_BENCH_HAVE_HALIDE
    register_compile("matmul/compile/halide", compile_dsl<HalideApi>);
#endif
}

}  // namespace bench
