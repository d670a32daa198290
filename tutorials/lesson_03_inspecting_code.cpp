// Lesson 3: looking at what Loom generates.
//
// A schedule changes how a pipeline runs, never what it computes, so you
// need a way to see the "how". Three views, from the most abstract:
//   f.print_loop_nest()            the loops the schedule asks for;
//   f.compile_to_lowered_stmt(..)  the whole lowered program as text: the
//                                  checks on every buffer, then the loops,
//                                  allocations and stores;
//   f.compile_to_assembly(..)      the machine code for a target (here, this
//                                  machine's).
// Setting LOOM_DEBUG_LOWER=1 in the environment also prints the program
// after every lowering pass, to stderr.

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <loom/Loom.h>

using namespace loom;

namespace {

std::string read_file(const std::string &path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace

int main() {
    Var x("x"), y("y");
    Func gradient("gradient");
    gradient(x, y) = x + y * 10;
    int mismatches = 0;

    // The default schedule: a loop over y around a loop over x.
    std::printf("Loop nest of gradient (default schedule):\n");
    gradient.print_loop_nest();

    // The lowered program. The loop bounds come from the output buffer
    // (gradient.min.0, gradient.extent.0, ...), which the program checks
    // before it touches memory.
    const std::string stmt_file = "lesson_03_gradient.stmt";
    gradient.compile_to_lowered_stmt(stmt_file);
    std::string stmt = read_file(stmt_file);
    std::printf("\nLowered statement (%s):\n%s\n", stmt_file.c_str(), stmt.c_str());
    if (stmt.find("for") == std::string::npos || stmt.find("gradient") == std::string::npos) {
        std::printf("the lowered statement should contain the loops of gradient\n");
        mismatches++;
    }

    // Now the same Func with its x loop vectorized by 4: the loop nest shows
    // a vectorized loop x_vi, and the statement stores vectors: ramp(base,
    // stride, 4) is the 4-lane vector base, base + stride, ... The last
    // vector of a row whose width is not a multiple of 4 is shifted back to
    // overlap the previous one (the default tail for a pure definition); a
    // row narrower than 4 takes the masked branch.
    gradient.vectorize(x, 4);
    std::printf("Loop nest after vectorize(x, 4):\n");
    gradient.print_loop_nest();
    const std::string vector_stmt_file = "lesson_03_gradient_vectorized.stmt";
    gradient.compile_to_lowered_stmt(vector_stmt_file);
    std::string vector_stmt = read_file(vector_stmt_file);
    std::printf("\nLowered statement after vectorize(x, 4):\n%s\n", vector_stmt.c_str());
    if (vector_stmt.find("ramp") == std::string::npos) {
        std::printf("the vectorized statement should contain a ramp\n");
        mismatches++;
    }

    // The machine code. compile_to_assembly is one of the ahead-of-time
    // calls of lesson 10: it takes the arguments of the C function it would
    // make (none here but the output) and a function name, and by default
    // compiles for this machine. We print the lines that mention vector
    // registers (xmm/ymm/zmm on x86, v0.4s... on ARM).
    const std::string assembly_file = "lesson_03_gradient.s";
    gradient.compile_to_assembly(assembly_file, {}, "gradient");
    std::string assembly = read_file(assembly_file);
    std::printf("Assembly (%s), %zu bytes; its first vector instructions:\n", assembly_file.c_str(),
                assembly.size());
    std::istringstream lines(assembly);
    int shown = 0;
    for (std::string line; std::getline(lines, line) && shown < 6;) {
        bool vector = line.find("mm") != std::string::npos || line.find(".4s") != std::string::npos;
        if (vector && line.find('\t') == 0) {
            std::printf("%s\n", line.c_str());
            shown++;
        }
    }
    if (assembly.find("gradient") == std::string::npos || shown == 0) {
        std::printf("the assembly should define gradient and use vector registers\n");
        mismatches++;
    }

    // Whatever we print, the values are the same as a C++ loop's.
    Buffer<int> out = gradient.realize({16, 3});
    for (int j = 0; j < 3; j++) {
        for (int i = 0; i < 16; i++) {
            if (out(i, j) != i + j * 10) mismatches++;
        }
    }
    std::printf("%s: %d mismatches against the C++ loops\n", mismatches ? "FAILED" : "Success", mismatches);
    return mismatches ? 1 : 0;
}
