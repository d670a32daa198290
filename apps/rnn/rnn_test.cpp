// Checks the Elman RNN two ways against the plain C++ reference: the
// hand-written Loom pipeline (rnn_algorithm.h) and, where the ONNX importer
// is built, the ONNX Loop model (rnn_onnx_model.h) run through loom::onnx.
// Tolerance: 1e-5 relative (plus 1e-6 absolute near zero); Loom's tanh and
// a fused multiply-add may differ from std::tanh in the last bits.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "rnn_algorithm.h"
#include "rnn_reference.h"

#ifdef LOOM_APPS_RNN_ONNX
#include <loom/onnx/Onnx.h>

#include "rnn_onnx_model.h"
#endif

namespace {

struct Data {
    int input, hidden, steps;
    std::vector<float> xs, h0, w, u, b;
};

Data make_data(int input, int hidden, int steps) {
    Data d{input, hidden, steps, {}, {}, {}, {}, {}};
    d.xs.resize((size_t)steps * input);
    d.h0.resize(hidden);
    d.w.resize((size_t)input * hidden);
    d.u.resize((size_t)hidden * hidden);
    d.b.resize(hidden);
    const float ws = 1.0f / std::sqrt((float)input), us = 1.0f / std::sqrt((float)hidden);
    for (size_t i = 0; i < d.xs.size(); i++) d.xs[i] = std::sin(0.37f * (float)i);
    for (size_t i = 0; i < d.h0.size(); i++) d.h0[i] = 0.1f * std::cos((float)i);
    for (size_t i = 0; i < d.w.size(); i++) d.w[i] = ws * std::cos(0.11f * (float)i);
    for (size_t i = 0; i < d.u.size(); i++) d.u[i] = us * std::sin(0.23f * (float)i + 1.0f);
    for (size_t i = 0; i < d.b.size(); i++) d.b[i] = 0.05f * (float)(i % 7) - 0.1f;
    return d;
}

bool compare(const std::string &what, const std::vector<float> &got, const std::vector<float> &want) {
    double worst = 0;
    int bad = 0;
    for (size_t j = 0; j < want.size(); j++) {
        const double diff = std::fabs((double)got[j] - want[j]);
        worst = std::max(worst, diff);
        if (!(diff <= 1e-5 * std::fabs(want[j]) + 1e-6) && bad++ < 5)
            std::printf("  h[%zu] = %.9g, expected %.9g\n", j, got[j], want[j]);
    }
    std::printf("rnn, %s: %s (largest difference %.3g)\n", what.c_str(), bad ? "MISMATCH" : "ok", worst);
    return bad == 0;
}

std::vector<float> run_pipeline(const Data &d) {
    using namespace loom;
    ImageParam x(Float(32), 2, "x"), h0(Float(32), 1, "h0"), w(Float(32), 2, "w"), u(Float(32), 2, "u"),
        b(Float(32), 1, "b");
    Param<int> steps("steps");
    apps::Rnn rnn = apps::define_rnn(x, h0, w, u, b, d.input, d.hidden, steps, Func("h_final"));
    apps::schedule_rnn(rnn);
    Buffer<float> xb(d.input, d.steps), h0b(d.hidden), wb(d.hidden, d.input), ub(d.hidden, d.hidden), bb(d.hidden);
    std::copy(d.xs.begin(), d.xs.end(), xb.data());
    std::copy(d.h0.begin(), d.h0.end(), h0b.data());
    std::copy(d.w.begin(), d.w.end(), wb.data());
    std::copy(d.u.begin(), d.u.end(), ub.data());
    std::copy(d.b.begin(), d.b.end(), bb.data());
    x.set(xb);
    h0.set(h0b);
    w.set(wb);
    u.set(ub);
    b.set(bb);
    steps.set(d.steps);
    Buffer<float> out(d.hidden);
    rnn.h_final.realize(out);
    return std::vector<float>(out.data(), out.data() + d.hidden);
}

#ifdef LOOM_APPS_RNN_ONNX
loom::onnx::Value tensor(const std::vector<int64_t> &shape, const std::vector<float> &values) {
    loom::onnx::Value v = loom::onnx::Value::zeros(loom::onnx::Float32, shape);
    std::copy(values.begin(), values.end(), reinterpret_cast<float *>(v.tensor.raw_buffer()->host));
    return v;
}

std::vector<float> run_onnx(const Data &d) {
    using namespace loom::onnx;
    Model model = load_model_from_bytes(apps::rnn_loop_model_bytes(d.input, d.hidden, d.steps), "rnn_loop");
    std::map<std::string, Value> inputs;
    Value m = Value::zeros(Int64, {});
    m.tensor.as<int64_t>()(0) = d.steps;
    inputs["M"] = m;
    inputs["h0"] = tensor({1, d.hidden}, d.h0);
    inputs["xs"] = tensor({d.steps, 1, d.input}, d.xs);
    inputs["W"] = tensor({d.input, d.hidden}, d.w);
    inputs["U"] = tensor({d.hidden, d.hidden}, d.u);
    inputs["B"] = tensor({d.hidden}, d.b);
    Session session(model);
    auto t0 = std::chrono::steady_clock::now();
    const CompiledModel &compiled = session.compiled_for(inputs);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    for (const std::string &note : compiled.loop_notes()) std::printf("  loop: %s\n", note.c_str());
    std::printf("  compiled in %.0f ms\n", ms);
    std::vector<Value> outs = compiled.run(inputs);
    std::vector<float> h(d.hidden);
    for (int j = 0; j < d.hidden; j++) h[j] = (float)outs.at(0).at(j);
    return h;
}
#endif

}  // namespace

int main(int, char **argv) {
    try {
        bool ok = true;
        struct Shape {
            int input, hidden, steps;
        };
        for (const Shape &s : std::vector<Shape>{{64, 64, 4000}, {5, 13, 37}, {4, 8, 1}, {3, 9, 0}}) {
            Data d = make_data(s.input, s.hidden, s.steps);
            const std::vector<float> want =
                apps::rnn_reference(d.xs, d.h0, d.w, d.u, d.b, s.input, s.hidden, s.steps);
            const std::string shape = "I " + std::to_string(s.input) + ", H " + std::to_string(s.hidden) + ", T " +
                                      std::to_string(s.steps);
            ok = compare("Loom pipeline, " + shape, run_pipeline(d), want) && ok;
#ifdef LOOM_APPS_RNN_ONNX
            ok = compare("ONNX Loop via loom::onnx, " + shape, run_onnx(d), want) && ok;
#endif
        }
        return ok ? 0 : 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
        return 1;
    }
}
