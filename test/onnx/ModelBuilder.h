#ifndef LOOM_TEST_ONNX_MODEL_BUILDER_H
#define LOOM_TEST_ONNX_MODEL_BUILDER_H

// Small helpers that build ONNX models with the protobuf classes, for the
// tests of behaviour the backend test data does not cover.

#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "loom/onnx/Onnx.h"

namespace onnx_test {

inline void set_type(::onnx::ValueInfoProto *v, const std::string &name, int elem, const std::vector<int64_t> &dims,
                     bool with_shape = true) {
    v->set_name(name);
    auto *t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(elem);
    if (!with_shape) return;
    auto *shape = t->mutable_shape();
    for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
}

struct Graph {
    ::onnx::GraphProto g;
    explicit Graph(const std::string &name) { g.set_name(name); }
    Graph &input(const std::string &name, int elem, const std::vector<int64_t> &dims, bool with_shape = true) {
        set_type(g.add_input(), name, elem, dims, with_shape);
        return *this;
    }
    Graph &output(const std::string &name, int elem, const std::vector<int64_t> &dims, bool with_shape = true) {
        set_type(g.add_output(), name, elem, dims, with_shape);
        return *this;
    }
    ::onnx::NodeProto &node(const std::string &op, const std::vector<std::string> &ins,
                            const std::vector<std::string> &outs, const std::string &name = "") {
        auto *n = g.add_node();
        n->set_op_type(op);
        n->set_name(name.empty() ? op + "_" + std::to_string(g.node_size()) : name);
        for (const auto &i : ins) n->add_input(i);
        for (const auto &o : outs) n->add_output(o);
        return *n;
    }
    /** A Constant node making a float32 or int64 tensor. */
    void constant_f(const std::string &name, const std::vector<int64_t> &dims, const std::vector<float> &values) {
        auto &n = node("Constant", {}, {name});
        auto *a = n.add_attribute();
        a->set_name("value");
        a->set_type(::onnx::AttributeProto::TENSOR);
        auto *t = a->mutable_t();
        t->set_data_type(1);
        for (int64_t d : dims) t->add_dims(d);
        for (float v : values) t->add_float_data(v);
    }
    void constant_i(const std::string &name, const std::vector<int64_t> &dims, const std::vector<int64_t> &values) {
        auto &n = node("Constant", {}, {name});
        auto *a = n.add_attribute();
        a->set_name("value");
        a->set_type(::onnx::AttributeProto::TENSOR);
        auto *t = a->mutable_t();
        t->set_data_type(7);
        for (int64_t d : dims) t->add_dims(d);
        for (int64_t v : values) t->add_int64_data(v);
    }
};

inline void attr_graph(::onnx::NodeProto &n, const std::string &name, const ::onnx::GraphProto &g) {
    auto *a = n.add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::GRAPH);
    *a->mutable_g() = g;
}

inline void attr_int(::onnx::NodeProto &n, const std::string &name, int64_t v) {
    auto *a = n.add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::INT);
    a->set_i(v);
}

inline std::string model_bytes(const Graph &graph, int opset) {
    ::onnx::ModelProto m;
    m.set_ir_version(8);
    m.set_producer_name("loom-test");
    auto *op = m.add_opset_import();
    op->set_domain("");
    op->set_version(opset);
    *m.mutable_graph() = graph.g;
    return m.SerializeAsString();
}

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
