// The library API: loading and inspecting models, compiling for shapes,
// running, the Session's cache, tensor files, the static library, and the
// errors of bad files, unsupported ops and wrong inputs.

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "ModelBuilder.h"

using namespace loom::onnx;
using namespace onnx_test;
namespace fs = std::filesystem;

namespace {

Model add_model() {
    Graph g("add");
    g.input("a", Float32, {2, 3}).input("b", Float32, {3});
    g.node("Add", {"a", "b"}, {"c"}, "adder");
    g.node("ReduceSum", {"c"}, {"s"}, "summer");  // all axes, keepdims
    g.output("c", Float32, {2, 3}).output("s", Float32, {1, 1});
    return model_of(g, 11);
}

Model add_model_symbolic() {
    Graph g("add_n");
    g.input("a", Float32, {}, false).input("b", Float32, {}, false);
    g.node("Add", {"a", "b"}, {"c"}, "adder");
    g.output("c", Float32, {}, false);
    return model_of(g, 13);
}

template<typename E, typename F>
std::string error_of(F f) {
    try {
        f();
    } catch (const E &e) {
        return e.what();
    }
    ADD_FAILURE() << "no error";
    return "";
}

TEST(OnnxApi, InspectsInputsAndOutputs) {
    Model m = add_model();
    ASSERT_EQ(m.inputs().size(), 2u);
    EXPECT_EQ(m.inputs()[0].name, "a");
    EXPECT_EQ(m.inputs()[0].to_string(), "float32[2, 3]");
    EXPECT_EQ(m.outputs()[1].name, "s");
    EXPECT_EQ(m.opset(), 11);
    EXPECT_EQ(m.op_types(), (std::set<std::string>{"Add", "ReduceSum"}));
}

TEST(OnnxApi, CompilesAndRunsWithBroadcasting) {
    CompiledModel c = compile(add_model(), {{"a", floats({2, 3}, {1, 2, 3, 4, 5, 6})}, {"b", floats({3}, {10, 20, 30})}});
    std::vector<Value> outs = c.run({{"a", floats({2, 3}, {1, 2, 3, 4, 5, 6})}, {"b", floats({3}, {10, 20, 30})}});
    ASSERT_EQ(outs.size(), 2u);
    EXPECT_EQ(outs[0].shape, (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(outs[0].at(4), 25);
    EXPECT_EQ(outs[1].shape, (std::vector<int64_t>{1, 1}));
    EXPECT_EQ(outs[1].at(0), 141);
    // The Buffer is in Loom's layout: dim 0 is the last ONNX axis.
    EXPECT_EQ(outs[0].tensor.dim(0).extent(), 3);
    EXPECT_EQ(outs[0].tensor.as<float>()(1, 1), 25);
}

TEST(OnnxApi, SessionRecompilesWhenShapesChange) {
    Session s(add_model_symbolic());
    EXPECT_EQ(s.run({{"a", floats({2}, {1, 2})}, {"b", floats({2}, {3, 4})}})[0].at(1), 6);
    EXPECT_EQ(s.run({{"a", floats({2}, {5, 2})}, {"b", floats({2}, {3, 4})}})[0].at(0), 8);
    EXPECT_EQ(s.compilations(), 1);
    Value r = s.run({{"a", floats({3}, {1, 2, 3})}, {"b", floats({1}, {1})}})[0];
    EXPECT_EQ(r.shape, std::vector<int64_t>{3});
    EXPECT_EQ(r.at(2), 4);
    EXPECT_EQ(s.compilations(), 2);
}

TEST(OnnxApi, WrongInputShapeOrType) {
    Model m = add_model();
    // Against the declared shape: CompileError naming the input.
    std::string e = error_of<loom::CompileError>(
        [&] { compile(m, {{"a", floats({2, 4}, {})}, {"b", floats({3}, {})}}); });
    EXPECT_NE(e.find("'a'"), std::string::npos) << e;
    e = error_of<loom::CompileError>([&] { compile(m, {{"a", Value::zeros(Int32, {2, 3})}, {"b", floats({3}, {})}}); });
    EXPECT_NE(e.find("element type"), std::string::npos) << e;
    e = error_of<loom::CompileError>([&] { compile(m, {{"b", floats({3}, {})}}); });
    EXPECT_NE(e.find("not given"), std::string::npos) << e;
    // Against the compiled shape: RuntimeError.
    Model n = add_model_symbolic();
    CompiledModel c = compile(n, {{"a", floats({2}, {})}, {"b", floats({2}, {})}});
    e = error_of<loom::RuntimeError>([&] { c.run({{"a", floats({3}, {})}, {"b", floats({2}, {})}}); });
    EXPECT_NE(e.find("compiled for"), std::string::npos) << e;
    // Shapes that do not broadcast.
    e = error_of<loom::CompileError>([&] { compile(n, {{"a", floats({2}, {})}, {"b", floats({3}, {})}}); });
    EXPECT_NE(e.find("adder"), std::string::npos) << e;
}

TEST(OnnxApi, MalformedAndTruncatedFiles) {
    EXPECT_THROW(load_model("/nonexistent/model.onnx"), loom::CompileError);
    EXPECT_THROW(load_model_from_bytes(""), loom::CompileError);
    EXPECT_THROW(load_model_from_bytes(std::string("\xff\xff\xff\xff garbage", 12)), loom::CompileError);
    std::string bytes = model_bytes(Graph("g"), 13);
    std::string full;
    {
        Graph g("add");
        g.input("a", Float32, {2}).output("a", Float32, {2});
        full = model_bytes(g, 13);
    }
    for (size_t cut = 1; cut < full.size(); cut += 3) {
        try {
            Model m = load_model_from_bytes(full.substr(0, cut));
            (void)m;
        } catch (const loom::CompileError &) {
        }
    }
}

TEST(OnnxApi, UnsupportedOpNamesOpNodeAndSupportedSet) {
    Graph g("unsupported");
    g.input("x", Float32, {4});
    g.node("Erf", {"x"}, {"y"}, "my_erf");
    g.output("y", Float32, {4});
    std::string e = error_of<loom::CompileError>([&] { compile(model_of(g), {{"x", floats({4}, {})}}); });
    EXPECT_NE(e.find("'Erf'"), std::string::npos) << e;
    EXPECT_NE(e.find("my_erf"), std::string::npos) << e;
    EXPECT_NE(e.find("supported ops:"), std::string::npos) << e;
    EXPECT_NE(e.find("Loop"), std::string::npos) << e;
}

TEST(OnnxApi, UndefinedValueInGraph) {
    Graph g("dangling");
    g.input("x", Float32, {4});
    g.node("Add", {"x", "nowhere"}, {"y"}, "adder");
    g.output("y", Float32, {4});
    std::string e = error_of<loom::CompileError>([&] { compile(model_of(g), {{"x", floats({4}, {})}}); });
    EXPECT_NE(e.find("nowhere"), std::string::npos) << e;
}

TEST(OnnxApi, NodeWithoutOutputs) {
    // Found by the fuzz campaign (seeds 40000-49999): reading a node's
    // first output name aborted inside protobuf.
    Graph g("no_outputs");
    g.input("x", Float32, {4});
    g.node("Relu", {"x"}, {}, "silent");
    g.node("Identity", {"x"}, {"y"});
    g.output("y", Float32, {4});
    std::string e = error_of<loom::CompileError>([&] { compile(model_of(g), {{"x", floats({4}, {})}}); });
    EXPECT_NE(e.find("silent"), std::string::npos) << e;
}

TEST(OnnxApi, ShapeValuesMustBeKnown) {
    // Reshape to a shape given as an input: compile() says which input it
    // needs; a Session compiles it in.
    Graph g("reshape");
    g.input("x", Float32, {2, 3}).input("shape", Int64, {2});
    g.node("Reshape", {"x", "shape"}, {"y"}, "reshaper");
    g.output("y", Float32, {}, false);
    Model m = model_of(g, 13);
    Value shape = Value::zeros(Int64, {2});
    shape.tensor.as<int64_t>()(0) = 3;
    shape.tensor.as<int64_t>()(1) = 2;
    std::map<std::string, Value> inputs = {{"x", floats({2, 3}, {1, 2, 3, 4, 5, 6})}, {"shape", shape}};
    std::string e = error_of<loom::CompileError>([&] { compile(m, inputs); });
    EXPECT_NE(e.find("'shape'"), std::string::npos) << e;
    EXPECT_NE(e.find("reshaper"), std::string::npos) << e;
    Session s(m);
    Value y = s.run(inputs)[0];
    EXPECT_EQ(y.shape, (std::vector<int64_t>{3, 2}));
    EXPECT_EQ(y.at(5), 6);
}

TEST(OnnxApi, TensorFilesRoundTrip) {
    fs::path dir = fs::temp_directory_path() / "loom_onnx_api_test";
    fs::create_directories(dir);
    Value v = floats({2, 2}, {1, 2, 3, 4});
    write_npy((dir / "v.npy").string(), v);
    Value back = read_value_file((dir / "v.npy").string());
    EXPECT_EQ(back.shape, v.shape);
    EXPECT_EQ(back.at(3), 4);
    std::ofstream((dir / "v.pb").string(), std::ios::binary) << serialize_tensor_proto(v);
    back = read_value_file((dir / "v.pb").string());
    EXPECT_EQ(back.shape, v.shape);
    EXPECT_EQ(back.at(2), 3);
    std::ofstream((dir / "bad.npy").string(), std::ios::binary) << "\x93NUMPY\x01";
    EXPECT_THROW(read_value_file((dir / "bad.npy").string()), loom::CompileError);
    fs::remove_all(dir);
}

TEST(OnnxApi, CompilesToStaticLibrary) {
    fs::path dir = fs::temp_directory_path() / "loom_onnx_aot_test";
    fs::remove_all(dir);
    CompiledModel c = compile(add_model(), {{"a", floats({2, 3}, {})}, {"b", floats({3}, {})}});
    c.compile_to_static_library(dir.string(), "add_model");
    EXPECT_TRUE(fs::exists(dir / "add_model.a"));
    ASSERT_TRUE(fs::exists(dir / "add_model.h"));
    std::ifstream h((dir / "add_model.h").string());
    std::string header((std::istreambuf_iterator<char>(h)), std::istreambuf_iterator<char>());
    EXPECT_NE(header.find("int add_model("), std::string::npos) << header;
    fs::remove_all(dir);
}

}  // namespace
