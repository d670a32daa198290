// Workload 4: first-order IIR filter along the rows of a 4096x4096 float
// image, run forwards and then backwards.
//
//   fwd(0, y) = in(0, y);     fwd(x, y) = a * fwd(x-1, y) + b * in(x, y)
//   bwd(W-1, y) = fwd(W-1, y); bwd(x, y) = a * bwd(x+1, y) + b * fwd(x, y)
//
// Each row is a serial recurrence, so the vector lanes go across rows: the
// scans are split into groups of 8 rows (one AVX2 vector), the group
// vectorised and put inside the scan, and the groups run in parallel
// (Loom and Halide alike). The C++ side filters one row after another per
// thread, the natural way; its scans are scalar.
//
// a = b = 0.5: scaling by a power of two is exact, so fused and unfused
// multiply-adds round identically and all three results must agree bit
// for bit.
#include "bench_common.h"

namespace bench {
namespace {

constexpr float kA = 0.5f, kB = 0.5f;

template<typename Api>
struct IirPipeline {
    typename Api::ImageParam input{Api::template type<float>(), 2, "input"};
    typename Api::Func fwd{"fwd"}, bwd{"bwd"};

    IirPipeline() {
        typename Api::Var x("x"), y("y"), yo("yo"), yi("yi");
        const int width = image_size(), lanes = vector_lanes<float>();
        typename Api::RDom rf(1, width - 1, "rf"), rb(1, width - 1, "rb");
        fwd(x, y) = input(x, y);
        fwd(rf, y) = kA * fwd(rf - 1, y) + kB * input(rf, y);
        typename Api::Expr xb = width - 1 - rb;  // W-2 down to 0
        bwd(x, y) = fwd(x, y);
        bwd(xb, y) = kA * bwd(xb + 1, y) + kB * fwd(xb, y);

        if constexpr (Api::gpu) {
            // Each scan one thread per row, serial along the row.
            typename Api::Var xo("xo"), xi("xi");
            fwd.compute_root().gpu_tile(x, y, xo, yo, xi, yi, 16, 16);
            fwd.update(0).gpu_tile(y, yo, yi, 64);
            bwd.gpu_tile(x, y, xo, yo, xi, yi, 16, 16);
            bwd.update(0).gpu_tile(y, yo, yi, 64);
            return;
        }
        fwd.compute_root().vectorize(x, lanes).parallel(y);
        fwd.update(0).split(y, yo, yi, lanes).reorder(yi, rf, yo).vectorize(yi).parallel(yo);
        bwd.vectorize(x, lanes).parallel(y);
        bwd.update(0).split(y, yo, yi, lanes).reorder(yi, rb, yo).vectorize(yi).parallel(yo);
    }
};

struct IirData {
    int width, height;
    Array<float> input, expected;

    IirData() : width(image_size()), height(image_size()) {
        size_t count = size_t(width) * size_t(height);
        input = Array<float>(count);
        expected = Array<float>(count);
        uint64_t seed = 4;
        for (size_t i = 0; i < count; i++) input[i] = float(next_random(seed, 256));
        iir_reference(input.data(), expected.data(), width, height, kA, kB);
    }
    static IirData &get() {
        static IirData data;
        return data;
    }
    // Read the input, write the output (the intermediate is extra traffic).
    double bytes() const { return 2.0 * double(input.size()) * sizeof(float); }
};

template<typename Api>
struct IirRun {
    IirPipeline<Api> pipeline;
    Array<float> output;
    typename Api::template Buffer<float> in_buf, out_buf;

    explicit IirRun(IirData &d)
        : output(d.expected.size()),
          in_buf(Api::wrap(d.input.data(), d.width, d.height)),
          out_buf(Api::wrap(output.data(), d.width, d.height)) {
        pipeline.input.set(in_buf);
        Api::dump(pipeline.bwd, "iir");
        Api::compile(pipeline.bwd);
    }
    void once() { Api::realize(pipeline.bwd, out_buf); }
};

template<typename Api>
void run_dsl(benchmark::State &state) {
    static std::unique_ptr<IirRun<Api>> run;
    static Verdict verdict;
    IirData &d = IirData::get();
    auto verify = [&] {
        if constexpr (Api::gpu) {
            if (std::string why = vulkan_unavailable(); !why.empty()) return why;
        }
        run = std::make_unique<IirRun<Api>>(d);
        run->once();
        return compare_2d(std::string(Api::name) + " iir", run->output.data(), d.expected.data(), d.width,
                          d.height);
    };
    run_checked(state, verdict, verify, [&] { run->once(); }, d.bytes(), 0);
}

template<typename Api>
void compile_dsl(benchmark::State &state) {
    static bool warmed = false;
    run_compile(state, warmed, [] {
        IirPipeline<Api> p;
        Api::compile(p.bwd);
    });
}

void run_cpp(benchmark::State &state) {
    static Verdict verdict;
    static Array<float> output;
    IirData &d = IirData::get();
    auto verify = [&] {
        output = Array<float>(d.expected.size());
        return std::string();
    };
    auto once = [&] { iir_reference(d.input.data(), output.data(), d.width, d.height, kA, kB); };
    run_checked(state, verdict, verify, once, d.bytes(), 0);
}

}  // namespace

loom::Func make_loom_iir() {
    IirPipeline<LoomApi> p;
    return p.bwd;
}

void register_iir() {
    register_run("iir/cpp", run_cpp);
    register_run("iir/loom", run_dsl<LoomApi>);
    register_run("iir/loom_vulkan", run_dsl<LoomVulkanApi>);
#ifdef LOOM_BENCH_HAVE_HALIDE
    register_run("iir/halide", run_dsl<HalideApi>);
#endif
    register_compile("iir/compile/loom", compile_dsl<LoomApi>);
#ifdef LOOM_BENCH_HAVE_HALIDE
    register_compile("iir/compile/halide", compile_dsl<HalideApi>);
#endif
}

}  // namespace bench
