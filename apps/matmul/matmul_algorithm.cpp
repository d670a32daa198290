#include "matmul_algorithm.h"

namespace apps {
inline namespace LOOM_APPS_DSL {

using namespace loom;

Matmul define_matmul(const Func &a, const Func &b, const Expr &k_extent, const Expr &m_extent, const Expr &n_extent,
                     Func output) {
    Matmul m;
    m.output = output;
    m.m_extent = m_extent;
    m.n_extent = n_extent;
    const Var &x = m.x, &y = m.y;
    m.k = RDom(0, k_extent, "k");
    // B re-laid out in panels of kMatmulPanel columns: packed(i, k, p) =
    // B(p * 16 + i, k). The rows of B are far apart in memory; a panel is
    // contiguous, so the inner loop streams through it. Columns past the
    // last one repeat it (a partial last panel).
    Expr column = min(m.panel * kMatmulPanel + m.panel_x, n_extent - 1);
    m.packed(m.panel_x, m.panel_k, m.panel) = b(column, m.panel_k);

    m.prod(x, y) = 0.0f;
    m.prod(x, y) += a(m.k, y) * m.packed(x % kMatmulPanel, m.k, x / kMatmulPanel);
    m.output(x, y) = m.prod(x, y);
    return m;
}

void schedule_matmul(Matmul &m, int vector_lanes) {
    const Var &x = m.x, &y = m.y;
    Var xo("xo"), xi("xi"), yo("yo"), yi("yi"), yoo("yoo"), yoi("yoi"), pyo("pyo"), pyi("pyi");
    RVar ko("ko"), ki("ki");
    const int lanes = vector_lanes, block_x = kMatmulBlockVectors * vector_lanes;
    m.packed.compute_root().bound(m.panel_x, 0, kMatmulPanel).vectorize(m.panel_x, lanes).parallel(m.panel);
    // The output in blocks of block_x x kMatmulBlockRows; a column of
    // kMatmulBlockGroup such blocks (yoi) shares a B panel, and groups of
    // rows (yoo) run in parallel. The last column of blocks is guarded, not
    // shifted in, so every block starts on a panel boundary (its panel reads
    // are dense vectors).
    m.output.split(x, xo, xi, block_x, TailStrategy::GuardWithIf)
        .split(y, yo, yi, kMatmulBlockRows)
        .split(yo, yoo, yoi, kMatmulBlockGroup, TailStrategy::GuardWithIf)
        .reorder(xi, yi, yoi, xo, yoo)
        .vectorize(xi, lanes)
        .unroll(yi);
    m.output.parallel(yoo);
    // prod, the sum over k, is computed per column of blocks (block_x x
    // kMatmulBlockGroup blocks, in L1), keeping its constant width there
    // (bound_extent: a few columns past the last from the repeated last
    // column). Its update runs over k in slices of kMatmulKBlock: for each
    // slice, each block of kMatmulBlockVectors x kMatmulBlockRows vectors
    // of accumulators stays in registers over the slice, and the slice of
    // the B panel (kMatmulKBlock x block_x floats) stays in L1 for all the
    // blocks of the column. Rows past a partial last block are guarded.
    m.prod.compute_at(m.output, xo).bound_extent(x, block_x).vectorize(x, lanes).unroll(x);
    m.prod.update(0)
        .split(m.k.x, ko, ki, kMatmulKBlock)
        .split(y, pyo, pyi, kMatmulBlockRows, TailStrategy::GuardWithIf)
        .reorder(x, pyi, ki, pyo, ko)
        .vectorize(x, lanes)
        .unroll(x)
        .unroll(pyi);
    // The output starts at (0, 0), so a block's first column is a multiple
    // of the panel width.
    m.output.bound(x, 0, m.n_extent).bound(y, 0, m.m_extent);
}

void schedule_matmul_gpu(Matmul &m, DeviceAPI device_api) {
    Var bx("bx"), by("by"), tx("tx"), ty("ty");
    // Neighbouring threads (x) read neighbouring columns of B for the same
    // k, and all threads of a row share A's element: both are coalesced or
    // broadcast reads, so the packing into panels buys nothing here.
    m.output.gpu_tile(m.x, m.y, bx, by, tx, ty, 16, 16, TailStrategy::Auto, device_api);
    m.prod.compute_at(m.output, tx);
}

}  // namespace LOOM_APPS_DSL
}  // namespace apps
