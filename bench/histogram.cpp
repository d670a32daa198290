// Workload 2: 256-bin histogram of a 4096x4096 uint8 image.
//
// A histogram is one scatter-add over the image. To use every core the
// image is cut into horizontal strips: each strip gets its own partial
// histogram (strips in parallel), and the partials are summed per bin
// (vectorised across bins). This is the rfactor decomposition written out
// by hand, identical for Loom and Halide; the C++ side does the same with a
// per-thread histogram.
#include "bench_common.h"

namespace bench {
namespace {

constexpr int kStrips = 32;

/** Strips on the GPU: one row each, so that a thread's serial loop stays
 * short (Mesa's lavapipe stops every shader after 65,535 loop iterations
 * in all, and a thread has no business running long anyway). */
template<typename Api>
int strips() {
    return Api::gpu ? image_size() : kStrips;
}

template<typename Api>
struct HistogramPipeline {
    typename Api::ImageParam input{Api::template type<uint8_t>(), 2, "input"};
    typename Api::Func partial{"partial"}, hist{"hist"};

    HistogramPipeline() {
        typename Api::Var b("b"), s("s");
        const int width = image_size(), rows = image_size() / strips<Api>();
        const int lanes = vector_lanes<int32_t>();
        typename Api::RDom r(0, width, 0, rows, "r");
        typename Api::RDom k(0, strips<Api>(), "k");
        typename Api::Expr value = input(r.x, s * rows + r.y);
        partial(b, s) = 0;
        partial(clamp(cast(Api::template type<int32_t>(), value), 0, 255), s) += 1;
        hist(b) = 0;
        hist(b) += partial(b, k);

        if constexpr (Api::gpu) {
            // No atomics: one thread per strip counts its strip serially;
            // the sum over strips one thread per bin.
            typename Api::Var bo("bo"), bi("bi"), so("so"), si("si");
            partial.compute_root().gpu_tile(b, s, bo, so, bi, si, 64, 1);
            partial.update(0).gpu_tile(s, so, si, 8);
            hist.gpu_tile(b, bo, bi, 64);
            hist.update(0).gpu_tile(b, bo, bi, 64);
        } else {
            partial.compute_root();
            partial.update(0).parallel(s);
            hist.update(0).vectorize(b, lanes);
        }
    }
};

/** The same histogram as one update over the whole image, made atomic
 * (Stage::atomic) so that its rows run in parallel tasks: every task adds
 * into the one shared histogram with atomic read-modify-writes, instead of
 * a partial histogram per strip. CPU only (Loom's SPIR-V has no atomics). */
template<typename Api>
struct AtomicHistogramPipeline {
    typename Api::ImageParam input{Api::template type<uint8_t>(), 2, "input"};
    typename Api::Func hist{"hist"};

    AtomicHistogramPipeline() {
        typename Api::Var b("b");
        const int width = image_size(), rows = image_size() / kStrips;
        typename Api::RDom r(0, width, 0, image_size(), "r");
        hist(b) = 0;
        hist(clamp(cast(Api::template type<int32_t>(), input(r.x, r.y)), 0, 255)) += 1;
        hist.update(0).atomic().parallel(r.y, rows);
    }
};

struct HistogramData {
    int width, height;
    Array<uint8_t> input;
    Array<int32_t> expected;

    HistogramData() : width(image_size()), height(image_size()) {
        input = Array<uint8_t>(size_t(width) * size_t(height));
        expected = Array<int32_t>(256);
        uint64_t seed = 2;
        for (size_t i = 0; i < input.size(); i++) input[i] = uint8_t(next_random(seed, 256));
        histogram_reference(input.data(), input.size(), expected.data());
    }
    static HistogramData &get() {
        static HistogramData data;
        return data;
    }
    double bytes() const { return double(input.size()); }
};

template<typename Api, template<typename> class Pipeline = HistogramPipeline>
struct HistogramRun {
    Pipeline<Api> pipeline;
    Array<int32_t> output{256};
    typename Api::template Buffer<uint8_t> in_buf;
    typename Api::template Buffer<int32_t> out_buf;

    explicit HistogramRun(HistogramData &d)
        : in_buf(Api::wrap(d.input.data(), d.width, d.height)), out_buf(Api::wrap(output.data(), 256)) {
        pipeline.input.set(in_buf);
        Api::dump(pipeline.hist, "histogram");
        Api::compile(pipeline.hist);
    }
    void once() { Api::realize(pipeline.hist, out_buf); }
};

template<typename Api, template<typename> class Pipeline = HistogramPipeline>
void run_dsl(benchmark::State &state) {
    static std::unique_ptr<HistogramRun<Api, Pipeline>> run;
    static Verdict verdict;
    HistogramData &d = HistogramData::get();
    auto verify = [&] {
        if constexpr (Api::gpu) {
            if (std::string why = vulkan_unavailable(); !why.empty()) return why;
        }
        if (d.height % kStrips != 0) return std::string("image height must be a multiple of 32");
        run = std::make_unique<HistogramRun<Api, Pipeline>>(d);
        run->once();
        return compare_2d(std::string(Api::name) + " histogram", run->output.data(), d.expected.data(), 256, 1);
    };
    run_checked(state, verdict, verify, [&] { run->once(); }, d.bytes(), 0);
}

template<typename Api>
void compile_dsl(benchmark::State &state) {
    static bool warmed = false;
    run_compile(state, warmed, [] {
        HistogramPipeline<Api> p;
        Api::compile(p.hist);
    });
}

void run_cpp(benchmark::State &state) {
    static Verdict verdict;
    static Array<int32_t> output(256);
    HistogramData &d = HistogramData::get();
    auto once = [&] { histogram_reference(d.input.data(), d.input.size(), output.data()); };
    run_checked(state, verdict, [] { return std::string(); }, once, d.bytes(), 0);
}

}  // namespace

loom::Func make_loom_histogram() {
    HistogramPipeline<LoomApi> p;
    return p.hist;
}

void register_histogram() {
    register_run("histogram/cpp", run_cpp);
    register_run("histogram/loom", run_dsl<LoomApi>);
    register_run("histogram/loom_vulkan", run_dsl<LoomVulkanApi>);
    register_run("histogram/loom_atomic", run_dsl<LoomApi, AtomicHistogramPipeline>);
#ifdef LOOM_BENCH_HAVE_HALIDE
    register_run("histogram/halide", run_dsl<HalideApi>);
    register_run("histogram/halide_atomic", run_dsl<HalideApi, AtomicHistogramPipeline>);
#endif
    register_compile("histogram/compile/loom", compile_dsl<LoomApi>);
#ifdef LOOM_BENCH_HAVE_HALIDE
    register_compile("histogram/compile/halide", compile_dsl<HalideApi>);
#endif
}

}  // namespace bench
