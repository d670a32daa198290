// schedule_source is valid C++ (docs/AUTOSCHEDULER.md) that names Funcs
// through Pipeline::get_func(index), as Halide's autoschedulers write it,
// and pure Vars through Func::args(): it compiles against <loom/Loom.h> with
// Halide's names through a namespace alias, and a program that pastes it
// applies it to a copy of the pipeline whose Funcs and Vars are named
// differently. Also Pipeline::get_func itself.

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <map>

#include "aot/AotTestSupport.h"
#include "ir/Function.h"
#include "e2e/E2ETest.h"
#include "loom/Loom.h"

namespace {

using namespace loom;
using loom_test::compile_error_message;
using loom_test::contains;

const Target schedule_target("x86-64-linux-avx2");

// ---- Pipeline::get_func -------------------------------------------------------------

std::vector<std::string> names_in_get_func_order(const Pipeline &p, size_t count) {
    std::vector<std::string> names;
    for (size_t i = 0; i < count; i++) names.push_back(p.get_func(i).name());
    return names;
}

TEST(PipelineGetFunc, ProducersFirstInTheOrderOfFirstCall) {
    Buffer<int> in(10);
    Var x("x");
    RDom r(0, 3, "r");
    Func a("a"), b("b"), c("c"), d("d"), e("e"), lut("lut");
    a(x) = in(x) + 1;
    b(x) = a(x) * 2;
    lut(x) = x * 3;
    c(x) = b(x) + a(x - 1);     // calls b first, then a (already placed by b)
    c(x) += lut(r);             // an update's callee comes after the pure definition's
    e(x) = in(x) * in(x);
    d(x) = e(x) - 1;            // a second output with its own producer
    Pipeline p({c, d});
    EXPECT_EQ(names_in_get_func_order(p, 6), (std::vector<std::string>{"a", "b", "lut", "c", "e", "d"}));
    // get_func returns the pipeline's Func itself, not a copy: scheduling it schedules the pipeline.
    p.get_func(0).compute_root();
    EXPECT_TRUE(a.function().get()->schedule.compute_level.is_root());
    // Neither the schedule nor the names change the order.
    b.compute_root();
    EXPECT_EQ(names_in_get_func_order(p, 6), (std::vector<std::string>{"a", "b", "lut", "c", "e", "d"}));
}

TEST(PipelineGetFunc, IndexOutOfRangeOrUndefinedPipelineIsACompileError) {
    Var x("x");
    Func f("f"), g("g");
    f(x) = x;
    g(x) = f(x) + 1;
    Pipeline p(g);
    EXPECT_EQ(p.get_func(1).name(), "g");
    const std::string message = compile_error_message([&] { p.get_func(2); });
    EXPECT_TRUE(contains(message, "get_func(2)")) << message;
    EXPECT_TRUE(contains(message, "only 2 Funcs")) << message;
    EXPECT_TRUE(contains(message, "less than 2")) << message;
    const std::string undefined = compile_error_message([] { Pipeline().get_func(0); });
    EXPECT_TRUE(contains(undefined, "undefined")) << undefined;
}

// ---- schedule_source ----------------------------------------------------------------

/** The Loom code of a pipeline whose Funcs and Vars are named PREFIX +
 * name: a blur of an int32 ImageParam through a boundary condition, a
 * reduction over it and a pointwise output. Compiled into this test
 * (prefix "") and into the program that applies the schedule (another
 * prefix), so both build the same graph. The RDom keeps its name: the
 * schedule names RVars by name. */
#define LOOM_SCHEDULE_SOURCE_PIPELINE(PREFIX)                                             \
    Var x(PREFIX "x"), y(PREFIX "y");                                                     \
    RDom r(0, 5, "r");                                                                    \
    Func blur_x(PREFIX "blur_x"), blur_y(PREFIX "blur_y"), prod(PREFIX "prod"), out(PREFIX "out"); \
    Func bounded = BoundaryConditions::repeat_edge(in);                                   \
    blur_x(x, y) = bounded(x - 1, y) + bounded(x, y) + bounded(x + 1, y);                 \
    blur_y(x, y) = blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1);                    \
    prod(x, y) = 0;                                                                       \
    prod(x, y) += blur_y(x + r, y) * (blur_y(x, y + r) % 7);                              \
    out(x, y) = prod(x, y) / 2;
#define LOOM_STRINGIFY_(...) #__VA_ARGS__
#define LOOM_STRINGIFY(...) LOOM_STRINGIFY_(__VA_ARGS__)

/** The schedule_source of that pipeline, and the get_func index of each of its Funcs by name. */
std::string scheduled_source(std::map<std::string, size_t> *index_of = nullptr) {
    ImageParam in(Int(32), 2, "in");
    in.dim(0).set_estimate(0, 2000);
    in.dim(1).set_estimate(0, 2000);
    LOOM_SCHEDULE_SOURCE_PIPELINE("")
    out.set_estimates({{0, 1900}, {0, 1900}});
    Pipeline p(out);
    for (size_t i = 0; index_of && i < 5; i++) (*index_of)[p.get_func(i).name()] = i;
    return p.apply_autoscheduler(schedule_target, {"LoomHeuristic"}).schedule_source;
}

/** The directory of libLoom.so, from where this process loaded it. */
std::string loom_library_path() {
    Dl_info info{};
    if (!dladdr(reinterpret_cast<void *>(&load_plugin), &info) || !info.dli_fname) return "";
    return info.dli_fname;
}

