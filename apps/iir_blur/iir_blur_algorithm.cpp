#include "iir_blur_algorithm.h"

namespace apps {
inline namespace LOOM_APPS_DSL {

using namespace loom;

namespace {

// Blurs f down its columns (rows 0 .. height-1) forwards, then backwards,
// and transposes the result.
IirColumns blur_columns_transpose(const IirBlur &b, const Func &f, const Expr &height, const Expr &alpha,
                                  const std::string &name, Func transpose) {
    const Var &x = b.x, &y = b.y, &c = b.c;
    IirColumns p{Func(name + "_blur"), std::move(transpose), RDom(1, height - 1, name + "_rows")};
    const RDom &ry = p.rows;
    p.blur(x, y, c) = undef<float>();
    p.blur(x, 0, c) = f(x, 0, c);
    p.blur(x, ry, c) = (1.0f - alpha) * f(x, ry, c) + alpha * p.blur(x, ry - 1, c);
    Expr flipped = height - 1 - ry;  // height-2 down to 0
    p.blur(x, flipped, c) = (1.0f - alpha) * p.blur(x, flipped, c) + alpha * p.blur(x, flipped + 1, c);
    p.transpose(x, y, c) = p.blur(y, x, c);
    return p;
}

}  // namespace

IirBlur define_iir_blur(const Func &input, const Expr &width, const Expr &height, const Expr &alpha, Func output) {
    IirBlur b;
    b.width = width;
    b.height = height;
    b.columns = blur_columns_transpose(b, input, height, alpha, "columns", Func("columns_transpose"));
    // The row pass's transpose is the output.
    b.rows = blur_columns_transpose(b, b.columns.transpose, width, alpha, "rows", output);
    b.output = output;
    return b;
}

void schedule_iir_blur(IirBlur &b, int vector_lanes) {
    const int lanes = vector_lanes;
    const Var &x = b.x, &y = b.y, &c = b.c;
    for (IirColumns *pass : {&b.columns, &b.rows}) {
        Var xo("xo"), yo("yo"), xi("xi"), yi("yi");
        // The transpose in tiles of lanes x 4 lanes; a row of tiles (yo) is
        // a strip of 4 lanes columns of the blur, computed there, so the
        // blur of a strip stays in cache until it is transposed. Strips
        // and channels run in parallel.
        pass->transpose.compute_root()
            .tile(x, y, xo, yo, xi, yi, lanes, lanes * 4)
            .vectorize(xi)
            .parallel(yo)
            .parallel(c);
        pass->blur.compute_at(pass->transpose, yo);
        // Each step of a scan is a row of the strip, in vectors.
        pass->blur.update(1).reorder(x, pass->rows.x).vectorize(x, lanes);
        pass->blur.update(2).reorder(x, pass->rows.x).vectorize(x, lanes);
    }
}

}  // namespace LOOM_APPS_DSL
}  // namespace apps
