// Ahead of time, a failed require() is an error code: a static library whose
// output requires a Param to be positive is called from C with a valid and
// an invalid value; the second call returns -8 (user assertion) with the
// require() message on stderr.

#include <gtest/gtest.h>

#include <sstream>

#include "AotTestSupport.h"
#include "loom/Loom.h"

using namespace loom;
using namespace loom_test;

namespace {

const char *kProgram = R"(
#include <stdio.h>
#include "require_aot.h"

enum { N = 20 };

/* rc, then the sum of out(x) * (x + 1) */
static void run(int scale) {
    int32_t out_host[N];
    loom_dimension_t dim = {0, N, 1, 0};
    loom_buffer_t out = {0};
    out.host = (uint8_t *)out_host; out.type.code = loom_type_int; out.type.bits = 32; out.type.lanes = 1;
    out.dimensions = 1; out.dim = &dim;
    int rc = require_aot(scale, &out);
    long sum = 0;
    if (rc == 0)
        for (int x = 0; x < N; x++) sum += (long)out_host[x] * (x + 1);
    printf("%d %ld\n", rc, sum);
}

int main(void) {
    run(3);
    run(-4);
    return 0;
}
)";

TEST(RequireAot, FailedRequirementIsAnErrorCode) {
    ASSERT_TRUE(have_tool("cc")) << kToolsHint;
    Param<int> scale("scale");
    Var x("x");
    Func f("require_aot");
    f(x) = require(scale > 0, x * scale, "scale must be positive, got", scale);

    ScratchDir dir;
    f.compile_to_static_library(dir.file("require_aot"), {scale}, "require_aot");
    write_file(dir.file("main.c"), kProgram);
    CommandResult build = run_command("cd '" + dir.path() +
                                      "' && cc -std=c11 -O1 -Wall -o main main.c require_aot.a -lpthread -ldl -lm 2>&1");
    ASSERT_EQ(build.exit_code, 0) << build.output;
    CommandResult run = run_command("timeout 60 '" + dir.file("main") + "' 2>/dev/null");
    ASSERT_EQ(run.exit_code, 0) << run.output;

    std::istringstream out(run.output);
    int rc = 1;
    long sum = -1;
    out >> rc >> sum;
    long expected = 0;
    for (int i = 0; i < 20; i++) expected += long(i * 3) * (i + 1);
    EXPECT_EQ(rc, 0) << run.output;
    EXPECT_EQ(sum, expected);
    out >> rc >> sum;
    EXPECT_EQ(rc, loom_error_code_user_assertion) << run.output;

    CommandResult messages = run_command("timeout 60 '" + dir.file("main") + "' 2>&1 >/dev/null");
    EXPECT_NE(messages.output.find("require() failed"), std::string::npos) << messages.output;
    EXPECT_NE(messages.output.find("scale must be positive, got -4"), std::string::npos) << messages.output;
}

}  // namespace
