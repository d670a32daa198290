// Imported models on Vulkan (docs/ONNX.md, "On Vulkan"): compiled for
// host-vulkan, their Funcs get GPU schedules (src/onnx/GpuSchedule.h) and
// must give the CPU path's values: exactly for integer ops and float ops
// that Vulkan computes exactly (+, -, *, comparisons), within the backend
// tests' tolerances where a kernel uses the device's division or
// transcendental functions. Skipped only when there is no Vulkan driver at
// all (lavapipe counts).

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <sys/wait.h>

#include "loom/onnx/BackendTest.h"
#include "loom/runtime/loom_runtime.h"

#include "ModelBuilder.h"

using namespace loom::onnx;
using namespace onnx_test;

namespace {

bool have_vulkan_device() {
    loom_vulkan_device_info_t info;
    return loom_vulkan_get_device_info(nullptr, &info) == 0;
}

#define REQUIRE_VULKAN()                                                                          \
    do {                                                                                          \
        if (!have_vulkan_device()) GTEST_SKIP() << "no Vulkan device (install mesa-vulkan-drivers for lavapipe)"; \
    } while (0)

CompileOptions on_cpu() {
    CompileOptions o;
    o.target = loom::get_jit_target_from_environment().without_feature(loom::Target::Vulkan);
    return o;
}

CompileOptions on_vulkan() {
    CompileOptions o;
    o.target = loom::Target("host-vulkan");
    return o;
}

std::string notes_of(const CompiledModel &m) {
    std::string s;
    for (const std::string &n : m.loop_notes()) s += n + "\n";
    return s;
}

/** Whether the GPU path gave a Func named `base` (or base_N, as the
 * importer names Funcs uniquely) kernels, per iteration of its loop if
 * `each_iteration` (the "Vulkan: GPU kernels for" note). */
bool has_kernel(const CompiledModel &m, const std::string &base, bool each_iteration = false) {
    const std::string prefix = "Vulkan: GPU kernels for ";
    for (const std::string &n : m.loop_notes()) {
        if (n.rfind(prefix, 0) != 0) continue;
        std::string list = n.substr(prefix.size()) + ", ";
        for (size_t at = 0, end; (end = list.find(", ", at)) != std::string::npos; at = end + 2) {
            std::string entry = list.substr(at, end - at);
            bool per_iteration = entry.size() > 17 && entry.compare(entry.size() - 17, 17, " (each iteration)") == 0;
            if (per_iteration) entry.resize(entry.size() - 17);
            bool named = entry == base || (entry.rfind(base + "_", 0) == 0 &&
                                           entry.find_first_not_of("0123456789", base.size() + 1) == std::string::npos);
            if (named && per_iteration == each_iteration) return true;
        }
    }
    return false;
}

/** Same kinds, shapes and element values (NaN = NaN); tolerance 0: exact. */
void expect_same(const std::vector<Value> &cpu, const std::vector<Value> &gpu, double rtol, const std::string &what) {
    ASSERT_EQ(cpu.size(), gpu.size()) << what;
    for (size_t o = 0; o < cpu.size(); o++) {
        double largest = 0;
        std::string why;
        bool ok = values_match(cpu[o], gpu[o], rtol, rtol ? 1e-7 : 0.0, largest, why);
        EXPECT_TRUE(ok) << what << ", output " << o << " (" << cpu[o].name << "): " << why;
    }
}

// ---- The add-step model (seed 002's recurrence as an ONNX Loop) ----------


std::vector<float> wave(size_t n, float scale, float phase) {
    std::vector<float> v(n);
    for (size_t k = 0; k < n; k++) v[k] = scale * std::sin(0.37f * (float)k + phase);
    return v;
}

TEST(OnnxVulkan, AddStepEqualsCpuPath) {
    REQUIRE_VULKAN();
    for (int64_t width : {4096, 37}) {
        Model model = add_step_loop(width);
        Session cpu(model, on_cpu()), gpu(model, on_vulkan());
        for (int64_t m : {0, 1, 7, 300}) {
            std::map<std::string, Value> in = {
                {"M", scalar_i64(m)}, {"v", floats({width}, wave(width, 1, 0))}, {"step", floats({width}, wave(width, 0.01f, 1))}};
            std::vector<Value> want = cpu.run(in), got = gpu.run(in);
            ASSERT_EQ(got[1].shape, (std::vector<int64_t>{m, width}));
            // Float additions in the same order: exact.
            expect_same(want, got, 0, "add-step, width " + std::to_string(width) + ", M " + std::to_string(m));
        }
        // The state's update is a kernel per iteration, and M read at run
        // time needs one compilation.
        const CompiledModel &c = gpu.compiled_for(
            {{"M", scalar_i64(3)}, {"v", floats({width}, wave(width, 1, 0))}, {"step", floats({width}, wave(width, 1, 1))}});
        EXPECT_TRUE(has_kernel(c, "add_step_loop_state", true)) << notes_of(c);
        EXPECT_TRUE(has_kernel(c, "v_final_out")) << notes_of(c);
        EXPECT_EQ(gpu.compilations(), 1);
    }
}

// The inputs are host data: a second run with the same Values, changed in
// place, must see the change (the device copies made by the first run are
// stale), as the CPU path does.
TEST(OnnxVulkan, InputsChangedInPlaceAreCopiedAgain) {
    REQUIRE_VULKAN();
    const int64_t width = 100;
    Session gpu(add_step_loop(width), on_vulkan());
    std::map<std::string, Value> in = {
        {"M", scalar_i64(3)}, {"v", floats({width}, wave(width, 1, 0))}, {"step", floats({width}, wave(width, 1, 1))}};
    gpu.run(in);
    float *v = reinterpret_cast<float *>(in["v"].tensor.raw_buffer()->host);
    float *step = reinterpret_cast<float *>(in["step"].tensor.raw_buffer()->host);
    for (int64_t k = 0; k < width; k++) v[k] = (float)k, step[k] = 0.5f;
    std::vector<Value> out = gpu.run(in);
    for (int64_t k = 0; k < width; k++) EXPECT_EQ(out[0].at(k), (float)k + 1.5f) << k;
}

// ---- The Elman RNN Loop --------------------------------------------------


TEST(OnnxVulkan, RnnWithinToleranceOfCpuPath) {
    REQUIRE_VULKAN();
    for (auto [input, hidden, steps] : std::vector<std::array<int64_t, 3>>{{64, 64, 200}, {5, 37, 9}, {3, 4, 0}}) {
        Model model = rnn_model(input, hidden, steps);
        std::map<std::string, Value> in = {
            {"M", scalar_i64(steps)},
            {"h0", floats({1, hidden}, wave(hidden, 0.1f, 0))},
            {"xs", floats({steps, 1, input}, wave(steps * input, 1, 0.5f))},
            {"W", floats({input, hidden}, wave(input * hidden, 0.125f, 1))},
            {"U", floats({hidden, hidden}, wave(hidden * hidden, 0.125f, 2))},
            {"B", floats({hidden}, wave(hidden, 0.05f, 3))}};
        Session cpu(model, on_cpu()), gpu(model, on_vulkan());
        std::vector<Value> want = cpu.run(in), got = gpu.run(in);
        std::string what = "RNN " + std::to_string(input) + "x" + std::to_string(hidden) + ", T " + std::to_string(steps);
        // Tanh divides: the device's division is within 2.5 ULP.
        expect_same(want, got, 1e-3, what);
        const CompiledModel &c = gpu.compiled_for(in);
        EXPECT_TRUE(has_kernel(c, "rnn_loop_state", true)) << what << "\n" << notes_of(c);
        // U h, computed once per step, is a kernel too.
        EXPECT_TRUE(has_kernel(c, "uh")) << what << "\n" << notes_of(c);
    }
}

// ---- A while loop that its body ends -------------------------------------

// v = v * 3 + c (int32, wrapping) while sum(v) < limit, at most M times;
// scan of v. The condition is a carried value: the loop stops on the host
// at the first false one (loop_while), between kernels.
Model int_while_model(int64_t width, bool scan) {
    Graph b("body");
    b.input("iter", Int64, {}).input("cond_in", Boolean, {}).input("v_in", Int32, {width});
    b.node("Mul", {"v_in", "three"}, {"tripled"});
    b.node("Add", {"tripled", "c"}, {"v_out"});
    attr_int(b.node("ReduceSum", {"v_out"}, {"total"}), "keepdims", 0);
    b.node("Less", {"total", "limit"}, {"cond_out"});
    b.output("cond_out", Boolean, {}).output("v_out", Int32, {width});
    if (scan) {
        b.node("Identity", {"v_out"}, {"row"});
        b.output("row", Int32, {width});
    }
    Graph g("int_while");
    g.input("M", Int64, {}).input("v", Int32, {width}).input("c", Int32, {width}).input("limit", Int32, {});
    auto &three = g.node("Constant", {}, {"three"});
    auto *a = three.add_attribute();
    a->set_name("value");
    a->set_type(::onnx::AttributeProto::TENSOR);
    a->mutable_t()->set_data_type(Int32);
    a->mutable_t()->add_int32_data(3);
    std::vector<std::string> outs = {"v_final"};
    if (scan) outs.push_back("rows");
    attr_graph(g.node("Loop", {"M", "", "v"}, outs, "int_while_loop"), "body", b.g);
    g.output("v_final", Int32, {width});
    if (scan) g.output("rows", Int32, {}, false);
    return model_of(g);
}

Value ints(const std::vector<int64_t> &shape, const std::vector<int32_t> &values) {
    Value t = Value::zeros(Int32, shape);
    int32_t *p = reinterpret_cast<int32_t *>(t.tensor.raw_buffer()->host);
    for (size_t i = 0; i < values.size(); i++) p[i] = values[i];
    return t;
}

TEST(OnnxVulkan, WhileLoopExitsEarlyAsOnCpu) {
    REQUIRE_VULKAN();
    const int64_t width = 100;
    std::vector<int32_t> v(width), c(width);
    for (int64_t k = 0; k < width; k++) v[k] = (int32_t)(k % 7) - 3, c[k] = (int32_t)(k % 5);
    for (bool scan : {false, true}) {
        Model model = int_while_model(width, scan);
        Session cpu(model, on_cpu()), gpu(model, on_vulkan());
        // The limit ends it after a few iterations, or M does; 2^31 wraps.
        for (auto [m, limit] : std::vector<std::pair<int64_t, int32_t>>{{1000, 5000}, {4, 1 << 30}, {0, 10}, {50, 2000000000}}) {
            std::map<std::string, Value> in = {{"M", scalar_i64(m)}, {"v", ints({width}, v)}, {"c", ints({width}, c)},
                                               {"limit", ints({}, {limit})}};
            std::vector<Value> want = cpu.run(in), got = gpu.run(in);
            std::string what = std::string(scan ? "with" : "without") + " scan, M " + std::to_string(m) + ", limit " +
                               std::to_string(limit);
            if (scan) EXPECT_EQ(got[1].shape, want[1].shape) << what;  // the trip count
            expect_same(want, got, 0, what);
        }
        const CompiledModel &compiled = gpu.compiled_for({{"M", scalar_i64(1)}, {"v", ints({width}, v)},
                                                          {"c", ints({width}, c)}, {"limit", ints({}, {1})}});
        if (scan) {
            // The sum is written out in every element's update (a scan output
            // reads the state, so no step Func): Loom does not see that the
            // elements of an iteration are independent, and the update stays
            // on the host; the scan output's copy is a kernel.
            EXPECT_NE(notes_of(compiled).find("on the host (Loom does not see that the elements of an iteration are "
                                              "independent): int_while_loop_state"),
                      std::string::npos)
                << notes_of(compiled);
            EXPECT_TRUE(has_kernel(compiled, "rows_out")) << notes_of(compiled);
        } else {
            EXPECT_TRUE(has_kernel(compiled, "int_while_loop_state", true)) << notes_of(compiled);
            EXPECT_TRUE(has_kernel(compiled, "total_reduce")) << notes_of(compiled);
        }
        EXPECT_EQ(gpu.compilations(), 1);
    }
}

// ---- What stays on the host -----------------------------------------------

// A sum of 70,000 terms to one element would be one invocation's loop of
// 70,000 iterations, past lavapipe's 65,535: it stays on the host; the
// elementwise work around it is a kernel; int64 work stays on the host.
TEST(OnnxVulkan, LongReductionAndInt64StayOnTheHost) {
    REQUIRE_VULKAN();
    const int64_t n = 70000;
    Graph g("long_sum");
    g.input("x", Float32, {n}).input("k", Int64, {n});
    g.node("Abs", {"x"}, {"ax"});
    attr_int(g.node("ReduceSum", {"ax"}, {"total"}), "keepdims", 0);
    g.node("Add", {"k", "k"}, {"k2"});
    g.output("total", Float32, {}).output("k2", Int64, {n});
    Model model = model_of(g);
    std::vector<float> x = wave(n, 1, 0);
    Value k = Value::zeros(Int64, {n});
    for (int64_t i = 0; i < n; i++) k.tensor.as<int64_t>()(i) = (int64_t(1) << 40) + i;
    std::map<std::string, Value> in = {{"x", floats({n}, x)}, {"k", k}};
    Session cpu(model, on_cpu()), gpu(model, on_vulkan());
    expect_same(cpu.run(in), gpu.run(in), 0, "long sum");
    const CompiledModel &c = gpu.compiled_for(in);
    const std::string notes = notes_of(c);
    EXPECT_TRUE(has_kernel(c, "ax")) << notes;
    EXPECT_NE(notes.find("on the host (a reduction of more than 65,535 terms in one invocation"), std::string::npos)
        << notes;
    EXPECT_NE(notes.find("on the host (64-bit integers"), std::string::npos) << notes;
}

// Softmax (its max and sum are reductions along the axis) and CumSum along
// either axis: per row as kernels; CumSum of a rank-1 tensor has no pure
// dimension in its update, which stays on the host.
TEST(OnnxVulkan, AlongAxisOpsEqualCpuPath) {
    REQUIRE_VULKAN();
    Graph g("along_axis");
    g.input("x", Float32, {3, 50}).input("y", Float32, {70}).input("axis", Int64, {});
    attr_int(g.node("Softmax", {"x"}, {"soft"}), "axis", 1);
    g.node("CumSum", {"soft", "axis"}, {"sums"});
    g.node("CumSum", {"y", "zero"}, {"ysums"});
    g.constant_i("zero", {}, {0});
    g.output("sums", Float32, {3, 50}).output("ysums", Float32, {70});
    // The Constant node must come before its reader.
    auto *nodes = g.g.mutable_node();
    std::rotate(nodes->begin(), nodes->end() - 1, nodes->end());
    Model model = model_of(g);
    for (int64_t axis : {0, 1}) {
        std::map<std::string, Value> in = {
            {"x", floats({3, 50}, wave(150, 3, 0))}, {"y", floats({70}, wave(70, 1, 2))}, {"axis", scalar_i64(axis)}};
        Session cpu(model, on_cpu()), gpu(model, on_vulkan());
        expect_same(cpu.run(in), gpu.run(in), 1e-3, "axis " + std::to_string(axis));
        const CompiledModel &c = gpu.compiled_for(in);
        EXPECT_TRUE(has_kernel(c, "soft")) << notes_of(c);
        EXPECT_TRUE(has_kernel(c, "sums_scan")) << notes_of(c);
        EXPECT_NE(notes_of(c).find("on the host (a stage with no pure dimension, e.g. a scan along the only axis): "
                                   "ysums_scan"),
                  std::string::npos)
            << notes_of(c);
    }
}

// ---- Conformance loop tests through host-vulkan --------------------------

std::string testdata(const std::string &name) { return std::string(LOOM_ONNX_TESTDATA) + "/" + name; }

class OnnxVulkanConformance : public ::testing::TestWithParam<std::string> {};

TEST_P(OnnxVulkanConformance, Passes) {
    REQUIRE_VULKAN();
    const std::string dir = testdata(GetParam());
    if (!std::filesystem::exists(dir)) GTEST_SKIP() << "libonnx-testdata is not installed";
    BackendTestResult r = run_backend_test(dir, on_vulkan());
    EXPECT_TRUE(r.passed) << dir << ": " << r.error;
    for (const DataSetResult &d : r.data_sets) EXPECT_TRUE(d.passed) << d.name << ": " << d.message;
    // Some of its work ran as GPU kernels.
    Model model = load_model(dir + "/model.onnx");
    std::map<std::string, Value> inputs;
    int k = 0;
    for (const ValueInfo &info : model.inputs()) {
        std::string file = dir + "/test_data_set_0/input_" + std::to_string(k++) + ".pb";
        if (std::filesystem::exists(file)) inputs[info.name] = read_value_file(file, &info);
    }
    Session session(model, on_vulkan());
    const std::string notes = notes_of(session.compiled_for(inputs));
    EXPECT_NE(notes.find("Vulkan: GPU kernels for"), std::string::npos) << notes;
    std::printf("%s", notes.c_str());
}

INSTANTIATE_TEST_SUITE_P(Loops, OnnxVulkanConformance,
                         ::testing::Values("test_loop11", "test_loop13_seq", "test_loop16_seq_none", "test_scan_sum",
                                           "test_scan9_sum", "test_if", "test_if_seq", "test_if_opt",
                                           "test_range_float_type_positive_delta_expanded",
                                           "test_range_int32_type_negative_delta_expanded"),
                         [](const ::testing::TestParamInfo<std::string> &info) { return info.param; });

// ---- loom-onnx --target host-vulkan --------------------------------------

struct ToolResult {
    int status;
    std::string output;
};

ToolResult tool_command(const std::string &line) {
    std::string command = line + " 2>&1";
    FILE *p = popen(command.c_str(), "r");
    ToolResult r{-1, ""};
    if (!p) return r;
    char buffer[4096];
    while (size_t n = fread(buffer, 1, sizeof buffer, p)) r.output.append(buffer, n);
    int status = pclose(p);
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

ToolResult tool(const std::string &args) { return tool_command(std::string(LOOM_ONNX_TOOL) + " " + args); }

TEST(OnnxVulkanTool, RunAndTestWithVulkanTarget) {
    REQUIRE_VULKAN();
    if (!std::filesystem::exists(testdata("test_loop11"))) GTEST_SKIP() << "libonnx-testdata is not installed";
    std::string set = testdata("test_loop11") + "/test_data_set_0/";
    ToolResult r = tool("run " + testdata("test_loop11") + "/model.onnx --input trip_count=" + set +
                        "input_0.pb --input cond=" + set + "input_1.pb --input y=" + set + "input_2.pb --target host-vulkan");
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("res_scan: float32[5, 1] = -1 1 4 8 13"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("Vulkan: GPU kernels for"), std::string::npos) << r.output;
    r = tool("test " + testdata("test_scan9_sum") + " " + testdata("test_loop11") + " --target host-vulkan");
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("2 passed, 0 failed (target "), std::string::npos) << r.output;
    // compile: a static library with the GPU schedules' kernels.
    std::filesystem::path out = std::filesystem::temp_directory_path() / "loom_onnx_tool_vulkan_compile";
    std::filesystem::remove_all(out);
    r = tool("compile " + testdata("test_scan9_sum") + "/model.onnx -o " + out.string() +
             " --name scan9 --target host-vulkan");
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_TRUE(std::filesystem::exists(out / "scan9.a")) << r.output;
    EXPECT_TRUE(std::filesystem::exists(out / "scan9.h")) << r.output;
    std::filesystem::remove_all(out);
    r = tool("test " + testdata("test_loop11") + " --target host-frobnicate");
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("frobnicate"), std::string::npos) << r.output;
}

