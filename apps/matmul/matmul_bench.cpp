// The generated matrix product against the C++ reference, n x n floats
// (n = 1024, or LOOM_APPS_BENCH_MATMUL=n). The entries are small integers,
// so the results must agree exactly. Reports FLOP/s (2 n^3 per product).
#include <algorithm>
#include <cstdlib>

#include "common/bench_util.h"
#include "matmul_aot.h"
#include "matmul_reference.h"

namespace {

struct Data {
    int n = 1024;
    apps::Buffer<float> a, b, output, expected;
    Data() {
        if (const char *s = std::getenv("LOOM_APPS_BENCH_MATMUL")) n = std::max(1, std::atoi(s));
        a = apps::Buffer<float>(n, n);
        b = apps::Buffer<float>(n, n);
        output = apps::Buffer<float>(n, n);
        expected = apps::Buffer<float>(n, n);
        apps::Random random(3);
        a.for_each_element([&](int x, int y) { a(x, y) = float(int(random.next(5)) - 2); });
        b.for_each_element([&](int x, int y) { b(x, y) = float(int(random.next(5)) - 2); });
        apps::matmul_reference(a, b, expected);
    }
    double flops() const { return 2.0 * n * double(n) * n; }
};

Data &data() {
    static Data d;
    return d;
}

template<typename Body>
void run(benchmark::State &state, Body &&body, bool verify) {
    Data &d = data();
    apps::run_benchmark(
        state,
        [&]() -> std::string {
            if (!verify) return "";
            return body() ? "matmul failed" : apps::mismatch(d.output, d.expected, 0);
        },
        body, 0);
    state.counters["FLOP/s"] = benchmark::Counter(d.flops(), benchmark::Counter::kIsIterationInvariantRate);
}

void loom_matmul(benchmark::State &state) {
    Data &d = data();
    run(state, [&] { return matmul(d.a, d.b, d.output); }, true);
}

void cpp_matmul(benchmark::State &state) {
    Data &d = data();
    run(state,
        [&] {
            apps::matmul_reference(d.a, d.b, d.output);
            return 0;
        },
        false);
}

}  // namespace

BENCHMARK(loom_matmul)->Name("matmul/loom")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(cpp_matmul)->Name("matmul/cpp")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_MAIN();
