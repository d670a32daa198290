#include "matmul_algorithm.h"

namespace apps {

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

    // Rows of A are clamped although every read is inside A: Loom sizes the
    // region of a split with a GuardWithIf tail (the default for update
    // stages) as if it were rounded up, so the blocks of 4 rows below would
    // otherwise fail the bounds check of A when M is not a multiple of 4.
    Expr row = clamp(y, 0, m_extent - 1);
    m.prod(x, y) = 0.0f;
    m.prod(x, y) += a(m.k, row) * m.packed(x % kMatmulPanel, m.k, x / kMatmulPanel);
    m.output(x, y) = m.prod(x, y);
    return m;
}

void schedule_matmul(Matmul &m) {
    const Var &x = m.x, &y = m.y;
    Var xi("xi"), yi("yi");
    m.packed.compute_root().bound(m.panel_x, 0, kMatmulPanel).vectorize(m.panel_x, 8).parallel(m.panel);
    // The product in blocks of 16 x 4 outputs: for each k, 2 vector loads
    // of the panel, 4 broadcasts of A and 8 multiply-adds into 8 vectors of
    // accumulators; rows of blocks in parallel.
    //
    // prod is computed at the root rather than per output tile (compute_at
    // a tile loop, which would keep a tile's accumulators in registers):
    // Loom over-estimated the region of a Func computed inside a tile loop
    // (PERFORMANCE.md, P1: "a is accessed at 187, which is beyond the max
    // (95)"), and the extent of such a tile is not a constant after the
    // ShiftInwards clamp, so it cannot be unrolled (P4).
    m.prod.compute_root().vectorize(x, 8).parallel(y, 4);
    m.prod.update(0)
        .tile(x, y, xi, yi, kMatmulPanel, 4)
        .reorder(xi, yi, m.k.x, x, y)
        .vectorize(xi, 8)
        .unroll(xi)
        .unroll(yi)
        .parallel(y);
    // The output starts at (0, 0): then x % 16 and x / 16 of a block's
    // first column are known to be a panel's first column, and the panel
    // reads are dense vectors instead of gathers.
    m.output.bound(x, 0, m.n_extent).bound(y, 0, m.m_extent).vectorize(x, 8).parallel(y, 8);
}

void schedule_matmul_gpu(Matmul &m, DeviceAPI device_api) {
    Var bx("bx"), by("by"), tx("tx"), ty("ty");
    // Neighbouring threads (x) read neighbouring columns of B for the same
    // k, and all threads of a row share A's element: both are coalesced or
    // broadcast reads, so the packing into panels buys nothing here.
    m.output.gpu_tile(m.x, m.y, bx, by, tx, ty, 16, 16, TailStrategy::Auto, device_api);
    m.prod.compute_at(m.output, tx);
}

}  // namespace apps
