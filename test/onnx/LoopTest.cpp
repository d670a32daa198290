// Loop behaviour ONNX Runtime checks and the backend data does not: zero
// iterations, an endless loop ended by the body, the iteration number as an
// output, an exit due to the condition at run time, body inputs shadowing
// outer values, nested loops, bodies with the wrong signature.

#include <gtest/gtest.h>

#include "ModelBuilder.h"

using namespace loom::onnx;
using namespace onnx_test;

namespace {

// body(iter, cond_in, v_in[2]) -> (cond_out = cond_in, v_out = v_in + 1, scan = v_out)
Graph add_one_body() {
    Graph b("add_one_body");
    b.input("iter", Int64, {}).input("cond_in", Boolean, {}).input("v_in", Float32, {2});
    b.constant_f("one", {1}, {1.0f});
    b.node("Add", {"v_in", "one"}, {"v_out"});
    b.node("Identity", {"cond_in"}, {"cond_out"});
    b.node("Identity", {"v_out"}, {"scan"});
    b.output("cond_out", Boolean, {}).output("v_out", Float32, {2}).output("scan", Float32, {2});
    return b;
}

Model add_one_loop(const std::string &m, const std::string &cond) {
    Graph g("add_one_loop");
    if (!m.empty()) g.input(m, Int64, {});
    if (!cond.empty()) g.input(cond, Boolean, {});
    g.input("v", Float32, {2});
    auto &loop = g.node("Loop", {m, cond, "v"}, {"v_final", "scan_all"}, "the_loop");
    attr_graph(loop, "body", add_one_body().g);
    g.output("v_final", Float32, {2}).output("scan_all", Float32, {-1, 2}, false);
    return model_of(g);
}

std::vector<float> values_of(const Value &v) {
    std::vector<float> out;
    for (int64_t i = 0; i < v.num_elements(); i++) out.push_back((float)v.at(i));
    return out;
}

TEST(OnnxLoop, ZeroIterationsGiveScanOutputsOfExtentZero) {
    Session s(add_one_loop("M", "cond"));
    std::vector<Value> outs = s.run({{"M", scalar_i64(0)}, {"cond", scalar_bool(true)}, {"v", floats({2}, {5, 7})}});
    EXPECT_EQ(values_of(outs[0]), (std::vector<float>{5, 7}));
    EXPECT_EQ(outs[1].shape, (std::vector<int64_t>{0, 2}));
    // cond false before the first iteration: zero iterations too.
    outs = s.run({{"M", scalar_i64(3)}, {"cond", scalar_bool(false)}, {"v", floats({2}, {5, 7})}});
    EXPECT_EQ(values_of(outs[0]), (std::vector<float>{5, 7}));
    EXPECT_EQ(outs[1].shape, (std::vector<int64_t>{0, 2}));
    // And three.
    outs = s.run({{"M", scalar_i64(3)}, {"cond", scalar_bool(true)}, {"v", floats({2}, {5, 7})}});
    EXPECT_EQ(values_of(outs[0]), (std::vector<float>{8, 10}));
    EXPECT_EQ(outs[1].shape, (std::vector<int64_t>{3, 2}));
    EXPECT_EQ(values_of(outs[1]), (std::vector<float>{6, 8, 7, 9, 8, 10}));
}

TEST(OnnxLoop, EndlessLoopStoppedByTheBody) {
    // No M, no cond: the body's condition (iter < 4) is the only exit; the
    // iteration that computes false still runs (5 iterations).
    Graph b("body");
    b.input("iter", Int64, {}).input("cond_in", Boolean, {}).input("v_in", Float32, {2});
    b.constant_f("one", {1}, {1.0f});
    b.constant_i("four", {}, {4});
    b.node("Add", {"v_in", "one"}, {"v_out"});
    b.node("Less", {"iter", "four"}, {"cond_out"});
    b.node("Identity", {"v_out"}, {"scan"});
    b.output("cond_out", Boolean, {}).output("v_out", Float32, {2}).output("scan", Float32, {2});
    Graph g("endless");
    g.input("v", Float32, {2});
    attr_graph(g.node("Loop", {"", "", "v"}, {"v_final", "scan_all"}), "body", b.g);
    g.output("v_final", Float32, {2}).output("scan_all", Float32, {}, false);
    Session s(model_of(g));
    std::vector<Value> outs = s.run({{"v", floats({2}, {0, 10})}});
    EXPECT_EQ(values_of(outs[0]), (std::vector<float>{5, 15}));
    EXPECT_EQ(outs[1].shape, (std::vector<int64_t>{5, 2}));
}

TEST(OnnxLoop, IterationNumberAsOutput) {
    Graph b("body");
    b.input("iter", Int64, {}).input("cond_in", Boolean, {}).input("count_in", Int64, {});
    b.node("Identity", {"cond_in"}, {"cond_out"});
    b.node("Identity", {"iter"}, {"count_out"});
    b.node("Identity", {"iter"}, {"iters"});
    b.output("cond_out", Boolean, {}).output("count_out", Int64, {}).output("iters", Int64, {});
    Graph g("counter");
    g.input("M", Int64, {}).input("count", Int64, {});
    attr_graph(g.node("Loop", {"M", "", "count"}, {"last", "all"}), "body", b.g);
    g.output("last", Int64, {}).output("all", Int64, {}, false);
    Session s(model_of(g));
    std::vector<Value> outs = s.run({{"M", scalar_i64(4)}, {"count", scalar_i64(-1)}});
    EXPECT_EQ(outs[0].at(0), 3);
    EXPECT_EQ(outs[0].shape, std::vector<int64_t>{});
    EXPECT_EQ(values_of(outs[1]), (std::vector<float>{0, 1, 2, 3}));
}

TEST(OnnxLoop, ExitDueToConditionAtRunTime) {
    // v += 1 while v < 3.5, at most M = 10 times; the condition depends on
    // the input's values, which are not compiled in: one compilation serves
    // every v.
    Graph b("body");
    b.input("iter", Int64, {}).input("cond_in", Boolean, {}).input("v_in", Float32, {1});
    b.constant_f("one", {1}, {1.0f});
    b.constant_f("limit", {}, {3.5f});
    b.node("Add", {"v_in", "one"}, {"v_out"});
    b.node("Less", {"v_out", "limit"}, {"less"});
    b.node("Squeeze", {"less"}, {"cond_out"});
    b.output("cond_out", Boolean, {}).output("v_out", Float32, {1});
    Graph g("while_less");
    g.input("v", Float32, {1});
    g.constant_i("M", {}, {10});
    g.node("Constant", {}, {"cond"});
    auto *a = g.g.mutable_node(g.g.node_size() - 1)->add_attribute();
    a->set_name("value");
    a->set_type(::onnx::AttributeProto::TENSOR);
    a->mutable_t()->set_data_type(Boolean);
    a->mutable_t()->add_int32_data(1);
    attr_graph(g.node("Loop", {"M", "cond", "v"}, {"v_final"}), "body", b.g);
    g.output("v_final", Float32, {1});
    Session s(model_of(g));
    EXPECT_EQ(values_of(s.run({{"v", floats({1}, {0})}})[0]), std::vector<float>{4});
    EXPECT_EQ(values_of(s.run({{"v", floats({1}, {2})}})[0]), std::vector<float>{4});
    EXPECT_EQ(values_of(s.run({{"v", floats({1}, {10})}})[0]), std::vector<float>{11});
    EXPECT_EQ(values_of(s.run({{"v", floats({1}, {-20})}})[0]), std::vector<float>{-10});  // M ends it
    EXPECT_EQ(s.compilations(), 1);
    bool mapped = false;
    for (const std::string &note : s.compiled_for({{"v", floats({1}, {0})}}).loop_notes())
        mapped = mapped || note.find("update definitions") != std::string::npos;
    EXPECT_TRUE(mapped);
}

TEST(OnnxLoop, BodyInputShadowsOuterValue) {
    // The graph has inputs x and y; the body's carried input is also named
    // x and must hide the outer x, while y is read from the outer scope.
    Graph b("body");
    b.input("iter", Int64, {}).input("cond_in", Boolean, {}).input("x", Float32, {1});
    b.node("Add", {"x", "y"}, {"x_out"});
    b.node("Identity", {"cond_in"}, {"cond_out"});
    b.output("cond_out", Boolean, {}).output("x_out", Float32, {1});
    Graph g("shadow");
    g.input("M", Int64, {}).input("x", Float32, {1}).input("y", Float32, {1}).input("x0", Float32, {1});
    attr_graph(g.node("Loop", {"M", "", "x0"}, {"result"}), "body", b.g);
    g.output("result", Float32, {1});
    Session s(model_of(g));
    std::vector<Value> outs =
        s.run({{"M", scalar_i64(3)}, {"x", floats({1}, {1000})}, {"y", floats({1}, {2})}, {"x0", floats({1}, {1})}});
    EXPECT_EQ(values_of(outs[0]), std::vector<float>{7});
}

TEST(OnnxLoop, NestedLoops) {
    Graph inner("inner");
    inner.input("j", Int64, {}).input("c", Boolean, {}).input("w", Float32, {2});
    inner.constant_f("one", {}, {1.0f});
    inner.node("Add", {"w", "one"}, {"w_out"});
    inner.node("Identity", {"c"}, {"c_out"});
    inner.output("c_out", Boolean, {}).output("w_out", Float32, {2});
    Graph outer("outer");
    outer.input("i", Int64, {}).input("c", Boolean, {}).input("v", Float32, {2});
    outer.constant_i("two", {}, {2});
    attr_graph(outer.node("Loop", {"two", "", "v"}, {"v_out"}), "body", inner.g);
    outer.node("Identity", {"c"}, {"c_out"});
    outer.output("c_out", Boolean, {}).output("v_out", Float32, {2});
    Graph g("nested");
    g.input("M", Int64, {}).input("v", Float32, {2});
    attr_graph(g.node("Loop", {"M", "", "v"}, {"r"}), "body", outer.g);
    g.output("r", Float32, {2});
    Session s(model_of(g));
    EXPECT_EQ(values_of(s.run({{"M", scalar_i64(3)}, {"v", floats({2}, {0, 1})}})[0]), (std::vector<float>{6, 7}));
}

TEST(OnnxLoop, BodyWithWrongNumberOfInputsOrOutputs) {
    Graph b("body");
    b.input("iter", Int64, {}).input("v_in", Float32, {2});  // the condition is missing
    b.node("Identity", {"v_in"}, {"v_out"});
    b.output("v_out", Float32, {2});
    Graph g("bad_loop");
    g.input("M", Int64, {}).input("v", Float32, {2});
    attr_graph(g.node("Loop", {"M", "", "v"}, {"r"}, "my_loop"), "body", b.g);
    g.output("r", Float32, {2});
    Session s(model_of(g));
    try {
        s.run({{"M", scalar_i64(2)}, {"v", floats({2}, {0, 1})}});
        FAIL() << "expected a CompileError";
    } catch (const loom::CompileError &e) {
        std::string m = e.what();
        EXPECT_NE(m.find("my_loop"), std::string::npos) << m;
        EXPECT_NE(m.find("the body has 2 inputs"), std::string::npos) << m;
    }
    Graph b2("body2");
    b2.input("iter", Int64, {}).input("c", Boolean, {}).input("v_in", Float32, {2});
    b2.node("Identity", {"c"}, {"c_out"});
    b2.output("c_out", Boolean, {});  // the carried value is missing
    Graph g2("bad_loop2");
    g2.input("M", Int64, {}).input("v", Float32, {2});
    attr_graph(g2.node("Loop", {"M", "", "v"}, {"r"}, "my_loop"), "body", b2.g);
    g2.output("r", Float32, {2});
    Session s2(model_of(g2));
    EXPECT_THROW(s2.run({{"M", scalar_i64(2)}, {"v", floats({2}, {0, 1})}}), loom::CompileError);
}

}  // namespace
