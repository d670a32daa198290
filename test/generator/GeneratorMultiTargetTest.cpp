// The generator driver's target=a,b,c (run in-process): one library holding
// a variant per target and the dispatcher (src/lang/GeneratorMultiTarget.cpp,
// src/aot/MultiTarget.cpp), and the requests it refuses. That the library
// runs the right variant is GeneratorAot.RuntimeDispatchPicksTheBestVariant
// (a library made by loom_add_library this way).

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <sstream>

#include "gens/TestGenerators.h"
#include "lang/GeneratorDriver.h"

namespace {

namespace fs = std::filesystem;
using loom::internal::parse_generator_command;
using loom::internal::run_generator_command;

struct Result {
    int code;
    std::string err;
};

Result run(const std::vector<std::string> &args) {
    std::ostringstream out, err;
    int code = run_generator_command(parse_generator_command(args), out, err);
    return {code, err.str()};
}

std::string nm(const fs::path &library) {
    std::string text;
    FILE *p = popen(("nm '" + library.string() + "' 2>&1").c_str(), "r");
    if (!p) return text;
    char buffer[512];
    while (fgets(buffer, sizeof buffer, p)) text += buffer;
    pclose(p);
    return text;
}

TEST(GeneratorMultiTarget, OneLibraryWithAVariantPerTarget) {
    fs::path dir = fs::temp_directory_path() / ("loom_generator_multitarget_" + std::to_string(getpid()));
    fs::remove_all(dir);
    Result r = run({"-g", "brighten", "-o", dir.string(), "-f", "mt_driver", "offset=3",
                    "target=x86-64-linux-avx2-fma,x86-64-linux"});
    ASSERT_EQ(r.code, 0) << r.err;
    ASSERT_TRUE(fs::exists(dir / "mt_driver.a"));
    ASSERT_TRUE(fs::exists(dir / "mt_driver.h"));
    const std::string symbols = nm(dir / "mt_driver.a");
    for (const char *fn : {"mt_driver", "mt_driver_argv", "mt_driver_metadata", "mt_driver_loom_target",
                           "mt_driver_x86_64_linux_avx2_fma", "mt_driver_x86_64_linux"}) {
        EXPECT_NE(symbols.find(std::string(" T ") + fn + "\n"), std::string::npos) << fn << " in\n" << symbols;
    }
    fs::remove_all(dir);
}

TEST(GeneratorMultiTarget, Errors) {
    fs::path dir = fs::temp_directory_path() / ("loom_generator_multitarget_err_" + std::to_string(getpid()));
    fs::remove_all(dir);
    const std::string targets = "target=x86-64-linux-avx2,x86-64-linux";
    Result r = run({"-g", "brighten", "-o", dir.string(), "-e", "o,h", targets});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("static library and its header only"), std::string::npos) << r.err;

    r = run({"-g", "brighten", "-o", dir.string(), "-e", "static_library,h,registration", targets});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("static_library,h only"), std::string::npos) << r.err;

    r = run({"-g", "brighten", "-o", dir.string(), "target=x86-64-linux-avx2,arm-64-linux"});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("differ in architecture, bits or OS"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir / "brighten.a"));
    fs::remove_all(dir);
}

}  // namespace
