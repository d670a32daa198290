// Reductions of the loop-carried state inside a Loop body (MatMul, Gemm,
// ReduceSum) compiled as Funcs computed once per step (compute_at the step
// RVar, ops/Recurrence.cpp), the state's update vectorised over pure Vars,
// and the float Tanh that vectorises: every result against plain C++ loops
// with the ONNX backend tests' tolerances (rtol 1e-3, atol 1e-7).

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "ModelBuilder.h"

using namespace loom::onnx;
using namespace onnx_test;

namespace {

bool any_note(const CompiledModel &m, const std::string &text) {
    for (const std::string &n : m.loop_notes()) {
        if (n.find(text) != std::string::npos) return true;
    }
    return false;
}

void expect_close(const Value &got, const std::vector<float> &want, const std::string &what) {
    ASSERT_EQ(got.num_elements(), (int64_t)want.size()) << what;
    for (size_t i = 0; i < want.size(); i++) {
        double g = got.at((int64_t)i), w = want[i];
        EXPECT_LE(std::abs(g - w), 1e-7 + 1e-3 * std::abs(w)) << what << " element " << i << ": " << g << " vs " << w;
    }
}

std::vector<float> wave(size_t n, float scale, float phase) {
    std::vector<float> v(n);
    for (size_t k = 0; k < n; k++) v[k] = scale * std::sin(0.37f * (float)k + phase);
    return v;
}


struct RnnData {
    int64_t input, hidden, steps;
    std::vector<float> h0, xs, w, u, b;
    RnnData(int64_t i, int64_t h, int64_t t)
        : input(i), hidden(h), steps(t), h0(wave(h, 0.1f, 0.0f)), xs(wave(t * i, 1.0f, 0.5f)),
          w(wave(i * h, 0.125f, 1.0f)), u(wave(h * h, 0.125f, 2.0f)), b(wave(h, 0.05f, 3.0f)) {}
    std::map<std::string, Value> inputs() const {
        return {{"M", scalar_i64(steps)},         {"h0", floats({1, hidden}, h0)},
                {"xs", floats({steps, 1, input}, xs)}, {"W", floats({input, hidden}, w)},
                {"U", floats({hidden, hidden}, u)}, {"B", floats({hidden}, b)}};
    }
    /** Every state after the first, row-major [steps, hidden]. */
    std::vector<float> reference() const {
        std::vector<float> h = h0, all;
        for (int64_t t = 0; t < steps; t++) {
            std::vector<float> next(hidden);
            for (int64_t j = 0; j < hidden; j++) {
                float z = b[j];
                for (int64_t k = 0; k < input; k++) z += xs[t * input + k] * w[k * hidden + j];
                for (int64_t k = 0; k < hidden; k++) z += h[k] * u[k * hidden + j];
                next[j] = std::tanh(z);
            }
            h = next;
            all.insert(all.end(), h.begin(), h.end());
        }
        return all;
    }
};

std::vector<float> last_row(const std::vector<float> &all, const std::vector<float> &initial) {
    if (all.empty()) return initial;
    return std::vector<float>(all.end() - (std::ptrdiff_t)initial.size(), all.end());
}

// M read at run time (loop_with_exit with no condition in the state) and M
// compiled in (loop_as_recurrence), hidden sizes that are and are not a
// multiple of the vector width, T = 0 (an empty xs), and a reduction longer
// than the 256 terms the state's update would write out.
TEST(OnnxStepFuncs, RnnMatchesReference) {
    struct Case {
        int64_t input, hidden, steps;
    };
    for (const Case &c : std::vector<Case>{{5, 37, 23}, {16, 64, 40}, {3, 300, 9}, {4, 8, 1}, {3, 9, 0}}) {
        RnnData d(c.input, c.hidden, c.steps);
        const std::vector<float> want = last_row(d.reference(), d.h0);
        const std::string what = "I " + std::to_string(c.input) + " H " + std::to_string(c.hidden) + " T " +
                                 std::to_string(c.steps);
        Model model = rnn_model(c.input, c.hidden, c.steps, false);
        Session session(model);
        const CompiledModel &runtime_m = session.compiled_for(d.inputs());
        expect_close(runtime_m.run(d.inputs()).at(0), want, what + ", M at run time");
        CompileOptions options;
        options.specialize = {"M"};
        CompiledModel fixed = compile(model, d.inputs(), options);
        expect_close(fixed.run(d.inputs()).at(0), want, what + ", M compiled in");
        if (c.steps > 0) {
            EXPECT_TRUE(any_note(runtime_m, "computed once per step")) << what;
            EXPECT_TRUE(any_note(fixed, "computed once per step")) << what;
        }
    }
}

// With a scan output every body value is read after the loop too: the
// reduction stays in the state's update, and the results do not change.
TEST(OnnxStepFuncs, RnnWithScanOutputMatchesReference) {
    RnnData d(4, 24, 11);
    const std::vector<float> all = d.reference();
    Session session(rnn_model(d.input, d.hidden, d.steps, true));
    const CompiledModel &m = session.compiled_for(d.inputs());
    EXPECT_FALSE(any_note(m, "computed once per step"));
    std::vector<Value> outs = m.run(d.inputs());
    expect_close(outs.at(0), last_row(all, d.h0), "h_final");
    ASSERT_EQ(outs.at(1).shape, (std::vector<int64_t>{d.steps, 1, d.hidden}));
    expect_close(outs.at(1), all, "hs");
}

// v' = Tanh(Gemm(v, A, C, alpha 0.5, transB) - 0.01 * ReduceSum(v, axis 1)):
// a Gemm and a ReduceSum of the state, both per step.
TEST(OnnxStepFuncs, GemmAndReduceSumOfTheState) {
    const int64_t n = 40, steps = 17;
    Graph b("body");
    b.input("iter", Int64, {}).input("cond_in", Boolean, {}).input("v_in", Float32, {1, n});
    auto &gemm = b.node("Gemm", {"v_in", "A", "C"}, {"g"});
    attr_int(gemm, "transB", 1);
    attr_float(gemm, "alpha", 0.5f);
    b.constant_i("axes", {1}, {1});
    b.node("ReduceSum", {"v_in", "axes"}, {"sum"});
    b.constant_f("scale", {}, {0.01f});
    b.node("Mul", {"sum", "scale"}, {"scaled"});
    b.node("Sub", {"g", "scaled"}, {"z"});
    b.node("Tanh", {"z"}, {"v_out"});
    b.node("Identity", {"cond_in"}, {"cond_out"});
    b.output("cond_out", Boolean, {}).output("v_out", Float32, {1, n});
    Graph g("gemm_loop");
    g.input("M", Int64, {}).input("v", Float32, {1, n}).input("A", Float32, {n, n}).input("C", Float32, {n});
    attr_graph(g.node("Loop", {"M", "", "v"}, {"v_final"}), "body", b.g);
    g.output("v_final", Float32, {1, n});

    std::vector<float> v = wave(n, 0.5f, 0.0f), a = wave(n * n, 0.2f, 1.0f), c = wave(n, 0.1f, 2.0f);
    std::vector<float> want = v;
    for (int64_t t = 0; t < steps; t++) {
        float sum = 0;
        for (float x : want) sum += x;
        std::vector<float> next(n);
        for (int64_t j = 0; j < n; j++) {
            float dot = 0;
            for (int64_t k = 0; k < n; k++) dot += want[k] * a[j * n + k];
            next[j] = std::tanh(0.5f * dot + c[j] - sum * 0.01f);
        }
        want = next;
    }
    std::map<std::string, Value> inputs = {
        {"M", scalar_i64(steps)}, {"v", floats({1, n}, v)}, {"A", floats({n, n}, a)}, {"C", floats({n}, c)}};
    Session session(model_of(g));
    const CompiledModel &m = session.compiled_for(inputs);
    EXPECT_TRUE(any_note(m, "computed once per step")) << m.loop_notes().at(0);
    expect_close(m.run(inputs).at(0), want, "v_final");
}

// Float32 Tanh is a rational approximation (as in ONNX Runtime): within the
// backend tolerances of std::tanh everywhere, exact near 0, NaN kept.
TEST(OnnxStepFuncs, FloatTanhWithinTolerance) {
    std::vector<float> x;
    for (int k = -4000; k <= 4000; k++) x.push_back((float)k * 0.005f);
    for (float v : {1e-8f, -3e-5f, 3.9e-4f, 4.1e-4f, 7.9f, 8.0f, -9.0f, 30.0f, -1e30f, 1e30f}) x.push_back(v);
    const int64_t n = (int64_t)x.size();
    Graph g("tanh");
    g.input("x", Float32, {n});
    g.node("Tanh", {"x"}, {"y"});
    g.output("y", Float32, {n});
    std::vector<float> want;
    for (float v : x) want.push_back(std::tanh(v));
    std::map<std::string, Value> inputs = {{"x", floats({n}, x)}};
    expect_close(compile(model_of(g), inputs).run(inputs).at(0), want, "tanh");

    std::vector<float> nan = {std::numeric_limits<float>::quiet_NaN(), 0.5f};
    Graph h("tanh_nan");
    h.input("x", Float32, {2});
    h.node("Tanh", {"x"}, {"y"});
    h.output("y", Float32, {2});
    std::map<std::string, Value> nan_inputs = {{"x", floats({2}, nan)}};
    Value y = compile(model_of(h), nan_inputs).run(nan_inputs).at(0);
    EXPECT_TRUE(std::isnan(y.at(0)));
    EXPECT_NEAR(y.at(1), std::tanh(0.5), 1e-6);
}

}  // namespace

