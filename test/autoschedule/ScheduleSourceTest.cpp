// schedule_source is valid C++ (docs/AUTOSCHEDULER.md): pasted after
// definitions of Funcs named like the pipeline's, it compiles against
// <loom/Loom.h>, and with Halide's names through a namespace alias.

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "aot/AotTestSupport.h"
#include "loom/Loom.h"

namespace {

using namespace loom;
namespace fs = std::filesystem;

TEST(ScheduleSource, CompilesAsCpp) {
    ImageParam in(Float(32), 2, "in");
    in.dim(0).set_estimate(0, 2000);
    in.dim(1).set_estimate(0, 2000);
    Var x("x"), y("y");
    RDom r(0, 5, "r");
    Func blur_x("blur_x"), blur_y("blur_y"), prod("prod"), out("out");
    Func bounded = BoundaryConditions::repeat_edge(in);
    blur_x(x, y) = bounded(x - 1, y) + bounded(x, y) + bounded(x + 1, y);
    blur_y(x, y) = blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1);
    prod(x, y) = 0.0f;
    prod(x, y) += blur_y(x + r, y) * blur_y(x, y + r);
    out(x, y) = prod(x, y) * 0.5f;
    out.set_estimates({{0, 1900}, {0, 1900}});
    const std::string source =
        Pipeline(out).apply_autoscheduler(Target("x86-64-linux-avx2"), {"LoomHeuristic"}).schedule_source;
    ASSERT_NE(source.find("prod.update(0)"), std::string::npos) << source;
    ASSERT_NE(source.find("RVar r_x(\"r$x\")"), std::string::npos) << source;

    fs::path dir = fs::temp_directory_path() / ("loom_schedule_source_" + std::to_string(getpid()));
    fs::create_directories(dir);
    std::ofstream file(dir / "schedule.cpp");
    file << "#include <loom/Loom.h>\n"
            "namespace Halide = loom;  // as a ported Halide program would\n"
            "using namespace Halide;\n"
            "void apply_schedule(Func blur_x, Func blur_y, Func prod, Func out) {\n"
         << source << "}\n";
    file.close();
    loom_test::CommandResult cc = loom_test::run_command("c++ -std=c++17 -fsyntax-only -I" +
                                                         std::string(LOOM_INCLUDE_DIR) + " " +
                                                         (dir / "schedule.cpp").string() + " 2>&1");
    EXPECT_EQ(cc.exit_code, 0) << cc.output << "\n" << source;
    fs::remove_all(dir);
}

}  // namespace
