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

#include "OnnxModelBuilder.h"
#include "rnn_onnx_model.h"

namespace {

namespace fs = std::filesystem;
using namespace loom::onnx::model_builder;

std::string add_step_model(int64_t width) {
    Graph b("add_step_body");
    b.input("iter", kInt64, {}).input("cond_in", kBool, {}).input("v_in", kFloat, {width});
    b.node("Add", {"v_in", "step"}, {"v_out"});
    b.node("Identity", {"cond_in"}, {"cond_out"});
    b.node("Identity", {"v_out"}, {"row"});
    b.output("cond_out", kBool, {}).output("v_out", kFloat, {width}).output("row", kFloat, {width});
    Graph g("add_step");
    g.input("M", kInt64, {}).input("v", kFloat, {width}).input("step", kFloat, {width});
    attr_graph(g.node("Loop", {"M", "", "v"}, {"v_final", "rows"}), "body", b.g);
    g.output("v_final", kFloat, {width}).output("rows", kFloat, {}, false);
    return model_bytes(g, 16, "loom-bench-onnx");
}

std::string cumsum_model(int64_t n) {
    Graph b("cumsum_body");
    b.input("iter", kInt64, {}).input("cond_in", kBool, {}).input("acc_in", kFloat, {});
    b.node("Gather", {"xs", "iter"}, {"x_i"});  // axis 0, scalar index: a scalar
    b.node("Add", {"acc_in", "x_i"}, {"acc_out"});
    b.node("Identity", {"cond_in"}, {"cond_out"});
    b.node("Identity", {"acc_out"}, {"partial"});
    b.output("cond_out", kBool, {}).output("acc_out", kFloat, {}).output("partial", kFloat, {});
    Graph g("cumsum");
    g.input("M", kInt64, {}).input("acc", kFloat, {}).input("xs", kFloat, {n});
    attr_graph(g.node("Loop", {"M", "", "acc"}, {"total", "sums"}), "body", b.g);
    g.output("total", kFloat, {}).output("sums", kFloat, {n});
    return model_bytes(g, 16, "loom-bench-onnx");
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
