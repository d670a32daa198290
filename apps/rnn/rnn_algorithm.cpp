#include "rnn_algorithm.h"

using namespace loom;

namespace apps {

/** tanh(x) as a rational function of x (odd degree-13 numerator, even
 * degree-6 denominator, inputs clamped to +-7.9): the approximation of
 * Eigen's and ONNX Runtime's (MLAS) float tanh. Plain arithmetic, so it
 * vectorises; Loom's tanh() calls libm's tanhf once per lane. */
Expr rational_tanh(const Expr &v) {
    Expr x = clamp(v, -7.90531110763549805f, 7.90531110763549805f);
    Expr x2 = x * x;
    Expr p = x2 * -2.76076847742355e-16f + 2.00018790482477e-13f;
    p = x2 * p + -8.60467152213735e-11f;
    p = x2 * p + 5.12229709037114e-08f;
    p = x2 * p + 1.48572235717979e-05f;
    p = x2 * p + 6.37261928875436e-04f;
    p = x2 * p + 4.89352455891786e-03f;
    p = x * p;
    Expr q = x2 * 1.19825839466702e-06f + 1.18534705686654e-04f;
    q = x2 * q + 2.26843463243900e-03f;
    q = x2 * q + 4.89352518554385e-03f;
    return select(abs(v) < 0.0004f, v, p / q);
}

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
    h(j, r + 1) = rational_tanh(pre(j, r));
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
