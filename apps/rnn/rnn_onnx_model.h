// The Elman RNN as an ONNX model with a Loop operator (opset 16), built with
// the onnx protobuf classes:
//
//   inputs  M: int64 scalar (the steps), h0: float[1, H], xs: float[T, 1, I],
//           W: float[I, H], U: float[H, H], B: float[H]
//   Loop(M, "", h0), body (iter, cond_in, h):
//           x_t = Gather(xs, iter, axis 0)                     [1, I]
//           h'  = Tanh(Add(Add(MatMul(x_t, W), MatMul(h, U)), B))
//   output  h_final: float[1, H]
//
// apps/rnn's test runs it through loom::onnx; bench/onnx writes it to a file
// for the benchmark against ONNX Runtime.
#ifndef LOOM_APPS_RNN_ONNX_MODEL_H
#define LOOM_APPS_RNN_ONNX_MODEL_H

#include <cstdint>
#include <string>

namespace apps {

/** The serialized ModelProto. */
std::string rnn_loop_model_bytes(int64_t input, int64_t hidden, int64_t steps);

}  // namespace apps

#endif
