// Ahead of time, a traced pipeline traces too: the runtime inside the static
// library prints Halide's format through loom_print by default, and a C
// program replaces the handler with loom_set_trace_handler (the events'
// fields are those of loom_runtime.h's loom_trace_event_t).

#include <gtest/gtest.h>

#include "AotTestSupport.h"
#include "loom/Loom.h"

using namespace loom;
using namespace loom_test;

namespace {

const char *kProgram = R"(
#include <stdio.h>
#include "traced.h"

static int stores = 0, realizations = 0, sum = 0;
static int32_t count(void *user_context, const loom_trace_event_t *e) {
    (void)user_context;
    if (e->event == loom_trace_store) {
        stores++;
        sum += *(const int32_t *)e->value;
    }
    if (e->event == loom_trace_begin_realization) realizations++;
    return 0;
}

int main(void) {
    int32_t out_host[3];
    loom_dimension_t dim = {0, 3, 1, 0};
    loom_buffer_t out = {0};
    out.host = (uint8_t *)out_host; out.type.code = loom_type_int; out.type.bits = 32; out.type.lanes = 1;
    out.dimensions = 1; out.dim = &dim;
    int rc = traced(&out);
    printf("rc %d\n", rc);
    loom_set_trace_handler(&count);
    rc = traced(&out);
    printf("rc %d stores %d realizations %d sum %d\n", rc, stores, realizations, sum);
    return 0;
}
)";

TEST(TracingAot, StaticLibraryPrintsAndCallsAReplacedHandler) {
    ASSERT_TRUE(have_tool("cc")) << kToolsHint;
    Func f("aot_traced_f"), g("aot_traced_g");
    Var x("x");
    f(x) = x * 2;
    g(x) = f(x) + 1;
    f.compute_root().trace_stores().trace_realizations();
    g.trace_stores();

    ScratchDir dir;
    g.compile_to_static_library(dir.file("traced"), {}, "traced");
    write_file(dir.file("main.c"), kProgram);
    CommandResult build =
        run_command("cd '" + dir.path() + "' && cc -std=c11 -O1 -Wall -o main main.c traced.a -lpthread -ldl -lm 2>&1");
    ASSERT_EQ(build.exit_code, 0) << build.output;
    CommandResult run = run_command("timeout 60 '" + dir.file("main") + "' 2>&1");
    ASSERT_EQ(run.exit_code, 0) << run.output;
    EXPECT_EQ(run.output,
              "Begin pipeline aot_traced_g.0()\n"
              "Tag aot_traced_f.0() tag = \"func_type_and_dim: 1 0 32 1 1 0 3\"\n"
              "Tag aot_traced_g.0() tag = \"func_type_and_dim: 1 0 32 1 1 0 3\"\n"
              "Begin realization aot_traced_f.0(0, 3)\n"
              "Produce aot_traced_f.0(0, 3)\n"
              "Store aot_traced_f.0(0) = 0\n"
              "Store aot_traced_f.0(1) = 2\n"
              "Store aot_traced_f.0(2) = 4\n"
              "End produce aot_traced_f.0(0, 3)\n"
              "Consume aot_traced_f.0(0, 3)\n"
              "Store aot_traced_g.0(0) = 1\n"
              "Store aot_traced_g.0(1) = 3\n"
              "Store aot_traced_g.0(2) = 5\n"
              "End consume aot_traced_f.0(0, 3)\n"
              "End realization aot_traced_f.0(0, 3)\n"
              "End pipeline aot_traced_g.0()\n"
              "rc 0\n"
              "rc 0 stores 6 realizations 1 sum 15\n");
}

}  // namespace
