// Checks loop_add_step (seed 002's contract) against the plain C++ loop:
// full trip counts, trip counts cut by the scan rows, by M and by cond,
// zero iterations, widths the vectors do not divide. Exact: both add the
// same floats in the same order. Built twice: loop_add_step_jit_test (CPU
// schedule) and loop_add_step_vulkan_test (LOOM_APPS_VULKAN, the GPU
// schedule on the Vulkan device; exit 77 without one).
#include <cmath>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "../common/jit_target.h"
#include "loop_add_step_algorithm.h"
#include "loop_add_step_reference.h"

namespace {

struct Case {
    int dim, rows;
    uint32_t m, cond;
};

bool check(const Case &c) {
    using namespace loom;
    std::vector<float> v0(c.dim), step(c.dim);
    for (int x = 0; x < c.dim; x++) {
        v0[x] = std::sin(0.1f * (float)x);
        step[x] = 0.01f * (float)((x * 7) % 13) - 0.05f;
    }
    ImageParam m(UInt(32), 1, "m"), cond(UInt(32), 1, "cond_in"), v_initial(Float(32), 1, "v_initial"),
        step_in(Float(32), 1, "step");
    Param<int> rows("scan_rows");
    apps::LoopAddStep p = apps::define_loop_add_step(m, cond, v_initial, step_in, v_initial.width(), rows, Func("scan_output"),
                                                     Func("v_final"));
    if (apps::kJitOnGpu) {
        apps::schedule_loop_add_step_gpu(p);
    } else {
        apps::schedule_loop_add_step(p);
    }
    Buffer<uint32_t> m_buf(1), cond_buf(1);
    m_buf(0) = c.m;
    cond_buf(0) = c.cond;
    Buffer<float> v_buf(c.dim), step_buf(c.dim), scan(c.dim, c.rows), v_final(c.dim);
    for (int x = 0; x < c.dim; x++) v_buf(x) = v0[x], step_buf(x) = step[x];
    for (int t = 0; t < c.rows; t++) {
        for (int x = 0; x < c.dim; x++) scan(x, t) = NAN;  // every row must be written
    }
    m.set(m_buf);
    cond.set(cond_buf);
    v_initial.set(v_buf);
    step_in.set(step_buf);
    rows.set(c.rows);
    Pipeline pipeline({p.state, p.v_final});
    Realization outputs(scan, v_final);
    pipeline.realize(outputs, apps::jit_target());
    scan.copy_to_host();
    v_final.copy_to_host();

    std::vector<float> ref_scan, ref_final;
    apps::loop_add_step_reference(c.m, c.cond, v0, step, c.rows, ref_scan, ref_final);
    long bad = 0;
    for (int t = 0; t < c.rows; t++) {
        for (int x = 0; x < c.dim; x++) {
            const float want = ref_scan[(size_t)t * c.dim + x];
            if (!(scan(x, t) == want) && bad++ < 5)
                std::printf("  scan(%d, %d) = %.9g, expected %.9g\n", x, t, scan(x, t), want);
        }
    }
    for (int x = 0; x < c.dim; x++) {
        if (!(v_final(x) == ref_final[x]) && bad++ < 10)
            std::printf("  v_final(%d) = %.9g, expected %.9g\n", x, v_final(x), ref_final[x]);
    }
    std::printf("loop_add_step, %s, dim %d, %d scan rows, M %u, cond %u: %s\n", apps::kJitMode, c.dim, c.rows, c.m,
                c.cond, bad ? "MISMATCH" : "ok (exact)");
    return bad == 0;
}

}  // namespace

int main(int, char **argv) {
    if (!apps::jit_device_available(argv[0])) return apps::kSkipReturnCode;
    try {
        bool ok = true;
        for (const Case &c : std::vector<Case>{{4096, 256, 256, 1},  // the benchmark's shape
                                               {4096, 256, 1000, 1}, // M beyond the scan rows
                                               {1000, 50, 17, 1},    // rows past the trip count are zero
                                               {37, 9, 0, 1},        // M = 0: no iteration
                                               {37, 9, 5, 0},        // cond false: no iteration
                                               {3, 1, 5, 1},         // narrower than a vector, one row
                                               {2053, 40, 39, 7}}) { // odd width, any nonzero cond
            ok = check(c) && ok;
        }
        return ok ? 0 : 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
        return 1;
    }
}
