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

// ---- The recurrences several suites build (CPU, step Funcs, Vulkan) ----

using loom::onnx::Boolean;
using loom::onnx::Float32;
using loom::onnx::Int64;

// v += step (step read from the outer scope), scan of v: the contract of
// seed 002 (apps/loop_add_step).
inline loom::onnx::Model add_step_loop(int64_t width) {
    Graph b("body");
    b.input("iter", Int64, {}).input("cond_in", Boolean, {}).input("v_in", Float32, {width});
    b.node("Add", {"v_in", "step"}, {"v_out"});
    b.node("Identity", {"cond_in"}, {"cond_out"});
    b.node("Identity", {"v_out"}, {"row"});
    b.output("cond_out", Boolean, {}).output("v_out", Float32, {width}).output("row", Float32, {width});
    Graph g("add_step");
    g.input("M", Int64, {}).input("v", Float32, {width}).input("step", Float32, {width});
    attr_graph(g.node("Loop", {"M", "", "v"}, {"v_final", "rows"}, "add_step_loop"), "body", b.g);
    g.output("v_final", Float32, {width}).output("rows", Float32, {}, false);
    return model_of(g);
}

// The Elman RNN: h' = Tanh(MatMul(x_t, W) + MatMul(h, U) + B), x_t =
// Gather(xs, iter); scan of h' if `scan`.
inline loom::onnx::Model rnn_model(int64_t input, int64_t hidden, int64_t steps, bool scan = false) {
    Graph b("body");
    b.input("iter", Int64, {}).input("cond_in", Boolean, {}).input("h_in", Float32, {1, hidden});
    attr_int(b.node("Gather", {"xs", "iter"}, {"x_t"}), "axis", 0);
    b.node("MatMul", {"x_t", "W"}, {"wx"});
    b.node("MatMul", {"h_in", "U"}, {"uh"});
    b.node("Add", {"wx", "uh"}, {"s"});
    b.node("Add", {"s", "B"}, {"z"});
    b.node("Tanh", {"z"}, {"h_out"});
    b.node("Identity", {"cond_in"}, {"cond_out"});
    b.output("cond_out", Boolean, {}).output("h_out", Float32, {1, hidden});
    if (scan) {
        b.node("Identity", {"h_out"}, {"h_scan"});
        b.output("h_scan", Float32, {1, hidden});
    }
    Graph g("rnn");
    g.input("M", Int64, {}).input("h0", Float32, {1, hidden}).input("xs", Float32, {steps, 1, input});
    g.input("W", Float32, {input, hidden}).input("U", Float32, {hidden, hidden}).input("B", Float32, {hidden});
    std::vector<std::string> outs = {"h_final"};
    if (scan) outs.push_back("hs");
    attr_graph(g.node("Loop", {"M", "", "h0"}, outs, "rnn_loop"), "body", b.g);
    g.output("h_final", Float32, {1, hidden});
    if (scan) g.output("hs", Float32, {}, false);
    return model_of(g);
}

}  // namespace onnx_test

#endif
