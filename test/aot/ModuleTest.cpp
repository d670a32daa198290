// compile_to_module and loom::Module (loom/Module.h): one lowering, written to
// files later and more than once. The static library and header a Module
// writes are linked into a C++ program (compiled with c++ at test time) whose
// output is compared with a plain C++ loop; the stmt it writes is its
// functions()' text; queries and misuse raise CompileError.

#include <gtest/gtest.h>

#include <sstream>

#include "AotTestSupport.h"
#include "loom/Loom.h"

using namespace loom;
using namespace loom_test;

namespace {

constexpr int W = 29, H = 21;

// Halide's lesson 22 pipeline (a blocked transpose) plus an input and a Param:
// out(x, y) = in(y, x) + offset.
Pipeline transpose_pipeline(ImageParam &in, Param<uint16_t> &offset) {
    Func input("input"), output("output");
    Var x("x"), y("y"), xi("xi"), yi("yi");
    input(x, y) = in(x, y) + offset;
    input.compute_root();
    output(x, y) = input(y, x);
    output.tile(x, y, xi, yi, 8, 8).vectorize(xi).unroll(yi);
    Func block_transpose("block_transpose");
    block_transpose = input.in(output).compute_at(output, x).vectorize(x).unroll(y);
    return Pipeline(output);
}

const char *kProgram = R"(
#include <cstdio>
#include "transpose.h"
#include "loom/runtime/Buffer.h"
int main() {
    loom::Runtime::Buffer<uint16_t> in(HEIGHT, WIDTH), out(WIDTH, HEIGHT);
    for (int y = 0; y < WIDTH; y++)
        for (int x = 0; x < HEIGHT; x++) in(x, y) = (uint16_t)(x * 37 + y * 11);
    int rc = transpose(in, (uint16_t)5, out);
    int mismatches = 0;
    for (int y = 0; y < HEIGHT; y++)
        for (int x = 0; x < WIDTH; x++)
            if (out(x, y) != (uint16_t)(in(y, x) + 5)) mismatches++;
    std::printf("rc %d mismatches %d\n", rc, mismatches);
    return rc == 0 && mismatches == 0 ? 0 : 1;
}
)";

}  // namespace

TEST(Module, CompileToModuleThenCompileALibraryThatMatchesTheReference) {
    ImageParam in(UInt(16), 2, "in");
    Param<uint16_t> offset("offset");
    Pipeline p = transpose_pipeline(in, offset);
    Module m = p.compile_to_module({in, offset}, "transpose");
    ASSERT_TRUE(m.defined());
    EXPECT_EQ(m.name(), "transpose");
    EXPECT_EQ(m.target(), get_target_from_environment());
    std::vector<ModuleFunction> fns = m.functions();
    ASSERT_EQ(fns.size(), 1u);
    EXPECT_EQ(fns[0].name, "transpose");
    ASSERT_EQ(fns[0].args.size(), 3u);
    EXPECT_EQ(fns[0].args[0].name, "in");
    EXPECT_EQ(fns[0].args[0].kind, Argument::InputBuffer);
    EXPECT_EQ(fns[0].args[0].dimensions, 2);
    EXPECT_EQ(fns[0].args[1].name, "offset");
    EXPECT_EQ(fns[0].args[1].kind, Argument::InputScalar);
    EXPECT_EQ(fns[0].args[1].type, UInt(16));
    EXPECT_EQ(fns[0].args[2].kind, Argument::OutputBuffer);
    EXPECT_EQ(fns[0].args[2].type, UInt(16));
    EXPECT_EQ(m.get_function_by_name("transpose").name, "transpose");

    ScratchDir dir;
    m.compile({{OutputFileType::static_library, dir.file("transpose.a")},
               {OutputFileType::c_header, dir.file("transpose.h")}});
    write_file(dir.file("main.cpp"), kProgram);
    CommandResult build = run_command("cd '" + dir.path() + "' && c++ -std=c++17 -O1 -DWIDTH=" + std::to_string(W) +
                                      " -DHEIGHT=" + std::to_string(H) + " -I'" + repository_root() +
                                      "/include' -o main main.cpp transpose.a -lpthread -ldl -lm 2>&1");
    ASSERT_EQ(build.exit_code, 0) << build.output << "\n" << kToolsHint;
    CommandResult run = run_command("'" + dir.file("main") + "' 2>&1");
    EXPECT_EQ(run.exit_code, 0) << run.output;
    EXPECT_EQ(run.output, "rc 0 mismatches 0\n");
}

