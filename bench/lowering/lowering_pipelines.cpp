// The pipelines of bench_lowering (lowering_pipelines.h), compiled once with
// Loom and once against Halide 14 (apps/common/dsl.h aliases `loom` to
// `Halide` when LOOM_APPS_HALIDE14 is defined).
#include "lowering_pipelines.h"

#include <vector>

#include "local_laplacian/local_laplacian_algorithm.h"

namespace bench_lowering {
namespace LOOM_APPS_DSL {

using namespace loom;

namespace {

void write_stmt(Func &output, const std::string &stmt_file, const std::vector<Argument> &args) {
    output.compile_to_lowered_stmt(stmt_file, args, StmtOutputFormat::Text, get_jit_target_from_environment());
}

}  // namespace

void lower_vectorized_chain(int n, const std::string &stmt_file) {
    ImageParam input(Float(32), 2, "input");
    Var x("x"), y("y");
    Func prev("f0");
    prev(x, y) = input(x, y);
    prev.compute_root().vectorize(x, 8);
    for (int i = 1; i <= n; i++) {
        Func f("f" + std::to_string(i));
        f(x, y) = prev(x - 1, y) + prev(x, y) + prev(x + 1, y);
        f.compute_root().vectorize(x, 8);
        prev = f;
    }
    write_stmt(prev, stmt_file, {input});
}

namespace {

void lower_select_chain(int n, int vector_width, const std::string &stmt_file) {
    ImageParam input(Int(32), 1, "input");
    Var x("x");
    Func prev("g0");
    prev(x) = input(x);
    for (int i = 1; i <= n; i++) {
        Func f("g" + std::to_string(i));
        f(x) = select(prev(x) > x, prev(x - 1), prev(x + 1)) - 1;
        prev = f;
    }
    Func output("output");
    output(x) = prev(x);
    if (vector_width > 1) output.vectorize(x, vector_width);
    write_stmt(output, stmt_file, {input});
}

}  // namespace

void lower_inlined_select_chain(int n, const std::string &stmt_file) { lower_select_chain(n, 1, stmt_file); }

void lower_inlined_select_chain_vectorized(int n, const std::string &stmt_file) {
    lower_select_chain(n, 8, stmt_file);
}

void lower_local_laplacian(int levels, const std::string &stmt_file) {
    ImageParam input(UInt(16), 3, "input");
    Param<float> alpha("alpha"), beta("beta");
    Func output("local_laplacian");
    apps::LocalLaplacian p =
        apps::define_local_laplacian(input, input.width(), input.height(), levels, alpha, beta, output);
    apps::schedule_local_laplacian(p);
    write_stmt(output, stmt_file, {input, alpha, beta});
}

}  // namespace LOOM_APPS_DSL
}  // namespace bench_lowering
