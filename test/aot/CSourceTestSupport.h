#ifndef LOOM_TEST_AOT_C_SOURCE_TEST_SUPPORT_H
#define LOOM_TEST_AOT_C_SOURCE_TEST_SUPPORT_H

// Helpers for the C back end and bitcode tests: a Loom runtime to link
// against (the static library of a trivial pipeline, made once per
// process), and building and running a C++ program made of a generated
// file and a main() that prints numbers, which the test reads back.

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "AotTestSupport.h"
#include "loom/Loom.h"

namespace loom_test {

/** The path of a static library holding the Loom runtime (and a trivial
 * pipeline, c_source_test_runtime, that nothing calls). */
inline const std::string &runtime_library() {
    static ScratchDir dir;
    static const std::string path = [] {
        loom::Var x("x");
        loom::Func f("c_source_test_runtime");
        f(x) = x;
        f.compile_to_static_library(dir.file("runtime"), {}, "c_source_test_runtime");
        return dir.file("runtime.a");
    }();
    return path;
}

/** What building and running a program gave. */
struct ProgramRun {
    bool built = false;
    std::string log;     // the compiler's output
    int exit_code = -1;
    std::string output;  // the program's stdout and stderr
    std::vector<double> numbers() const {
        std::istringstream in(output);
        std::vector<double> values;
        std::string word;
        while (in >> word) {
            try {
                values.push_back(std::stod(word));
            } catch (...) {
                // words (labels) are skipped
            }
        }
        return values;
    }
};

/** The includes every test program starts with. */
constexpr const char *kProgramPrelude = R"(
#include <loom/runtime/Buffer.h>
#include <cstdio>
#include <cstdint>
)";

/** Compiles `objects_command` (compile commands for the generated code, run
 * in dir, which must leave generated.o), main.cpp = kProgramPrelude +
 * includes + main_source, links both with the runtime library and runs the
 * program with 3 threads. */
inline ProgramRun build_and_run(const ScratchDir &dir, const std::string &objects_command,
                                const std::string &includes, const std::string &main_source) {
    ProgramRun run;
    write_file(dir.file("main.cpp"), std::string(kProgramPrelude) + includes + main_source);
    const std::string cd = "cd '" + dir.path() + "' && ";
    CommandResult generated = run_command(cd + objects_command + " 2>&1");
    run.log = generated.output;
    if (generated.exit_code != 0) return run;
    CommandResult main = run_command(cd + "c++ -std=c++17 -O1 -Wall -I'" + repository_root() +
                                     "/include' -c main.cpp -o main.o 2>&1");
    run.log += main.output;
    if (main.exit_code != 0) return run;
    CommandResult link = run_command(cd + "c++ -o program main.o generated.o '" + runtime_library() +
                                     "' -lpthread -ldl -lm 2>&1");
    run.log += link.output;
    if (link.exit_code != 0) return run;
    run.built = true;
    CommandResult result = run_command(cd + "LOOM_NUM_THREADS=3 ./program 2>&1");
    run.exit_code = result.exit_code;
    run.output = result.output;
    return run;
}

/** The command that compiles NAME.loom_generated.cpp as the tests require:
 * C++17, optimised, every -Wall warning an error. */
inline std::string compile_c_source_command(const std::string &name) {
    return "c++ -std=c++17 -O2 -Wall -Werror -c " + name + ".loom_generated.cpp -o generated.o";
}

}  // namespace loom_test

#endif
