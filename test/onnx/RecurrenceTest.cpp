// Loop and Scan compiled as update definitions over an RDom: long loops
// compile in one piece, and both mappings (update definitions and one body
// per iteration) give the same values.

#include <chrono>
#include <cmath>

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


TEST(OnnxRecurrence, LongLoopIsOneUpdateDefinition) {
    const int64_t width = 64, trips = 4000;
    std::vector<float> v(width), step(width);
    for (int i = 0; i < width; i++) v[i] = (float)i, step[i] = 0.25f * (float)(i % 5);
    Session s(add_step_loop(width));
    std::map<std::string, Value> inputs = {
        {"M", scalar_i64(trips)}, {"v", floats({width}, v)}, {"step", floats({width}, step)}};
    auto t0 = std::chrono::steady_clock::now();
    const CompiledModel &m = s.compiled_for(inputs);
    double compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    // M is an input: read at run time, not compiled in.
    EXPECT_TRUE(any_note(m, "loop_while over RDom(0, M at run time)")) << m.loop_notes().at(0);
    std::printf("add-step Loop, M = %lld, width %lld: compiled in %.0f ms\n", (long long)trips, (long long)width,
                compile_ms);
    std::vector<Value> outs = m.run(inputs);
    ASSERT_EQ(outs[1].shape, (std::vector<int64_t>{trips, width}));
    for (int i = 0; i < width; i++) {
        EXPECT_FLOAT_EQ((float)outs[0].at(i), v[i] + trips * step[i]) << i;
        EXPECT_FLOAT_EQ((float)outs[1].at(1234 * width + i), v[i] + 1235 * step[i]) << i;
    }
}

// a' = a + b, b' = b + float(iter): two carried values (one Tuple-valued
// state) and the iteration number; scan of a'.
Model two_carried_loop() {
    Graph b("body");
    b.input("iter", Int64, {}).input("cond_in", Boolean, {}).input("a", Float32, {3}).input("b", Float32, {3});
    b.node("Add", {"a", "b"}, {"a_out"});
    auto &cast = b.node("Cast", {"iter"}, {"iter_f"});
    attr_int(cast, "to", Float32);
    b.node("Add", {"b", "iter_f"}, {"b_out"});
    b.node("Identity", {"cond_in"}, {"cond_out"});
    b.node("Identity", {"a_out"}, {"scan"});
    b.output("cond_out", Boolean, {}).output("a_out", Float32, {3}).output("b_out", Float32, {3});
    b.output("scan", Float32, {3});
    Graph g("two_carried");
    g.input("M", Int64, {}).input("a", Float32, {3}).input("b", Float32, {3});
    attr_graph(g.node("Loop", {"M", "", "a", "b"}, {"a_final", "b_final", "scans"}), "body", b.g);
    g.output("a_final", Float32, {3}).output("b_final", Float32, {3}).output("scans", Float32, {}, false);
    return model_of(g);
}

TEST(OnnxRecurrence, BothMappingsAgree) {
    std::map<std::string, Value> inputs = {
        {"M", scalar_i64(10)}, {"a", floats({3}, {1, 2, 3})}, {"b", floats({3}, {0.5f, -1, 2})}};
    CompileOptions unrolled;
    unrolled.loops_as_recurrences = false;
    Session rec(two_carried_loop()), per_iteration(two_carried_loop(), unrolled);
    EXPECT_TRUE(any_note(rec.compiled_for(inputs), "update definitions"));
    EXPECT_TRUE(any_note(per_iteration.compiled_for(inputs), "instantiated per iteration"));
    std::vector<Value> x = rec.run(inputs), y = per_iteration.run(inputs);
    ASSERT_EQ(x.size(), y.size());
    // The reference in C++.
    std::vector<float> a = {1, 2, 3}, b = {0.5f, -1, 2}, scan;
    for (int i = 0; i < 10; i++) {
        for (int k = 0; k < 3; k++) {
            a[k] += b[k];
            b[k] += (float)i;
        }
        scan.insert(scan.end(), a.begin(), a.end());
    }
    for (size_t o = 0; o < x.size(); o++) {
        ASSERT_EQ(x[o].shape, y[o].shape);
        for (int64_t i = 0; i < x[o].num_elements(); i++) EXPECT_EQ(x[o].at(i), y[o].at(i)) << o << " " << i;
    }
    for (int k = 0; k < 3; k++) EXPECT_EQ((float)x[0].at(k), a[k]);
    for (int k = 0; k < 3; k++) EXPECT_EQ((float)x[1].at(k), b[k]);
    for (size_t i = 0; i < scan.size(); i++) EXPECT_EQ((float)x[2].at((int64_t)i), scan[i]);
}

