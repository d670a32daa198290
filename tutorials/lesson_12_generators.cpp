// Lesson 12: generators, part 1 (the generator).
//
// Lesson 10 wrote its own main() to compile a pipeline ahead of time. A
// Generator packages that: a class whose members declare
//   GeneratorParam<T>   compile-time settings (a vector width, a mode...),
//                       set by name when the library is generated;
//   Input<...>          the run-time inputs: Input<Buffer<T>> is an
//                       ImageParam, Input<T> a scalar Param<T>;
//   Output<Buffer<T>>   the outputs: Funcs to define in generate();
// with generate() defining the algorithm and an optional schedule().
// LOOM_REGISTER_GENERATOR gives it a name. Linked with Loom's generator
// driver, this file becomes a command-line tool that writes a static library
// and a header for any registered generator, target and parameter values.
//
// In CMake (tutorials/CMakeLists.txt):
//   loom_add_generator(lesson_12_generator SOURCES lesson_12_generators.cpp)
//   loom_add_library(lesson_12_add FROM lesson_12_generator
//                    GENERATOR lesson_12_brighten PARAMS mode=add)
//   target_link_libraries(my_program PRIVATE lesson_12_add)
// loom_add_library runs the generator at build time; the program that links
// the library (lesson_12_generators_run.cpp) needs neither LLVM nor libLoom.
// One generator can make several libraries with different parameters: here
// an "add" and a "scale" variant of one brightening filter.

#include <loom/Generator.h>

using namespace loom;

class Brighten : public Generator<Brighten> {
public:
    enum class Mode { Add, Scale };

    // Compile-time parameters: a default, and for numbers a valid range.
    GeneratorParam<Mode> mode{"mode", Mode::Add, {{"add", Mode::Add}, {"scale", Mode::Scale}}};
    GeneratorParam<int> vector_width{"vector_width", 16, 1, 64};

    // The C function takes the Inputs in this order, then the Outputs:
    //   int lesson_12_add(struct loom_buffer_t *input, float amount,
    //                     struct loom_buffer_t *output);
    Input<Buffer<uint8_t>> input{"input", 2};
    Input<float> amount{"amount", 1.0f, 0.0f, 255.0f};
    Output<Buffer<uint8_t>> output{"output", 2};

    void generate() {
        // A GeneratorParam is a plain C++ value here: this `if` runs when the
        // library is generated, so each library contains only one formula.
        Expr value = cast<float>(input(x, y));
        Expr brightened = mode == Mode::Add ? value + amount : value * amount;
        output(x, y) = cast<uint8_t>(clamp(brightened, 0.0f, 255.0f));
    }

    // A GeneratorParam converts to its C++ type; Expr(...) makes it an Expr
    // where a schedule call wants one.
    void schedule() { output.vectorize(x, Expr(vector_width)).parallel(y); }

private:
    Var x{"x"}, y{"y"};
};

LOOM_REGISTER_GENERATOR(Brighten, lesson_12_brighten)
