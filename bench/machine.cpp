// What the machine can do, measured in the same run as the workloads:
//
//   machine/triad     STREAM-style triad a[i] = b[i] + s * c[i] over three
//                     arrays of doubles far larger than the last-level
//                     cache, on all threads: the memory bandwidth the
//                     streaming workloads are compared with. Bytes are
//                     counted as STREAM does (24 an element: two reads, one
//                     write, no write-allocate traffic), and the workloads
//                     count theirs the same way.
//   machine/fma_peak  register-only FMA chains on all threads: the fp32 rate
//                     the cores really reach (turbo clocks included), beside
//                     the nominal peak scripts/bench.sh derives from
//                     /proc/cpuinfo.
#include "bench_common.h"

namespace bench {
namespace {

size_t triad_length() {
    // 16 Mi doubles = 128 MiB per array, 4x a 32 MiB L3 (STREAM's rule);
    // LOOM_BENCH_TRIAD (in Mi elements) overrides.
    const char *v = std::getenv("LOOM_BENCH_TRIAD");
    size_t mi = (v && std::atoi(v) > 0) ? size_t(std::atoi(v)) : 16;
    return mi << 20;
}

void run_triad(benchmark::State &state) {
    static Verdict verdict;
    static Array<double> a, b, c;
    const size_t n = triad_length();
    auto verify = [&] {
        a = Array<double>(n);
        b = Array<double>(n);
        c = Array<double>(n);
        triad_init(a.data(), b.data(), c.data(), n);
        triad_reference(a.data(), b.data(), c.data(), 3.0, n);
        return a[n - 1] == 7.0 ? std::string() : std::string("triad computed a wrong value");
    };
    auto once = [&] {
        triad_reference(a.data(), b.data(), c.data(), 3.0, n);
        benchmark::ClobberMemory();
    };
    run_checked(state, verdict, verify, once, 3.0 * sizeof(double) * double(n), 0);
}

void run_fma_peak(benchmark::State &state) {
    static Verdict verdict;
    constexpr long kIterations = 20'000'000;
    double flops = 0;
    auto once = [&] { flops = fma_peak_reference(kIterations); };
    run_checked(state, verdict, [] { return std::string(); }, once, 0, 0);
    if (flops > 0) state.counters["flops"] = flops;
}

}  // namespace

void register_machine() {
    register_run("machine/triad", run_triad);
    register_run("machine/fma_peak", run_fma_peak);
}

}  // namespace bench
