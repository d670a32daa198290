#include "rnn_onnx_model.h"

#include <vector>

#include <onnx/onnx_pb.h>

namespace apps {

namespace {

void set_type(::onnx::ValueInfoProto *v, const std::string &name, int elem, const std::vector<int64_t> &dims) {
    v->set_name(name);
    auto *t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(elem);
    auto *shape = t->mutable_shape();
    for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
}

::onnx::NodeProto *node(::onnx::GraphProto &g, const std::string &op, const std::vector<std::string> &ins,
                        const std::vector<std::string> &outs) {
    auto *n = g.add_node();
    n->set_op_type(op);
    n->set_name(op + "_" + std::to_string(g.node_size()));
    for (const auto &i : ins) n->add_input(i);
    for (const auto &o : outs) n->add_output(o);
    return n;
}

constexpr int kFloat = ::onnx::TensorProto::FLOAT, kInt64 = ::onnx::TensorProto::INT64,
              kBool = ::onnx::TensorProto::BOOL;

}  // namespace

std::string rnn_loop_model_bytes(int64_t input, int64_t hidden, int64_t steps) {
    ::onnx::GraphProto body;
    body.set_name("rnn_step");
    set_type(body.add_input(), "iter", kInt64, {});
    set_type(body.add_input(), "cond_in", kBool, {});
    set_type(body.add_input(), "h_in", kFloat, {1, hidden});
    auto *gather = node(body, "Gather", {"xs", "iter"}, {"x_t"});
    auto *axis = gather->add_attribute();
    axis->set_name("axis");
    axis->set_type(::onnx::AttributeProto::INT);
    axis->set_i(0);
    node(body, "MatMul", {"x_t", "W"}, {"wx"});
    node(body, "MatMul", {"h_in", "U"}, {"uh"});
    node(body, "Add", {"wx", "uh"}, {"s"});
    node(body, "Add", {"s", "B"}, {"z"});
    node(body, "Tanh", {"z"}, {"h_out"});
    node(body, "Identity", {"cond_in"}, {"cond_out"});
    set_type(body.add_output(), "cond_out", kBool, {});
    set_type(body.add_output(), "h_out", kFloat, {1, hidden});

    ::onnx::ModelProto model;
    model.set_ir_version(8);
    model.set_producer_name("loom-apps-rnn");
    auto *opset = model.add_opset_import();
    opset->set_domain("");
    opset->set_version(16);
    ::onnx::GraphProto &g = *model.mutable_graph();
    g.set_name("elman_rnn");
    set_type(g.add_input(), "M", kInt64, {});
    set_type(g.add_input(), "h0", kFloat, {1, hidden});
    set_type(g.add_input(), "xs", kFloat, {steps, 1, input});
    set_type(g.add_input(), "W", kFloat, {input, hidden});
    set_type(g.add_input(), "U", kFloat, {hidden, hidden});
    set_type(g.add_input(), "B", kFloat, {hidden});
    auto *loop = node(g, "Loop", {"M", "", "h0"}, {"h_final"});
    loop->set_name("rnn_loop");
    auto *attr = loop->add_attribute();
    attr->set_name("body");
    attr->set_type(::onnx::AttributeProto::GRAPH);
    *attr->mutable_g() = body;
    set_type(g.add_output(), "h_final", kFloat, {1, hidden});
    return model.SerializeAsString();
}

}  // namespace apps
