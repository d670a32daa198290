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
// The scheduled pipeline is lowered once; the bounds query, the interpreter
// and the LLVM JIT all run that one lowering (it does not depend on the
// back end).
//
// ctest runs the CI subset, ScheduleFuzzCi/Shard.*: kCiShards x
// kCiPipelinesPerShard pipelines from seed kDefaultSeed. ScheduleFuzz.Campaign
// runs a campaign configured by the environment (see docs/FUZZING.md):
//   LOOM_FUZZ_PIPELINES  how many pipelines (unset: the campaign test skips)
//   LOOM_FUZZ_SEED       seed of the first pipeline; pipeline i uses seed + i
//   LOOM_FUZZ_MAX_STAGES Funcs per pipeline besides input wrappers: 2..this
//   LOOM_FUZZ_SECONDS    stop starting new pipelines after this many seconds
//   LOOM_FUZZ_VERBOSE    1: print every pipeline and schedule as it runs
//   LOOM_FUZZ_MINIMIZE   1: on a failure, also print the smallest subset of
//                        the schedule's directives that still fails
//   LOOM_FUZZ_SLOW_SECONDS  report a pipeline still running after this many
//                        seconds of CPU (default 20; 0: never)
//   LOOM_FUZZ_GIVE_UP_SECONDS  end the process (exit code 3) when one pipeline
//                        has used this many seconds of CPU, after printing the
//                        summary so far and the seed (default 0: never)
//   LOOM_FUZZ_ONLY_COMPUTE_WITH  1: run only the seeds whose schedule uses
//                        compute_with (the others are generated, not run)
//   LOOM_FUZZ_LLVM_IR    a file name: each scheduled pipeline's LLVM IR is
//                        written there (compile_to_llvm_assembly), to time
//                        LLVM on it with opt-19 / llc-19 -time-passes
//   LOOM_JIT_OPT_LEVEL   if set, every pipeline's LLVM level; otherwise every
//                        4th seed gets 3 and the others 0
//   LOOM_FUZZ_GPU        1: GPU schedules on Vulkan (see below)
// VERBOSE, MINIMIZE, SLOW_SECONDS and LOOM_JIT_OPT_LEVEL apply to the CI
// shards too.
//
// GPU schedules (generate_gpu_schedule) run on the JIT for a Vulkan target
// (Mesa's lavapipe in CI) and must equal the unscheduled pipeline on the
// interpreter bit for bit; those pipelines hold integers only. The
// interpreter does not run kernels, so only the JIT runs the scheduled
// pipeline. ctest runs the GPU CI subset, ScheduleFuzzGpuCi.*, as its own
// entry labelled vulkan, with the validation layer on; it and a GPU
// campaign skip without a Vulkan device.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <ctime>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <thread>
#include <unistd.h>

#include "fuzz/FuzzModel.h"
#include "codegen/llvm/CodeGen_LLVM.h"
#include "lang/Backend.h"
#include "vulkan/VulkanTestUtil.h"

using namespace loom;
using loom::internal::Backend;
using loom::internal::LoweredFunc;

