// The autoscheduler (docs/AUTOSCHEDULER.md) against the default schedule
// (everything inlined into the output) and a hand schedule, on a 3x3 box
// blur of a 1536x1024 float image with a clamped edge, with a plain C++
// loop as the peer:
//   Default      no schedule: blur_x inlined into blur_y (9 loads a pixel)
//   Hand         blur_x compute_root, both tiled 8 vectors x 32 rows with
//                ShiftInwards tails, vectorized, rows of tiles in parallel
//   Autoscheduled  LoomHeuristic for the host, estimates = the image size
//
// and the time LoomHeuristic takes to schedule long chains of Funcs
// (BM_AutoscheduleChain/stencils/pointwise_between: 30 stencils, and 64
// stages of stencils and pointwise Funcs), without compiling them:
//   ./build/bench/bench_autoschedule --benchmark_repetitions=5 \
//     --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <algorithm>
#include <string>
#include <vector>

#include <loom/Loom.h>

namespace {

constexpr int kWidth = 1536, kHeight = 1024;

enum class Schedule { Default, Hand, Autoscheduled };

loom::Buffer<float> image() {
    loom::Buffer<float> b(kWidth, kHeight);
    b.fill([](int i, int j) { return float((i * 7 + j * 3) % 101); });
    return b;
}

void run(benchmark::State &state, Schedule schedule) {
    loom::Buffer<float> input = image(), out(kWidth, kHeight);
    loom::Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    loom::Func bounded = loom::BoundaryConditions::repeat_edge(input);
    loom::Func blur_x("blur_x"), blur_y("blur_y");
    blur_x(x, y) = bounded(x - 1, y) + bounded(x, y) + bounded(x + 1, y);
    blur_y(x, y) = (blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) * (1.0f / 9);
    loom::Pipeline p(blur_y);
    const loom::Target host = loom::get_host_target();
    if (schedule == Schedule::Hand) {
        const int vw = host.natural_vector_size<float>();
        blur_x.compute_root();
        for (loom::Func f : {blur_x, blur_y}) f.tile(x, y, xo, yo, xi, yi, vw * 8, 32).vectorize(xi, vw).parallel(yo);
    } else if (schedule == Schedule::Autoscheduled) {
        blur_y.set_estimates({{0, kWidth}, {0, kHeight}});
        p.apply_autoscheduler(host, {"LoomHeuristic"});
    }
    p.realize(out);  // compiles
    for (auto _ : state) {
        p.realize(out);
        benchmark::DoNotOptimize(out.data());
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * 2 * kWidth * kHeight * int64_t(sizeof(float)));
}

void BM_LoomDefaultSchedule(benchmark::State &state) { run(state, Schedule::Default); }
void BM_LoomHandSchedule(benchmark::State &state) { run(state, Schedule::Hand); }
void BM_LoomAutoscheduled(benchmark::State &state) { run(state, Schedule::Autoscheduled); }
BENCHMARK(BM_LoomDefaultSchedule)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_LoomHandSchedule)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_LoomAutoscheduled)->Unit(benchmark::kMicrosecond)->UseRealTime();

/** A chain of `stencils` 3-tap stencils, along x and y in turn, with a
 * pointwise Func after each when pointwise_between. */
loom::Func stencil_chain(const loom::Buffer<int> &input, int stencils, bool pointwise_between) {
    loom::Var x("x"), y("y");
    loom::Func prev("chain_in");
    prev(x, y) = input(x, y);
    for (int i = 0; i < stencils; i++) {
        loom::Func s("chain_s" + std::to_string(i));
        loom::Expr b = i % 2 == 0 ? prev(x + 1, y) : prev(x, y + 1);
        loom::Expr c = i % 2 == 0 ? prev(x + 2, y) : prev(x, y + 2);
        s(x, y) = (prev(x, y) + 2 * b + c) / 4;
        if (pointwise_between) {
            loom::Func p("chain_p" + std::to_string(i));
            p(x, y) = (s(x, y) * 3 + i) % 97;
            s = p;
        }
        prev = s;
    }
    return prev;
}

void BM_AutoscheduleChain(benchmark::State &state) {
    const loom::Target host = loom::get_host_target();
    loom::Buffer<int> input(8, 8);
    for (auto _ : state) {
        state.PauseTiming();
        loom::Func out = stencil_chain(input, int(state.range(0)), state.range(1) != 0);
        out.set_estimates({{0, 1024}, {0, 1024}});
        loom::Pipeline p(out);
        state.ResumeTiming();
        benchmark::DoNotOptimize(p.apply_autoscheduler(host, {"LoomHeuristic"}).schedule_source.size());
    }
}
BENCHMARK(BM_AutoscheduleChain)->Args({10, 0})->Args({30, 0})->Args({32, 1})->Unit(benchmark::kMillisecond);

void BM_CppSerial(benchmark::State &state) {
    loom::Buffer<float> input = image(), out(kWidth, kHeight);
    std::vector<float> rows(size_t(kWidth) * 3);
    auto in = [&](int i, int j) { return input(std::clamp(i, 0, kWidth - 1), std::clamp(j, 0, kHeight - 1)); };
    for (auto _ : state) {
        for (int j = 0; j < kHeight; j++) {
            for (int i = 0; i < kWidth; i++) {
                float s = 0;
                for (int dj = -1; dj <= 1; dj++) s += in(i - 1, j + dj) + in(i, j + dj) + in(i + 1, j + dj);
                out(i, j) = s * (1.0f / 9);
            }
        }
        benchmark::DoNotOptimize(out.data());
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * 2 * kWidth * kHeight * int64_t(sizeof(float)));
}
BENCHMARK(BM_CppSerial)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
