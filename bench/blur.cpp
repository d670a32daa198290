// Workload 1: two-stage 3x3 box blur of a 4096x4096 uint16 image.
//
//   blur_x(x, y) = (in(x, y) + in(x+1, y) + in(x+2, y)) / 3
//   blur_y(x, y) = (blur_x(x, y) + blur_x(x, y+1) + blur_x(x, y+2)) / 3
//
// Schedule (Loom and Halide alike): blur_y in 256x32 tiles, vectorised
// across x, tile rows in parallel; blur_x computed per tile, vectorised.
// The input has two extra columns and rows, so no boundary condition is
// needed. Input values stay below 2^14, so uint16 sums never wrap and the
// C++ int arithmetic gives the same results.
#include "bench_common.h"

namespace bench {
namespace {

template<typename Api>
struct BlurPipeline {
    typename Api::ImageParam input{Api::template type<uint16_t>(), 2, "input"};
    typename Api::Func blur_x{"blur_x"}, blur_y{"blur_y"};

    BlurPipeline() {
        typename Api::Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
        const int lanes = vector_lanes<uint16_t>();
        blur_x(x, y) = (input(x, y) + input(x + 1, y) + input(x + 2, y)) / 3;
        blur_y(x, y) = (blur_x(x, y) + blur_x(x, y + 1) + blur_x(x, y + 2)) / 3;
        if constexpr (Api::gpu) {
            // 16 x 16 workgroups; blur_x's 16 x 18 block in shared memory,
            // made by the same threads in two passes of rows.
            typename Api::Var bx("bx"), by("by");
            blur_y.gpu_tile(x, y, xo, yo, xi, yi, 16, 16);
            blur_x.compute_at(blur_y, xo).split(x, bx, xi, 16).split(y, by, yi, 16).gpu_threads(xi, yi);
        } else {
            blur_y.tile(x, y, xo, yo, xi, yi, 256, 32).vectorize(xi, lanes).parallel(yo);
            blur_x.compute_at(blur_y, xo).vectorize(x, lanes);
        }
    }
};

struct BlurData {
    int width, height, in_stride;
    Array<uint16_t> input, expected;

    BlurData() : width(image_size()), height(image_size()), in_stride(image_size() + 2) {
        input = Array<uint16_t>(size_t(in_stride) * size_t(height + 2));
        expected = Array<uint16_t>(size_t(width) * size_t(height));
        uint64_t seed = 1;
        for (size_t i = 0; i < input.size(); i++) input[i] = uint16_t(next_random(seed, 1u << 14));
        blur_reference(input.data(), in_stride, expected.data(), width, height);
    }
    static BlurData &get() {
        static BlurData data;
        return data;
    }
    // Bytes a run must move at least: read the input once, write the output.
    double bytes() const { return double(input.size() + expected.size()) * sizeof(uint16_t); }
};

template<typename Api>
struct BlurRun {
    BlurPipeline<Api> pipeline;
    Array<uint16_t> output;
    typename Api::template Buffer<uint16_t> in_buf, out_buf;

    explicit BlurRun(BlurData &d)
        : output(d.expected.size()),
          in_buf(Api::wrap(d.input.data(), d.in_stride, d.height + 2)),
          out_buf(Api::wrap(output.data(), d.width, d.height)) {
        pipeline.input.set(in_buf);
        Api::dump(pipeline.blur_y, "blur");
        Api::compile(pipeline.blur_y);
    }
    void once() { Api::realize(pipeline.blur_y, out_buf); }
};

template<typename Api>
void run_dsl(benchmark::State &state) {
    static std::unique_ptr<BlurRun<Api>> run;
    static Verdict verdict;
    BlurData &d = BlurData::get();
    auto verify = [&] {
        if constexpr (Api::gpu) {
            if (std::string why = vulkan_unavailable(); !why.empty()) return why;
        }
        run = std::make_unique<BlurRun<Api>>(d);
        run->once();
        return compare_2d(std::string(Api::name) + " blur", run->output.data(), d.expected.data(), d.width,
                          d.height);
    };
    run_checked(state, verdict, verify, [&] { run->once(); }, d.bytes(), 0);
}

template<typename Api>
void compile_dsl(benchmark::State &state) {
    static bool warmed = false;
    run_compile(state, warmed, [] {
        BlurPipeline<Api> p;
        Api::compile(p.blur_y);
    });
}

void run_cpp(benchmark::State &state) {
    static Verdict verdict;
    static Array<uint16_t> output;
    BlurData &d = BlurData::get();
    auto once = [&] { blur_reference(d.input.data(), d.in_stride, output.data(), d.width, d.height); };
    auto verify = [&] {
        output = Array<uint16_t>(d.expected.size());
        return std::string();
    };
    run_checked(state, verdict, verify, once, d.bytes(), 0);
}

}  // namespace

loom::Func make_loom_blur() {
    BlurPipeline<LoomApi> p;
    return p.blur_y;
}

void register_blur() {
    register_run("blur/cpp", run_cpp);
    register_run("blur/loom", run_dsl<LoomApi>);
    register_run("blur/loom_vulkan", run_dsl<LoomVulkanApi>);
#ifdef LOOM_BENCH_HAVE_HALIDE
    register_run("blur/halide", run_dsl<HalideApi>);
#endif
    register_compile("blur/compile/loom", compile_dsl<LoomApi>);
#ifdef LOOM_BENCH_HAVE_HALIDE
    register_compile("blur/compile/halide", compile_dsl<HalideApi>);
#endif
}

}  // namespace bench