namespace {

constexpr uint64_t kDefaultSeed = 1000;
constexpr int kCiShards = 8;
constexpr int kCiPipelinesPerShard = 40;
// Seeds whose bounds grew to tens of thousands of nodes (a fused loop's
// variables divided by a varying extent; docs/FUZZING.md, "Known slow
// pipelines") and took 4 s to minutes to lower before bounds inference named
// big endpoints; and campaign seeds whose unscheduled reference run took
// 8-15 s of CPU before the reference computed reductions at the root
// (reference_schedule_for): 920027 (a reduction of reductions) and 971339 (a
// reduction computed per output point over the box of two distant calls).
// Run by the CI as regressions.
// 1102455, 1125060 and 1167939: endpoints doubled by each loop of a nest of
// guarded tiles (13-75 s of lowering before big endpoints were relaxed over
// the whole nest at once, ir/BoxesTouched.cpp).
const uint64_t kOnceSlowSeeds[] = {630097, 920027, 971339, 1102455, 1125060, 1167939};
// Campaign seeds (row (r) of docs/FUZZING.md) whose vectorized or unrolled
// extent was bounded by a constant Loom did not prove, so the schedule was
// refused and the seed skipped: 1188446's unrolled extent is
// max(min(a, b + 1) - b, 1), which is 1 once the difference moves into the
// min; 1192948's vectorized one is min(m + 3, n) - min(m, n) + 2, at most 5
// as a clamp of n - m (ir/simplify/Simplify_Sub.cpp). run_seeds fails a
// single seed that is skipped, so these must compile and match.
const uint64_t kOnceSkippedSeeds[] = {1188446, 1192948};
constexpr int kDefaultMaxStages = 4;
// The CI shards run the two costly region checks (the read-point check,
// one more lowering and run of the unscheduled pipeline, and the
// guarded-tail rule, one more lowering of the scheduled one) on every
// kCiRegionCheckEvery-th seed only, to keep the fuzz label's time; a
// campaign runs them on every seed.
constexpr uint64_t kCiRegionCheckEvery = 4;
uint64_t g_region_check_every = 1;

// CI seeds whose lowering takes minutes (docs/FUZZING.md, "Known slow
// pipelines"): left out of the shards, run by campaigns with a give-up.
const std::set<uint64_t> kCiLeftOutSeeds = {};
constexpr double kMaxSkipFraction = 0.2;
constexpr int kMaxReportedFailures = 10;
constexpr int kMaxReportedSkips = 10;
// The GPU CI subset: kGpuCiPipelines pipelines from seed kDefaultSeed, of
// 2..kGpuMaxStages Funcs (lavapipe compiles every kernel: each costs more
// than a CPU pipeline).
constexpr int kGpuCiPipelines = 200;
constexpr int kGpuMaxStages = 4;

// Which schedules are drawn, and where the scheduled pipeline runs.
enum class Mode { Cpu, Gpu };

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

enum class Outcome { Passed, Skipped, Failed, NotSelected };

struct Result {
    Outcome outcome = Outcome::Passed;
    std::string message;
    // The unscheduled pipeline asks for more of a raw input than it reads,
    // for no reason check_touched knows (a note, not a failure).
    std::string asks_more_than_read;
    // The schedule asks for less than its reference, and reads only what it
    // asks for (see reads_outside_query; a note, not a failure).
    std::string asks_less_than_reference;
};

std::string describe(const fuzz::PipelineDesc &p, const fuzz::ScheduleDesc &s) {
    return "---- pipeline (reproduce with LOOM_FUZZ_SEED=" + std::to_string(p.seed) +
           " LOOM_FUZZ_PIPELINES=1) ----\n" + p.to_text() + "---- schedule ----\n" + s.to_text(p);
}

double ms_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

const char *const kTooLittle = "bounds inference asks for too little";

/** "" when `got` is the region of each raw input that is right: exactly
 * `want` (what the unscheduled pipeline asks for), or when `may_contain`,
 * at least `want` (a region that is right but not the unscheduled one, see
 * check_regions). `who` names the schedule. */
std::string compare_regions(const std::map<int, fuzz::InputRegion> &want_regions,
                            const std::map<int, fuzz::InputRegion> &got_regions, bool may_contain,
                            const std::string &who, const std::string &what_wanted, const std::string &why_exact) {
    for (const auto &[index, want] : want_regions) {
        if (!got_regions.count(index)) return who + " does not read input in" + std::to_string(index);
        const fuzz::InputRegion &got = got_regions.at(index);
        const std::string which = "input in" + std::to_string(index) + ": " + who + " asks for " + got.to_text() +
                                  ", " + what_wanted + " for " + want.to_text();
        if (!got.contains(want)) return std::string(kTooLittle) + " of " + which;
        if (!may_contain && !(got == want) && !(got.empty() && want.empty())) {
            return "bounds inference asks for more of " + which + why_exact;
        }
    }
    return "";
}

/** The Funcs whose values e reads, and the Funcs those read (any stage). */
void value_sources(const fuzz::PipelineDesc &p, const fuzz::ENode &e, std::set<int> &out) {
    if (e.op == fuzz::Op::Call && out.insert(e.index).second) {
        for (const std::vector<int> &stage : p.funcs[e.index].reads) {
            for (int f : stage) {
                if (out.insert(f).second) {
                    const fuzz::FuncDesc &d = p.funcs[f];
                    if (d.pure) value_sources(p, *d.pure, out);
                    for (const fuzz::UpdateDesc &u : d.updates) value_sources(p, *u.value, out);
                }
            }
        }
    }
    for (const fuzz::ENodePtr &k : e.kids) value_sources(p, *k, out);
}

/** The Funcs whose values an update's index (a histogram's bin) reads
 * that s computes out of line, in pipeline order. Inlined into the index,
 * such a Func's values are bounded over the loops the index is read in; out
 * of line, by its function value bounds (lower/FunctionValueBounds.h: its
 * pure Vars unbounded), which can be wider (f(x) = x computed at the root
 * leaves a bin clamp(f(r), 0, 9) at the clamp), so the scheduled pipeline
 * may size the histogram larger than the unscheduled one, correctly. Seed
 * 1209 of the CI subset (f2(x, y) = u8(x) % 5 at the root, a bin clamped to
 * [-2, 7]) is now exact: f2's values are [0, 4] either way. */
std::vector<int> value_sources_computed_out_of_line(const fuzz::PipelineDesc &p, const fuzz::ScheduleDesc &s) {
    std::set<int> sources;
    for (const fuzz::FuncDesc &f : p.funcs) {
        for (const fuzz::UpdateDesc &u : f.updates) {
            for (const fuzz::ENodePtr &a : u.lhs) value_sources(p, *a, sources);
        }
    }
    std::set<int> computed;
    for (const fuzz::SchedOp &o : s.ops) {
        if ((o.kind == fuzz::SchedKind::ComputeRoot || o.kind == fuzz::SchedKind::ComputeAt) && sources.count(o.func)) {
            computed.insert(o.func);
        }
    }
    return std::vector<int>(computed.begin(), computed.end());
}

bool indexes_by_values_of_a_computed_func(const fuzz::PipelineDesc &p, const fuzz::ScheduleDesc &s) {
    return !value_sources_computed_out_of_line(p, s).empty();
}

/** The unscheduled pipeline's regions of the raw inputs that a schedule's
 * are compared with (check_regions). `asked`: its bounds query, which is
 * what it needs where it reads all of it. `read`: for an input of which it
 * reads less than it asks (traced loads; none at all, e.g. behind a
 * where() that never holds), the points it does read: its query there is
 * a region bounds inference derived from empty regions (a max below a
 * min, relaxed over a loop of no iteration or pushed through x / 2 and
 * min/max unions), correct but no measure of what another schedule must
 * ask for (seeds 901882, 901931, 902863), so a schedule must only cover
 * the points read. */
struct ReferenceRegions {
    std::map<int, fuzz::InputRegion> asked;
    std::map<int, fuzz::InputRegion> read;
};

/** The region check (docs/FUZZING.md, "Regions"): "" when the scheduled
 * pipeline asks for a region of each raw input that is right for its
 * schedule. A schedule that computes no extra points must ask for exactly
 * the unscheduled pipeline's region. One whose tails compute extra points
 * (RoundUp, ShiftInwards, Auto) is checked against the rule that those
 * tails are the only source of extra points: `guarded` (the regions of the
 * same schedule with every such tail made GuardWithIf, when Loom accepts
 * that schedule) must be exactly the unscheduled regions, and the
 * scheduled regions must contain them. Only a Func computed over a box
 * whose points read footprints of different shapes
 * (computes_varying_footprints_over_a_box) may ask for more. Where an
 * index reads the values of Funcs that s computes out of line, `by_values`
 * (the regions with only those Funcs computed at the root) takes the place
 * of the unscheduled regions and must contain them; where Loom rejects that
 * pipeline the rule is "contains". */
bool computes_varying_footprints_over_a_box(const fuzz::PipelineDesc &p, const fuzz::ScheduleDesc &s);

const char *const kByValuesName = "the pipeline with only the Funcs whose values index computed at the root";

std::string check_regions(const fuzz::PipelineDesc &p, const fuzz::ScheduleDesc &s,
                          const ReferenceRegions &references,
                          const std::map<int, fuzz::InputRegion> &scheduled,
                          const std::map<int, fuzz::InputRegion> *guarded,
                          const std::map<int, fuzz::InputRegion> *by_values) {
    // Where the unscheduled pipeline reads less than it asks for, only the
    // points it reads are needed by every schedule.
    std::string wrong = compare_regions(references.read, scheduled, true, "the scheduled pipeline",
                                        "the unscheduled one reads", "");
    if (wrong.empty() && guarded) {
        wrong = compare_regions(references.read, *guarded, true, "the schedule with every tail made GuardWithIf",
                                "the unscheduled one reads", "");
    }
    if (!wrong.empty()) return wrong;
    // Where an index reads the values of Funcs s computes out of line, the
    // exact reference is the pipeline with only those Funcs at the root
    // (their value bounds do not depend on where they are computed), which
    // must contain the unscheduled one's.
    if (by_values) {
        wrong = compare_regions(references.asked, *by_values, true, kByValuesName, "the unscheduled one", "");
        if (!wrong.empty()) return wrong;
    }
    std::map<int, fuzz::InputRegion> by_values_asked;  // the inputs compared exactly (see split_by_reads)
    if (by_values) {
        for (const auto &[index, region] : *by_values) {
            if (references.asked.count(index)) by_values_asked[index] = region;
        }
    }
    const std::map<int, fuzz::InputRegion> &reference = by_values ? by_values_asked : references.asked;
    const std::string reference_name = by_values ? kByValuesName : "the unscheduled one";
    const bool inexact = (!by_values && indexes_by_values_of_a_computed_func(p, s)) ||
                         computes_varying_footprints_over_a_box(p, s);
    if (!fuzz::may_compute_extra_points(s)) {
        return compare_regions(reference, scheduled, inexact, "the scheduled pipeline", reference_name,
                               ", although no split of this schedule computes extra points");
    }
    // Without a guarded schedule, or where the unscheduled regions are no
    // measure anyway, the rule is "contains".
    if (!guarded || inexact) {
        return compare_regions(reference, scheduled, true, "the scheduled pipeline", reference_name, "");
    }
    wrong = compare_regions(reference, *guarded, false,
                                        "the schedule with every tail made GuardWithIf", reference_name,
                                        ": only tails that compute extra points may make a region larger");
    if (!wrong.empty()) return wrong;
    return compare_regions(*guarded, scheduled, true, "the scheduled pipeline",
                           "the same schedule with every tail made GuardWithIf", "");
}

/** The raw input regions of p under guard_every_tail(s) (see
 * check_regions), or none when Loom rejects that schedule (a guarded tail
 * can make a loop Loom needs constant variable). */
std::optional<std::map<int, fuzz::InputRegion>> guarded_regions(const fuzz::PipelineDesc &p,
                                                                 const fuzz::ScheduleDesc &s,
                                                                 const std::vector<Buffer<>> &inputs) {
    fuzz::BuiltPipeline b = fuzz::build_pipeline(p, inputs);
    try {
        fuzz::apply_schedule(fuzz::guard_every_tail(s), b);
        LoweredFunc lowered = fuzz::lower_pipeline(b);
        return fuzz::query_raw_input_regions(p, b, lowered);
    } catch (const CompileError &) {
        return std::nullopt;
    }
}

/** "" when p under schedule s reads (traced loads) only points of each raw
 * input inside `query` (the region s's bounds query asks for); otherwise
 * what it reads outside. A reference region is built from the producers
 * the reference computes, over boxes that may hold points no output needs
 * (seed 1120716: behind `r.where(r.x * 2 < y % 3)` with r.x = 23, which no
 * y satisfies, the reference computes f2 at the root over the rows its
 * consumers would read and reads rows [0, 8] of in1; the schedule, whose
 * region of f2 is empty, asks for row 0 and reads none). Asking for less
 * than such a reference is an error only where the schedule then reads
 * outside what it asked for, which this decides for these inputs. */
std::string reads_outside_query(const fuzz::PipelineDesc &p, const fuzz::ScheduleDesc &s,
                                const std::vector<Buffer<>> &inputs,
                                const std::map<int, fuzz::InputRegion> &query) {
    std::map<int, fuzz::InputRegion> touched;
    try {
        touched = fuzz::touched_raw_input_regions(p, inputs, s);
    } catch (const std::exception &e) {
        return std::string("tracing its reads failed: ") + e.what();
    }
    for (const auto &[index, read] : touched) {
        auto asked = query.find(index);
        if (asked == query.end() || !asked->second.contains(read)) {
            return "it reads " + read.to_text() + " of input in" + std::to_string(index) + " but asks for " +
                   (asked == query.end() ? std::string("none") : asked->second.to_text());
        }
    }
    return "";
}

/** The raw input regions of p with only the Funcs in `at_root` computed at
 * the root (see check_regions), or none when Loom rejects that. */
std::optional<std::map<int, fuzz::InputRegion>> regions_with_roots(const fuzz::PipelineDesc &p,
                                                                   const std::vector<int> &at_root,
                                                                   const std::vector<Buffer<>> &inputs) {
    fuzz::ScheduleDesc roots;
    for (int f : at_root) {
        fuzz::SchedOp op;
        op.kind = fuzz::SchedKind::ComputeRoot;
        op.func = f;
        roots.ops.push_back(op);
    }
    fuzz::BuiltPipeline b = fuzz::build_pipeline(p, inputs);
    try {
        fuzz::apply_schedule(roots, b);
        LoweredFunc lowered = fuzz::lower_pipeline(b);
        return fuzz::query_raw_input_regions(p, b, lowered);
    } catch (const CompileError &) {
        return std::nullopt;
    }
}

/** Whether e (or a part of it) has a value the simplifier knows, so that the
 * reads under it are never made: x % c and x / 0 with c in {-1, 0, 1}, a
 * product, quotient or remainder of a known 0, and arithmetic of known
 * values (the generator draws such constants; Loom defines x / 0 and
 * x % 0 as 0). `value` is set when e itself is known. */
bool known(const fuzz::ENode &e, int64_t &value) {
    using fuzz::Op;
    if (e.op == Op::Const) {
        value = e.type == fuzz::ElemType::F32 ? (int64_t)e.fval : e.ival;
        return e.type != fuzz::ElemType::F32 || e.fval == (double)value;
    }
    std::vector<int64_t> v(e.kids.size());
    std::vector<bool> k(e.kids.size());
    for (size_t i = 0; i < e.kids.size(); i++) k[i] = known(*e.kids[i], v[i]);
    auto zero = [&](size_t i) { return k[i] && v[i] == 0; };
    auto all = [&]() {
        for (bool b : k) {
            if (!b) return false;
        }
        return true;
    };
    switch (e.op) {
    case Op::Mod:
        if (zero(0) || zero(1) || (k[1] && (v[1] == 1 || v[1] == -1))) return value = 0, true;
        break;
    case Op::Div:
        if (zero(0) || zero(1)) return value = 0, true;
        break;
    case Op::Mul:
        if (zero(0) || zero(1)) return value = 0, true;
        break;
    default: break;
    }
    if (e.type == fuzz::ElemType::F32 || !all() || e.kids.empty()) return false;
    switch (e.op) {
    case Op::Add: value = v[0] + v[1]; return true;
    case Op::Sub: value = v[0] - v[1]; return true;
    case Op::Mul: value = v[0] * v[1]; return true;
    case Op::Min: value = std::min(v[0], v[1]); return true;
    case Op::Max: value = std::max(v[0], v[1]); return true;
    case Op::Clamp: value = std::min(std::max(v[0], v[1]), v[2]); return true;
    default: return false;  // Div, Mod, Select, Cast of known values: not needed
    }
}

/** Whether e reads a Func or input that simplification may remove: under a
 * known value (see known()), or in a select whose condition reads no Func
 * (it depends on Vars and constants only, and the simplifier may decide it
 * from the loop bounds). */
bool has_removable_read(const fuzz::ENode &e) {
    using fuzz::Op;
    auto reads = [](const fuzz::ENode &n, auto &self) -> bool {
        if (n.op == Op::Call || n.op == Op::SelfCall || n.op == Op::InputRead) return true;
        for (const fuzz::ENodePtr &c : n.kids) {
            if (self(*c, self)) return true;
        }
        return false;
    };
    int64_t v = 0;
    if (known(e, v)) return reads(e, reads);
    if (e.op == Op::Select && !reads(*e.kids[0], reads) && !reads(*e.kids[1], reads)) return true;
    for (const fuzz::ENodePtr &c : e.kids) {
        if (has_removable_read(*c)) return true;
    }
    return false;
}

/** Whether a where() predicate is a comparison of sums of variables and
 * constants, which bounds inference solves for each variable (r + v < c
 * bounds r by c - 1 - v and v by c - 1 - r: ir/BoxesTouched.cpp). */
bool is_linear(const fuzz::ENode &e) {
    using fuzz::Op;
    if (e.op == Op::Const || e.op == Op::Var || e.op == Op::RVar) return true;
    if (e.op != Op::Add && e.op != Op::Sub) return false;
    for (const fuzz::ENodePtr &c : e.kids) {
        if (!is_linear(*c)) return false;
    }
    return true;
}

bool reads_a_pure_var(const fuzz::ENode &e) {
    if (e.op == fuzz::Op::Var) return true;
    for (const fuzz::ENodePtr &k : e.kids) {
        if (reads_a_pure_var(*k)) return true;
    }
    return false;
}

/** Whether s computes out of line, over a box, a Func whose points read
 * differently shaped footprints: one with a linear where() on a pure Var
 * (r.y + x < 3 reads rows up to y + 2 at x <= 0 and none at x >= 3), or a
 * Func that reads it. Unscheduled, such a Func is computed per point of
 * its consumer (inlined, or a reduction at the consumer's innermost
 * loop), only at the points used. Computed at the root or at a loop, it
 * covers the bounding box of the points used, and the points in that box
 * that no consumer uses read further: fuzz seed 942765 (f3 at the root
 * computes rows up to 14, which only columns 17..19 need, also at x <= 0,
 * where they read in2 up to row 16; the unscheduled pipeline reads up to
 * row 12).
 * Bounds inference is exact there (FuzzRegression.
 * WhereOnAPureVarInABoxReadsTheBoxsFootprint: the query is what the
 * scheduled pipeline reads), but it is not the unscheduled region. */
bool computes_varying_footprints_over_a_box(const fuzz::PipelineDesc &p, const fuzz::ScheduleDesc &s) {
    std::set<int> varying;  // Funcs with such a where(), and their readers
    for (size_t f = 0; f < p.funcs.size(); f++) {
        const fuzz::FuncDesc &d = p.funcs[f];
        const bool narrowed = !d.where.empty() && is_linear(*d.where[0]) && is_linear(*d.where[1]) &&
                              (reads_a_pure_var(*d.where[0]) || reads_a_pure_var(*d.where[1]));
        bool reads_varying = false;
        for (const std::vector<int> &stage : d.reads) {
            for (int g : stage) reads_varying = reads_varying || varying.count(g);
        }
        if (narrowed || reads_varying) varying.insert((int)f);  // producers come first
    }
    for (const fuzz::SchedOp &o : s.ops) {
        const bool out_of_line = o.kind == fuzz::SchedKind::ComputeRoot || o.kind == fuzz::SchedKind::ComputeAt;
        if (out_of_line && o.func != p.output_index() && varying.count(o.func)) return true;
    }
    return false;
}

/** Whether the unscheduled pipeline may read less than its bounds query
 * asks for, correctly: a where() that is not linear (r * 2 < v % 3 cannot
 * narrow the ranges of r and v; a linear one narrows both, test
 * WhereOnAPureVarNarrowsTheRegion in RegressionTest.cpp), or a read that
 * simplification removes (has_removable_read). */
bool may_read_less_than_asked(const fuzz::PipelineDesc &p) {
    for (const fuzz::FuncDesc &f : p.funcs) {
        if (!f.where.empty() && !(is_linear(*f.where[0]) && is_linear(*f.where[1]))) return true;
        if (f.pure && has_removable_read(*f.pure)) return true;
        for (const fuzz::UpdateDesc &u : f.updates) {
            if (has_removable_read(*u.value)) return true;
            for (const fuzz::ENodePtr &a : u.lhs) {
                if (has_removable_read(*a)) return true;
            }
        }
    }
    return false;
}

/** "" when the region of each raw input that the unscheduled pipeline's
 * bounds query asks for (`query`) is the bounding box of the points it
 * really reads (`touched`, traced loads): when `exact`, exactly, or at
 * least where the pipeline may read less than asked
 * (may_read_less_than_asked); otherwise at least. Beyond the reasons
 * may_read_less_than_asked knows, the simplifier removes reads it proves
 * dead in more ways than it can tell (min(a, b) with a <= b from the
 * bounds, (7 - a) + a, ...), which bounds inference has already counted,
 * as Halide's does; so an exact mismatch is a note for campaigns
 * (Result::asks_more_than_read), and a read outside the query a failure. */
std::string check_touched(const fuzz::PipelineDesc &p, const std::map<int, fuzz::InputRegion> &query,
                          const std::map<int, fuzz::InputRegion> &touched, bool exact) {
    const bool may_contain = !exact || may_read_less_than_asked(p);
    for (const auto &[index, asked] : query) {
        const std::string in = "input in" + std::to_string(index);
        auto t = touched.find(index);
        if (t == touched.end()) {
            if (may_contain || asked.extent[0] <= 0 || asked.extent[1] <= 0) continue;
            return "the unscheduled pipeline asks for " + asked.to_text() + " of " + in + " and reads none of it";
        }
        if (!asked.contains(t->second)) {
            return "the unscheduled pipeline reads " + t->second.to_text() + " of " + in + " but asks for " +
                   asked.to_text();
        }
        if (!may_contain && !(asked == t->second)) {
            return "the unscheduled pipeline asks for " + asked.to_text() + " of " + in + " but reads only " +
                   t->second.to_text();
        }
    }
    return "";
}

/** The unscheduled pipeline's query, with each input it reads less of than
 * it asks for (`touched`) moved to the points it reads (none: left out). */
ReferenceRegions split_by_reads(const std::map<int, fuzz::InputRegion> &query,
                                const std::map<int, fuzz::InputRegion> &touched) {
    ReferenceRegions r;
    for (const auto &[index, asked] : query) {
        auto t = touched.find(index);
        if (t != touched.end() && asked == t->second) {
            r.asked[index] = asked;
        } else if (t != touched.end()) {
            r.read[index] = t->second;
        }
    }
    return r;
}

/** The references of a pipeline whose reference run computed some
 * reductions at the root (reference_schedule_for): `unscheduled`, the
 * unscheduled pipeline's query, is compared exactly (`asked`) for each
 * input where the run with reductions at the root asked for the same
 * region (`rooted`) and read all of it (`touched`). Elsewhere the points
 * the unscheduled pipeline reads are not known (it computes those
 * reductions only at the points each consumer point needs, the root
 * reference over their bounding box, so it may read less), and the input
 * is not compared: the values check still runs. */
ReferenceRegions split_by_rooted_reads(const std::map<int, fuzz::InputRegion> &unscheduled,
                                       const std::map<int, fuzz::InputRegion> &rooted,
                                       const std::map<int, fuzz::InputRegion> &touched) {
    ReferenceRegions r;
    for (const auto &[index, asked] : unscheduled) {
        auto root = rooted.find(index);
        auto t = touched.find(index);
        if (root != rooted.end() && t != touched.end() && root->second == asked && t->second == asked) {
            r.asked[index] = asked;
        }
    }
    return r;
}

/** The schedule of the reference run: the Funcs with updates other than
 * the output at the root (fuzz::reductions_computed_per_point), or nothing.
 * Unscheduled, each is computed again at every point of its consumer's
 * loops, over the box of all the consumer's calls there: seeds 920027,
 * 970164 and 971339 spent 8-30 s in the unscheduled run alone, and 0.2-0.8 s
 * in all with these at the root. The values are the same (the definitions
 * are pure), so the check stays independent of the schedule under test;
 * the unscheduled pipeline still answers the bounds query the scheduled
 * one is compared with, and the scheduled pipeline still computes such
 * Funcs per point wherever its schedule leaves them alone. */
fuzz::ScheduleDesc reference_schedule_for(const fuzz::PipelineDesc &p, bool verbose) {
    const std::vector<int> roots = fuzz::reductions_computed_per_point(p);
    if (roots.empty()) return {};
    fuzz::ScheduleDesc s = fuzz::compute_at_root(roots);
    if (verbose) std::cout << "[fuzz] the reference computes at the root:\n" << s.to_text(p);
    return s;
}

/** The target scheduled pipelines are lowered and compiled for. */
Target target_for(Mode mode) {
    // strict_float, as realize_output's: without it the JIT may fuse a*b + c
    // into an FMA, which the interpreter never does (seed 951780).
    const Target t = mode == Mode::Gpu ? loom_test::vulkan_jit_target() : get_jit_target_from_environment();
    return t.with_feature(Target::StrictFloat);
}

/** Runs lf (b's pipeline) on `backend` and compares with expected: "" or
 * what went wrong. Sets skipped for a CompileError. The LLVM back end
 * compiles lf for target unless `compiled` is given. */
std::string run_and_compare(const fuzz::PipelineDesc &p, fuzz::BuiltPipeline &b, const LoweredFunc &lf,
                            Backend backend, const Target &target, const Buffer<> &expected, bool verbose,
                            bool &skipped, const internal::JITPipeline *compiled = nullptr) {
    const std::string name = internal::backend_name(backend);
    Buffer<> actual;
    auto t1 = std::chrono::steady_clock::now();
    try {
        internal::JITPipeline jit;
        if (backend == Backend::LLVM && !compiled) {
            jit = internal::compile_jit(lf, target);
            if (verbose) std::cout << "[fuzz] llvm compile: " << ms_since(t1) << " ms\n";
        }
        const internal::JITPipeline *code = compiled ? compiled : &jit;
        actual = fuzz::run_lowered(p, b, lf, backend == Backend::LLVM ? code : nullptr);
        if (verbose) std::cout << "[fuzz] " << name << " total: " << ms_since(t1) << " ms\n";
    } catch (const CompileError &e) {
        skipped = true;
        return "the scheduled pipeline was rejected (" + name + "): " + e.what();
    } catch (const std::exception &e) {
        return "the scheduled pipeline failed on " + name + ": " + e.what();
    }
    std::string diff = fuzz::compare_buffers(expected, actual);
    if (!diff.empty()) return "the scheduled pipeline on " + name + " differs from the unscheduled one: " + diff;
    return "";
}

/** Realizes p under schedule s on both back ends and compares with
 * expected. The scheduled pipeline is lowered once; the bounds query, the
 * interpreter and the LLVM JIT all run that lowering. Messages do not
 * include the pipeline. */
Result run_scheduled(const fuzz::PipelineDesc &p, const fuzz::ScheduleDesc &s, const std::vector<Buffer<>> &inputs,
                     const ReferenceRegions &reference_regions, const Buffer<> &expected,
                     bool verbose, Mode mode) {
    fuzz::BuiltPipeline scheduled = fuzz::build_pipeline(p, inputs);
    try {
        fuzz::apply_schedule(s, scheduled);
    } catch (const CompileError &e) {
        return {Outcome::Skipped, "a directive was rejected: " + std::string(e.what())};
    }
    auto t0 = std::chrono::steady_clock::now();
    std::string less_than_reference;  // Result::asks_less_than_reference
    if (const char *path = std::getenv("LOOM_FUZZ_LLVM_IR"); path && *path && mode == Mode::Cpu) {
        std::vector<Argument> args;
        for (const auto &[index, param] : scheduled.params) args.push_back(param);
        scheduled.funcs.back().compile_to_llvm_assembly(path, args, "fuzz_pipeline", target_for(mode));
        t0 = std::chrono::steady_clock::now();
    }
    LoweredFunc lowered;
    try {
        lowered = fuzz::lower_pipeline(scheduled, target_for(mode));
    } catch (const CompileError &e) {
        return {Outcome::Skipped, "the scheduled pipeline was rejected (lowering): " + std::string(e.what())};
    } catch (const std::exception &e) {
        return {Outcome::Failed, "lowering the scheduled pipeline failed: " + std::string(e.what())};
    }
    if (verbose) std::cout << "[fuzz] lowering: " << ms_since(t0) << " ms\n";
    // A GPU pipeline is compiled first: its bounds query runs on the JIT.
    std::unique_ptr<internal::JITPipeline> gpu_code;
    if (mode == Mode::Gpu) {
        try {
            gpu_code = std::make_unique<internal::JITPipeline>(internal::compile_jit(lowered, target_for(mode)));
        } catch (const CompileError &e) {
            return {Outcome::Skipped, "the scheduled pipeline was rejected (llvm): " + std::string(e.what())};
        } catch (const std::exception &e) {
            return {Outcome::Failed, "compiling the scheduled pipeline failed: " + std::string(e.what())};
        }
        if (verbose) std::cout << "[fuzz] lowering and compiling: " << ms_since(t0) << " ms\n";
    }
    // Raw inputs get buffers of exactly the region this schedule asks for.
    try {
        std::map<int, fuzz::InputRegion> regions =
            fuzz::query_raw_input_regions(p, scheduled, lowered, gpu_code.get());
        std::optional<std::map<int, fuzz::InputRegion>> guarded;
        if ((!reference_regions.asked.empty() || !reference_regions.read.empty()) && mode == Mode::Cpu && p.seed % g_region_check_every == 0 &&
            fuzz::may_compute_extra_points(s)) {
            guarded = guarded_regions(p, s, inputs);
            if (verbose && !guarded) std::cout << "[fuzz] the schedule with guarded tails was rejected\n";
        }
        std::optional<std::map<int, fuzz::InputRegion>> by_values;
        const std::vector<int> value_sources = value_sources_computed_out_of_line(p, s);
        if (!reference_regions.asked.empty() && mode == Mode::Cpu && !value_sources.empty()) {
            by_values = regions_with_roots(p, value_sources, inputs);
            if (verbose) {
                std::cout << "[fuzz] regions with only the Funcs whose values index computed at the root:";
                if (!by_values) std::cout << " (rejected)";
                for (const auto &[index, region] : by_values ? *by_values : std::map<int, fuzz::InputRegion>()) {
                    std::cout << " in" << index << " " << region.to_text();
                }
                std::cout << "\n";
            }
        }
        std::string wrong = check_regions(p, s, reference_regions, regions, guarded ? &*guarded : nullptr,
                                          by_values ? &*by_values : nullptr);
        if (wrong.rfind(kTooLittle, 0) == 0 && mode == Mode::Cpu) {
            // Too little only if a schedule reads outside what it asks for
            // (GPU kernels cannot call the trace handler: there it fails).
            std::string outside = reads_outside_query(p, s, inputs, regions);
            if (outside.empty() && guarded) outside = reads_outside_query(p, fuzz::guard_every_tail(s), inputs, *guarded);
            if (!outside.empty()) return {Outcome::Failed, wrong + "; " + outside};
            less_than_reference = wrong + ", and reads only inside what it asks for";
        } else if (!wrong.empty()) {
            return {Outcome::Failed, wrong};
        }
        fuzz::bind_raw_inputs(p, scheduled, regions);
    } catch (const std::exception &e) {
        return {Outcome::Failed, "the bounds query of the scheduled pipeline failed: " + std::string(e.what())};
    }
    std::vector<Backend> backends = {Backend::Interpreter, Backend::LLVM};
    if (mode == Mode::Gpu) backends = {Backend::LLVM};  // the interpreter runs no kernels
    for (Backend backend : backends) {
        bool skipped = false;
        std::string wrong = run_and_compare(p, scheduled, lowered, backend, target_for(mode), expected, verbose,
                                            skipped, gpu_code.get());
        if (!wrong.empty()) return {skipped ? Outcome::Skipped : Outcome::Failed, wrong};
    }
    Result passed;
    passed.asks_less_than_reference = less_than_reference;
    return passed;
}

/** The LLVM optimisation level a pipeline's JIT code gets: the user's
 * LOOM_JIT_OPT_LEVEL if set, else 3 for every kOptimizedEvery-th seed
 * (so that miscompiles that need LLVM's optimiser, e.g. a wrong nsw flag,
 * are still caught) and 0 for the others (2-3x cheaper to compile). */
constexpr uint64_t kOptimizedEvery = 4;

const char *opt_level_for(uint64_t seed, bool user_set) {
    if (user_set) return nullptr;
    return seed % kOptimizedEvery == 0 ? "3" : "0";
}

Result run_one(uint64_t seed, int max_stages, bool verbose, Mode mode) {
    auto t0 = std::chrono::steady_clock::now();
    std::mt19937 rng((uint32_t)seed);
    fuzz::GeneratorOptions options;
    options.max_stages = max_stages;
    options.integers_only = mode == Mode::Gpu;
    fuzz::PipelineDesc p;
    fuzz::ScheduleDesc s;
    try {
        p = fuzz::generate_pipeline(rng, options);
        p.seed = seed;
        s = mode == Mode::Gpu ? fuzz::generate_gpu_schedule(p, rng) : fuzz::generate_schedule(p, rng);
    } catch (const std::exception &e) {
        return {Outcome::Failed, "the generator failed on seed " + std::to_string(seed) + ": " + e.what()};
    }
    if (env_u64("LOOM_FUZZ_ONLY_COMPUTE_WITH", 0)) {
        bool fused = false;
        for (const fuzz::SchedOp &o : s.ops) fused = fused || o.kind == fuzz::SchedKind::ComputeWith;
        if (!fused) return {Outcome::NotSelected, ""};
    }
    if (verbose) std::cout << describe(p, s) << std::flush;

    Buffer<> expected;
    std::string asks_more;
    fuzz::BuiltPipeline reference;
    std::map<int, fuzz::InputRegion> reference_regions;
    ReferenceRegions references;
    // The values to compare with come from the unscheduled pipeline with
    // its reductions computed at the root (reference_schedule_for).
    const fuzz::ScheduleDesc reference_schedule = reference_schedule_for(p, verbose);
    try {
        reference = fuzz::build_pipeline(p);
        LoweredFunc lowered = fuzz::lower_pipeline(reference);
        reference_regions = fuzz::query_raw_input_regions(p, reference, lowered);
        references.asked = reference_regions;
        if (verbose) std::cout << "[fuzz] unscheduled lowering and bounds query: " << ms_since(t0) << " ms\n";
        std::map<int, fuzz::InputRegion> run_regions = reference_regions;  // what the run asks for
        if (reference_schedule.ops.empty()) {
            fuzz::bind_raw_inputs(p, reference, reference_regions);
            expected = fuzz::run_lowered(p, reference, lowered, nullptr);
        } else {
            fuzz::BuiltPipeline rooted = fuzz::build_pipeline(p, reference.inputs);
            fuzz::apply_schedule(reference_schedule, rooted);
            LoweredFunc rooted_lowered = fuzz::lower_pipeline(rooted);
            run_regions = fuzz::query_raw_input_regions(p, rooted, rooted_lowered);
            fuzz::bind_raw_inputs(p, rooted, run_regions);
            expected = fuzz::run_lowered(p, rooted, rooted_lowered, nullptr);
        }
        if (verbose) std::cout << "[fuzz] reference: " << ms_since(t0) << " ms\n";
        if (!reference_regions.empty() && mode == Mode::Cpu && seed % g_region_check_every == 0) {
            std::map<int, fuzz::InputRegion> touched =
                fuzz::touched_raw_input_regions(p, reference.inputs, reference_schedule);
            std::string wrong = check_touched(p, run_regions, touched, false);
            if (!wrong.empty()) return {Outcome::Failed, wrong + "\n" + describe(p, s)};
            asks_more = check_touched(p, run_regions, touched, true);
            references = reference_schedule.ops.empty() ? split_by_reads(reference_regions, touched)
                                                         : split_by_rooted_reads(reference_regions, run_regions, touched);
            if (verbose) std::cout << "[fuzz] reference and read points: " << ms_since(t0) << " ms\n";
        }
    } catch (const std::exception &e) {
        // The unscheduled pipeline is always legal.
        return {Outcome::Failed, "the unscheduled pipeline failed on the interpreter: " + std::string(e.what()) +
                                     "\n" + describe(p, s)};
    }

    Result r = run_scheduled(p, s, reference.inputs, references, expected, verbose, mode);
    if (!asks_more.empty()) r.asks_more_than_read = asks_more + "\n" + p.to_text();
    if (r.outcome != Outcome::Failed || !env_u64("LOOM_FUZZ_MINIMIZE", 0)) {
        if (r.outcome != Outcome::Passed) r.message += "\n" + describe(p, s);
        return r;
    }
    // Drop directives one at a time while the failure stays.
    fuzz::ScheduleDesc small = s;
    for (size_t i = small.ops.size(); i-- > 0;) {
        fuzz::ScheduleDesc trial = small;
        trial.ops.erase(trial.ops.begin() + (long)i);
        Result t = run_scheduled(p, trial, reference.inputs, references, expected, false, mode);
        if (t.outcome == Outcome::Failed) small = trial;
    }
    r.message += "\n" + describe(p, s) + "---- minimized schedule (still fails) ----\n" + small.to_text(p);
    return r;
}

/** CPU seconds this process has used (all threads): unlike the wall clock,
 * it does not grow while other processes have the cores. */
double process_cpu_seconds() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/** What a run of pipelines has found so far. */
struct Tally {
    std::atomic<int> ran{0}, passed{0}, skipped{0}, failed{0}, not_selected{0}, left_out{0}, asks_more{0},
        asks_less{0};
    std::atomic<uint64_t> next_seed{0};  // one past the last seed run or left out
    std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
    double cpu_start = process_cpu_seconds();
    std::vector<uint64_t> failed_seeds;  // written by the fuzzing thread only

