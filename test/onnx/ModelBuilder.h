#ifndef LOOM_TEST_ONNX_MODEL_BUILDER_H
#define LOOM_TEST_ONNX_MODEL_BUILDER_H

// Small helpers that build ONNX models with the protobuf classes, for the
// tests of behaviour the backend test data does not cover: the shared
// builder (src/onnx/builder/OnnxModelBuilder.h) and loom::onnx Values.

#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "OnnxModelBuilder.h"

#include "loom/onnx/Onnx.h"

namespace onnx_test {

// The model-building helpers shared with apps/rnn and bench/onnx.
using loom::onnx::model_builder::attr_float;
using loom::onnx::model_builder::attr_graph;
using loom::onnx::model_builder::attr_int;
using loom::onnx::model_builder::attr_ints;
using loom::onnx::model_builder::Graph;
using loom::onnx::model_builder::model_bytes;
using loom::onnx::model_builder::set_type;

inline loom::onnx::Model model_of(const Graph &graph, int opset = 16) {
    return loom::onnx::load_model_from_bytes(model_bytes(graph, opset), graph.g.name());
}

inline loom::onnx::Value scalar_i64(int64_t v) {
    loom::onnx::Value t = loom::onnx::Value::zeros(loom::onnx::Int64, {});
    t.tensor.as<int64_t>()(0) = v;
    return t;
}

inline loom::onnx::Value scalar_bool(bool v) {
    loom::onnx::Value t = loom::onnx::Value::zeros(loom::onnx::Boolean, {});
    t.tensor.as<bool>()(0) = v;
    return t;
}

inline loom::onnx::Value floats(const std::vector<int64_t> &shape, const std::vector<float> &values) {
    loom::onnx::Value t = loom::onnx::Value::zeros(loom::onnx::Float32, shape);
    float *p = reinterpret_cast<float *>(t.tensor.raw_buffer()->host);
    for (size_t i = 0; i < values.size(); i++) p[i] = values[i];
    return t;
}

}  // namespace onnx_test

#endif
