// iir_blur: a first-order recursive (IIR) blur of a float RGB image, run
// down the columns forwards and backwards, then the same along the rows:
//
//   fwd(x, 0) = in(x, 0);      fwd(x, y) = (1 - a) in(x, y) + a fwd(x, y-1)
//   bwd(x, H-1) = fwd(x, H-1); bwd(x, y) = (1 - a) fwd(x, y) + a bwd(x, y+1)
//
// As in Halide's iir_blur app, a column pass is one Func with both scans
// as updates (the first row copied, then forwards, then backwards), and it
// ends in a transpose; the row pass is the same column pass applied to the
// transposed image, whose transpose is the output. So both scans walk
// memory the same way: each step reads and writes a row of a strip, the
// lanes of a vector across x (independent columns).
#ifndef LOOM_APPS_IIR_BLUR_ALGORITHM_H
#define LOOM_APPS_IIR_BLUR_ALGORITHM_H

#include "../common/dsl.h"

namespace apps {
inline namespace LOOM_APPS_DSL {

/** One column pass: the blur down the columns (pure definition undef;
 * update 0 the first row, update 1 forwards over `rows`, update 2
 * backwards over `rows`) and its transpose. */
struct IirColumns {
    loom::Func blur, transpose;
    loom::RDom rows;  // 1 .. height - 1
};

/** The Funcs of the blur, for scheduling: `columns` blurs the input down
 * its columns; `rows` blurs columns.transpose, and rows.transpose is
 * `output`. */
struct IirBlur {
    loom::Var x{"x"}, y{"y"}, c{"c"};
    IirColumns columns, rows;
    loom::Func output;
    loom::Expr width, height;
};

/** Defines output(x, y, c) as the blur of input (float, x, y, c) over
 * [0, width) x [0, height) with the feedback coefficient alpha in [0, 1). */
IirBlur define_iir_blur(const loom::Func &input, const loom::Expr &width, const loom::Expr &height,
                        const loom::Expr &alpha, loom::Func output);

/** The CPU schedule (Halide's app): each transpose in tiles of
 * vector_lanes x 4 vector_lanes, rows of tiles and channels in parallel;
 * the blur computed per row of tiles (a strip of 4 vector_lanes columns of
 * its own, in cache), its scans vectorized across the strip. */
void schedule_iir_blur(IirBlur &blur, int vector_lanes);

}  // namespace LOOM_APPS_DSL
}  // namespace apps

#endif