    std::string summary(uint64_t first) const {
        double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::string seeds;
        for (size_t i = 0; i < failed_seeds.size() && i < 50; i++) seeds += " " + std::to_string(failed_seeds[i]);
        std::ostringstream s;
        s << "[fuzz] seeds " << first << ".." << std::max(next_seed.load(), first) - 1 << ": " << ran << " pipelines, "
          << passed
          << " matched, " << skipped << " skipped, " << failed << " failed, in " << seconds << " s, "
          << process_cpu_seconds() - cpu_start << " s of CPU"
          << (not_selected ? " (" + std::to_string(not_selected) + " seeds without compute_with not run)"
                           : std::string())
          << (left_out ? " (" + std::to_string(left_out) + " known-slow seeds left out)" : std::string())
          << (asks_more ? "; " + std::to_string(asks_more) + " unscheduled pipelines ask for more than they read"
                        : std::string())
          << (asks_less ? "; " + std::to_string(asks_less) +
                              " schedules ask for less than their reference and read only what they ask for"
                        : std::string())
          << (failed ? "; failing seeds:" + seeds : std::string());
        return s.str();
    }
};

/** Prints a line to stderr while one pipeline uses more than
 * LOOM_FUZZ_SLOW_SECONDS of CPU (default 20; again at each doubling), so
 * that a campaign shows which seed is slow or hangs. After
 * LOOM_FUZZ_GIVE_UP_SECONDS of CPU (default 0: never) on one pipeline it prints
 * the summary of the pipelines before it and "gave up on seed N", and ends
 * the process with exit code 3, so that a campaign script can go on from
 * seed N + 1. */
class SlowPipelineWatch {
public:
    SlowPipelineWatch(double slow_seconds, double give_up_seconds, uint64_t first, const Tally &tally)
        : limit_(slow_seconds), give_up_(give_up_seconds), first_(first), tally_(tally) {
        if (limit_ > 0 || give_up_ > 0) thread_ = std::thread([this] { watch(); });
    }
    ~SlowPipelineWatch() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stop_ = true;
        }
        wake_.notify_all();
        if (thread_.joinable()) thread_.join();
    }
    void started(uint64_t seed) {
        std::lock_guard<std::mutex> lock(mutex_);
        seed_ = seed;
        running_ = true;
        since_ = process_cpu_seconds();
        next_report_ = limit_;
    }
    void finished() {
        std::lock_guard<std::mutex> lock(mutex_);
        running_ = false;
    }