TEST(ScheduleSource, NamesFuncsThroughGetFuncAndCompilesAsCpp) {
    std::map<std::string, size_t> index_of;
    const std::string source = scheduled_source(&index_of);
    ASSERT_TRUE(contains(source, "prod.update(0)")) << source;
    ASSERT_TRUE(contains(source, "RVar r_x(\"r$x\")")) << source;
    // Pure Vars through the Funcs, as Halide's f.get_schedule().dims()[i].var.
    EXPECT_TRUE(contains(source, "Var x = out.args()[0];")) << source;
    EXPECT_TRUE(contains(source, "Var y = out.args()[1];")) << source;
    EXPECT_FALSE(contains(source, "x(\"x\")")) << source;
    // The boundary condition, blur_x, blur_y, prod, out: producers first.
    EXPECT_EQ(index_of["blur_x"], 1u);
    EXPECT_EQ(index_of["out"], 4u);
    for (const char *name : {"blur_x", "blur_y", "prod", "out"}) {
        const std::string declaration =
            std::string("Func ") + name + " = pipeline.get_func(" + std::to_string(index_of[name]) + ");";
        EXPECT_TRUE(contains(source, declaration)) << declaration << "\n" << source;
    }

    loom_test::ScratchDir dir;
    loom_test::write_file(dir.file("schedule.cpp"), "#include <loom/Loom.h>\n"
                                                    "namespace Halide = loom;  // as a ported Halide program would\n"
                                                    "using namespace Halide;\n"
                                                    "void apply_schedule(Pipeline pipeline) {\n" +
                                                        source + "}\n");
    loom_test::CommandResult cc = loom_test::run_command("c++ -std=c++17 -fsyntax-only -I" +
                                                         std::string(LOOM_INCLUDE_DIR) + " " +
                                                         dir.file("schedule.cpp") + " 2>&1");
    EXPECT_EQ(cc.exit_code, 0) << cc.output << "\n" << source;
}

TEST(ScheduleSource, AppliesToAPipelineWhoseFuncsAndVarsAreNamedDifferently) {
    const std::string source = scheduled_source();
    const std::string library = loom_library_path();
    ASSERT_FALSE(library.empty());
    loom_test::ScratchDir dir;
    // The program builds the pipeline with every Func renamed, pastes
    // schedule_source, checks that it was applied (autoscheduling again is
    // refused as a schedule by hand) and compares with a plain C++ loop at a
    // size the tiles and vectors do not divide. The values are not negative,
    // so C++'s % and / agree with Loom's (Euclidean) ones.
    loom_test::write_file(
        dir.file("apply.cpp"),
        std::string("#include <loom/Loom.h>\n#include <algorithm>\n#include <cstdio>\n#include <cstring>\n"
                    "using namespace loom;\n"
                    "static void apply_schedule(Pipeline pipeline) {\n") +
            source +
            "}\n"
            "int main() {\n"
            "    const int W = 37, H = 29;\n"
            "    Buffer<int> input(W, H);\n"
            "    for (int j = 0; j < H; j++)\n"
            "        for (int i = 0; i < W; i++) input(i, j) = (i * 31 + j * 17) % 101;\n"
            "    ImageParam in(Int(32), 2, \"renamed_in\");\n"
            "    in.set(input);\n" LOOM_STRINGIFY(LOOM_SCHEDULE_SOURCE_PIPELINE("renamed_")) "\n"
            "    Pipeline pipeline(out);\n"
            "    apply_schedule(pipeline);\n"
            "    try {\n"
            "        pipeline.apply_autoscheduler(Target(\"x86-64-linux-avx2\"), {\"LoomHeuristic\"});\n"
            "        std::printf(\"the schedule was not applied\\n\");\n"
            "        return 1;\n"
            "    } catch (const CompileError &e) {\n"
            "        if (!std::strstr(e.what(), \"already scheduled\")) { std::printf(\"%s\\n\", e.what()); return 1; }\n"
            "    }\n"
            "    Buffer<int> result(W, H);\n"
            "    pipeline.realize(result);\n"
            "    auto at = [&](int i, int j) { return input(std::clamp(i, 0, W - 1), std::clamp(j, 0, H - 1)); };\n"
            "    auto bx = [&](int i, int j) { return at(i - 1, j) + at(i, j) + at(i + 1, j); };\n"
            "    auto by = [&](int i, int j) { return bx(i, j - 1) + bx(i, j) + bx(i, j + 1); };\n"
            "    int mismatches = 0;\n"
            "    for (int j = 0; j < H; j++)\n"
            "        for (int i = 0; i < W; i++) {\n"
            "            int p = 0;\n"
            "            for (int k = 0; k < 5; k++) p += by(i + k, j) * (by(i, j + k) % 7);\n"
            "            mismatches += result(i, j) != p / 2;\n"
            "        }\n"
            "    std::printf(\"mismatches %d\\n\", mismatches);\n"
            "    return mismatches == 0 ? 0 : 1;\n"
            "}\n");
    const std::string library_dir = library.substr(0, library.find_last_of('/'));
    loom_test::CommandResult build = loom_test::run_command(
        "c++ -std=c++17 -O0 " + std::string(LOOM_TEST_CXX_FLAGS) + " -I" + std::string(LOOM_INCLUDE_DIR) + " -o " +
        dir.file("apply") + " " +
        dir.file("apply.cpp") + " '" + library + "' -Wl,-rpath,'" + library_dir + "' -lpthread 2>&1");
    ASSERT_EQ(build.exit_code, 0) << build.output << "\n" << source;
    loom_test::CommandResult run = loom_test::run_command("'" + dir.file("apply") + "' 2>&1");
    EXPECT_EQ(run.exit_code, 0) << run.output << "\n" << source;
    EXPECT_EQ(run.output, "mismatches 0\n") << source;
}

}  // namespace