namespace {

// v += step with M read at run time and three scan outputs: the carried
// value after each iteration twice (the first is the state written in
// place, the second a copy) and v * 2. Zero, one and several iterations,
// and max_loop_iterations cutting the loop short (rows cropped).
TEST(OnnxStepFuncs, ScanOutputOfTheStateWrittenInPlace) {
    const int64_t width = 37;
    Graph b("body");
    b.input("iter", Int64, {}).input("cond_in", Boolean, {}).input("v_in", Float32, {width});
    b.node("Add", {"v_in", "step"}, {"v_out"});
    b.node("Identity", {"cond_in"}, {"cond_out"});
    b.node("Identity", {"v_out"}, {"row"});
    b.node("Identity", {"row"}, {"row_again"});
    b.node("Add", {"v_out", "v_out"}, {"twice"});
    b.output("cond_out", Boolean, {}).output("v_out", Float32, {width});
    b.output("row", Float32, {width}).output("row_again", Float32, {width}).output("twice", Float32, {width});
    Graph g("add_step");
    g.input("M", Int64, {}).input("v", Float32, {width}).input("step", Float32, {width});
    attr_graph(g.node("Loop", {"M", "", "v"}, {"v_final", "rows", "rows_again", "twices"}), "body", b.g);
    g.output("v_final", Float32, {width}).output("rows", Float32, {}, false);
    g.output("rows_again", Float32, {}, false).output("twices", Float32, {}, false);
    Model model = model_of(g);
    std::vector<float> v = wave(width, 1.0f, 0.0f), step = wave(width, 0.25f, 1.0f);
    for (int64_t cut : {-1, 3}) {
        CompileOptions options;
        options.max_loop_iterations = cut;
        Session session(model, options);
        for (int64_t m : {0, 1, 7}) {
            std::map<std::string, Value> inputs = {
                {"M", scalar_i64(m)}, {"v", floats({width}, v)}, {"step", floats({width}, step)}};
            const CompiledModel &compiled = session.compiled_for(inputs);
            EXPECT_TRUE(any_note(compiled, "M read as a scalar Param"));
            std::vector<Value> outs = compiled.run(inputs);
            const int64_t trips = cut >= 0 ? std::min(m, cut) : m;
            std::vector<float> state = v, rows, twices;
            for (int64_t t = 0; t < trips; t++) {
                for (int64_t x = 0; x < width; x++) state[x] += step[x];
                rows.insert(rows.end(), state.begin(), state.end());
                for (float s : state) twices.push_back(s + s);
            }
            const std::string what = "M " + std::to_string(m) + ", cut " + std::to_string(cut);
            expect_close(outs.at(0), state, what + " v_final");
            for (int k : {1, 2}) {
                ASSERT_EQ(outs.at(k).shape, (std::vector<int64_t>{trips, width})) << what;
                expect_close(outs.at(k), rows, what + " rows " + std::to_string(k));
            }
            expect_close(outs.at(3), twices, what + " twices");
        }
    }
}

}  // namespace