private:
    void watch() {
        std::unique_lock<std::mutex> lock(mutex_);
        while (!stop_) {
            wake_.wait_for(lock, std::chrono::milliseconds(500));
            if (!running_) continue;
            double s = process_cpu_seconds() - since_;
            if (give_up_ > 0 && s >= give_up_) {
                // The pipeline being run is not counted in the tally yet.
                std::cout << std::flush;
                std::cerr << "\n" << tally_.summary(first_) << "; gave up on seed " << seed_ << " (still running after "
                          << (int)s << " s of CPU)" << std::endl;
                std::_Exit(3);
            }
            if (limit_ <= 0 || s < next_report_) continue;
            std::cerr << "[fuzz] slow: pipeline seed " << seed_ << " has used " << (int)s << " s of CPU" << std::endl;
            next_report_ *= 2;
        }
    }

    double limit_, give_up_;
    uint64_t first_;
    const Tally &tally_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::thread thread_;
    bool stop_ = false, running_ = false;
    uint64_t seed_ = 0;
    double since_ = 0;
    double next_report_ = 0;
};

/** Sets LOOM_JIT_OPT_LEVEL for one pipeline (unless the user set it), and
 * restores it. */
class OptLevelScope {
public:
    OptLevelScope(uint64_t seed, bool user_set) {
        const char *level = opt_level_for(seed, user_set);
        if (level) setenv("LOOM_JIT_OPT_LEVEL", level, 1);
        set_ = level != nullptr;
    }
    ~OptLevelScope() {
        if (set_) unsetenv("LOOM_JIT_OPT_LEVEL");
    }

private:
    bool set_ = false;
};

