// The pipelines bench_lowering times the lowering of, written once against
// the names Loom and Halide share and compiled twice (lowering_pipelines.cpp):
// with Loom (namespace bench_lowering::loom_dsl) and, with LOOM_APPS_HALIDE14
// defined, against Halide 14 (bench_lowering::halide14), as bench/apps does.
//
// Each function defines and schedules its pipeline anew and writes its
// lowered statement to `stmt_file` for the JIT target of the environment
// (LOOM_JIT_TARGET, HL_JIT_TARGET; the host by default), that is, it runs the
// whole of lowering and nothing of code generation. These are the pipelines
// of issue 12's lowering-time targets (docs/PERFORMANCE.md, "Lowering time").
#ifndef LOOM_BENCH_LOWERING_LOWERING_PIPELINES_H
#define LOOM_BENCH_LOWERING_LOWERING_PIPELINES_H

#include <string>

namespace bench_lowering {

#define LOOM_BENCH_LOWERING_DECLARE(dsl)                                                                             \
    namespace dsl {                                                                                                  \
    /* n float Funcs f1..fn, f(i) reading f(i-1) at x - 1, x and x + 1, each */                                     \
    /* compute_root and vectorized by 8, no bound(): region endpoints that */                                       \
    /* grow with every stage unless they are named. */                                                              \
    void lower_vectorized_chain(int n, const std::string &stmt_file);                                                \
    /* n int32 Funcs inlined into the output, f(i)(x) = select(f(i-1)(x) > x, */                                   \
    /* f(i-1)(x - 1), f(i-1)(x + 1)) - 1: an expression tree of 3^n leaves, */                                     \
    /* n^2 distinct values. The output is scalar; ..._vectorized: by 8. */                                          \
    void lower_inlined_select_chain(int n, const std::string &stmt_file);                                            \
    void lower_inlined_select_chain_vectorized(int n, const std::string &stmt_file);                                 \
    /* apps/local_laplacian with its CPU schedule and `levels` pyramid levels. */                                   \
    void lower_local_laplacian(int levels, const std::string &stmt_file);                                            \
    }

LOOM_BENCH_LOWERING_DECLARE(loom_dsl)
LOOM_BENCH_LOWERING_DECLARE(halide14)

#undef LOOM_BENCH_LOWERING_DECLARE

}  // namespace bench_lowering

#endif
