// Ahead of time, Func::memoize's cache is the AOT runtime's: a static library
// whose output reads a memoized Func is called from C several times; the Func
// is computed (it prints one line per production) only for new Param values,
// and again after loom_memoization_cache_evict / _cleanup, which the C program
// calls through the library's runtime.

#include <gtest/gtest.h>

#include <sstream>

#include "AotTestSupport.h"
#include "loom/Loom.h"

using namespace loom;
using namespace loom_test;

namespace {

const char *kProgram = R"(
#include <stdio.h>
#include "memoize_aot.h"

enum { N = 16 };

/* rc and the sum of out(x) * (x + 1), after any "computed" line */
static void run(int scale, int version) {
    int32_t out_host[N];
    loom_dimension_t dim = {0, N, 1, 0};
    loom_buffer_t out = {0};
    out.host = (uint8_t *)out_host; out.type.code = loom_type_int; out.type.bits = 32; out.type.lanes = 1;
    out.dimensions = 1; out.dim = &dim;
    int rc = memoize_aot(scale, version, &out);
    long sum = 0;
    for (int x = 0; x < N; x++) sum += (long)out_host[x] * (x + 1);
    fflush(stderr);
    printf("run %d %ld\n", rc, sum);
    fflush(stdout);
}

int main(void) {
    run(3, 1);   /* computed */
    run(3, 1);   /* cached */
    run(5, 1);   /* computed: a new scale */
    run(3, 1);   /* cached */
    loom_memoization_cache_evict(NULL, 1);
    run(3, 1);   /* computed: evicted */
    loom_memoization_cache_cleanup();
    run(5, 1);   /* computed: cleaned up */
    return 0;
}
)";

TEST(MemoizeAot, CacheLivesInTheLibrarysRuntime) {
    ASSERT_TRUE(have_tool("cc")) << kToolsHint;
    Param<int> scale("scale"), version("version");
    Var x("x");
    Func f("memo_aot_f"), out("memoize_aot");
    f(x) = print_when(x == 0, x * scale + 1, "computed");
    f.compute_root().memoize(EvictionKey(version));
    out(x) = f(x) * 2;

    ScratchDir dir;
    out.compile_to_static_library(dir.file("memoize_aot"), {scale, version}, "memoize_aot");
    write_file(dir.file("main.c"), kProgram);
    CommandResult build = run_command("cd '" + dir.path() +
                                      "' && cc -std=c11 -O1 -Wall -o main main.c memoize_aot.a -lpthread -ldl -lm 2>&1");
    ASSERT_EQ(build.exit_code, 0) << build.output;
    CommandResult run = run_command("timeout 60 '" + dir.file("main") + "' 2>&1");
    ASSERT_EQ(run.exit_code, 0) << run.output;

    // One line per run, each preceded by "computed" when f was produced.
    std::istringstream lines(run.output);
    std::string line;
    std::vector<bool> computed;
    std::vector<long> sums;
    bool pending = false;
    while (std::getline(lines, line)) {
        if (line.find("computed") != std::string::npos) pending = true;
        if (line.rfind("run ", 0) != 0) continue;
        std::istringstream fields(line.substr(4));
        int rc = -1;
        long sum = 0;
        fields >> rc >> sum;
        EXPECT_EQ(rc, 0) << run.output;
        computed.push_back(pending);
        sums.push_back(sum);
        pending = false;
    }
    ASSERT_EQ(computed.size(), 6u) << run.output;
    const std::vector<bool> expected_computed = {true, false, true, false, true, true};
    const std::vector<int> scales = {3, 3, 5, 3, 3, 5};
    for (size_t i = 0; i < 6; i++) {
        EXPECT_EQ(computed[i], expected_computed[i]) << "run " << i << "\n" << run.output;
        long expected = 0;
        for (int i2 = 0; i2 < 16; i2++) expected += long((i2 * scales[i] + 1) * 2) * (i2 + 1);
        EXPECT_EQ(sums[i], expected) << "run " << i;
    }
}

}  // namespace
