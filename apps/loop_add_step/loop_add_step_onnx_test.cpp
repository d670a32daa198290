// loop_add_step as an ONNX model: the Loop of seed 002 (v += step, a scan row
// per iteration) built with the protobuf classes and run through loom::onnx,
// checked against the plain C++ reference of the contract. Built twice:
// loop_add_step_onnx_jit_test (CPU schedules) and
// loop_add_step_onnx_vulkan_test (LOOM_APPS_VULKAN: compiled for
// host-vulkan, so the importer's GPU schedules run the state's update as a
// kernel per iteration; exit 77 without a Vulkan device).
//
// The model is the Loop alone: inputs M (int64), cond (bool), v and step
// (float[dim]); outputs v_final and rows (float[trips, dim]). Seed 002's
// contract around it is the caller's: M is clamped to the scan rows
// (trips = cond ? min(M, scan rows) : 0) and the rows past the trip count
// are zero in the scan buffer. Exact: both add the same floats in order.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <map>
#include <string>
#include <vector>

#include <loom/onnx/Onnx.h>

#include "../common/jit_target.h"
#include "OnnxModelBuilder.h"
#include "loop_add_step_reference.h"

namespace {

using namespace loom::onnx;

std::string add_step_model_bytes(int64_t dim) {
    using namespace model_builder;
    Graph body("add_step_body");
    body.input("iter", kInt64, {}).input("cond_in", kBool, {}).input("v_in", kFloat, {dim});
    body.node("Add", {"v_in", "step"}, {"v_out"});
    body.node("Identity", {"cond_in"}, {"cond_out"});
    body.node("Identity", {"v_out"}, {"row"});
    body.output("cond_out", kBool, {}).output("v_out", kFloat, {dim}).output("row", kFloat, {dim});
    Graph g("loop_add_step");
    g.input("M", kInt64, {}).input("cond", kBool, {}).input("v", kFloat, {dim}).input("step", kFloat, {dim});
    attr_graph(g.node("Loop", {"M", "cond", "v"}, {"v_final", "rows"}, "add_step_loop"), "body", body.g);
    g.output("v_final", kFloat, {dim}).output("rows", kFloat, {}, false);
    return model_bytes(g, 16, "loom-apps-loop-add-step");
}

struct Case {
    int dim, rows;
    uint32_t m, cond;
};

Value float_tensor(const std::vector<float> &values) {
    Value v = Value::zeros(Float32, {(int64_t)values.size()});
    std::memcpy(v.tensor.raw_buffer()->host, values.data(), values.size() * sizeof(float));
    return v;
}

bool check(const Case &c, std::map<int, Session> &sessions) {
    std::vector<float> v0(c.dim), step(c.dim);
    for (int x = 0; x < c.dim; x++) {
        v0[x] = std::sin(0.1f * (float)x);
        step[x] = 0.01f * (float)((x * 7) % 13) - 0.05f;
    }
    auto it = sessions.find(c.dim);
    if (it == sessions.end()) {
        CompileOptions options;
        options.target = apps::kJitOnGpu ? loom::Target("host-vulkan") : apps::jit_target();
        it = sessions.emplace(c.dim, Session(load_model_from_bytes(add_step_model_bytes(c.dim), "loop_add_step"), options))
                 .first;
    }
    Value m = Value::zeros(Int64, {}), cond = Value::zeros(Boolean, {});
    m.tensor.as<int64_t>()(0) = std::min<int64_t>(c.m, c.rows);  // seed 002's min(M, scan rows)
    cond.tensor.as<bool>()(0) = c.cond != 0;
    std::map<std::string, Value> inputs = {{"M", m}, {"cond", cond}, {"v", float_tensor(v0)}, {"step", float_tensor(step)}};
    std::vector<Value> out = it->second.run(inputs);
    if (apps::kJitOnGpu) {
        // The state's update must be a GPU kernel per iteration, not the CPU path.
        bool on_gpu = false;
        for (const std::string &note : it->second.compiled_for(inputs).loop_notes())
            on_gpu = on_gpu || (note.find("Vulkan: GPU kernels for add_step_loop_state") != std::string::npos &&
                                note.find("(each iteration)") != std::string::npos);
        if (!on_gpu) {
            std::printf("  the Loop's state was not given a GPU kernel; notes:\n");
            for (const std::string &note : it->second.compiled_for(inputs).loop_notes()) std::printf("    %s\n", note.c_str());
            return false;
        }
    }
    // The scan buffer of the contract: the Loop's rows, then zeros.
    std::vector<float> scan((size_t)c.rows * c.dim, 0.0f);
    const Value &rows = out[1];
    for (int64_t i = 0; i < rows.num_elements() && i < (int64_t)scan.size(); i++) scan[i] = (float)rows.at(i);

    std::vector<float> ref_scan, ref_final;
    apps::loop_add_step_reference(c.m, c.cond, v0, step, c.rows, ref_scan, ref_final);
    const int trips = c.cond ? (int)std::min<uint64_t>(c.m, (uint64_t)c.rows) : 0;
    long bad = 0;
    if (rows.shape != std::vector<int64_t>{trips, c.dim}) {
        std::printf("  rows has shape [%lld, %lld], expected [%d, %d]\n", (long long)rows.shape.at(0),
                    (long long)(rows.shape.size() > 1 ? rows.shape[1] : -1), trips, c.dim);
        bad++;
    }
    for (size_t i = 0; i < scan.size(); i++) {
        if (!(scan[i] == ref_scan[i]) && bad++ < 5)
            std::printf("  scan(%zu, %zu) = %.9g, expected %.9g\n", i % c.dim, i / c.dim, scan[i], ref_scan[i]);
    }
    for (int x = 0; x < c.dim; x++) {
        if (!((float)out[0].at(x) == ref_final[x]) && bad++ < 10)
            std::printf("  v_final(%d) = %.9g, expected %.9g\n", x, out[0].at(x), ref_final[x]);
    }
    std::printf("loop_add_step (ONNX Loop via loom::onnx), %s, dim %d, %d scan rows, M %u, cond %u: %s\n",
                apps::kJitMode, c.dim, c.rows, c.m, c.cond, bad ? "MISMATCH" : "ok (exact)");
    return bad == 0;
}

}  // namespace

int main(int, char **argv) {
    if (!apps::jit_device_available(argv[0])) return apps::kSkipReturnCode;
    try {
        std::map<int, Session> sessions;  // one compilation per width: M and cond are read at run time
        bool ok = true;
        for (const Case &c : std::vector<Case>{{4096, 256, 256, 1},  // the benchmark's shape
                                               {4096, 256, 1000, 1}, // M beyond the scan rows
                                               {1000, 50, 17, 1},    // rows past the trip count are zero
                                               {37, 9, 0, 1},        // M = 0: no iteration
                                               {37, 9, 5, 0},        // cond false: no iteration
                                               {3, 1, 5, 1},         // narrower than a workgroup, one row
                                               {2053, 40, 39, 7}}) { // odd width, any nonzero cond
            ok = check(c, sessions) && ok;
        }
        for (auto &[dim, session] : sessions) {
            if (session.compilations() != 1) {
                std::printf("width %d: %d compilations, expected 1 (M and cond are read at run time)\n", dim,
                            session.compilations());
                ok = false;
            }
        }
        return ok ? 0 : 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
        return 1;
    }
}
