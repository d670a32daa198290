// matmul: a single-precision matrix product, out = A B, with matrices stored
// row by row as 2-D buffers indexed (column, row):
//
//   out(x, y) = sum over k of A(k, y) * B(x, k)
//
// A is K columns x M rows, B is N x K, out is N x M.
#ifndef LOOM_APPS_MATMUL_ALGORITHM_H
#define LOOM_APPS_MATMUL_ALGORITHM_H

#include <loom/Loom.h>

namespace apps {

/** Columns of B per packed panel: two AVX2 vectors of floats. */
constexpr int kMatmulPanel = 16;

/** The Funcs of the product, for scheduling. */
struct Matmul {
    loom::Var x{"x"}, y{"y"};
    loom::Var panel_x{"px"}, panel_k{"pk"}, panel{"panel"};
    loom::RDom k;
    loom::Func packed{"packed_b"}, prod{"prod"}, output;
    loom::Expr m_extent, n_extent;  // rows of A, columns of B
};

/** Defines output(x, y) = sum_k a(k, y) * b(x, k) for k in [0, k_extent);
 * a has m_extent rows, b has n_extent columns. */
Matmul define_matmul(const loom::Func &a, const loom::Func &b, const loom::Expr &k_extent,
                     const loom::Expr &m_extent, const loom::Expr &n_extent, loom::Func output);

/** The CPU schedule: B packed into panels of 16 columns; the product in
 * blocks of 16 x 4 outputs (4 x 2 vectors of accumulators over the whole k
 * loop), rows of blocks in parallel. */
void schedule_matmul(Matmul &m);

/** The GPU schedule: one thread per output, 16 x 16 workgroups; each
 * thread's sum over k runs serially in a register (prod computed at the
 * thread loop); B is read in place (the CPU's packed panels are inlined). */
void schedule_matmul_gpu(Matmul &m, loom::DeviceAPI device_api = loom::DeviceAPI::Default_GPU);

}  // namespace apps

#endif
