#include "iir_blur_algorithm.h"

namespace apps {
inline namespace LOOM_APPS_DSL {

using namespace loom;

namespace {

// Blurs f down its columns (rows 0 .. height-1) forwards, then backwards.
IirColumns blur_columns(const Func &f, const Expr &height, const Expr &alpha, const std::string &name) {
    Var x("x"), y("y"), c("c");
    IirColumns p{Func(name + "_fwd"), Func(name + "_bwd"), RDom(1, height - 1, name + "_down"),
                 RDom(1, height - 1, name + "_up")};
    const RDom &down = p.down, &up = p.up;
    p.fwd(x, y, c) = f(x, y, c);
    p.fwd(x, down, c) = (1.0f - alpha) * f(x, down, c) + alpha * p.fwd(x, down - 1, c);

    Expr row = height - 1 - up;  // height-2 down to 0
    p.bwd(x, y, c) = p.fwd(x, y, c);
    p.bwd(x, row, c) = (1.0f - alpha) * p.fwd(x, row, c) + alpha * p.bwd(x, row + 1, c);
    return p;
}

}  // namespace

IirBlur define_iir_blur(const Func &input, const Expr &width, const Expr &height, const Expr &alpha, Func output) {
    IirBlur b;
    b.output = output;
    b.width = width;
    b.height = height;
    b.columns = blur_columns(input, height, alpha, "columns");
    b.transposed(b.x, b.y, b.c) = b.columns.bwd(b.y, b.x, b.c);
    b.rows = blur_columns(b.transposed, width, alpha, "rows");
    b.output(b.x, b.y, b.c) = b.rows.bwd(b.y, b.x, b.c);
    return b;
}

void schedule_iir_blur(IirBlur &b) {
    const Var &x = b.x, &y = b.y;
    Var xo("xo"), xi("xi"), yi("yi");
    // A scan's pure definition is a copy (vectorized rows, rows in
    // parallel). Its update walks down a strip of 32 columns with 8-float
    // vectors across the strip, so every step reads and writes 128
    // contiguous bytes; the strips run in parallel. The last strip is
    // guarded (GuardWithIf) rather than rounded up (the default for a pure
    // Var of an update), which would read the input past its last column.
    auto schedule_scan = [&](Func f, const RDom &scan) {
        f.compute_root().vectorize(x, 8).parallel(y);
        f.update(0).split(x, xo, xi, 32, TailStrategy::GuardWithIf).reorder(xi, scan.x, xo).vectorize(xi, 8).parallel(xo);
    };
    for (IirColumns *pass : {&b.columns, &b.rows}) {
        schedule_scan(pass->fwd, pass->down);
        schedule_scan(pass->bwd, pass->up);
    }
    // The transposes go through 8x8 blocks, so both the reads and the
    // writes touch whole cache lines.
    b.transposed.compute_root().tile(x, y, xi, yi, 8, 8).vectorize(xi).unroll(yi).parallel(y);
    b.output.tile(x, y, xi, yi, 8, 8).vectorize(xi).unroll(yi).parallel(y);
}

}  // namespace LOOM_APPS_DSL
}  // namespace apps
