// Ahead of time, an extern stage (Func::define_extern) is a call of a C
// function that the application defines: a static library whose Func is
// computed by ext_aot_shift (which reads one point to the right of each
// output point, asked for through the bounds query) is linked with a C
// program defining it. The values match the C reference, and an error code
// of the function is what the pipeline returns.

#include <gtest/gtest.h>

#include <sstream>

#include "AotTestSupport.h"
#include "loom/Loom.h"

using namespace loom;
using namespace loom_test;

namespace {

const char *kProgram = R"(
#include <stdio.h>
#include "extern_aot.h"

enum { N = 24 };
static int queries = 0, calls = 0;

/* out(x) = in(x + 1) * scale; a negative scale is an error (-42). */
int ext_aot_shift(loom_buffer_t *in, int32_t scale, loom_buffer_t *out) {
    int min = out->dim[0].min, extent = out->dim[0].extent;
    if (in->host == NULL) {
        queries++;
        in->dim[0].min = min + 1;
        in->dim[0].extent = extent;
        return 0;
    }
    calls++;
    if (scale < 0) return -42;
    if (in->dim[0].min > min + 1 || in->dim[0].min + in->dim[0].extent < min + 1 + extent) return -43;
    for (int x = min; x < min + extent; x++) {
        const int32_t *src = (const int32_t *)in->host + (x + 1 - in->dim[0].min) * in->dim[0].stride;
        int32_t *dst = (int32_t *)out->host + (x - min) * out->dim[0].stride;
        *dst = *src * scale;
    }
    return 0;
}

/* rc, then the sum of out(x) * (x + 1) */
static void run(int scale) {
    int32_t out_host[N];
    loom_dimension_t dim = {0, N, 1, 0};
    loom_buffer_t out = {0};
    out.host = (uint8_t *)out_host; out.type.code = loom_type_int; out.type.bits = 32; out.type.lanes = 1;
    out.dimensions = 1; out.dim = &dim;
    int rc = extern_aot(scale, &out);
    long sum = 0;
    if (rc == 0)
        for (int x = 0; x < N; x++) sum += (long)out_host[x] * (x + 1);
    printf("%d %ld\n", rc, sum);
}

int main(void) {
    run(3);
    run(-1);
    printf("%d %d\n", queries > 0, calls);
    return 0;
}
)";

TEST(ExternStageAot, ApplicationDefinesTheFunction) {
    ASSERT_TRUE(have_tool("cc")) << kToolsHint;
    Param<int> scale("scale");
    Var x("x");
    Func g("g"), shifted("shifted"), out("extern_aot");
    g(x) = x * x - 5;
    g.compute_root();
    shifted.define_extern("ext_aot_shift", {g, scale}, Int(32), 1);
    out(x) = shifted(x) + 2;

    ScratchDir dir;
    out.compile_to_static_library(dir.file("extern_aot"), {scale}, "extern_aot");
    write_file(dir.file("main.c"), kProgram);
    CommandResult build = run_command("cd '" + dir.path() +
                                      "' && cc -std=c11 -O1 -Wall -o main main.c extern_aot.a -lpthread -ldl -lm 2>&1");
    ASSERT_EQ(build.exit_code, 0) << build.output;
    CommandResult run = run_command("timeout 60 '" + dir.file("main") + "' 2>/dev/null");
    ASSERT_EQ(run.exit_code, 0) << run.output;

    std::istringstream lines(run.output);
    int rc = 1;
    long sum = -1;
    lines >> rc >> sum;
    long expected = 0;
    for (int i = 0; i < 24; i++) expected += long(((i + 1) * (i + 1) - 5) * 3 + 2) * (i + 1);
    EXPECT_EQ(rc, 0) << run.output;
    EXPECT_EQ(sum, expected) << run.output;
    lines >> rc >> sum;
    EXPECT_EQ(rc, -42) << run.output;  // the function's own code
    int queried = 0, calls = 0;
    lines >> queried >> calls;
    EXPECT_EQ(queried, 1) << run.output;
    EXPECT_EQ(calls, 2) << run.output;

    CommandResult messages = run_command("timeout 60 '" + dir.file("main") + "' 2>&1 >/dev/null");
    EXPECT_NE(messages.output.find("ext_aot_shift returned -42"), std::string::npos) << messages.output;
}

}  // namespace