/** Runs pipelines first .. first + count - 1 (fewer if seconds_limit > 0
 * runs out), reports each failure as a test failure and the first skips,
 * and prints the summary line. */
void run_seeds(uint64_t first, int count, int max_stages, double seconds_limit, Mode mode = Mode::Cpu,
               const std::set<uint64_t> &left_out = {}) {
    const bool verbose = env_u64("LOOM_FUZZ_VERBOSE", 0) != 0;
    const char *user_level = std::getenv("LOOM_JIT_OPT_LEVEL");
    const bool user_set_level = user_level && *user_level;
    Tally tally;
    SlowPipelineWatch watch((double)env_u64("LOOM_FUZZ_SLOW_SECONDS", 20),
                            (double)env_u64("LOOM_FUZZ_GIVE_UP_SECONDS", 0), first, tally);
    auto old_segv = std::signal(SIGSEGV, on_crash);
    auto old_abrt = std::signal(SIGABRT, on_crash);
    auto old_fpe = std::signal(SIGFPE, on_crash);

    for (int i = 0; i < count; i++) {
        if (seconds_limit > 0 &&
            std::chrono::duration<double>(std::chrono::steady_clock::now() - tally.start).count() > seconds_limit) {
            break;
        }
        uint64_t seed = first + (uint64_t)i;
        if (left_out.count(seed)) {
            tally.left_out++;
            tally.next_seed = seed + 1;
            continue;
        }
        g_current_seed = seed;
        g_running = 1;
        watch.started(seed);
        Result r;
        {
            OptLevelScope level(seed, user_set_level);
            r = run_one(seed, max_stages, verbose, mode);
        }
        watch.finished();
        g_running = 0;
        if (r.outcome == Outcome::NotSelected) {
            tally.not_selected++;
            tally.next_seed = seed + 1;
            continue;
        }
        switch (r.outcome) {
        case Outcome::NotSelected: break;
        case Outcome::Passed: tally.passed++; break;
        case Outcome::Skipped:
            if (tally.skipped++ < kMaxReportedSkips || verbose) std::cout << "[fuzz] skipped: " << r.message << "\n";
            break;
        case Outcome::Failed:
            tally.failed_seeds.push_back(seed);
            if (tally.failed++ < kMaxReportedFailures || verbose) ADD_FAILURE() << "[fuzz] " << r.message;
            break;
        }
        if (!r.asks_more_than_read.empty() && (tally.asks_more++ < kMaxReportedSkips || verbose)) {
            std::cout << "[fuzz] note, seed " << seed << ": " << r.asks_more_than_read << "\n";
        }
        if (!r.asks_less_than_reference.empty() && (tally.asks_less++ < kMaxReportedSkips || verbose)) {
            std::cout << "[fuzz] note, seed " << seed << ": " << r.asks_less_than_reference << "\n";
        }
        tally.ran++;
        tally.next_seed = seed + 1;
    }
    std::signal(SIGSEGV, old_segv);
    std::signal(SIGABRT, old_abrt);
    std::signal(SIGFPE, old_fpe);

    std::cout << tally.summary(first) << std::endl;
    EXPECT_EQ(tally.failed, 0);
    EXPECT_LE(tally.skipped, kMaxSkipFraction * tally.ran)
        << "too many schedules were rejected: the generator makes illegal ones";
}

