// Lesson 10: ahead-of-time compilation, part 1 (the compiling program).
//
// So far every pipeline was compiled just in time, inside the program that
// ran it, which therefore linked libLoom and LLVM. Ahead-of-time (AOT)
// compilation splits that in two:
//   1. this program defines the pipeline and writes a static library and a
//      C header for it, then exits;
//   2. another program, lesson_10_aot_run.c, includes the header, links the
//      library and calls the pipeline as a plain C function. It needs
//      neither LLVM nor libLoom, nor even C++.
// The build runs this program (see tutorials/CMakeLists.txt), then compiles
// and links lesson_10_aot_run against what it wrote.
//
// In an AOT pipeline every input is an argument: Params and ImageParams,
// not Buffers captured by value. The argument list fixes their order in the
// C function; the outputs come last.
//
// Usage: lesson_10_aot_compilation <output prefix>
// writes <prefix>.a and <prefix>.h for the function lesson_10_brighten.

#include <cstdio>

#include <loom/Loom.h>

using namespace loom;

int main(int argc, char **argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s <output prefix>\n", argv[0]);
        return 1;
    }
    // The algorithm: brighten an 8-bit image by an offset, saturating at
    // 255, and keep only pixels of odd rows.
    ImageParam input(UInt(8), 2, "input");
    Param<uint8_t> offset("offset");
    Var x("x"), y("y");
    Func brighter("brighter");
    Expr sum = cast<uint16_t>(input(x, y)) + offset;
    brighter(x, y) = cast<uint8_t>(select(y % 2 == 1, min(sum, 255), 0));

    // A schedule, as for the JIT: it is compiled into the library.
    brighter.vectorize(x, 16).parallel(y);

    // The C function is lesson_10_brighten(input, offset, brighter): the
    // arguments in this order, then the output buffer. The target is the
    // machine running the build (LOOM_TARGET overrides it).
    try {
        brighter.compile_to_static_library(argv[1], {input, offset}, "lesson_10_brighten");
    } catch (const CompileError &e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    std::printf("Wrote %s.a and %s.h\n", argv[1], argv[1]);
    return 0;
}
