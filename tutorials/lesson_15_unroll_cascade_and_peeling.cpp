// Lesson 15: unroll cascades and peeling the first and last iterations.
//
// Two loop shapes Loom takes from hand-written accelerator kernels:
//
// 1. An unroll cascade. unroll(x, 4) needs the extent of x to be a multiple
//    of 4, or a tail strategy. unroll(x, {8, 4, 1}) works for any extent:
//    unrolled blocks of 8 while 8 iterations remain, then one block of 4 if
//    4 remain, then single iterations. Factors must decrease and end in 1.
//
// 2. Peeling. A body that tests for the first or last iteration, like
//    select(r == 0, ...) or the clamps of a boundary condition, costs a
//    test on every iteration. Lowering finds such tests and splits the loop
//    into a first part, a branch-free "steady" part and a last part, each
//    with the test decided. You do not ask for it: it is visible in the
//    lowered statement.

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <loom/Loom.h>

using namespace loom;

namespace {

std::string lowered(Func f, const std::string &file) {
    f.compile_to_lowered_stmt(file);
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// The statement from the line that starts producing `func` to the end
// (the buffer checks before it are the same in every lesson).
std::string produce_part(const std::string &stmt, const std::string &func) {
    size_t at = stmt.find("produce " + func + " {");
    return at == std::string::npos ? stmt : stmt.substr(at);
}

// The line after the first line containing `marker` ("" if none).
std::string line_after(const std::string &text, const std::string &marker) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (line.find(marker) != std::string::npos && std::getline(in, line)) return line;
    }
    return "";
}

}  // namespace

int main() {
    Var x("x");
    int problems = 0;

    // --- The unroll cascade ---------------------------------------------------
    Func squares("squares");
    squares(x) = x * x + 1;
    squares.unroll(x, {8, 4, 1});
    std::printf("squares.unroll(x, {8, 4, 1}):\n");
    squares.print_loop_nest();
    // Any extent works: 13 = 8 + 4 + 1, 21 = 8 + 8 + 4 + 1, 3 = 1 + 1 + 1.
    for (int n : {1, 3, 4, 13, 21}) {
        Buffer<int> out = squares.realize({n});
        for (int i = 0; i < n; i++) {
            if (out(i) != i * i + 1) problems++;
        }
    }
    // The lowered statement shows the three parts: a loop of blocks of 8,
    // a loop of (at most one) block of 4, and the single iterations.
    std::string cascade = produce_part(lowered(squares, "lesson_15_cascade.stmt"), "squares");
    std::printf("\nIts lowered statement:\n%s\n", cascade.c_str());

    // The cascade works on an update's RVar too, where the order matters: it
    // keeps the iterations in order.
    Func acc("acc");
    RDom r(0, 13, "r");
    acc(x) = x;
    acc(x) = acc(x) * 3 + r;
    acc.update(0).unroll(r, {8, 2, 1});
    Buffer<int> accumulated = acc.realize({4});
    for (int i = 0; i < 4; i++) {
        int v = i;
        for (int k = 0; k < 13; k++) v = v * 3 + k;
        if (accumulated(i) != v) problems++;
    }

    // --- Peeling the first and last iterations ---------------------------------
    // An update over r in [0, 10) that does something special at r == 0 and
    // at r == 9 (PyPTO's is_loop_begin()/is_loop_end()).
    Func ends("ends");
    RDom k(0, 10, "k");
    ends(x) = 0;
    ends(k) = select(k == 0, 100, k == 9, 200, k * 3);
    std::string peeled = produce_part(lowered(ends, "lesson_15_peeled.stmt"), "ends");
    std::printf("ends(k) = select(k == 0, 100, k == 9, 200, k * 3) lowers to:\n%s\n", peeled.c_str());
    std::printf("(k == 0 and k == 9 became single stores; the loop over k runs 8 times, from 1, with no select)\n");
    if (peeled.find("select") != std::string::npos) {
        std::printf("expected no select left after peeling\n");
        problems++;
    }
    Buffer<int> e = ends.realize({10});
    for (int i = 0; i < 10; i++) {
        if (e(i) != (i == 0 ? 100 : i == 9 ? 200 : i * 3)) problems++;
    }

    // A boundary condition clamps every coordinate it reads. Only the
    // iterations near the edges can be clamped, so the middle of the loop
    // (the "steady" part) reads the input without clamps.
    Buffer<int> input({32}, "input");
    for (int i = 0; i < 32; i++) input(i) = i * 7 % 10;
    Func clamped = BoundaryConditions::repeat_edge(input);
    Func blur("blur");
    blur(x) = clamped(x - 1) + clamped(x) + clamped(x + 1);
    std::string stencil = produce_part(lowered(blur, "lesson_15_stencil.stmt"), "blur");
    std::printf("\nblur(x) over a repeat_edge input lowers to:\n%s\n", stencil.c_str());
    std::printf("(three loops: the clamped start, the clamp-free steady state, the clamped end)\n");
    std::string steady_body = line_after(stencil, "steady_min, ");
    if (steady_body.empty() || steady_body.find("max(") != std::string::npos) {
        std::printf("expected a steady-state loop without clamps\n");
        problems++;
    }
    Buffer<int> blurred = blur.realize({32});
    for (int i = 0; i < 32; i++) {
        int expected = input(std::max(i - 1, 0)) + input(i) + input(std::min(i + 1, 31));
        if (blurred(i) != expected) problems++;
    }

    std::printf("%s: %d problems (values against C++ loops, shapes of the loops)\n", problems ? "FAILED" : "Success",
                problems);
    return problems ? 1 : 0;
}
