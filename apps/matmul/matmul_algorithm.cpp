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
    // With 32 vector registers (16 lanes: AVX-512) a 4-vector x 6-row block
    // makes 24 FMAs per k for 10 loads (4 of B, 6 broadcasts of A) instead
    // of 16 for 10, and a deeper slice halves the accumulators' reloads;
    // single-threaded on Zen 4 that is 80-89% of the FMA peak instead of
    // 70-78% (docs/PERFORMANCE.md). With 16 registers such a block spills.
    const bool wide = vector_lanes >= 16;
    const int lanes = vector_lanes;
    const int block_x = (wide ? kMatmulWideBlockVectors : kMatmulBlockVectors) * vector_lanes;
    const int block_rows = wide ? kMatmulWideBlockRows : kMatmulBlockRows;
    const int k_block = wide ? kMatmulWideKBlock : kMatmulKBlock;
    m.packed.compute_root().bound(m.panel_x, 0, kMatmulPanel).vectorize(m.panel_x, lanes).parallel(m.panel);
    // The output in blocks of block_x x block_rows; a column of
    // kMatmulBlockGroup such blocks (yoi) shares a B panel, and groups of
    // rows (yoo) run in parallel. The last column of blocks is guarded, not
    // shifted in, so every block starts on a panel boundary (its panel reads
    // are dense vectors).
    m.output.split(x, xo, xi, block_x, TailStrategy::GuardWithIf)
        .split(y, yo, yi, block_rows)
        .split(yo, yoo, yoi, kMatmulBlockGroup, TailStrategy::GuardWithIf)
        .reorder(xi, yi, yoi, xo, yoo)
        .vectorize(xi, lanes)
        .unroll(yi);
    m.output.parallel(yoo);
    // prod, the sum over k, is computed per column of blocks (block_x x
    // kMatmulBlockGroup blocks, in L1), keeping its constant width there
    // (bound_extent: a few columns past the last from the repeated last
    // column). Its update runs over k in slices of k_block: for each slice,
    // each block of accumulators stays in registers over the slice, and the
    // slice of the B panels (k_block x block_x floats: 16 KB, or 64 KB with
    // the wide block, in L2) stays in cache for all the blocks of the
    // column. Rows past a partial last block are guarded.
    m.prod.compute_at(m.output, xo).bound_extent(x, block_x).vectorize(x, lanes).unroll(x);
    m.prod.update(0)
        .split(m.k.x, ko, ki, k_block)
        .split(y, pyo, pyi, block_rows, TailStrategy::GuardWithIf)
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