TEST(Module, CompilesMoreThanOnceFromOneLowering) {
    ImageParam in(UInt(16), 2, "in");
    Param<uint16_t> offset("offset");
    Func f("f");
    Var x("x"), y("y");
    f(x, y) = in(x, y) * offset;
    Module m = f.compile_to_module({offset, in});
    EXPECT_EQ(m.name(), "f");  // the Func's name by default
    ScratchDir dir;
    m.compile({{OutputFileType::stmt, dir.file("f.stmt")}});
    m.compile({{OutputFileType::object, dir.file("f.o")}, {OutputFileType::c_header, dir.file("f.h")}});
    // The stmt file is the function's lowered text; the argument order is the one given.
    EXPECT_EQ(read_file(dir.file("f.stmt")), m.functions()[0].stmt);
    // functions() is the Module's own vector (a reference stays valid, as in Halide).
    const std::vector<ModuleFunction> &fns = m.functions();
    EXPECT_EQ(&fns, &m.functions());
    EXPECT_EQ(fns[0].name, "f");
    EXPECT_EQ(m.functions()[0].args[0].name, "offset");
    const std::string header = read_file(dir.file("f.h"));
    EXPECT_NE(header.find("int f(uint16_t offset, struct loom_buffer_t *in"), std::string::npos) << header;
    CommandResult nm = run_command("nm '" + dir.file("f.o") + "' 2>&1");
    EXPECT_NE(nm.output.find(" T f\n"), std::string::npos) << nm.output << "\n" << kToolsHint;
    EXPECT_NE(nm.output.find(" T f_metadata\n"), std::string::npos) << nm.output;
}

TEST(Module, ATargetGivenToCompileToModuleIsTheModulesTarget) {
    Func f("g");
    Var x("x");
    f(x) = x * 2;
    Target arm("arm-64-linux");
    Module m = f.compile_to_module({}, "g", arm);
    EXPECT_EQ(m.target(), arm);
    ScratchDir dir;
    m.compile({{OutputFileType::object, dir.file("g.o")}});
    CommandResult header = run_command("readelf -h '" + dir.file("g.o") + "' 2>&1");
    EXPECT_NE(header.output.find("AArch64"), std::string::npos) << header.output << "\n" << kToolsHint;
}

TEST(Module, MisuseIsACompileError) {
    Module undefined;
    EXPECT_FALSE(undefined.defined());
    try {
        (void)undefined.name();
        FAIL() << "expected a CompileError";
    } catch (const CompileError &e) {
        EXPECT_NE(std::string(e.what()).find("undefined"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("compile_to_module"), std::string::npos) << e.what();
    }
    EXPECT_THROW(undefined.compile({{OutputFileType::stmt, "x.stmt"}}), CompileError);

    Func f("h");
    Var x("x");
    f(x) = x;
    Module m = f.compile_to_module({});
    try {
        (void)m.get_function_by_name("nope");
        FAIL() << "expected a CompileError";
    } catch (const CompileError &e) {
        EXPECT_NE(std::string(e.what()).find("'nope'"), std::string::npos) << e.what();
    }
    try {
        m.compile({});
        FAIL() << "expected a CompileError";
    } catch (const CompileError &e) {
        EXPECT_NE(std::string(e.what()).find("Module::compile: no output files"), std::string::npos) << e.what();
    }
    // A Param the pipeline reads but the argument list leaves out fails at compile_to_module, as compile_to does.
    Param<int> k("k");
    Func g("g2");
    g(x) = x + k;
    EXPECT_THROW(g.compile_to_module({}), CompileError);
}
