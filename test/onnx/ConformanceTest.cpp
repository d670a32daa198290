// The conformance list of issue 11 on Debian's libonnx-testdata, each its
// own test, and the sweep over every node test whose ops are all supported.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "loom/onnx/BackendTest.h"

using namespace loom::onnx;
namespace fs = std::filesystem;

namespace {

std::string testdata(const std::string &name) { return std::string(LOOM_ONNX_TESTDATA) + "/" + name; }

void expect_passes(const std::string &name) {
    if (!fs::exists(testdata(name))) GTEST_SKIP() << "libonnx-testdata is not installed (" << testdata(name) << ")";
    BackendTestResult r = run_backend_test(testdata(name));
    EXPECT_TRUE(r.error.empty()) << r.error;
    ASSERT_FALSE(r.data_sets.empty()) << r.error;
    for (const DataSetResult &d : r.data_sets) EXPECT_TRUE(d.passed) << name << " " << d.name << ": " << d.message;
    EXPECT_TRUE(r.passed);
}

class Conformance : public ::testing::TestWithParam<const char *> {};

TEST_P(Conformance, Passes) { expect_passes(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Issue11, Conformance,
                         ::testing::Values("test_loop11", "test_loop13_seq", "test_loop16_seq_none",
                                           "test_range_float_type_positive_delta_expanded",
                                           "test_range_int32_type_negative_delta_expanded",
                                           "test_sequence_map_add_1_sequence_1_tensor_expanded",
                                           "test_sequence_map_add_2_sequences_expanded",
                                           "test_sequence_map_extract_shapes_expanded",
                                           "test_sequence_map_identity_1_sequence_1_tensor_expanded",
                                           "test_sequence_map_identity_1_sequence_expanded",
                                           "test_sequence_map_identity_2_sequences_expanded", "test_scan_sum",
                                           "test_scan9_sum", "test_if", "test_if_seq", "test_if_opt"),
                         [](const ::testing::TestParamInfo<const char *> &info) { return std::string(info.param); });

// Every node test whose ops compile() supports. The count that passes is
// printed (and recorded in docs/ONNX.md); the test fails only if it drops
// below the floor, so a new unsupported corner does not break CI, but a
// regression does. LOOM_ONNX_SWEEP_LOG=FILE writes one line per directory.
TEST(Conformance, SweepOfSupportedNodeTests) {
    if (!fs::exists(LOOM_ONNX_TESTDATA)) GTEST_SKIP() << "libonnx-testdata is not installed";
    std::vector<std::string> supported = supported_ops();
    std::vector<fs::path> dirs;
    for (const auto &e : fs::directory_iterator(LOOM_ONNX_TESTDATA)) dirs.push_back(e.path());
    std::sort(dirs.begin(), dirs.end());
    int eligible = 0, passed = 0;
    std::string failures;
    const char *log_path = std::getenv("LOOM_ONNX_SWEEP_LOG");
    std::ofstream log;
    if (log_path) log.open(log_path);
    auto start = std::chrono::steady_clock::now();
    for (const fs::path &dir : dirs) {
        std::set<std::string> ops;
        try {
            ops = load_model((dir / "model.onnx").string()).op_types();
        } catch (const loom::Error &) {
            continue;
        }
        bool all = std::all_of(ops.begin(), ops.end(), [&](const std::string &op) {
            return std::find(supported.begin(), supported.end(), op) != supported.end();
        });
        if (!all) continue;
        eligible++;
        BackendTestResult r = run_backend_test(dir.string());
        passed += r.passed ? 1 : 0;
        std::string why = r.error;
        for (const DataSetResult &d : r.data_sets) {
            if (!d.passed && why.empty()) why = d.message;
        }
        if (!r.passed) failures += "  " + dir.filename().string() + ": " + why.substr(0, 200) + "\n";
        if (log) log << (r.passed ? "PASS " : "FAIL ") << dir.filename().string() << " " << why << "\n";
    }
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("ONNX node test sweep: %d of %d eligible directories pass (%zu in libonnx-testdata), %.1f s\n",
                passed, eligible, dirs.size(), seconds);
    std::printf("failures:\n%s", failures.c_str());
    EXPECT_GE(passed, 670);  // 681 of 697 when written (docs/ONNX.md)
}

}  // namespace
