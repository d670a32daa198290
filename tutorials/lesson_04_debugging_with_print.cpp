// Lesson 4: debugging with print and print_when.
//
// Inside a pipeline there is no debugger stepping through your formula: it
// is compiled into loops you did not write. print(value, args...) is an Expr
// equal to `value` that also prints all its arguments (Exprs or strings,
// space-separated, one line) each time it is evaluated. print_when(cond,
// value, args...) prints only when cond holds, which keeps the output short
// on a real image.
//
// Printed lines go to the runtime's print handler: stdout by default. A
// program can install its own with loom_set_print_handler (from
// <loom/runtime/loom_runtime.h>); this lesson does that to check the lines.

#include <cstdio>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include <loom/Loom.h>
#include <loom/runtime/loom_runtime.h>

using namespace loom;

namespace {

// Parallel loops may print from several threads, so guard the text.
std::mutex printed_mutex;
std::string printed;

void echo_and_keep(void *, const char *message) {
    std::lock_guard<std::mutex> lock(printed_mutex);
    std::fputs(message, stdout);
    printed += message;
}

std::vector<std::string> take_lines() {
    std::lock_guard<std::mutex> lock(printed_mutex);
    std::vector<std::string> lines;
    std::istringstream in(printed);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    printed.clear();
    return lines;
}

bool contains(const std::vector<std::string> &lines, const std::string &wanted) {
    for (const std::string &line : lines) {
        if (line == wanted) return true;
    }
    return false;
}

}  // namespace

int main() {
    loom_print_handler_t previous = loom_set_print_handler(echo_and_keep);
    Var x("x"), y("y");
    int mismatches = 0;

    // print() around a value: every evaluation prints one line, here
    // "<value> <- twice <x>". The Func's values are unchanged.
    std::printf("print() in a 1-D Func over [0, 4):\n");
    Func twice("twice");
    twice(x) = print(x * 2, "<- twice", x);
    Buffer<int> doubled = twice.realize({4});
    std::vector<std::string> lines = take_lines();
    if (lines.size() != 4) mismatches++;
    for (int i = 0; i < 4; i++) {
        if (doubled(i) != 2 * i) mismatches++;
        if (!contains(lines, std::to_string(2 * i) + " <- twice " + std::to_string(i))) mismatches++;
    }

    // print_when(): only the points where the condition holds print. Use it
    // to watch one pixel of a big computation.
    std::printf("\nprint_when(x == 37 && y == 11, ...) over 64 x 32:\n");
    Func ramp("ramp");
    Expr value = x * y;
    ramp(x, y) = print_when(x == 37 && y == 11, value, "is ramp at (", x, ",", y, ")");
    Buffer<int> r = ramp.realize({64, 32});
    lines = take_lines();
    if (lines.size() != 1 || lines[0] != "407 is ramp at ( 37 , 11 )") mismatches++;
    for (int j = 0; j < 32; j++) {
        for (int i = 0; i < 64; i++) {
            if (r(i, j) != i * j) mismatches++;
        }
    }

    // print() can sit on any sub-expression, for instance on what a
    // consumer reads from a producer. Floats print as floats.
    std::printf("\nprint() on a float intermediate:\n");
    Func half("half"), sum("sum");
    half(x) = x / 2.0f;
    sum(x) = print(half(x), "is half of", x) + half(x + 1);
    Buffer<float> s = sum.realize({3});
    lines = take_lines();
    if (lines.size() != 3) mismatches++;
    for (int i = 0; i < 3; i++) {
        if (s(i) != i / 2.0f + (i + 1) / 2.0f) mismatches++;
    }

    loom_set_print_handler(previous);
    std::printf("%s: %d mismatches (values and printed lines)\n", mismatches ? "FAILED" : "Success", mismatches);
    return mismatches ? 1 : 0;
}
