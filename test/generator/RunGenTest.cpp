// Loom's RunGen (src/tools/RunGenMain.cpp): the brighten generator made into a
// library with its registration (loom_add_library ... REGISTRATION), linked
// with Loom::rungen into test_rungen_runner (test/CMakeLists.txt). The runner
// is run as a process on PNG, PGM and synthetic inputs; its output images are
// compared with a plain C++ loop, and its mistakes are exit code 1 with a
// message naming the argument.

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

#include "loom/runtime/Buffer.h"
#include "loom/tools/ImageIO.h"

#ifdef LOOM_TEST_RUNGEN_EXE

namespace {

namespace fs = std::filesystem;
using loom::Runtime::Buffer;

struct RunResult {
    int code;
    std::string out;
};

RunResult run_any(const std::string &args) {
    RunResult r{-1, ""};
    FILE *pipe = popen((std::string(LOOM_TEST_RUNGEN_EXE) + " " + args + " 2>&1").c_str(), "r");
    if (!pipe) return r;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) r.out.append(buf, n);
    int status = pclose(pipe);
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

/** The runner holds two pipelines; most tests run brighten. */
RunResult run_runner(const std::string &args) { return run_any("--name=test_rungen_brighten " + args); }

/** A 1-D .npy file, written by hand (NumPy format 1.0); descr '<i4' or '<f4'. */
template<typename T>
void write_npy(const std::string &path, const std::vector<T> &values, const std::string &descr) {
    std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" +
                         std::to_string(values.size()) + ",), }";
    while ((10 + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    FILE *f = fopen(path.c_str(), "wb");
    const unsigned char preamble[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)header.size(), 0};
    fwrite(preamble, 1, 10, f);
    fwrite(header.data(), 1, header.size(), f);
    fwrite(values.data(), sizeof(T), values.size(), f);
    fclose(f);
}

/** The header and values of an .npy file the runner wrote. */
template<typename T = int32_t>
std::pair<std::string, std::vector<T>> read_npy(const std::string &path) {
    FILE *f = fopen(path.c_str(), "rb");
    if (!f) return {};
    unsigned char preamble[10];
    if (fread(preamble, 1, 10, f) != 10) return {};
    std::string header(preamble[8] | (preamble[9] << 8), ' ');
    if (fread(header.data(), 1, header.size(), f) != header.size()) return {};
    std::vector<T> values;
    T v;
    while (fread(&v, sizeof v, 1, f) == 1) values.push_back(v);
    fclose(f);
    return {header, values};
}

fs::path fresh_dir(const std::string &name) {
    fs::path dir = fs::temp_directory_path() / ("loom_rungen_test_" + name + "_" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

// The library is brighten with mode=multiply offset=3 (not vectorized, so any image
// width works): clamp(in * gain * 3, 0, 255).
uint8_t reference(uint8_t in, float gain) {
    float v = (float)in * gain;
    v = v * 3.0f;
    return (uint8_t)std::min(std::max(v, 0.0f), 255.0f);
}

Buffer<uint8_t> test_image(int w, int h) {
    Buffer<uint8_t> in(w, h);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) in(x, y) = (uint8_t)((x * 7 + y * 13) % 97);
    return in;
}

}  // namespace

TEST(RunGen, PngInputDefaultGainMatchesTheReference) {
    fs::path dir = fresh_dir("png");
    Buffer<uint8_t> in = test_image(45, 23);
    loom::Tools::save_image(in, (dir / "in.png").string());
    // gain is left out: the registration carries the Input's default, 1.0.
    RunResult r = run_runner("input=" + (dir / "in.png").string() + " output=" + (dir / "out.png").string());
    ASSERT_EQ(r.code, 0) << r.out;
    Buffer<uint8_t> out = loom::Tools::load_image((dir / "out.png").string());
    ASSERT_EQ(out.dimensions(), 2);
    ASSERT_EQ(out.dim(0).extent(), 45);
    ASSERT_EQ(out.dim(1).extent(), 23);
    int mismatches = 0;
    for (int y = 0; y < 23; y++)
        for (int x = 0; x < 45; x++) mismatches += out(x, y) != reference(in(x, y), 1.0f);
    EXPECT_EQ(mismatches, 0);
    fs::remove_all(dir);
}

TEST(RunGen, ScalarArgumentsPgmFilesAndOutputExtents) {
    fs::path dir = fresh_dir("pgm");
    Buffer<uint8_t> in = test_image(30, 20);
    loom::Tools::save_image(in, (dir / "in.pgm").string());
    // A smaller output than the input (the pipeline reads only what it needs).
    RunResult r = run_runner("--output_extents=[17,9] gain=0.75 input=" + (dir / "in.pgm").string() +
                       " output=" + (dir / "out.pgm").string());
    ASSERT_EQ(r.code, 0) << r.out;
    Buffer<uint8_t> out = loom::Tools::load_image((dir / "out.pgm").string());
    ASSERT_EQ(out.dim(0).extent(), 17);
    ASSERT_EQ(out.dim(1).extent(), 9);
    int mismatches = 0;
    for (int y = 0; y < 9; y++)
        for (int x = 0; x < 17; x++) mismatches += out(x, y) != reference(in(x, y), 0.75f);
    EXPECT_EQ(mismatches, 0);
    fs::remove_all(dir);
}

TEST(RunGen, SyntheticInputsAndBenchmark) {
    fs::path dir = fresh_dir("synthetic");
    RunResult r = run_runner("input=constant:20:[8,5] gain=default --benchmark=3 output=" + (dir / "out.png").string());
    ASSERT_EQ(r.code, 0) << r.out;
    EXPECT_NE(r.out.find("best of 3 runs"), std::string::npos) << r.out;
    Buffer<uint8_t> out = loom::Tools::load_image((dir / "out.png").string());
    ASSERT_EQ(out.dim(0).extent(), 8);
    ASSERT_EQ(out.dim(1).extent(), 5);
    for (int y = 0; y < 5; y++)
        for (int x = 0; x < 8; x++) EXPECT_EQ(out(x, y), reference(20, 1.0f));
    r = run_runner("input=zero:[4,4] output=" + (dir / "zero.png").string());
    ASSERT_EQ(r.code, 0) << r.out;
    Buffer<uint8_t> zero = loom::Tools::load_image((dir / "zero.png").string());
    EXPECT_EQ(zero(3, 3), 0);
    fs::remove_all(dir);
}

TEST(RunGen, DescribeListsTheArguments) {
    RunResult r = run_runner("--describe");
    ASSERT_EQ(r.code, 0) << r.out;
    EXPECT_NE(r.out.find("test_rungen_brighten (target "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("input: input buffer, uint8, 2 dimensions"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("gain: input scalar, float32, default 1"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("output: output buffer, uint8, 2 dimensions"), std::string::npos) << r.out;
}

TEST(RunGen, MistakesAreExitCodeOneWithAMessage) {
    fs::path dir = fresh_dir("errors");
    const std::string out = " output=" + (dir / "o.png").string();
    const std::vector<std::pair<std::string, std::string>> cases = {
        {out, "argument 'input' (an input buffer) needs a value"},
        {"input=zero:[4,4]", "output 'output' needs a file"},
        {"input=zero:[4,4] gain=fast" + out, "argument 'gain': 'fast' is not a number"},
        {"input=zero:[4,4,2]" + out, "input 'input' has 2 dimensions, but [4,4,2] gives 3"},
        {"input=" + (dir / "missing.png").string() + out, "missing.png"},
        {"input=zero:[4,4] bias=3" + out, "'bias' is not an argument of test_rungen_brighten"},
        {"input=zero:[4,4] --output_extents=[4]" + out, "has 2 dimensions, but --output_extents gives 1"},
        {"input=zero:[4,4] --frobnicate=1" + out, "unknown option '--frobnicate'"},
        {"--name=other input=zero:[4,4]" + out,
         "no pipeline is called 'other'; linked: test_rungen_axpy_vulkan, test_rungen_brighten, "
         "test_rungen_two_outputs"},
        {"input=zero:[4,4] input=zero:[4,4]" + out, "given twice"},
    };
    for (const auto &[args, message] : cases) {
        RunResult r = run_runner(args);
        EXPECT_EQ(r.code, 1) << args << "\n" << r.out;
        EXPECT_NE(r.out.find("Error: "), std::string::npos) << args << "\n" << r.out;
        EXPECT_NE(r.out.find(message), std::string::npos) << args << "\n" << r.out;
    }
    fs::remove_all(dir);
}

TEST(RunGen, NpyFilesTupleOutputsAndAChoiceOfPipeline) {
    fs::path dir = fresh_dir("npy");
    std::vector<int32_t> a;
    for (int i = 0; i < 13; i++) a.push_back(i * i - 20);
    write_npy((dir / "a.npy").string(), a, "<i4");
    // two_outputs: sum_diff(x) = {a(x) + b, a(x) - b}, prod(x) = a(x) * b; b has no default.
    RunResult r = run_any("--name=test_rungen_two_outputs a=" + (dir / "a.npy").string() + " b=-4 sum_diff.0=" +
                          (dir / "s0.npy").string() + " sum_diff.1=" + (dir / "s1.npy").string() + " prod=" +
                          (dir / "p.npy").string());
    ASSERT_EQ(r.code, 0) << r.out;
    auto [header, s0] = read_npy((dir / "s0.npy").string());
    EXPECT_NE(header.find("'descr': '<i4'"), std::string::npos) << header;
    EXPECT_NE(header.find("'shape': (13,)"), std::string::npos) << header;
    std::vector<int32_t> s1 = read_npy((dir / "s1.npy").string()).second;
    std::vector<int32_t> p = read_npy((dir / "p.npy").string()).second;
    ASSERT_EQ(s0.size(), 13u);
    ASSERT_EQ(s1.size(), 13u);
    ASSERT_EQ(p.size(), 13u);
    for (int i = 0; i < 13; i++) {
        EXPECT_EQ(s0[i], a[i] - 4);
        EXPECT_EQ(s1[i], a[i] + 4);
        EXPECT_EQ(p[i], a[i] * -4);
    }
    // Without --name the runner can't choose; --describe names the Tuple's buffers; an .npy of another
    // type is refused.
    r = run_any("a=zero:[4] b=1 prod=" + (dir / "p.npy").string());
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.out.find("several pipelines are linked in (test_rungen_axpy_vulkan, test_rungen_brighten, test_rungen_two_outputs)"),
              std::string::npos) << r.out;
    r = run_any("--name=test_rungen_two_outputs --describe");
    EXPECT_EQ(r.code, 0) << r.out;
    EXPECT_NE(r.out.find("b: input scalar, int32, default 0"), std::string::npos) << r.out;  // Input<int32_t>{"b"}
    EXPECT_NE(r.out.find("sum_diff.1: output buffer, int32, 1 dimensions"), std::string::npos) << r.out;
    r = run_runner("input=" + (dir / "a.npy").string() + " output=" + (dir / "o.png").string());
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.out.find("holds '<i4' values, but the input is uint8"), std::string::npos) << r.out;
    fs::remove_all(dir);
}

TEST(RunGen, AVulkanPipelinesOutputsReachTheFile) {
    // typed_axpy for host-vulkan: out(x) = a(x) * scale + b(x) in a kernel; the runner copies out to the host.
    fs::path dir = fresh_dir("vulkan");
    std::vector<float> a, b;
    for (int i = 0; i < 300; i++) {
        a.push_back(0.5f * (float)i);
        b.push_back(100.0f - (float)i);
    }
    write_npy((dir / "a.npy").string(), a, "<f4");
    write_npy((dir / "b.npy").string(), b, "<f4");
    RunResult r = run_any("--name=test_rungen_axpy_vulkan --benchmark=2 a=" + (dir / "a.npy").string() + " scale=3 b=" +
                          (dir / "b.npy").string() + " out=" + (dir / "out.npy").string());
    ASSERT_EQ(r.code, 0) << r.out;
    auto [header, out] = read_npy<float>((dir / "out.npy").string());
    EXPECT_NE(header.find("'descr': '<f4'"), std::string::npos) << header;
    ASSERT_EQ(out.size(), 300u);
    for (int i = 0; i < 300; i++) EXPECT_EQ(out[i], a[i] * 3.0f + b[i]) << i;
    fs::remove_all(dir);
}

#endif  // LOOM_TEST_RUNGEN_EXE