// `loom-onnx compile --target host-vulkan`: the add-step model as a static
// library with the GPU schedules' kernels, called from a plain C program
// (compiled with cc at test time; it links nothing beyond -lpthread -ldl -lm)
// and compared with C loops, exactly.
const char *kAddStepProgram = R"(
#include <stdio.h>
#include "add_step.h"

enum { W = 37, M = 9 };
static int64_t m_data[1] = {M};
static float v_data[W], step_data[W], final_data[W], state_data[W * (M + 1)];
static int32_t trips_data[1];

static void describe(loom_buffer_t *b, void *host, int code, int bits, loom_dimension_t *dims, int rank) {
    b->host = (uint8_t *)host;
    b->type.code = code; b->type.bits = bits; b->type.lanes = 1;
    b->dimensions = rank; b->dim = dims;
}

int main(void) {
    for (int x = 0; x < W; x++) v_data[x] = 0.1f * x - 1.0f, step_data[x] = 0.01f * (x % 7) - 0.02f;
    loom_dimension_t one[1] = {{0, 1, 1, 0}}, row[1] = {{0, W, 1, 0}}, rows[2] = {{0, W, 1, 0}, {0, M + 1, W, 0}};
    loom_buffer_t m = {0}, v = {0}, step = {0}, final_out = {0}, trips = {0}, state = {0};
    describe(&m, m_data, loom_type_int, 64, one, 1);
    describe(&v, v_data, loom_type_float, 32, row, 1);
    describe(&step, step_data, loom_type_float, 32, row, 1);
    describe(&final_out, final_data, loom_type_float, 32, row, 1);
    describe(&trips, trips_data, loom_type_int, 32, one, 1);
    describe(&state, state_data, loom_type_float, 32, rows, 2);
    int err = add_step(&m, &v, &step, M, &final_out, &trips, &state);
    if (err != 0) { printf("add_step failed: %d\n", err); return 1; }
    /* The state was written by kernels: its device copy is the newer one. */
    int kernels = (state.flags & loom_buffer_flag_device_dirty) != 0;
    loom_buffer_t *outs[3] = {&final_out, &trips, &state};
    for (int k = 0; k < 3; k++) {
        if ((outs[k]->flags & loom_buffer_flag_device_dirty) && loom_copy_to_host(NULL, outs[k]) != 0) {
            printf("copy_to_host failed\n");
            return 1;
        }
    }
    int bad = trips_data[0] != M;
    for (int x = 0; x < W; x++) {
        float acc = v_data[x];
        for (int t = 1; t <= M; t++) {
            acc += step_data[x];
            if (state_data[t * W + x] != acc && bad++ < 5) printf("row %d, x %d: %g, expected %g\n", t - 1, x, state_data[t * W + x], acc);
        }
        if (final_data[x] != acc && bad++ < 10) printf("v_final x %d: %g, expected %g\n", x, final_data[x], acc);
    }
    loom_buffer_t *all[6] = {&m, &v, &step, &final_out, &trips, &state};
    for (int k = 0; k < 6; k++) loom_device_free(NULL, all[k]);
    loom_device_release(NULL, loom_vulkan_device_interface());
    printf("%d mismatches, state on the device: %d\n", bad, kernels);
    return bad != 0 || !kernels;
}
)";

