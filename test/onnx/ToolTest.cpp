// loom-onnx as a program: test, run and compile, and their exit codes.

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <sys/wait.h>

namespace fs = std::filesystem;

namespace {

struct Result {
    int status;
    std::string output;
};

Result tool(const std::string &args) {
    std::string command = std::string(LOOM_ONNX_TOOL) + " " + args + " 2>&1";
    FILE *p = popen(command.c_str(), "r");
    Result r{-1, ""};
    if (!p) return r;
    char buffer[4096];
    while (size_t n = fread(buffer, 1, sizeof buffer, p)) r.output.append(buffer, n);
    int status = pclose(p);
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

std::string testdata(const std::string &name) { return std::string(LOOM_ONNX_TESTDATA) + "/" + name; }

TEST(OnnxTool, TestCommandPassesAndFails) {
    if (!fs::exists(testdata("test_loop11"))) GTEST_SKIP() << "libonnx-testdata is not installed";
    Result r = tool("test " + testdata("test_loop11"));
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("PASS"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("largest difference"), std::string::npos) << r.output;
    // A data set that does not match: test_add's model against test_sub's data.
    fs::path dir = fs::temp_directory_path() / "loom_onnx_tool_mismatch";
    fs::remove_all(dir);
    fs::create_directories(dir);
    fs::copy_file(testdata("test_add") + "/model.onnx", dir / "model.onnx");
    fs::copy(testdata("test_sub") + "/test_data_set_0", dir / "test_data_set_0");
    r = tool("test " + dir.string());
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("MISMATCH"), std::string::npos) << r.output;
    fs::remove_all(dir);
}

TEST(OnnxTool, RunPrintsOutputsAndWritesNpy) {
    if (!fs::exists(testdata("test_loop11"))) GTEST_SKIP() << "libonnx-testdata is not installed";
    std::string set = testdata("test_loop11") + "/test_data_set_0/";
    fs::path out = fs::temp_directory_path() / "loom_onnx_tool_run";
    fs::remove_all(out);
    Result r = tool("run " + testdata("test_loop11") + "/model.onnx --input trip_count=" + set +
                    "input_0.pb --input cond=" + set + "input_1.pb --input y=" + set + "input_2.pb --output-dir " +
                    out.string() + " --bench 3 --print-loop-nest");
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("res_scan: float32[5, 1]"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("bench: 3 runs"), std::string::npos) << r.output;
    EXPECT_TRUE(fs::exists(out / "res_y.npy"));
    fs::remove_all(out);
}

TEST(OnnxTool, CompileWritesLibraryAndHeader) {
    if (!fs::exists(testdata("test_add"))) GTEST_SKIP() << "libonnx-testdata is not installed";
    fs::path out = fs::temp_directory_path() / "loom_onnx_tool_compile";
    fs::remove_all(out);
    Result r = tool("compile " + testdata("test_add") + "/model.onnx -o " + out.string() + " --name add");
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_TRUE(fs::exists(out / "add.a"));
    EXPECT_TRUE(fs::exists(out / "add.h"));
    fs::remove_all(out);
}

TEST(OnnxTool, ErrorsExitNonZero) {
    Result r = tool("run /nonexistent.onnx");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.output.find("cannot open"), std::string::npos) << r.output;
    r = tool("frobnicate");
    EXPECT_EQ(r.status, 2);
}

}  // namespace
