// Workload 5: summed-area table of a 4096x4096 int32 image.
//
//   rows(x, y) = in(0..x, y) summed      (a scan along x per row)
//   sat(x, y)  = rows(x, 0..y) summed    (a scan along y per column)
//
// Schedule (Loom and Halide alike): rows computed at root, its scan scalar
// along x with the rows in parallel; the column scan of sat in strips of
// 64 columns, vectorised across the strip, strips in parallel, so each step
// of the scan reads and writes whole cache lines. The C++ side does the
// same two passes with OpenMP.
#include "bench_common.h"

namespace bench {
namespace {

template<typename Api>
struct SummedAreaPipeline {
    typename Api::ImageParam input{Api::template type<int32_t>(), 2, "input"};
    typename Api::Func rows{"rows"}, sat{"sat"};

    SummedAreaPipeline() {
        typename Api::Var x("x"), y("y"), xo("xo"), xi("xi");
        const int size = image_size(), lanes = vector_lanes<int32_t>();
        typename Api::RDom rx(1, size - 1, "rx"), ry(1, size - 1, "ry");
        rows(x, y) = input(x, y);
        rows(rx, y) = rows(rx - 1, y) + input(rx, y);
        sat(x, y) = rows(x, y);
        sat(x, ry) = sat(x, ry - 1) + rows(x, ry);

        if constexpr (Api::gpu) {
            // The row scan one thread per row, the column scan one thread
            // per column (neighbouring threads, neighbouring addresses).
            typename Api::Var yo("yo"), yi("yi");
            rows.compute_root().gpu_tile(x, y, xo, yo, xi, yi, 16, 16);
            rows.update(0).gpu_tile(y, yo, yi, 64);
            sat.gpu_tile(x, y, xo, yo, xi, yi, 16, 16);
            sat.update(0).gpu_tile(x, xo, xi, 64);
            return;
        }
        rows.compute_root().vectorize(x, lanes).parallel(y);
        rows.update(0).parallel(y);
        sat.vectorize(x, lanes).parallel(y);
        sat.update(0).split(x, xo, xi, 64).reorder(xi, ry, xo).vectorize(xi, lanes).parallel(xo);
    }
};

struct SummedAreaData {
    int size;
    Array<int32_t> input, expected;

    SummedAreaData() : size(image_size()) {
        size_t count = size_t(size) * size_t(size);
        input = Array<int32_t>(count);
        expected = Array<int32_t>(count);
        uint64_t seed = 5;
        for (size_t i = 0; i < count; i++) input[i] = int32_t(next_random(seed, 4));
        summed_area_reference(input.data(), expected.data(), size, size);
    }
    static SummedAreaData &get() {
        static SummedAreaData data;
        return data;
    }
    double bytes() const { return 2.0 * double(input.size()) * sizeof(int32_t); }
};

template<typename Api>
struct SummedAreaRun {
    SummedAreaPipeline<Api> pipeline;
    Array<int32_t> output;
    typename Api::template Buffer<int32_t> in_buf, out_buf;

    explicit SummedAreaRun(SummedAreaData &d)
        : output(d.expected.size()),
          in_buf(Api::wrap(d.input.data(), d.size, d.size)),
          out_buf(Api::wrap(output.data(), d.size, d.size)) {
        pipeline.input.set(in_buf);
        Api::dump(pipeline.sat, "summed_area");
        Api::compile(pipeline.sat);
    }
    void once() { Api::realize(pipeline.sat, out_buf); }
};

template<typename Api>
void run_dsl(benchmark::State &state) {
    static std::unique_ptr<SummedAreaRun<Api>> run;
    static Verdict verdict;
    SummedAreaData &d = SummedAreaData::get();
    auto verify = [&] {
        if constexpr (Api::gpu) {
            if (std::string why = vulkan_unavailable(); !why.empty()) return why;
        }
        run = std::make_unique<SummedAreaRun<Api>>(d);
        run->once();
        return compare_2d(std::string(Api::name) + " summed-area table", run->output.data(), d.expected.data(),
                          d.size, d.size);
    };
    run_checked(state, verdict, verify, [&] { run->once(); }, d.bytes(), 0);
}

template<typename Api>
void compile_dsl(benchmark::State &state) {
    static bool warmed = false;
    run_compile(state, warmed, [] {
        SummedAreaPipeline<Api> p;
        Api::compile(p.sat);
    });
}

void run_cpp(benchmark::State &state) {
    static Verdict verdict;
    static Array<int32_t> output;
    SummedAreaData &d = SummedAreaData::get();
    auto verify = [&] {
        output = Array<int32_t>(d.expected.size());
        return std::string();
    };
    auto once = [&] { summed_area_reference(d.input.data(), output.data(), d.size, d.size); };
    run_checked(state, verdict, verify, once, d.bytes(), 0);
}

}  // namespace

loom::Func make_loom_summed_area() {
    SummedAreaPipeline<LoomApi> p;
    return p.sat;
}

void register_summed_area() {
    register_run("summed_area/cpp", run_cpp);
    register_run("summed_area/loom", run_dsl<LoomApi>);
    register_run("summed_area/loom_vulkan", run_dsl<LoomVulkanApi>);
#ifdef LOOM_BENCH_HAVE_HALIDE
    register_run("summed_area/halide", run_dsl<HalideApi>);
#endif
    register_compile("summed_area/compile/loom", compile_dsl<LoomApi>);
#ifdef LOOM_BENCH_HAVE_HALIDE
    register_compile("summed_area/compile/halide", compile_dsl<HalideApi>);
#endif
}

}  // namespace bench
