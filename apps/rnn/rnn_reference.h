// The Elman RNN as plain C++ loops (see rnn_algorithm.h for the layouts).
#ifndef LOOM_APPS_RNN_REFERENCE_H
#define LOOM_APPS_RNN_REFERENCE_H

#include <vector>

namespace apps {

/** xs: steps x input (row t is x_t); w: input x hidden (ONNX W, x_t @ W);
 * u: hidden x hidden (h @ U); returns h after `steps` steps. */
std::vector<float> rnn_reference(const std::vector<float> &xs, const std::vector<float> &h0,
                                 const std::vector<float> &w, const std::vector<float> &u,
                                 const std::vector<float> &b, int input, int hidden, int steps);

}  // namespace apps

#endif
