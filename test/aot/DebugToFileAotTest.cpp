// Func::debug_to_file in a static library: the runtime inside the library
// writes the file after each production, and a file that cannot be written
// makes the function return an error code after reporting the Func and the
// file. The C program's output and the file (read back with the e2e
// readers) are compared with C++ loops.

#include <gtest/gtest.h>

#include "AotTestSupport.h"
#include "e2e/DebugFileReaders.h"
#include "loom/Loom.h"

using namespace loom;
using namespace loom_test;

namespace {

const char *kProgram = R"(
#include <stdio.h>
#include "dtf.h"

int main(void) {
    int32_t out_host[6 * 4];
    loom_dimension_t dims[2] = {{0, 6, 1, 0}, {0, 4, 6, 0}};
    loom_buffer_t out = {0};
    out.host = (uint8_t *)out_host; out.type.code = loom_type_int; out.type.bits = 32; out.type.lanes = 1;
    out.dimensions = 2; out.dim = dims;
    int rc = dtf(5, &out);
    printf("rc %d first %d last %d\n", rc, out_host[0], out_host[23]);
    return 0;
}
)";

TEST(DebugToFileAot, StaticLibraryWritesTheFile) {
    ASSERT_TRUE(have_tool("cc")) << kToolsHint;
    ScratchDir dir;
    Param<int32_t> offset("dtf_offset");
    Var x("x"), y("y");
    Func g("dtf_aot_g"), f("dtf_aot_f");
    g(x, y) = x * 10 + y + offset;
    f(x, y) = g(x, y) * 2;
    g.compute_root().debug_to_file(dir.file("g.npy"));
    f.compile_to_static_library(dir.file("dtf"), {offset}, "dtf");
    write_file(dir.file("main.c"), kProgram);
    CommandResult build =
        run_command("cd '" + dir.path() + "' && cc -std=c11 -O1 -Wall -o main main.c dtf.a -lpthread -ldl -lm 2>&1");
    ASSERT_EQ(build.exit_code, 0) << build.output;
    CommandResult run = run_command("timeout 60 '" + dir.file("main") + "' 2>&1");
    ASSERT_EQ(run.exit_code, 0) << run.output;
    EXPECT_EQ(run.output, "rc 0 first 10 last " + std::to_string((5 * 10 + 3 + 5) * 2) + "\n");

    NpyFile npy = read_npy(dir.file("g.npy"));
    ASSERT_EQ(npy.error, "");
    EXPECT_EQ(npy.descr, "<i4");
    EXPECT_EQ(npy.shape, (std::vector<long>{4, 6}));
    std::vector<int32_t> values = elements_of<int32_t>(npy.data);
    ASSERT_EQ(values.size(), 24u);
    for (int yy = 0; yy < 4; yy++) {
        for (int xx = 0; xx < 6; xx++) EXPECT_EQ(values[yy * 6 + xx], xx * 10 + yy + 5);
    }
}

TEST(DebugToFileAot, AnUnwritableFileIsAnErrorCode) {
    ASSERT_TRUE(have_tool("cc")) << kToolsHint;
    ScratchDir dir;
    Param<int32_t> offset("dtf_offset");
    Var x("x"), y("y");
    Func f("dtf_aot_bad");
    f(x, y) = x + offset;
    const std::string bad = dir.file("no_such_folder/f.mat");
    f.debug_to_file(bad);
    f.compile_to_static_library(dir.file("dtf"), {offset}, "dtf");
    write_file(dir.file("main.c"), kProgram);
    CommandResult build =
        run_command("cd '" + dir.path() + "' && cc -std=c11 -O1 -Wall -o main main.c dtf.a -lpthread -ldl -lm 2>&1");
    ASSERT_EQ(build.exit_code, 0) << build.output;
    CommandResult run = run_command("timeout 60 '" + dir.file("main") + "' 2>&1");
    ASSERT_EQ(run.exit_code, 0) << run.output;
    EXPECT_NE(run.output.find("Func 'dtf_aot_bad': debug_to_file could not write '" + bad + "'"), std::string::npos)
        << run.output;
    EXPECT_NE(run.output.find("rc -1 "), std::string::npos) << run.output;
}

}  // namespace
