// The apps' pipelines for bench_apps (app_pipelines.h), written once against
// the names Loom and Halide share and compiled twice: with Loom, and with
// LOOM_APPS_HALIDE14 defined against Halide 14 (apps/common/dsl.h aliases
// `loom` to `Halide`). The apps' algorithm files are compiled the same two
// ways, so both languages run the same algorithm with the same schedule.
#include "app_pipelines.h"

#include <cstdlib>
#include <string>
#include <vector>

#include "bilateral_grid/bilateral_grid_algorithm.h"
#include "blur/blur_algorithm.h"
#include "histogram_equalize/histogram_equalize_algorithm.h"
#include "iir_blur/iir_blur_algorithm.h"
#include "local_laplacian/local_laplacian_algorithm.h"
#include "matmul/matmul_algorithm.h"

namespace bench_apps {
namespace LOOM_APPS_DSL {

using namespace loom;

namespace {

#define LOOM_APPS_STRINGIFY2(x) #x
#define LOOM_APPS_STRINGIFY(x) LOOM_APPS_STRINGIFY2(x)

/** The output Func compiled for the JIT target of the environment
 * (LOOM_JIT_TARGET for Loom, HL_JIT_TARGET for Halide; the host by
 * default), realized into `result`. With LOOM_APPS_DUMP_DIR set, the lowered
 * statement and the assembly of the same pipeline for the same target are
 * written there first, as <app>.<language>.stmt and .s, to compare the code
 * the two compilers make for one schedule. `args` are the pipeline's
 * parameters, in the order of the dumped function. */
class Jit : public Runner {
public:
    template<typename T>
    Jit(Func output, Buffer<T> result, const std::vector<Argument> &args)
        : output_(std::move(output)), result_(std::move(result)) {
        if (const char *dir = std::getenv("LOOM_APPS_DUMP_DIR")) {
            const std::string prefix = std::string(dir) + "/" + output_.name() + "." +
                                       LOOM_APPS_STRINGIFY(LOOM_APPS_DSL);
#ifdef LOOM_APPS_HALIDE14
            output_.compile_to_lowered_stmt(prefix + ".stmt", args, StmtOutputFormat::Text, target_);
#else
            output_.compile_to_lowered_stmt(prefix + ".stmt", args, target_);
#endif
            output_.compile_to_assembly(prefix + ".s", args, output_.name(), target_);
        }
        output_.compile_jit(target_);
    }
    void run() override { output_.realize(result_, target_); }

private:
    Target target_ = get_jit_target_from_environment();
    Func output_;
    Buffer<> result_;
};

}  // namespace

std::unique_ptr<Runner> make_blur(uint16_t *in, int width, int height, uint16_t *out) {
    ImageParam input(UInt(16), 2, "input");
    Func output("blur");
    apps::Blur b = apps::define_blur(input, input.width(), input.height(), output);
    apps::schedule_blur(b);
    input.set(Buffer<uint16_t>(in, width, height));
    return std::make_unique<Jit>(output, Buffer<uint16_t>(out, width, height), std::vector<Argument>{input});
}

std::unique_ptr<Runner> make_iir_blur(float *in, int width, int height, float alpha, float *out) {
    ImageParam input(Float(32), 3, "input");
    Param<float> a("alpha");
    Func output("iir_blur");
    apps::IirBlur b = apps::define_iir_blur(input, input.width(), input.height(), a, output);
    apps::schedule_iir_blur(b, get_jit_target_from_environment().natural_vector_size<float>());
    input.set(Buffer<float>(in, width, height, 3));
    a.set(alpha);
    return std::make_unique<Jit>(output, Buffer<float>(out, width, height, 3), std::vector<Argument>{input, a});
}

std::unique_ptr<Runner> make_matmul(float *a, float *b, int n, float *out) {
    ImageParam pa(Float(32), 2, "a"), pb(Float(32), 2, "b");
    Func output("matmul");
    apps::Matmul m = apps::define_matmul(pa, pb, pa.width(), pa.height(), pb.width(), output);
    apps::schedule_matmul(m, get_jit_target_from_environment().natural_vector_size<float>());
    pa.set(Buffer<float>(a, n, n));
    pb.set(Buffer<float>(b, n, n));
    return std::make_unique<Jit>(output, Buffer<float>(out, n, n), std::vector<Argument>{pa, pb});
}

std::unique_ptr<Runner> make_bilateral_grid(float *in, int width, int height, int s_sigma, float r_sigma,
                                            float *out) {
    ImageParam input(Float(32), 2, "input");
    Param<float> r("r_sigma");
    Func output("bilateral_grid");
    apps::BilateralGrid g = apps::define_bilateral_grid(input, input.width(), input.height(), s_sigma, r, output);
    apps::schedule_bilateral_grid(g);
    input.set(Buffer<float>(in, width, height));
    r.set(r_sigma);
    return std::make_unique<Jit>(output, Buffer<float>(out, width, height), std::vector<Argument>{input, r});
}

std::unique_ptr<Runner> make_local_laplacian(uint16_t *in, int width, int height, int levels, float alpha,
                                             float beta, uint16_t *out) {
    ImageParam input(UInt(16), 3, "input");
    Param<float> a("alpha"), b("beta");
    Func output("local_laplacian");
    apps::LocalLaplacian p = apps::define_local_laplacian(input, input.width(), input.height(), levels, a, b, output);
    apps::schedule_local_laplacian(p);
    input.set(Buffer<uint16_t>(in, width, height, 3));
    a.set(alpha);
    b.set(beta);
    return std::make_unique<Jit>(output, Buffer<uint16_t>(out, width, height, 3), std::vector<Argument>{input, a, b});
}

std::unique_ptr<Runner> make_histogram_equalize(uint8_t *in, int width, int height, uint8_t *out) {
    ImageParam input(UInt(8), 2, "input");
    Func output("histogram_equalize");
    apps::HistogramEqualize h = apps::define_histogram_equalize(input, input.width(), input.height(), output);
    apps::schedule_histogram_equalize(h);
    input.set(Buffer<uint8_t>(in, width, height));
    return std::make_unique<Jit>(output, Buffer<uint8_t>(out, width, height), std::vector<Argument>{input});
}

}  // namespace LOOM_APPS_DSL
}  // namespace bench_apps