// The CI subset: kCiShards tests of kCiPipelinesPerShard pipelines each,
// seeds kDefaultSeed and up, so that ctest -j spreads them over the cores.
class ScheduleFuzzCi : public testing::TestWithParam<int> {};

TEST_P(ScheduleFuzzCi, RandomPipelinesUnderRandomSchedulesMatchTheUnscheduledResult) {
    const uint64_t first = kDefaultSeed + (uint64_t)GetParam() * kCiPipelinesPerShard;
    g_region_check_every = kCiRegionCheckEvery;
    run_seeds(first, kCiPipelinesPerShard, kDefaultMaxStages, 0, Mode::Cpu, kCiLeftOutSeeds);
    g_region_check_every = 1;
}

INSTANTIATE_TEST_SUITE_P(Shard, ScheduleFuzzCi, testing::Range(0, kCiShards));

TEST(ScheduleFuzz, OnceSlowSeedsMatchTheUnscheduledResult) {
    for (uint64_t seed : kOnceSlowSeeds) run_seeds(seed, 1, kDefaultMaxStages, 0);
}

TEST(ScheduleFuzz, OnceSkippedSeedsCompileAndMatchTheUnscheduledResult) {
    for (uint64_t seed : kOnceSkippedSeeds) run_seeds(seed, 1, kDefaultMaxStages, 0);
}

