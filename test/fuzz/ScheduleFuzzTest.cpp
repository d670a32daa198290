// The schedule fuzzer: random pipelines under random legal schedules must
// compute exactly what the same pipeline computes unscheduled.
//
// For each pipeline the reference is the unscheduled pipeline on the
// reference interpreter; the scheduled pipeline is realized on the
// interpreter and on the LLVM JIT, and both must equal the reference bit
// for bit (floats too: schedules never reorder float arithmetic in Loom,
// and the pipelines are compiled with strict_float, so nothing is fused).
// Inputs read without a boundary condition ("raw") get buffers of exactly
// the region each pipeline's bounds query asks for, and the scheduled
// pipeline must ask for at least the unscheduled one's region, and exactly
// it unless the schedule computes extra points (RoundUp, ShiftInwards).
//
// Environment (see docs/FUZZING.md):
//   LOOM_FUZZ_PIPELINES  how many pipelines (default 20: the CI subset, about a minute)
//   LOOM_FUZZ_SEED       seed of the first pipeline; pipeline i uses seed + i
//   LOOM_FUZZ_MAX_STAGES Funcs per pipeline besides input wrappers: 2..this
//   LOOM_FUZZ_SECONDS    stop starting new pipelines after this many seconds
//   LOOM_FUZZ_VERBOSE    1: print every pipeline and schedule as it runs
//   LOOM_FUZZ_MINIMIZE   1: on a failure, also print the smallest subset of
//                        the schedule's directives that still fails

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <unistd.h>

#include "fuzz/FuzzModel.h"
#include "lang/Backend.h"

using namespace loom;
using loom::internal::Backend;

