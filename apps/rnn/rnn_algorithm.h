// rnn: an Elman recurrent network over T steps,
//
//   h_{t+1}(j) = tanh(b(j) + sum_k W(j, k) x_t(k) + sum_k U(j, k) h_t(k)),
//
// written by hand as loop-carried state: h(j, i) is the hidden state before
// step i (h(j, 0) = h0), one update over RDom r(0, T) writes h(j, r + 1),
// the iteration dimension is folded to two slots, and the pre-activation
// (U h_t plus W x_t + b, the latter computed for all steps before the
// recurrence as one matrix product) is computed once per step at the RVar
// (docs/LANGUAGE.md, loop-carried state). tanh is fast_tanh, the rational
// approximation Eigen and ONNX Runtime use, which vectorises; Loom's tanh()
// is a libm call per lane.
//
// Layouts are those of the ONNX model (apps/rnn/rnn_onnx_model.h) over the
// same bytes: x(k, t) is ONNX xs[t, 0, k]; w(j, k) is ONNX W[k, j] (x_t @ W),
// u(j, k) is ONNX U[k, j] (h @ U).
#ifndef LOOM_APPS_RNN_ALGORITHM_H
#define LOOM_APPS_RNN_ALGORITHM_H

#include <loom/Loom.h>

namespace apps {

struct Rnn {
    loom::Var j{"j"}, i{"i"};
    loom::Func h{"h"};        // h(j, i): the state before step i (two steps stored)
    loom::Func h_final;       // h after the last step
    loom::Func wx{"wx"};      // wx(j, i) = b(j) + (W x_i)(j), for every step before the recurrence
    loom::Func pre{"pre"};    // pre(j, i): the argument of tanh at step i
    loom::RDom steps, kx, kh; // the steps; the sums over x and over h
    loom::Expr hidden;
};

/** x: float (input, T); h0: float (hidden); w: float (hidden, input);
 * u: float (hidden, hidden); b: float (hidden). */
Rnn define_rnn(const loom::Func &x, const loom::Func &h0, const loom::Func &w, const loom::Func &u,
               const loom::Func &b, const loom::Expr &input, const loom::Expr &hidden, const loom::Expr &steps,
               loom::Func h_final);

/** CPU: the state at the root folded to two steps, pre computed per step
 * with 8-float vectors across j (the products as broadcast multiply-adds). */
void schedule_rnn(Rnn &rnn);

}  // namespace apps

#endif
