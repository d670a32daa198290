// Writes the three ONNX Loop models of the benchmark against ONNX Runtime
// (bench/onnx/run.sh) and their inputs:
//
//   rnn       Elman RNN h = tanh(x_t W + h U + B), T = 4000 steps, H = I = 64
//             (apps/rnn/rnn_onnx_model.h); output h_final [1, 64]
//   add_step  v += step, 256 iterations over 4096 floats, scan of v
//             (seed 002, apps/loop_add_step); outputs v_final, rows [256, 4096]
//   cumsum    a cumulative sum of 1,000,000 floats, one element per
//             iteration: acc += Gather(xs, iter), scan of acc; outputs
//             total [], sums [1000000]
//
//     onnx_bench_models <dir>
//
// For each model: <dir>/<name>/model.onnx, one raw little-endian file per
// input (<input>.bin) and <dir>/<name>/inputs.txt, one line per input:
// "<name> <float32|int64> <rank> <dims...> <file>". Inputs are deterministic.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "rnn_onnx_model.h"

namespace {

namespace fs = std::filesystem;

void set_type(::onnx::ValueInfoProto *v, const std::string &name, int elem, const std::vector<int64_t> &dims,
              bool with_shape = true) {
    v->set_name(name);
    auto *t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(elem);
    if (!with_shape) return;
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

void set_body(::onnx::NodeProto *loop, const ::onnx::GraphProto &body) {
    auto *a = loop->add_attribute();
    a->set_name("body");
    a->set_type(::onnx::AttributeProto::GRAPH);
    *a->mutable_g() = body;
}

std::string model_bytes(const ::onnx::GraphProto &g) {
    ::onnx::ModelProto m;
    m.set_ir_version(8);
    m.set_producer_name("loom-bench-onnx");
    auto *op = m.add_opset_import();
    op->set_domain("");
    op->set_version(16);
    *m.mutable_graph() = g;
    return m.SerializeAsString();
}

constexpr int kFloat = ::onnx::TensorProto::FLOAT, kInt64 = ::onnx::TensorProto::INT64,
              kBool = ::onnx::TensorProto::BOOL;

std::string add_step_model(int64_t width) {
    ::onnx::GraphProto b;
    b.set_name("add_step_body");
    set_type(b.add_input(), "iter", kInt64, {});
    set_type(b.add_input(), "cond_in", kBool, {});
    set_type(b.add_input(), "v_in", kFloat, {width});
    node(b, "Add", {"v_in", "step"}, {"v_out"});
    node(b, "Identity", {"cond_in"}, {"cond_out"});
    node(b, "Identity", {"v_out"}, {"row"});
    set_type(b.add_output(), "cond_out", kBool, {});
    set_type(b.add_output(), "v_out", kFloat, {width});
    set_type(b.add_output(), "row", kFloat, {width});
    ::onnx::GraphProto g;
    g.set_name("add_step");
    set_type(g.add_input(), "M", kInt64, {});
    set_type(g.add_input(), "v", kFloat, {width});
    set_type(g.add_input(), "step", kFloat, {width});
    set_body(node(g, "Loop", {"M", "", "v"}, {"v_final", "rows"}), b);
    set_type(g.add_output(), "v_final", kFloat, {width});
    set_type(g.add_output(), "rows", kFloat, {}, false);
    return model_bytes(g);
}

std::string cumsum_model(int64_t n) {
    ::onnx::GraphProto b;
    b.set_name("cumsum_body");
    set_type(b.add_input(), "iter", kInt64, {});
    set_type(b.add_input(), "cond_in", kBool, {});
    set_type(b.add_input(), "acc_in", kFloat, {});
    node(b, "Gather", {"xs", "iter"}, {"x_i"});  // axis 0, scalar index: a scalar
    node(b, "Add", {"acc_in", "x_i"}, {"acc_out"});
    node(b, "Identity", {"cond_in"}, {"cond_out"});
    node(b, "Identity", {"acc_out"}, {"partial"});
    set_type(b.add_output(), "cond_out", kBool, {});
    set_type(b.add_output(), "acc_out", kFloat, {});
    set_type(b.add_output(), "partial", kFloat, {});
    ::onnx::GraphProto g;
    g.set_name("cumsum");
    set_type(g.add_input(), "M", kInt64, {});
    set_type(g.add_input(), "acc", kFloat, {});
    set_type(g.add_input(), "xs", kFloat, {n});
    set_body(node(g, "Loop", {"M", "", "acc"}, {"total", "sums"}), b);
    set_type(g.add_output(), "total", kFloat, {});
    set_type(g.add_output(), "sums", kFloat, {n});
    return model_bytes(g);
}

struct Input {
    std::string name, type;
    std::vector<int64_t> dims;
    std::vector<float> f;
    int64_t i = 0;  // int64 scalars only
};

Input floats(const std::string &name, std::vector<int64_t> dims, float scale, float phase) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    Input in{name, "float32", dims, std::vector<float>(n), 0};
    for (int64_t k = 0; k < n; k++) in.f[k] = scale * std::sin(0.37f * (float)k + phase);
    return in;
}

Input int64_scalar(const std::string &name, int64_t v) { return Input{name, "int64", {}, {}, v}; }

void write(const fs::path &dir, const std::string &model, const std::vector<Input> &inputs) {
    fs::create_directories(dir);
    std::ofstream(dir / "model.onnx", std::ios::binary) << model;
    std::ofstream list(dir / "inputs.txt");
    for (const Input &in : inputs) {
        const std::string file = in.name + ".bin";
        std::ofstream out(dir / file, std::ios::binary);
        if (in.type == "int64") {
            out.write(reinterpret_cast<const char *>(&in.i), sizeof(in.i));
        } else {
            out.write(reinterpret_cast<const char *>(in.f.data()), (std::streamsize)(in.f.size() * sizeof(float)));
        }
        list << in.name << " " << in.type << " " << in.dims.size();
        for (int64_t d : in.dims) list << " " << d;
        list << " " << file << "\n";
    }
    std::printf("wrote %s\n", (dir / "model.onnx").c_str());
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s <dir>\n", argv[0]);
        return 2;
    }
    const fs::path dir = argv[1];
    {
        const int64_t T = 4000, H = 64, I = 64;
        write(dir / "rnn", apps::rnn_loop_model_bytes(I, H, T),
              {int64_scalar("M", T), floats("h0", {1, H}, 0.1f, 0.0f), floats("xs", {T, 1, I}, 1.0f, 0.5f),
               floats("W", {I, H}, 0.125f, 1.0f), floats("U", {H, H}, 0.125f, 2.0f), floats("B", {H}, 0.05f, 3.0f)});
    }
    {
        const int64_t M = 256, W = 4096;
        write(dir / "add_step", add_step_model(W),
              {int64_scalar("M", M), floats("v", {W}, 1.0f, 0.0f), floats("step", {W}, 0.01f, 1.0f)});
    }
    {
        const int64_t N = 1000000;
        write(dir / "cumsum", cumsum_model(N),
              {int64_scalar("M", N), floats("acc", {}, 0.0f, 0.0f), floats("xs", {N}, 1.0f, 0.25f)});
    }
    return 0;
}
