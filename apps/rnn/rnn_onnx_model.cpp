#include "rnn_onnx_model.h"

#include "OnnxModelBuilder.h"

namespace apps {

std::string rnn_loop_model_bytes(int64_t input, int64_t hidden, int64_t steps) {
    using namespace loom::onnx::model_builder;
    Graph body("rnn_step");
    body.input("iter", kInt64, {}).input("cond_in", kBool, {}).input("h_in", kFloat, {1, hidden});
    attr_int(body.node("Gather", {"xs", "iter"}, {"x_t"}), "axis", 0);
    body.node("MatMul", {"x_t", "W"}, {"wx"});
    body.node("MatMul", {"h_in", "U"}, {"uh"});
    body.node("Add", {"wx", "uh"}, {"s"});
    body.node("Add", {"s", "B"}, {"z"});
    body.node("Tanh", {"z"}, {"h_out"});
    body.node("Identity", {"cond_in"}, {"cond_out"});
    body.output("cond_out", kBool, {}).output("h_out", kFloat, {1, hidden});

    Graph g("elman_rnn");
    g.input("M", kInt64, {}).input("h0", kFloat, {1, hidden}).input("xs", kFloat, {steps, 1, input});
    g.input("W", kFloat, {input, hidden}).input("U", kFloat, {hidden, hidden}).input("B", kFloat, {hidden});
    attr_graph(g.node("Loop", {"M", "", "h0"}, {"h_final"}, "rnn_loop"), "body", body.g);
    g.output("h_final", kFloat, {1, hidden});
    return model_bytes(g, 16, "loom-apps-rnn");
}

}  // namespace apps
