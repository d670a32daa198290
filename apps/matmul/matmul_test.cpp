// Checks the matrix product against the C++ reference exactly: the entries
// are small integers, so every partial sum is an exact float and the order
// of the additions cannot matter. Sizes: one that the blocks divide and one
// that they do not. Built twice: matmul_jit_test (JIT) and matmul_aot_test
// (LOOM_APPS_AOT, the generator's library). The JIT build checks both CPU
// schedules, the 8-lane block and the 16-lane (AVX-512) one that bench_apps
// times, whatever the host's vector width: the second's sizes leave a partial
// last group of block rows and a partial last column of blocks.
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>

#include "../common/image_util.h"
#include "matmul_reference.h"

#ifdef LOOM_APPS_AOT
#include "matmul_aot.h"
#else
#include "../common/jit_target.h"
#include "matmul_algorithm.h"
#endif

using loom::Runtime::Buffer;

namespace {

#ifdef LOOM_APPS_AOT
const char *const kMode = "AOT";
void run_matmul(const Buffer<float> &a, const Buffer<float> &b, Buffer<float> &result, int /*lanes*/) {
    const int error = matmul(a.raw_buffer(), b.raw_buffer(), result.raw_buffer());
    if (error != 0) throw std::runtime_error("matmul returned error " + std::to_string(error));
}
#else
const char *const kMode = apps::kJitMode;
void run_matmul(const Buffer<float> &a_data, const Buffer<float> &b_data, Buffer<float> &result, int lanes) {
    using namespace loom;
    ImageParam a(Float(32), 2, "a"), b(Float(32), 2, "b");
    Func output("matmul");
    apps::Matmul mm = apps::define_matmul(a, b, a.width(), a.height(), b.width(), output);
    if (apps::kJitOnGpu) {
        apps::schedule_matmul_gpu(mm);
    } else {
        apps::schedule_matmul(mm, lanes);
    }
    a.set(loom::Buffer<float>(a_data, "a"));
    b.set(loom::Buffer<float>(b_data, "b"));
    output.realize(loom::Buffer<float>(result, "output"), apps::jit_target());
}
#endif

Buffer<float> random_matrix(int columns, int rows, uint64_t seed) {
    Buffer<float> m(columns, rows);
    apps::Random random(seed);
    m.for_each_element([&](int x, int y) { m(x, y) = float(int(random.next(7)) - 3); });
    return m;
}

bool check(int n, int m_rows, int k, int lanes = 8) {
    Buffer<float> a = random_matrix(k, m_rows, 1), b = random_matrix(n, k, 2);
    Buffer<float> result(n, m_rows), expected(n, m_rows);
    run_matmul(a, b, result, lanes);
    apps::matmul_reference(a, b, expected);
    const std::string what = std::string("matmul, ") + kMode + ", " + std::to_string(k) + "x" +
                             std::to_string(m_rows) + " times " + std::to_string(n) + "x" + std::to_string(k) +
                             (lanes == 8 ? "" : ", " + std::to_string(lanes) + "-lane schedule");
    return apps::report(what, apps::compare(result, expected, 0), 0);
}

}  // namespace

int main(int, char **argv) {
    try {
#ifndef LOOM_APPS_AOT
        if (!apps::jit_device_available(argv[0])) return apps::kSkipReturnCode;
#endif
        bool ok = check(128, 96, 64);
        ok = check(120, 70, 45) && ok;
#ifndef LOOM_APPS_AOT
        if (!apps::kJitOnGpu) ok = check(200, 110, 300, 16) && ok;
#endif
        return ok ? 0 : 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
        return 1;
    }
}