// An Elman RNN step h' = tanh(W x_t + U h + b) as a Scan over x: MatMuls in
// the body are written out as sums, so it is still one update definition.
Model rnn_scan(int64_t hidden, int64_t input, int64_t steps) {
    Graph b("body");
    b.input("h", Float32, {1, hidden}).input("x_t", Float32, {1, input});
    b.node("MatMul", {"x_t", "W"}, {"wx"});
    b.node("MatMul", {"h", "U"}, {"uh"});
    b.node("Add", {"wx", "uh"}, {"s"});
    b.node("Add", {"s", "bias"}, {"z"});
    b.node("Tanh", {"z"}, {"h_out"});
    b.node("Identity", {"h_out"}, {"y"});
    b.output("h_out", Float32, {1, hidden}).output("y", Float32, {1, hidden});
    Graph g("rnn");
    g.input("h0", Float32, {1, hidden}).input("xs", Float32, {steps, 1, input});
    g.input("W", Float32, {input, hidden}).input("U", Float32, {hidden, hidden}).input("bias", Float32, {hidden});
    auto &scan = g.node("Scan", {"h0", "xs"}, {"h_final", "ys"}, "rnn_scan");
    attr_int(scan, "num_scan_inputs", 1);
    attr_graph(scan, "body", b.g);
    g.output("h_final", Float32, {1, hidden}).output("ys", Float32, {steps, 1, hidden});
    return model_of(g, 16);
}

