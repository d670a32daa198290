#include "rnn_reference.h"

#include <cmath>

namespace apps {

std::vector<float> rnn_reference(const std::vector<float> &xs, const std::vector<float> &h0,
                                 const std::vector<float> &w, const std::vector<float> &u,
                                 const std::vector<float> &b, int input, int hidden, int steps) {
    std::vector<float> h = h0, next(hidden);
    for (int t = 0; t < steps; t++) {
        for (int j = 0; j < hidden; j++) next[j] = b[j];
        for (int k = 0; k < input; k++) {
            const float xk = xs[(size_t)t * input + k];
            for (int j = 0; j < hidden; j++) next[j] += w[(size_t)k * hidden + j] * xk;
        }
        for (int k = 0; k < hidden; k++) {
            for (int j = 0; j < hidden; j++) next[j] += u[(size_t)k * hidden + j] * h[k];
        }
        for (int j = 0; j < hidden; j++) h[j] = std::tanh(next[j]);
    }
    return h;
}

}  // namespace apps
