// loop_add_step: the contract of seed 002 (an ONNX Loop lowered to one fixed
// recurrence). A rank-1 state v starts at v_initial and has step added to it
// on each of min(M, scan_rows) iterations (none when cond is false); row t of
// the scan output is the state after iteration t, and rows past the trip
// count are zero:
//
//   trips        = cond ? min(M, scan_rows) : 0
//   scan(x, t)   = v_initial(x) + step(x) (t + 1 additions, in order)  t < trips
//                = 0                                                   t >= trips
//   v_final(x)   = trips > 0 ? scan(x, trips - 1) : v_initial(x)
//
// The scan output is the loop-carried state itself: state(x, t) is v after
// iteration t, written by update definitions over RDoms spanning the scan
// rows with where() on the trip count, a Func computed at run time from the
// m and cond inputs (an RDom extent read from that Func would run, but the
// rows its update writes would then depend on the Func, which codegen does
// not lower yet: see the .cpp).
#ifndef LOOM_APPS_LOOP_ADD_STEP_ALGORITHM_H
#define LOOM_APPS_LOOP_ADD_STEP_ALGORITHM_H

#include <loom/Loom.h>

namespace apps {

struct LoopAddStep {
    loom::Var x{"x"}, t{"t"};
    loom::Func state;    // state(x, t): the scan output, v after iteration t
    loom::Func v_final;  // v after the last iteration (v_initial if none ran)
    loom::RDom first, rest;        // iteration 0, iterations 1.. (extents from the trip count)
    loom::RDom zero_rows, last_row;  // every row, where() past the trip count / the last that ran
    loom::Func v_initial, step;  // the inputs, copied with a clamped index
    loom::Expr trips;
};

/** m, cond: uint32 inputs of one element (M and the initial condition);
 * v_initial, step: float rank-1 of extent dim; scan_rows: the rows of the
 * scan output (state). */
LoopAddStep define_loop_add_step(const loom::Func &m, const loom::Func &cond, const loom::Func &v_initial,
                                 const loom::Func &step, const loom::Expr &dim, const loom::Expr &scan_rows,
                                 loom::Func state, loom::Func v_final);

/** CPU: the iteration loop outside, 16-float vectors across a row. */
void schedule_loop_add_step(LoopAddStep &p);

/** GPU: one thread per column walks the iterations; the zero rows are a 2-D
 * grid of threads. */
void schedule_loop_add_step_gpu(LoopAddStep &p);

}  // namespace apps

#endif
