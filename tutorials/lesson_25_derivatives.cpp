// Lesson 25: derivatives of a pipeline with propagate_adjoints.
//
// propagate_adjoints(loss) differentiates a pipeline in reverse mode: for a
// scalar loss it returns a Derivative d whose d(f), d(buffer) and d(param)
// are ordinary Funcs holding d loss / d f(x) at every point x. Here we use
// it to learn the three taps of a blur by gradient descent:
//
//   blur(x) = sum_k weights(k) * in(x + k)
//   loss()  = sum_x (blur(x) - target(x))^2
//   d(weights)(k) = sum_x 2 (blur(x) - target(x)) in(x + k)
//
// The gradient Func is compiled once; each step realizes it with the
// current weights and moves them against it. Part 3 differentiates a scan
// (a recursive filter) with respect to its feedback coefficient.

#include <cmath>
#include <cstdio>
#include <vector>

#include <loom/Loom.h>

using namespace loom;

int main() {
    const int N = 64;
    const float true_weights[3] = {0.25f, 0.5f, -0.125f};
    Buffer<float> in(N + 2, "in"), target(N, "target"), weights(3, "weights");
    for (int i = 0; i < N + 2; i++) in(i) = std::sin(0.7f * (float)i) + 0.5f * std::cos(2.3f * (float)i);
    for (int i = 0; i < N; i++) {
        target(i) = true_weights[0] * in(i) + true_weights[1] * in(i + 1) + true_weights[2] * in(i + 2);
    }
    for (int k = 0; k < 3; k++) weights(k) = 0.0f;

    // The algorithm: a blur with learned taps and a squared-error loss.
    Var x("x");
    RDom k(0, 3, "k"), r(0, N, "r");
    Func blur("blur"), loss("loss");
    blur(x) = sum(weights(k) * in(x + k));
    Expr diff = blur(r) - target(r);
    loss() = 0.0f;
    loss() += diff * diff;

    // Its derivative: one Func per input; d(weights) is a Func over the
    // three taps. A scalar loss needs no adjoint (its own is 1).
    Derivative d = propagate_adjoints(loss);
    Func d_weights = d(weights);
    std::printf("d loss / d in is defined: %s; d loss / d weights is defined: %s\n",
                d(in).defined() ? "yes" : "no", d_weights.defined() ? "yes" : "no");

    // 1. The gradient at the start, against the formula in C++.
    int mismatches = 0;
    auto reference_gradient = [&](int tap) {
        double g = 0;
        for (int i = 0; i < N; i++) {
            double b = weights(0) * in(i) + weights(1) * in(i + 1) + weights(2) * in(i + 2);
            g += 2.0 * (b - target(i)) * in(i + tap);
        }
        return g;
    };
    Buffer<float> g = d_weights.realize({3});
    for (int tap = 0; tap < 3; tap++) {
        double expected = reference_gradient(tap);
        std::printf("1. d loss / d weights(%d) = %9.4f (C++: %9.4f)\n", tap, g(tap), expected);
        if (std::fabs(g(tap) - expected) > 1e-3 * (1 + std::fabs(expected))) mismatches++;
    }

    // 2. Gradient descent: the same compiled gradient, realized with the
    //    weights of each step.
    const float rate = 0.01f;
    for (int step = 0; step <= 60; step++) {
        Buffer<float> l = loss.realize();
        if (step % 20 == 0) {
            std::printf("2. step %2d: loss %.6f, weights %.4f %.4f %.4f\n", step, l(), weights(0), weights(1),
                        weights(2));
        }
        d_weights.realize(g);
        for (int tap = 0; tap < 3; tap++) weights(tap) -= rate * g(tap);
    }
    for (int tap = 0; tap < 3; tap++) {
        if (std::fabs(weights(tap) - true_weights[tap]) > 1e-3f) {
            std::printf("weights(%d) = %f, not %f\n", tap, weights(tap), true_weights[tap]);
            mismatches++;
        }
    }
    // 3. Updates that are not additions are differentiated too. A scan:
    //    the first-order recursive filter smooth(i) = a smooth(i - 1) +
    //    (1 - a) in(i) reads the point its previous iteration wrote, so its
    //    adjoint runs the RDom backwards. d loss2 / d a, against the same
    //    reverse loop written in C++.
    Param<float> a("a");
    a.set(0.3f);
    RDom i(1, N - 1, "i");
    Func smooth("smooth"), loss2("loss2");
    smooth(x) = in(x);
    smooth(i) = a * smooth(i - 1) + (1.0f - a) * in(i);
    loss2() = 0.0f;
    loss2() += (smooth(r) - target(r)) * (smooth(r) - target(r));
    Derivative d2 = propagate_adjoints(loss2);
    Buffer<float> d_a = d2(a).realize();
    std::vector<double> s(N), adjoint(N);
    s[0] = in(0);
    for (int j = 1; j < N; j++) s[j] = 0.3 * s[j - 1] + 0.7 * in(j);
    for (int j = 0; j < N; j++) adjoint[j] = 2.0 * (s[j] - target(j));
    double expected_d_a = 0.0;
    for (int j = N - 1; j >= 1; j--) {
        expected_d_a += adjoint[j] * (s[j - 1] - in(j));  // d smooth(j) / d a
        adjoint[j - 1] += 0.3 * adjoint[j];               // d smooth(j) / d smooth(j - 1)
    }
    std::printf("3. d loss2 / d a = %9.4f (C++: %9.4f)\n", d_a(), expected_d_a);
    if (std::fabs(d_a() - expected_d_a) > 1e-3 * (1 + std::fabs(expected_d_a))) mismatches++;

    std::printf(mismatches ? "FAILED\n" : "Learned the taps 0.25, 0.5, -0.125.\n");
    return mismatches ? 1 : 0;
}
