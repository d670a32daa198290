// iir_blur: a first-order recursive (IIR) blur of a float RGB image, run
// down the columns forwards and backwards, then the same along the rows:
//
//   fwd(x, 0) = in(x, 0);      fwd(x, y) = (1 - a) in(x, y) + a fwd(x, y-1)
//   bwd(x, H-1) = fwd(x, H-1); bwd(x, y) = (1 - a) fwd(x, y) + a bwd(x, y+1)
//
// The row pass is the column pass applied to the transposed image, and the
// result is transposed back, so both scans walk memory the same way: each
// step of a scan reads and writes whole rows, with the lanes of a vector
// across x (independent columns).
#ifndef LOOM_APPS_IIR_BLUR_ALGORITHM_H
#define LOOM_APPS_IIR_BLUR_ALGORITHM_H

#include "../common/dsl.h"

namespace apps {
inline namespace LOOM_APPS_DSL {

/** One column pass: its two scans. */
struct IirColumns {
    loom::Func fwd, bwd;
    loom::RDom down, up;  // the rows each scan walks
};

/** The Funcs of the blur, for scheduling. */
struct IirBlur {
    loom::Var x{"x"}, y{"y"}, c{"c"};
    IirColumns columns, rows;  // rows: the column pass over `transposed`
    loom::Func transposed{"transposed"}, output;
    loom::Expr width, height;
};

/** Defines output(x, y, c) as the blur of input (float, x, y, c) over
 * [0, width) x [0, height) with the feedback coefficient alpha in [0, 1). */
IirBlur define_iir_blur(const loom::Func &input, const loom::Expr &width, const loom::Expr &height,
                        const loom::Expr &alpha, loom::Func output);

/** The CPU schedule: each scan in strips of columns, the strips in
 * parallel, a strip's columns in vectors; the transposes in 8x8 blocks. */
void schedule_iir_blur(IirBlur &blur);

}  // namespace LOOM_APPS_DSL
}  // namespace apps

#endif
