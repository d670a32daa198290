// Lesson 1: Func, Var, Expr and realize.
//
// A Loom program describes an image (or any grid of numbers) as a function:
// for every integer point (x, y), a formula says what the value there is.
// You write the formula once; Loom compiles it to machine code and runs it
// over whatever region you ask for.
//
// Three types carry the idea:
//   Var   a name for an integer coordinate (x, y, ...);
//   Expr  a formula built from Vars, constants and operators;
//   Func  a function over the grid, defined by an Expr.
// Building an Expr or defining a Func computes nothing. realize() compiles
// the Func (the first time) and evaluates it into a Buffer.
//
// Build and run: this file is the tutorial target lesson_01_basics
// (ctest -L tutorial runs every lesson).

#include <cmath>
#include <cstdio>
#include <iostream>

#include <loom/Loom.h>

using namespace loom;

int main() {
    // Vars are named so that loop nests and error messages say "x", not "v3".
    Var x("x"), y("y");

    // An Expr records arithmetic; it has a type (here int32, like C++ ints).
    Expr sum = x + y;
    std::cout << "The Expr x + y prints as " << sum << ", of type " << sum.type() << "\n";

    // The pure definition of a Func: its value at every (x, y).
    Func gradient("gradient");
    gradient(x, y) = sum;

    // realize({8, 4}) computes gradient over x in [0, 8), y in [0, 4). The
    // first dimension is the innermost (the one adjacent in memory).
    Buffer<int> out = gradient.realize({8, 4});
    std::printf("gradient over 8 x 4:\n");
    for (int j = 0; j < out.height(); j++) {
        for (int i = 0; i < out.width(); i++) std::printf("%3d", out(i, j));
        std::printf("\n");
    }

    // Calling realize() again, even for another size, reuses the compiled
    // code. (Defining or scheduling gradient, or a Func it uses, makes the
    // next realize() compile again.)
    Buffer<int> bigger = gradient.realize({100, 50});

    // A Func may use other Funcs, constants and math functions. This one is
    // float-valued: an int Expr times a float constant is a float.
    Func wave("wave");
    wave(x, y) = sin(x * 0.5f) * gradient(x, y);
    Buffer<float> waves = wave.realize({8, 4});

    // Check every value against the same computation written as C++ loops.
    int mismatches = 0;
    for (int j = 0; j < 4; j++) {
        for (int i = 0; i < 8; i++) {
            if (out(i, j) != i + j) mismatches++;
            float expected = std::sin(i * 0.5f) * float(i + j);
            if (std::fabs(waves(i, j) - expected) > 1e-5f * (1 + std::fabs(expected))) mismatches++;
        }
    }
    for (int j = 0; j < 50; j++) {
        for (int i = 0; i < 100; i++) {
            if (bigger(i, j) != i + j) mismatches++;
        }
    }
    std::printf("wave(3, 2) = %f (C++ says %f)\n", waves(3, 2), std::sin(1.5f) * 5.0f);
    std::printf("%s: %d mismatches against the C++ loops\n", mismatches ? "FAILED" : "Success", mismatches);
    return mismatches ? 1 : 0;
}