TEST(OnnxVulkanTool, CompiledLibraryRunsOnVulkan) {
    REQUIRE_VULKAN();
    if (std::system("command -v cc >/dev/null 2>&1") != 0) GTEST_SKIP() << "no C compiler (cc) to build the caller";
    std::filesystem::path dir = std::filesystem::temp_directory_path() / "loom_onnx_vulkan_aot";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    Graph b("body");
    b.input("iter", Int64, {}).input("cond_in", Boolean, {}).input("v_in", Float32, {37});
    b.node("Add", {"v_in", "step"}, {"v_out"});
    b.node("Identity", {"cond_in"}, {"cond_out"});
    b.node("Identity", {"v_out"}, {"row"});
    b.output("cond_out", Boolean, {}).output("v_out", Float32, {37}).output("row", Float32, {37});
    Graph g("add_step");
    g.input("M", Int64, {}).input("v", Float32, {37}).input("step", Float32, {37});
    attr_graph(g.node("Loop", {"M", "", "v"}, {"v_final", "rows"}, "Loop_1"), "body", b.g);
    g.output("v_final", Float32, {37}).output("rows", Float32, {}, false);
    { std::ofstream(dir / "model.onnx", std::ios::binary) << model_bytes(g, 16); }
    ToolResult r = tool("compile " + (dir / "model.onnx").string() + " -o " + dir.string() +
                        " --name add_step --target host-vulkan");
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("arguments: M v step M_value v_final_out rows_trip_count Loop_1_state"), std::string::npos)
        << r.output;
    { std::ofstream(dir / "main.c") << kAddStepProgram; }
    std::string build = "cc -O1 -o " + (dir / "main").string() + " " + (dir / "main.c").string() + " -I" +
                        dir.string() + " " + (dir / "add_step.a").string() + " -lpthread -ldl -lm";
    r = tool_command(build);
    ASSERT_EQ(r.status, 0) << build << "\n" << r.output;
    r = tool_command((dir / "main").string());
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("0 mismatches, state on the device: 1"), std::string::npos) << r.output;
    std::filesystem::remove_all(dir);
}

}  // namespace
