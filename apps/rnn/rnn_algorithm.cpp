#include "rnn_algorithm.h"

using namespace loom;

namespace apps {

Rnn define_rnn(const Func &x, const Func &h0, const Func &w, const Func &u, const Func &b, const Expr &input,
               const Expr &hidden, const Expr &steps, Func h_final) {
    Rnn rnn;
    rnn.h_final = h_final;
    rnn.hidden = hidden;
    Var j = rnn.j, i = rnn.i;
    rnn.kx = RDom(0, input, "kx");
    rnn.kh = RDom(0, hidden, "kh");
    rnn.steps = RDom(0, steps, "r");
    Func &h = rnn.h, &pre = rnn.pre;
    RDom &r = rnn.steps;

    h(j, i) = undef<float>();  // the updates write every state read
    h(j, 0) = h0(j);
    // W x_t + b for every step at once (it does not depend on the state):
    // one matrix product before the recurrence.
    Func &wx = rnn.wx;
    wx(j, i) = b(j);
    wx(j, i) += w(j, rnn.kx) * x(rnn.kx, i);
    // One step's pre-activation from the state before it.
    pre(j, i) = wx(j, i);
    pre(j, i) += u(j, rnn.kh) * h(rnn.kh, i);
    // fast_tanh: a rational function that vectorises (tanh() calls libm once
    // per lane), the approximation ONNX Runtime uses too.
    h(j, r + 1) = fast_tanh(pre(j, r));
    h_final(j) = h(j, steps);
    return rnn;
}

void schedule_rnn(Rnn &rnn) {
    Var j = rnn.j;
    // Step r + 1 reads every element of step r (U h): the state spans the
    // whole hidden vector, and two steps are kept.
    rnn.h.compute_root().bound(j, 0, rnn.hidden).fold_storage(rnn.i, 2);
    rnn.h.update(0).vectorize(j, 16, TailStrategy::GuardWithIf);
    // The step loop outermost (an update's RVars are innermost by default):
    // every j of step r is written before step r + 1 reads them.
    rnn.h.update(1).reorder(j, rnn.steps.x).vectorize(j, 16, TailStrategy::GuardWithIf);
    // One step's pre-activation, computed inside the step loop: k outside,
    // 8 lanes of j inside (a row of W or U times a broadcast x(k) or h(k)).
    rnn.pre.compute_at(rnn.h, rnn.steps.x).vectorize(j, 16, TailStrategy::GuardWithIf);
    rnn.pre.update(0).reorder(j, rnn.kh.x).vectorize(j, 16, TailStrategy::GuardWithIf);
    // W x_t + b for all steps: steps in parallel, k outside j.
    rnn.wx.compute_root().vectorize(j, 16, TailStrategy::GuardWithIf).parallel(rnn.i);
    rnn.wx.update(0).reorder(j, rnn.kx.x, rnn.i).vectorize(j, 16, TailStrategy::GuardWithIf).parallel(rnn.i);
    rnn.h_final.vectorize(j, 16, TailStrategy::GuardWithIf);
}

}  // namespace apps
