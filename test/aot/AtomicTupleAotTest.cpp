// Ahead of time, an atomic() Tuple update whose values read the Func runs
// under the runtime's per-element locks (loom_atomic_mutex_lock/_unlock in
// src/runtime/ThreadPool.c), as in the JIT: a static library with a parallel
// count-and-sum histogram and a parallel argmax per bin is linked into a C
// program, run on several threads, and compared with C++ loops.

#include <gtest/gtest.h>

#include <climits>
#include <sstream>
#include <vector>

#include "AotTestSupport.h"
#include "loom/Loom.h"

using namespace loom;
using namespace loom_test;

namespace {

constexpr int kBins = 7;
constexpr int kN = 60000;
constexpr int kRuns = 4;

// The inputs, in C: bin(i) = (i * i + 3 * i) % 7; value(i) a permutation of
// 0..N-1 (no ties, so the argmax is unique whatever the order of updates).
const char *kProgram = R"(
#include <stdio.h>
#include <stdlib.h>
#include "atomic_tuple_aot.h"

enum { N = 60000, BINS = 7, RUNS = 4 };

static void describe(loom_buffer_t *b, loom_dimension_t *d, void *host, int extent) {
    d->min = 0; d->extent = extent; d->stride = 1; d->flags = 0;
    b->host = (uint8_t *)host; b->type.code = loom_type_int; b->type.bits = 32; b->type.lanes = 1;
    b->dimensions = 1; b->dim = d;
}

int main(void) {
    static int32_t bin_host[N], value_host[N];
    for (long i = 0; i < N; i++) {
        bin_host[i] = (int32_t)((i * i + 3 * i) % BINS);
        value_host[i] = (int32_t)((i * 7919) % N);
    }
    /* More threads than the machine may have cores: the locks, not the
       scheduling, keep the values right. */
    loom_set_num_threads(8);
    for (int run = 0; run < RUNS; run++) {
        int32_t count[BINS], sum[BINS], best[BINS], where[BINS];
        loom_dimension_t dims[6];
        loom_buffer_t bins = {0}, values = {0}, count_b = {0}, sum_b = {0}, best_b = {0}, where_b = {0};
        describe(&bins, &dims[0], bin_host, N);
        describe(&values, &dims[1], value_host, N);
        describe(&count_b, &dims[2], count, BINS);
        describe(&sum_b, &dims[3], sum, BINS);
        describe(&best_b, &dims[4], best, BINS);
        describe(&where_b, &dims[5], where, BINS);
        int rc = atomic_tuple_aot(&bins, &values, &count_b, &sum_b, &best_b, &where_b);
        printf("rc %d\n", rc);
        for (int b = 0; b < BINS; b++) printf("bin %d %d %d %d %d\n", b, count[b], sum[b], best[b], where[b]);
    }
    return 0;
}
)";

TEST(AtomicTupleAot, ParallelTupleUpdatesTakeTheLibrarysLocks) {
    ASSERT_TRUE(have_tool("cc") && have_tool("nm")) << kToolsHint;
    ImageParam bins(Int(32), 1, "bins"), values(Int(32), 1, "values");
    RDom r(0, bins.width(), "r");
    Var x("x");
    Expr bin = clamp(bins(r), 0, kBins - 1);

    Func hist("atomic_hist");
    hist(x) = Tuple(0, 0);
    hist(bin) = Tuple(hist(bin)[0] + 1, hist(bin)[1] + r % 1000);
    hist.update().atomic().parallel(r, 64);

    Func best("atomic_best");
    best(x) = Tuple(INT_MIN, -1);
    Expr better = values(r) > best(bin)[0];
    best(bin) = Tuple(select(better, values(r), best(bin)[0]), select(better, r, best(bin)[1]));
    best.update().atomic(true).parallel(r, 16);  // argmax: associative, not provably so

    ScratchDir dir;
    Pipeline({hist, best})
        .compile_to({{OutputFileType::static_library, dir.file("atomic_tuple_aot.a")},
                     {OutputFileType::c_header, dir.file("atomic_tuple_aot.h")},
                     {OutputFileType::stmt, dir.file("atomic_tuple_aot.stmt")}},
                    {bins, values}, "atomic_tuple_aot", Target("host"));
    const std::string header = read_file(dir.file("atomic_tuple_aot.h"));
    ASSERT_NE(header.find("int atomic_tuple_aot(struct loom_buffer_t *bins, struct loom_buffer_t *values, "
                          "struct loom_buffer_t *atomic_hist_0, struct loom_buffer_t *atomic_hist_1, "
                          "struct loom_buffer_t *atomic_best_0, struct loom_buffer_t *atomic_best_1);"),
              std::string::npos)
        << header;
    // Both updates take a lock around their element...
    const std::string stmt = read_file(dir.file("atomic_tuple_aot.stmt"));
    EXPECT_NE(stmt.find("loom_atomic_mutex_lock"), std::string::npos) << stmt;
    EXPECT_NE(stmt.find("loom_atomic_mutex_unlock"), std::string::npos) << stmt;
    // ...whose functions the library defines itself (from the embedded
    // runtime): the program links nothing of Loom's.
    CommandResult symbols = run_command("nm '" + dir.file("atomic_tuple_aot.a") + "' 2>&1");
    ASSERT_EQ(symbols.exit_code, 0) << symbols.output;
    for (const std::string fn : {"loom_atomic_mutex_lock", "loom_atomic_mutex_unlock"}) {
        bool defined = false;
        std::istringstream lines(symbols.output);
        std::string line;
        while (std::getline(lines, line)) {
            if (line.size() < fn.size() + 2 || line.compare(line.size() - fn.size(), fn.size(), fn) != 0) continue;
            const std::string kind = line.substr(line.size() - fn.size() - 2, 2);
            defined = defined || kind == "T " || kind == "t " || kind == "W " || kind == "w ";
        }
        EXPECT_TRUE(defined) << fn << "\n" << symbols.output;
    }

    write_file(dir.file("main.c"), kProgram);
    CommandResult build = run_command("cd '" + dir.path() + "' && cc -std=c11 -O1 -Wall -o main main.c "
                                      "atomic_tuple_aot.a -lpthread -ldl -lm 2>&1");
    ASSERT_EQ(build.exit_code, 0) << build.output;
    CommandResult run = run_command("timeout 120 '" + dir.file("main") + "' 2>&1");
    ASSERT_EQ(run.exit_code, 0) << run.output;

    std::vector<int> count(kBins, 0), sum(kBins, 0), max_value(kBins, INT_MIN), where(kBins, -1);
    for (long i = 0; i < kN; i++) {
        const int b = int((i * i + 3 * i) % kBins), v = int((i * 7919) % kN);
        count[b]++;
        sum[b] += int(i % 1000);
        if (v > max_value[b]) {
            max_value[b] = v;
            where[b] = int(i);
        }
    }
    std::ostringstream expected;
    for (int run_index = 0; run_index < kRuns; run_index++) {
        expected << "rc 0\n";
        for (int b = 0; b < kBins; b++) {
            expected << "bin " << b << " " << count[b] << " " << sum[b] << " " << max_value[b] << " " << where[b]
                     << "\n";
        }
    }
    EXPECT_EQ(run.output, expected.str());
}

}  // namespace