TEST(OnnxRecurrence, RnnScanMatchesReferenceAndPerIterationMapping) {
    const int64_t H = 8, I = 4, T = 50;
    std::vector<float> h0(H), xs(T * I), W(I * H), U(H * H), bias(H);
    for (size_t i = 0; i < h0.size(); i++) h0[i] = 0.1f * (float)i - 0.3f;
    for (size_t i = 0; i < xs.size(); i++) xs[i] = std::sin(0.37f * (float)i);
    for (size_t i = 0; i < W.size(); i++) W[i] = std::cos(0.11f * (float)i) * 0.5f;
    for (size_t i = 0; i < U.size(); i++) U[i] = std::sin(0.23f * (float)i) * 0.3f;
    for (size_t i = 0; i < bias.size(); i++) bias[i] = 0.05f * (float)i;
    std::map<std::string, Value> inputs = {{"h0", floats({1, H}, h0)}, {"xs", floats({T, 1, I}, xs)},
                                           {"W", floats({I, H}, W)},   {"U", floats({H, H}, U)},
                                           {"bias", floats({H}, bias)}};
    Session s(rnn_scan(H, I, T));
    auto t0 = std::chrono::steady_clock::now();
    const CompiledModel &m = s.compiled_for(inputs);
    std::printf("RNN Scan, T = %lld, H = %lld: compiled in %.0f ms\n", (long long)T, (long long)H,
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    EXPECT_TRUE(any_note(m, "update definitions")) << m.loop_notes().at(0);
    std::vector<Value> outs = m.run(inputs);
    // One body per step gives the same values (over 6 steps: that mapping
    // compiles a body per step and is slow to compile).
    {
        const int64_t short_T = 6;
        std::map<std::string, Value> short_inputs = inputs;
        short_inputs["xs"] = floats({short_T, 1, I}, std::vector<float>(xs.begin(), xs.begin() + short_T * I));
        CompileOptions unrolled;
        unrolled.loops_as_recurrences = false;
        Session per_step(rnn_scan(H, I, short_T), unrolled), rec(rnn_scan(H, I, short_T));
        std::vector<Value> a = rec.run(short_inputs), b = per_step.run(short_inputs);
        for (int64_t i = 0; i < a[1].num_elements(); i++) ASSERT_NEAR(a[1].at(i), b[1].at(i), 1e-6) << i;
    }
    std::vector<float> h = h0;
    for (int t = 0; t < T; t++) {
        std::vector<float> next(H);
        for (int j = 0; j < H; j++) {
            float acc = bias[j];
            for (int k = 0; k < I; k++) acc += xs[t * I + k] * W[k * H + j];
            for (int k = 0; k < H; k++) acc += h[k] * U[k * H + j];
            next[j] = std::tanh(acc);
        }
        h = next;
        for (int j = 0; j < H; j++) EXPECT_NEAR(outs[1].at(t * H + j), h[j], 1e-5) << t << " " << j;
    }
    for (int j = 0; j < H; j++) EXPECT_NEAR(outs[0].at(j), h[j], 1e-5);
}

TEST(OnnxRecurrence, ReverseScanAlongAxisOne) {
    // A running sum over the columns of a [2, 5] input, right to left,
    // scan output stacked along axis 1 in reverse.
    Graph b("body");
    b.input("acc", Float32, {2}).input("col", Float32, {2});
    b.node("Add", {"acc", "col"}, {"acc_out"});
    b.node("Identity", {"acc_out"}, {"y"});
    b.output("acc_out", Float32, {2}).output("y", Float32, {2});
    Graph g("reverse_scan");
    g.input("init", Float32, {2}).input("x", Float32, {2, 5});
    auto &scan = g.node("Scan", {"init", "x"}, {"total", "partials"}, "cumsum");
    attr_int(scan, "num_scan_inputs", 1);
    auto *ints = scan.add_attribute();
    ints->set_name("scan_input_axes");
    ints->set_type(::onnx::AttributeProto::INTS);
    ints->add_ints(1);
    auto *dirs = scan.add_attribute();
    dirs->set_name("scan_input_directions");
    dirs->set_type(::onnx::AttributeProto::INTS);
    dirs->add_ints(1);
    auto *out_axes = scan.add_attribute();
    out_axes->set_name("scan_output_axes");
    out_axes->set_type(::onnx::AttributeProto::INTS);
    out_axes->add_ints(1);
    auto *out_dirs = scan.add_attribute();
    out_dirs->set_name("scan_output_directions");
    out_dirs->set_type(::onnx::AttributeProto::INTS);
    out_dirs->add_ints(1);
    attr_graph(scan, "body", b.g);
    g.output("total", Float32, {2}).output("partials", Float32, {2, 5});
    std::map<std::string, Value> inputs = {{"init", floats({2}, {0, 100})},
                                           {"x", floats({2, 5}, {1, 2, 3, 4, 5, 10, 20, 30, 40, 50})}};
    CompileOptions unrolled;
    unrolled.loops_as_recurrences = false;
    Session rec(model_of(g, 16)), per_element(model_of(g, 16), unrolled);
    std::vector<Value> x = rec.run(inputs), y = per_element.run(inputs);
    EXPECT_TRUE(any_note(rec.compiled_for(inputs), "update definitions"));
    EXPECT_EQ(x[0].at(0), 15);
    EXPECT_EQ(x[0].at(1), 250);
    // Reverse in, reverse out: partials[:, j] = sum of x[:, j:] (+ init).
    EXPECT_EQ(x[1].at(0), 15);
    EXPECT_EQ(x[1].at(4), 5);
    EXPECT_EQ(x[1].at(5), 250);
    EXPECT_EQ(x[1].at(9), 150);
    for (size_t o = 0; o < x.size(); o++) {
        ASSERT_EQ(x[o].shape, y[o].shape);
        for (int64_t i = 0; i < x[o].num_elements(); i++) EXPECT_EQ(x[o].at(i), y[o].at(i)) << o << " " << i;
    }
}

TEST(OnnxRecurrence, BoundedWhileDecidedAtRunTime) {
    // v *= 1.5 while max(v) < 100, at most M = 1000 times, cond an input:
    // the state carries a "still running" flag, one compilation serves
    // every v and cond.
    Graph b("body");
    b.input("iter", Int64, {}).input("cond_in", Boolean, {}).input("v_in", Float32, {4});
    b.constant_f("factor", {}, {1.5f});
    b.constant_f("limit", {}, {100.0f});
    b.node("Mul", {"v_in", "factor"}, {"v_out"});
    auto &reduce = b.node("ReduceMax", {"v_out"}, {"largest"});
    attr_int(reduce, "keepdims", 0);
    b.node("Less", {"largest", "limit"}, {"cond_out"});
    b.output("cond_out", Boolean, {}).output("v_out", Float32, {4});
    Graph g("bounded_while");
    g.input("cond", Boolean, {}).input("v", Float32, {4});
    g.constant_i("M", {}, {1000});
    attr_graph(g.node("Loop", {"M", "cond", "v"}, {"v_final"}, "grow"), "body", b.g);
    g.output("v_final", Float32, {4});
    Session s(model_of(g, 16));
    auto reference = [](std::vector<float> v, bool cond) {
        for (int i = 0; i < 1000 && cond; i++) {
            float largest = -1e30f;
            for (float &x : v) {
                x *= 1.5f;
                largest = std::max(largest, x);
            }
            cond = largest < 100.0f;
        }
        return v;
    };
    for (auto [v, cond] : std::vector<std::pair<std::vector<float>, bool>>{
             {{1, 2, 3, 4}, true}, {{0.001f, 0, -5, 0.5f}, true}, {{1, 2, 3, 4}, false}, {{200, 1, 1, 1}, true}}) {
        std::map<std::string, Value> inputs = {{"cond", scalar_bool(cond)}, {"v", floats({4}, v)}};
        const CompiledModel &m = s.compiled_for(inputs);
        EXPECT_TRUE(any_note(m, "loop_while over RDom(0, 1000)")) << m.loop_notes().at(0);
        std::vector<float> expected = reference(v, cond);
        Value out = m.run(inputs)[0];
        for (int k = 0; k < 4; k++) EXPECT_FLOAT_EQ((float)out.at(k), expected[k]) << k;
    }
    EXPECT_EQ(s.compilations(), 1);
}

TEST(OnnxRecurrence, TripCountAtRunTimeNeedsNoRecompilation) {
    // The add-step Loop with M read at run time: scan outputs allocated at
    // M rows, zero included; one compilation for every M.
    const int64_t width = 4;
    Session s(add_step_loop(width));
    for (int64_t trips : {5, 0, 7, 1}) {
        std::vector<Value> outs = s.run({{"M", scalar_i64(trips)}, {"v", floats({width}, {1, 2, 3, 4})},
                                         {"step", floats({width}, {1, 1, 1, 1})}});
        EXPECT_EQ(outs[1].shape, (std::vector<int64_t>{trips, width}));
        EXPECT_EQ(outs[0].at(0), 1 + trips);
        if (trips) {
            EXPECT_EQ(outs[1].at(0), 2);
            EXPECT_EQ(outs[1].at((trips - 1) * width + 3), 4 + trips);
        }
    }
    EXPECT_EQ(s.compilations(), 1);
}

// v *= 2 while v < limit, counting iterations in a carried value; `limit`
// is an input, M as given (an input, or absent: an endless loop), scan of v.
Model doubling_loop(bool with_m, bool with_scan) {
    Graph b("body");
    b.input("iter", Int64, {}).input("cond_in", Boolean, {}).input("v_in", Float32, {1}).input("n_in", Float32, {1});
    b.constant_f("two", {}, {2.0f});
    b.constant_f("one", {}, {1.0f});
    b.node("Mul", {"v_in", "two"}, {"v_out"});
    b.node("Add", {"n_in", "one"}, {"n_out"});
    b.node("Less", {"v_out", "limit"}, {"less"});
    b.node("Squeeze", {"less"}, {"cond_out"});
    b.output("cond_out", Boolean, {}).output("v_out", Float32, {1}).output("n_out", Float32, {1});
    if (with_scan) {
        b.node("Identity", {"v_out"}, {"row"});
        b.node("Identity", {"n_out"}, {"count_row"});
        b.output("row", Float32, {1}).output("count_row", Float32, {1});
    }
    Graph g("doubling");
    if (with_m) g.input("M", Int64, {});
    g.input("limit", Float32, {}).input("v", Float32, {1}).input("n", Float32, {1});
    std::vector<std::string> outs = {"v_final", "n_final"};
    if (with_scan) outs.push_back("rows"), outs.push_back("counts");
    attr_graph(g.node("Loop", {with_m ? "M" : "", "", "v", "n"}, outs, "doubling"), "body", b.g);
    g.output("v_final", Float32, {1}).output("n_final", Float32, {1});
    if (with_scan) g.output("rows", Float32, {}, false).output("counts", Float32, {}, false);
    return model_of(g);
}

TEST(OnnxRecurrence, EndlessLoopEndsByItsConditionAtRunTime) {
    Session s(doubling_loop(false, false));
    for (float limit : {1.5f, 100.0f, 1e30f}) {
        std::map<std::string, Value> inputs = {
            {"limit", floats({}, {limit})}, {"v", floats({1}, {1})}, {"n", floats({1}, {0})}};
        EXPECT_TRUE(any_note(s.compiled_for(inputs), "loop_while over RDom(0, unbounded)"));
        std::vector<Value> outs = s.run(inputs);
        float v = 1, n = 0;
        do {
            v *= 2;
            n++;
        } while (v < limit);
        EXPECT_EQ((float)outs[0].at(0), v) << limit;
        EXPECT_EQ((float)outs[1].at(0), n) << limit;
    }
    EXPECT_EQ(s.compilations(), 1);
}

TEST(OnnxRecurrence, ScanOutputsCroppedToTheTripCount) {
    Session s(doubling_loop(true, true));
    for (auto [m, limit] : std::vector<std::pair<int64_t, float>>{{100, 40.0f}, {3, 40.0f}, {0, 40.0f}, {100, 1.0f}}) {
        std::map<std::string, Value> inputs = {{"M", scalar_i64(m)},
                                               {"limit", floats({}, {limit})},
                                               {"v", floats({1}, {1})},
                                               {"n", floats({1}, {0})}};
        std::vector<Value> outs = s.run(inputs);
        std::vector<float> rows;
        float v = 1;
        for (int64_t i = 0; i < m; i++) {
            v *= 2;
            rows.push_back(v);
            if (!(v < limit)) break;
        }
        ASSERT_EQ(outs[2].shape, (std::vector<int64_t>{(int64_t)rows.size(), 1})) << m << " " << limit;
        for (size_t i = 0; i < rows.size(); i++) EXPECT_EQ((float)outs[2].at((int64_t)i), rows[i]);
        EXPECT_EQ((float)outs[0].at(0), v);
        EXPECT_EQ((float)outs[1].at(0), (float)rows.size());
    }
    EXPECT_EQ(s.compilations(), 1);
}

TEST(OnnxRecurrence, ScanOutputsWithoutTripCountGrowGeometrically) {
    // No M: the scan outputs start at 16 rows and the run doubles them while
    // the loop stops at that capacity with its condition still true.
    Session s(doubling_loop(false, true));
    for (float limit : {3.0f, 70000.0f, 1e30f, 4.0f}) {
        std::map<std::string, Value> inputs = {
            {"limit", floats({}, {limit})}, {"v", floats({1}, {1})}, {"n", floats({1}, {0})}};
        const CompiledModel &m = s.compiled_for(inputs);
        EXPECT_TRUE(any_note(m, "loop_while over RDom(0, unbounded)")) << m.loop_notes().at(0);
        std::vector<Value> outs = m.run(inputs);
        std::vector<float> rows;
        float v = 1;
        do {
            v *= 2;
            rows.push_back(v);
        } while (v < limit);
        ASSERT_EQ(outs[2].shape, (std::vector<int64_t>{(int64_t)rows.size(), 1})) << limit;
        ASSERT_EQ(outs[3].shape, (std::vector<int64_t>{(int64_t)rows.size(), 1})) << limit;
        for (size_t i = 0; i < rows.size(); i++) {
            EXPECT_EQ((float)outs[2].at((int64_t)i), rows[i]);
            EXPECT_EQ((float)outs[3].at((int64_t)i), (float)(i + 1));
        }
        EXPECT_EQ((float)outs[0].at(0), v);
    }
    EXPECT_EQ(s.compilations(), 1);
}

}  // namespace
