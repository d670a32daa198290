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

RunResult run_runner(const std::string &args) {
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
        {"--name=other input=zero:[4,4]" + out, "no pipeline is called 'other'; linked: test_rungen_brighten"},
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

#endif  // LOOM_TEST_RUNGEN_EXE
