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
    Var xo("xo"), xi("xi"), yo("yo"), yi("yi"), yoo("yoo"), yoi("yoi");
    const int lanes = vector_lanes, block_x = kMatmulBlockVectors * vector_lanes;
    m.packed.compute_root().bound(m.panel_x, 0, kMatmulPanel).vectorize(m.panel_x, lanes).parallel(m.panel);
    // The output in blocks of block_x x kMatmulBlockRows. prod, the sum over
    // k, is computed per block, so its kMatmulBlockVectors x
    // kMatmulBlockRows vectors of accumulators stay in registers for the
    // whole k loop: for each k, kMatmulBlockVectors vector loads of the
    // packed panel, kMatmulBlockRows broadcasts of A, and their
    // multiply-adds. The last column of blocks is guarded, not shifted in,
    // so every block starts on a panel boundary (its panel reads are dense
    // vectors); prod's block keeps its constant size there (bound_extent),
    // computing a few columns past the last from the repeated last column.
    // Eight rows of blocks share a B panel while it is in cache (yoi inside
    // xo); groups of them run in parallel.
    m.output.split(x, xo, xi, block_x, TailStrategy::GuardWithIf)
        .split(y, yo, yi, kMatmulBlockRows)
        .split(yo, yoo, yoi, 8, TailStrategy::GuardWithIf)
        .reorder(xi, yi, yoi, xo, yoo)
        .vectorize(xi, lanes)
        .unroll(yi)
        .parallel(yoo);
    m.prod.compute_at(m.output, yoi)
        .bound_extent(x, block_x)
        .bound_extent(y, kMatmulBlockRows)
        .vectorize(x, lanes)
        .unroll(x)
        .unroll(y);
    m.prod.update(0).reorder(x, y, m.k.x).vectorize(x, lanes).unroll(x).unroll(y);
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