// A campaign, configured by the environment (see the top of this file and
// docs/FUZZING.md); without LOOM_FUZZ_PIPELINES it has nothing to do.
TEST(ScheduleFuzz, Campaign) {
    if (!std::getenv("LOOM_FUZZ_PIPELINES")) {
        GTEST_SKIP() << "set LOOM_FUZZ_PIPELINES (and LOOM_FUZZ_SEED) to run a campaign; "
                        "the CI subset is ScheduleFuzzCi";
    }
    const Mode mode = env_u64("LOOM_FUZZ_GPU", 0) ? Mode::Gpu : Mode::Cpu;
    if (mode == Mode::Gpu) LOOM_REQUIRE_VULKAN();
    run_seeds(env_u64("LOOM_FUZZ_SEED", kDefaultSeed), (int)env_u64("LOOM_FUZZ_PIPELINES", 0),
              (int)env_u64("LOOM_FUZZ_MAX_STAGES", mode == Mode::Gpu ? kGpuMaxStages : kDefaultMaxStages),
              (double)env_u64("LOOM_FUZZ_SECONDS", 0), mode);
}

// reads_outside_query is what turns "asks for less than the reference"
// into a failure: seed 1120716 with its reductions at the root (the
// reference) reads rows [0, 8] of in1 (over the box it computes f2 on,
// behind a where() no point satisfies), so a query of those rows passes
// and one row less fails.
TEST(ScheduleFuzzHarness, ReadsOutsideQueryFindsAReadOutsideTheQuery) {
    std::mt19937 rng(1120716u);
    fuzz::GeneratorOptions options;
    options.max_stages = kDefaultMaxStages;
    fuzz::PipelineDesc p = fuzz::generate_pipeline(rng, options);
    p.seed = 1120716;
    fuzz::BuiltPipeline b = fuzz::build_pipeline(p);
    const fuzz::ScheduleDesc rooted = fuzz::compute_at_root(fuzz::reductions_computed_per_point(p));
    fuzz::apply_schedule(rooted, b);
    std::map<int, fuzz::InputRegion> query = fuzz::query_raw_input_regions(p, b, fuzz::lower_pipeline(b));
    ASSERT_TRUE(query.count(1));
    ASSERT_EQ(query.at(1).min[1], 0);
    ASSERT_EQ(query.at(1).extent[1], 9);
    EXPECT_EQ(reads_outside_query(p, rooted, b.inputs, query), "");
    query[1].extent[1] = 8;
    fuzz::InputRegion read = query.at(1);
    read.extent[1] = 9;
    EXPECT_EQ(reads_outside_query(p, rooted, b.inputs, query),
              "it reads " + read.to_text() + " of input in1 but asks for " + query.at(1).to_text());
}

