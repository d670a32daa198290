// matmul: a single-precision matrix product, out = A B, with matrices stored
// row by row as 2-D buffers indexed (column, row):
//
//   out(x, y) = sum over k of A(k, y) * B(x, k)
//
// A is K columns x M rows, B is N x K, out is N x M.
#ifndef LOOM_APPS_MATMUL_ALGORITHM_H
#define LOOM_APPS_MATMUL_ALGORITHM_H

#include "../common/dsl.h"

namespace apps {
inline namespace LOOM_APPS_DSL {

/** Columns of B per packed panel. */
constexpr int kMatmulPanel = 16;
/** The CPU schedule's block of outputs: kMatmulBlockRows rows of
 * kMatmulBlockVectors vectors, with vectors of fewer than 16 lanes (16
 * vector registers: AVX2, NEON). */
constexpr int kMatmulBlockRows = 8;
constexpr int kMatmulBlockVectors = 2;
/** The block with 16-lane vectors (AVX-512, 32 vector registers): 24
 * accumulators, 4 B vectors and a broadcast of A. */
constexpr int kMatmulWideBlockRows = 6;
constexpr int kMatmulWideBlockVectors = 4;
/** Blocks of a column that share a slice of a B panel, and the depth (k)
 * of the slice (kMatmulWideKBlock with 16-lane vectors). */
constexpr int kMatmulBlockGroup = 8;
constexpr int kMatmulKBlock = 128;
constexpr int kMatmulWideKBlock = 256;

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

/** The CPU schedule: B packed into panels of kMatmulPanel columns; the
 * product in blocks of kMatmulBlockRows rows of kMatmulBlockVectors vectors
 * of vector_lanes floats (the target's natural vector: 16 with AVX-512, 8
 * with AVX2; with 16 lanes or more the kMatmulWide* block and slice),
 * computed per column of kMatmulBlockGroup blocks, over k in slices of
 * kMatmulKBlock: each block's accumulators stay in registers over a slice,
 * and the slice of the B panel stays in cache for the whole column; rows of
 * blocks in parallel. Needs a product at least one block wide and tall (the
 * blocks' ShiftInwards tails). */
void schedule_matmul(Matmul &m, int vector_lanes = 8);

/** The GPU schedule: one thread per output, 16 x 16 workgroups; each
 * thread's sum over k runs serially in a register (prod computed at the
 * thread loop); B is read in place (the CPU's packed panels are inlined). */
void schedule_matmul_gpu(Matmul &m, loom::DeviceAPI device_api = loom::DeviceAPI::Default_GPU);

}  // namespace LOOM_APPS_DSL
}  // namespace apps

#endif
