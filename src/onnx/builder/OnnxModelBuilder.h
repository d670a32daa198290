#ifndef LOOM_ONNX_BUILDER_ONNX_MODEL_BUILDER_H
#define LOOM_ONNX_BUILDER_ONNX_MODEL_BUILDER_H

// Builds small ONNX models with the protobuf classes of libonnx-dev: the one
// set of helpers that the importer's tests (test/onnx), apps/rnn's model and
// the benchmark's models (bench/onnx) share. Header only; CMake target
// LoomOnnxModelBuilder (src/onnx/CMakeLists.txt) adds the include path and
// onnx_proto. Not installed: LoomOnnx's public API keeps protobuf out.
//
//     Graph body("step");
//     body.input("iter", kInt64, {}).input("cond_in", kBool, {}).input("v_in", kFloat, {4});
//     body.node("Add", {"v_in", "step"}, {"v_out"});
//     body.node("Identity", {"cond_in"}, {"cond_out"});
//     body.output("cond_out", kBool, {}).output("v_out", kFloat, {4});
//     Graph g("loop");
//     ...
//     attr_graph(g.node("Loop", {"M", "", "v"}, {"v_final"}), "body", body.g);
//     std::string bytes = model_bytes(g, 16, "my-producer");

#include <cstdint>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

namespace loom::onnx::model_builder {

constexpr int kFloat = ::onnx::TensorProto::FLOAT, kInt64 = ::onnx::TensorProto::INT64,
              kBool = ::onnx::TensorProto::BOOL, kInt32 = ::onnx::TensorProto::INT32;

/** Names v a tensor of element type `elem` and shape `dims` (no shape at
 * all if !with_shape: a value whose shape is known only at run time). */
inline void set_type(::onnx::ValueInfoProto *v, const std::string &name, int elem, const std::vector<int64_t> &dims,
                     bool with_shape = true) {
    v->set_name(name);
    auto *t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(elem);
    if (!with_shape) return;
    auto *shape = t->mutable_shape();
    for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
}

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

inline void attr_float(::onnx::NodeProto &n, const std::string &name, float v) {
    auto *a = n.add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::FLOAT);
    a->set_f(v);
}

inline void attr_ints(::onnx::NodeProto &n, const std::string &name, const std::vector<int64_t> &values) {
    auto *a = n.add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::INTS);
    for (int64_t v : values) a->add_ints(v);
}

/** A graph under construction: inputs, outputs and nodes in order. */
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
    /** A node named `name`, or "<op>_<its position>". */
    ::onnx::NodeProto &node(const std::string &op, const std::vector<std::string> &ins,
                            const std::vector<std::string> &outs, const std::string &name = "") {
        auto *n = g.add_node();
        n->set_op_type(op);
        n->set_name(name.empty() ? op + "_" + std::to_string(g.node_size()) : name);
        for (const auto &i : ins) n->add_input(i);
        for (const auto &o : outs) n->add_output(o);
        return *n;
    }
    /** A Constant node making a float32 tensor. */
    void constant_f(const std::string &name, const std::vector<int64_t> &dims, const std::vector<float> &values) {
        auto *t = constant(name, dims, ::onnx::TensorProto::FLOAT);
        for (float v : values) t->add_float_data(v);
    }
    /** A Constant node making an int64 tensor. */
    void constant_i(const std::string &name, const std::vector<int64_t> &dims, const std::vector<int64_t> &values) {
        auto *t = constant(name, dims, ::onnx::TensorProto::INT64);
        for (int64_t v : values) t->add_int64_data(v);
    }

private:
    ::onnx::TensorProto *constant(const std::string &name, const std::vector<int64_t> &dims, int elem) {
        auto &n = node("Constant", {}, {name});
        auto *a = n.add_attribute();
        a->set_name("value");
        a->set_type(::onnx::AttributeProto::TENSOR);
        auto *t = a->mutable_t();
        t->set_data_type(elem);
        for (int64_t d : dims) t->add_dims(d);
        return t;
    }
};

/** The serialized ModelProto of `graph` (IR version 8, default domain at
 * `opset`). */
inline std::string model_bytes(const Graph &graph, int opset, const std::string &producer = "loom") {
    ::onnx::ModelProto m;
    m.set_ir_version(8);
    m.set_producer_name(producer);
    auto *op = m.add_opset_import();
    op->set_domain("");
    op->set_version(opset);
    *m.mutable_graph() = graph.g;
    return m.SerializeAsString();
}

}  // namespace loom::onnx::model_builder

#endif