namespace {

constexpr uint64_t kDefaultSeed = 1000;
constexpr int kDefaultPipelines = 20;
constexpr int kDefaultMaxStages = 4;
constexpr double kMaxSkipFraction = 0.2;
constexpr int kMaxReportedFailures = 10;
constexpr int kMaxReportedSkips = 10;

uint64_t env_u64(const char *name, uint64_t fallback) {
    const char *v = std::getenv(name);
    if (!v || !*v) return fallback;
    return std::strtoull(v, nullptr, 10);
}

// The seed being run, for the crash handler.
volatile uint64_t g_current_seed = 0;
volatile int g_running = 0;

void on_crash(int sig) {
    if (g_running) {
        char msg[128];
        char digits[24];
        int n = 0;
        uint64_t s = g_current_seed;
        do {
            digits[n++] = char('0' + s % 10);
            s /= 10;
        } while (s && n < 20);
        int len = 0;
        const char *head = "\n[fuzz] crashed while running pipeline seed ";
        for (const char *c = head; *c; c++) msg[len++] = *c;
        while (n) msg[len++] = digits[--n];
        msg[len++] = '\n';
        ssize_t ignored = write(2, msg, len);
        (void)ignored;
    }
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}

class BackendScope {
public:
    explicit BackendScope(Backend b) : previous_(internal::jit_backend()) { internal::set_jit_backend(b); }
    ~BackendScope() { internal::set_jit_backend(previous_); }

private:
    Backend previous_;
};

enum class Outcome { Passed, Skipped, Failed };

struct Result {
    Outcome outcome = Outcome::Passed;
    std::string message;
};

std::string describe(const fuzz::PipelineDesc &p, const fuzz::ScheduleDesc &s) {
    return "---- pipeline (reproduce with LOOM_FUZZ_SEED=" + std::to_string(p.seed) +
           " LOOM_FUZZ_PIPELINES=1) ----\n" + p.to_text() + "---- schedule ----\n" + s.to_text(p);
}

double ms_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

/** "" when the scheduled pipeline asks for a region of each raw input that
 * is right for its schedule: at least what the unscheduled pipeline reads,
 * and exactly that unless the schedule computes extra points. */
std::string check_regions(const fuzz::ScheduleDesc &s, const std::map<int, fuzz::InputRegion> &reference,
                          const std::map<int, fuzz::InputRegion> &scheduled) {
    const bool extra = fuzz::may_compute_extra_points(s);
    for (const auto &[index, want] : reference) {
        if (!scheduled.count(index)) return "the scheduled pipeline does not read input in" + std::to_string(index);
        const fuzz::InputRegion &got = scheduled.at(index);
        const std::string which = "input in" + std::to_string(index) + ": the scheduled pipeline asks for " +
                                  got.to_text() + ", the unscheduled one for " + want.to_text();
        if (!got.contains(want)) return "bounds inference asks for too little of " + which;
        if (!extra && !(got == want)) {
            return "bounds inference asks for more of " + which +
                   ", although no split of this schedule computes extra points";
        }
    }
    return "";
}

/** Realizes p under schedule s on both back ends and compares with
 * expected. Messages do not include the pipeline. */
Result run_scheduled(const fuzz::PipelineDesc &p, const fuzz::ScheduleDesc &s, const std::vector<Buffer<>> &inputs,
                     const std::map<int, fuzz::InputRegion> &reference_regions, const Buffer<> &expected,
                     bool verbose) {
    fuzz::BuiltPipeline scheduled = fuzz::build_pipeline(p, inputs);
    try {
        fuzz::apply_schedule(s, scheduled);
    } catch (const CompileError &e) {
        return {Outcome::Skipped, "a directive was rejected: " + std::string(e.what())};
    }
    // Raw inputs get buffers of exactly the region this schedule asks for.
    try {
        std::map<int, fuzz::InputRegion> regions = fuzz::query_raw_input_regions(p, scheduled);
        std::string wrong = check_regions(s, reference_regions, regions);
        if (!wrong.empty()) return {Outcome::Failed, wrong};
        fuzz::bind_raw_inputs(p, scheduled, regions);
    } catch (const CompileError &e) {
        return {Outcome::Skipped, "the scheduled pipeline was rejected (bounds query): " + std::string(e.what())};
    } catch (const std::exception &e) {
        return {Outcome::Failed, "the bounds query of the scheduled pipeline failed: " + std::string(e.what())};
    }
    for (Backend backend : {Backend::Interpreter, Backend::LLVM}) {
        const std::string name = internal::backend_name(backend);
        Buffer<> actual;
        auto t1 = std::chrono::steady_clock::now();
        try {
            BackendScope scope(backend);
            if (verbose) {
                scheduled.funcs.back().compile_jit();
                std::cout << "[fuzz] " << name << " compile: " << ms_since(t1) << " ms\n";
            }
            actual = fuzz::realize_output(p, scheduled);
            if (verbose) std::cout << "[fuzz] " << name << " total: " << ms_since(t1) << " ms\n";
        } catch (const CompileError &e) {
            return {Outcome::Skipped, "the scheduled pipeline was rejected (" + name + "): " + e.what()};
        } catch (const std::exception &e) {
            return {Outcome::Failed, "the scheduled pipeline failed on " + name + ": " + e.what()};
        }
        std::string diff = fuzz::compare_buffers(expected, actual);
        if (!diff.empty()) {
            return {Outcome::Failed,
                    "the scheduled pipeline on " + name + " differs from the unscheduled one: " + diff};
        }
    }
    return {};
}

Result run_one(uint64_t seed, bool verbose) {
    auto t0 = std::chrono::steady_clock::now();
    std::mt19937 rng((uint32_t)seed);
    fuzz::GeneratorOptions options;
    options.max_stages = (int)env_u64("LOOM_FUZZ_MAX_STAGES", kDefaultMaxStages);
    fuzz::PipelineDesc p;
    fuzz::ScheduleDesc s;
    try {
        p = fuzz::generate_pipeline(rng, options);
        p.seed = seed;
        s = fuzz::generate_schedule(p, rng);
    } catch (const std::exception &e) {
        return {Outcome::Failed, "the generator failed on seed " + std::to_string(seed) + ": " + e.what()};
    }
    if (verbose) std::cout << describe(p, s) << std::flush;

    Buffer<> expected;
    fuzz::BuiltPipeline reference;
    std::map<int, fuzz::InputRegion> reference_regions;
    try {
        reference = fuzz::build_pipeline(p);
        reference_regions = fuzz::query_raw_input_regions(p, reference);
        fuzz::bind_raw_inputs(p, reference, reference_regions);
        BackendScope scope(Backend::Interpreter);
        expected = fuzz::realize_output(p, reference);
        if (verbose) std::cout << "[fuzz] reference: " << ms_since(t0) << " ms\n";
    } catch (const std::exception &e) {
        // The unscheduled pipeline is always legal.
        return {Outcome::Failed, "the unscheduled pipeline failed on the interpreter: " + std::string(e.what()) +
                                     "\n" + describe(p, s)};
    }

    Result r = run_scheduled(p, s, reference.inputs, reference_regions, expected, verbose);
    if (r.outcome != Outcome::Failed || !env_u64("LOOM_FUZZ_MINIMIZE", 0)) {
        if (r.outcome != Outcome::Passed) r.message += "\n" + describe(p, s);
        return r;
    }
    // Drop directives one at a time while the failure stays.
    fuzz::ScheduleDesc small = s;
    for (size_t i = small.ops.size(); i-- > 0;) {
        fuzz::ScheduleDesc trial = small;
        trial.ops.erase(trial.ops.begin() + (long)i);
        Result t = run_scheduled(p, trial, reference.inputs, reference_regions, expected, false);
        if (t.outcome == Outcome::Failed) small = trial;
    }
    r.message += "\n" + describe(p, s) + "---- minimized schedule (still fails) ----\n" + small.to_text(p);
    return r;
}

TEST(ScheduleFuzz, RandomPipelinesUnderRandomSchedulesMatchTheUnscheduledResult) {
    const uint64_t first = env_u64("LOOM_FUZZ_SEED", kDefaultSeed);
    const int count = (int)env_u64("LOOM_FUZZ_PIPELINES", kDefaultPipelines);
    const bool verbose = env_u64("LOOM_FUZZ_VERBOSE", 0) != 0;
    const double seconds_limit = (double)env_u64("LOOM_FUZZ_SECONDS", 0);
    auto old_segv = std::signal(SIGSEGV, on_crash);
    auto old_abrt = std::signal(SIGABRT, on_crash);
    auto old_fpe = std::signal(SIGFPE, on_crash);

    int passed = 0, skipped = 0, failed = 0;
    std::vector<uint64_t> failed_seeds;
    auto start = std::chrono::steady_clock::now();
    int ran = 0;
    for (int i = 0; i < count; i++) {
        if (seconds_limit > 0 &&
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > seconds_limit) {
            break;
        }
        ran++;
        uint64_t seed = first + (uint64_t)i;
        g_current_seed = seed;
        g_running = 1;
        Result r = run_one(seed, verbose);
        g_running = 0;
        switch (r.outcome) {
        case Outcome::Passed: passed++; break;
        case Outcome::Skipped:
            if (skipped++ < kMaxReportedSkips || verbose) std::cout << "[fuzz] skipped: " << r.message << "\n";
            break;
        case Outcome::Failed:
            failed_seeds.push_back(seed);
            if (failed++ < kMaxReportedFailures || verbose) ADD_FAILURE() << "[fuzz] " << r.message;
            break;
        }
    }
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::signal(SIGSEGV, old_segv);
    std::signal(SIGABRT, old_abrt);
    std::signal(SIGFPE, old_fpe);

    std::string seeds;
    for (size_t i = 0; i < failed_seeds.size() && i < 50; i++) seeds += " " + std::to_string(failed_seeds[i]);
    std::cout << "[fuzz] seeds " << first << ".." << first + ran - 1 << ": " << ran << " pipelines, " << passed
              << " matched, " << skipped << " skipped, " << failed << " failed, in " << seconds << " s"
              << (failed ? "; failing seeds:" + seeds : std::string()) << std::endl;
    EXPECT_EQ(failed, 0);
    EXPECT_LE(skipped, kMaxSkipFraction * ran) << "too many schedules were rejected: the generator makes illegal ones";
}

}  // namespace