// A region with no point (an extent of 0 or less in either dimension) is in
// every region and equals every other empty one, whatever its other
// dimension: GPU seed 3074's unscheduled pipeline asks for [6, 4] x [-6, 8]
// of in1, its schedule for [6, 5] x [-6, -7], and both read nothing.
TEST(ScheduleFuzzHarness, AnEmptyRegionIsInEveryRegion) {
    fuzz::InputRegion unscheduled, scheduled, point;
    unscheduled.min[0] = 6, unscheduled.extent[0] = -1, unscheduled.min[1] = -6, unscheduled.extent[1] = 15;
    scheduled.min[0] = 6, scheduled.extent[0] = 0, scheduled.min[1] = -6, scheduled.extent[1] = -1;
    point.min[0] = 20, point.extent[0] = 1, point.min[1] = 20, point.extent[1] = 1;
    EXPECT_TRUE(unscheduled.empty() && scheduled.empty() && !point.empty());
    EXPECT_TRUE(scheduled.contains(unscheduled));
    EXPECT_TRUE(point.contains(unscheduled));
    EXPECT_FALSE(unscheduled.contains(point));
    const std::map<int, fuzz::InputRegion> want = {{1, unscheduled}}, got = {{1, scheduled}};
    EXPECT_EQ(compare_regions(want, got, false, "the schedule", "the unscheduled one", ""), "");
    EXPECT_NE(compare_regions(got, {{1, point}}, false, "the schedule", "the unscheduled one", ""), "");
}

// The GPU CI subset (ctest's entry fuzz_gpu, labelled vulkan): random
// pipelines under random GPU schedules on Vulkan.
TEST(ScheduleFuzzGpuCi, RandomPipelinesUnderRandomGpuSchedulesMatchTheUnscheduledResult) {
    LOOM_REQUIRE_VULKAN();
    run_seeds(kDefaultSeed, kGpuCiPipelines, kGpuMaxStages, 0, Mode::Gpu);
}

}  // namespace
