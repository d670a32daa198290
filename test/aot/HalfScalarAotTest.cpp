// Float(16) and BFloat(16) scalar arguments ahead of time (Param<float16_t>,
// Param<bfloat16_t>): the header declares them as loom::float16_t /
// loom::bfloat16_t in C++ and as their uint16_t bits in C; a C++ program
// (direct call and _argv) and a C program link the static library and match
// the results computed here with float16_t / bfloat16_t's own operators.

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "AotTestSupport.h"
#include "loom/Loom.h"

using namespace loom;
using namespace loom_test;

namespace {

constexpr int kWidth = 24;

float input_value(int x) { return (float)x * 0.75f - 5.0f; }

/** out(x) = cast<float16_t>(in(x) * b) * h: Float(32) * BFloat(16) is
 * Float(32), rounded to Float(16), then a Float(16) product. */
uint16_t expected_bits(int x, float16_t h, bfloat16_t b) {
    return (float16_t(input_value(x) * float(b)) * h).to_bits();
}

void compile_half_pipeline(const ScratchDir &dir) {
    ImageParam in(Float(32), 1, "in");
    Param<float16_t> h("h");
    Param<bfloat16_t> b("b");
    Func out("out");
    Var x("x");
    out(x) = cast<float16_t>(in(x) * b) * h;
    out.compile_to({{OutputFileType::static_library, dir.file("halves.a")},
                    {OutputFileType::c_header, dir.file("halves.h")}},
                   {in, h, b}, "halves");
}

const char *kCppProgram = R"(
#include <cstdio>
#include "halves.h"
#include "loom/runtime/Buffer.h"
#include "loom/runtime/bfloat16.h"
#include "loom/runtime/float16.h"
int main() {
    loom::Runtime::Buffer<float> in(24);
    loom::Runtime::Buffer<loom::float16_t> out(24), out_argv(24);
    for (int x = 0; x < 24; x++) in(x) = (float)x * 0.75f - 5.0f;
    loom::float16_t h(1.3f);
    loom::bfloat16_t b(-0.7f);
    int rc = halves(in, h, b, out);
    void *args[4] = {(loom_buffer_t *)in, &h, &b, (loom_buffer_t *)out_argv};
    int rc_argv = halves_argv(args);
    std::printf("%d %d", rc, rc_argv);
    for (int x = 0; x < 24; x++) std::printf(" %u %u", (unsigned)out(x).to_bits(), (unsigned)out_argv(x).to_bits());
    std::printf("\n");
    return 0;
}
)";

const char *kCProgram = R"(
#include <stdio.h>
#include "halves.h"
int main(void) {
    const loom_type_t f32 = {loom_type_float, 32, 1}, f16 = {loom_type_float, 16, 1};
    float in_host[24];
    uint16_t out_host[24];
    loom_dimension_t dim = {0, 24, 1, 0};
    loom_buffer_t in = {0}, out = {0};
    for (int x = 0; x < 24; x++) in_host[x] = (float)x * 0.75f - 5.0f;
    in.host = (uint8_t *)in_host; in.type = f32; in.dimensions = 1; in.dim = &dim;
    out.host = (uint8_t *)out_host; out.type = f16; out.dimensions = 1; out.dim = &dim;
    /* h = 2.5 (binary16 0x4100), b = 0.375 (bfloat16 0x3ec0) */
    int rc = halves(&in, (loom_float16_scalar_t)0x4100, (loom_bfloat16_scalar_t)0x3ec0, &out);
    printf("%d", rc);
    for (int x = 0; x < 24; x++) printf(" %u", (unsigned)out_host[x]);
    printf("\n");
    return 0;
}
)";

}  // namespace

TEST(HalfScalarAot, HeaderTypesAndACppCaller) {
    ScratchDir dir;
    compile_half_pipeline(dir);
    const std::string header = read_file(dir.file("halves.h"));
    EXPECT_NE(header.find("int halves(struct loom_buffer_t *in, loom_float16_scalar_t h, loom_bfloat16_scalar_t b, "
                          "struct loom_buffer_t *out);"),
              std::string::npos)
        << header;
    EXPECT_NE(header.find("typedef loom::float16_t loom_float16_scalar_t;"), std::string::npos) << header;
    EXPECT_NE(header.find("typedef uint16_t loom_float16_scalar_t;"), std::string::npos) << header;

    write_file(dir.file("main.cpp"), kCppProgram);
    CommandResult build = run_command("cd '" + dir.path() + "' && c++ -std=c++17 -O1 -Wall -I'" + repository_root() +
                                      "/include' -o main main.cpp halves.a -lpthread -ldl -lm 2>&1");
    ASSERT_EQ(build.exit_code, 0) << build.output << "\n" << kToolsHint;
    CommandResult run = run_command("'" + dir.file("main") + "' 2>&1");
    ASSERT_EQ(run.exit_code, 0) << run.output;
    std::istringstream values(run.output);
    int rc = -1, rc_argv = -1;
    values >> rc >> rc_argv;
    EXPECT_EQ(rc, 0) << run.output;
    EXPECT_EQ(rc_argv, 0) << run.output;
    for (int x = 0; x < kWidth; x++) {
        unsigned direct = 0, argv = 0;
        values >> direct >> argv;
        const uint16_t expected = expected_bits(x, float16_t(1.3f), bfloat16_t(-0.7f));
        EXPECT_EQ(direct, expected) << "x = " << x;
        EXPECT_EQ(argv, expected) << "x = " << x;
    }
}

TEST(HalfScalarAot, ACCallerPassesTheBits) {
    ScratchDir dir;
    compile_half_pipeline(dir);
    write_file(dir.file("main.c"), kCProgram);
    CommandResult build = run_command("cd '" + dir.path() +
                                      "' && cc -std=c99 -O1 -Wall -Werror -o main main.c halves.a -lpthread -ldl -lm 2>&1");
    ASSERT_EQ(build.exit_code, 0) << build.output << "\n" << kToolsHint;
    CommandResult run = run_command("'" + dir.file("main") + "' 2>&1");
    ASSERT_EQ(run.exit_code, 0) << run.output;
    ASSERT_EQ(float16_t::make_from_bits(0x4100).to_float(), 2.5f);
    ASSERT_EQ(float(bfloat16_t::make_from_bits(0x3ec0)), 0.375f);
    std::istringstream values(run.output);
    int rc = -1;
    values >> rc;
    EXPECT_EQ(rc, 0) << run.output;
    for (int x = 0; x < kWidth; x++) {
        unsigned bits = 0;
        values >> bits;
        EXPECT_EQ(bits, expected_bits(x, float16_t(2.5f), bfloat16_t(0.375f))) << "x = " << x;
    }
}

TEST(HalfScalarAot, ARunTimeTypedParamOfFloat16) {
    // Param<> of Float(16) (once refused ahead of time) declares the same C type.
    ScratchDir dir;
    Param<> h(Float(16), "h");
    Func f("f");
    Var x("x");
    f(x) = cast<float>(h) + x;
    f.compile_to_header(dir.file("f.h"), {h}, "f", Target("x86-64-linux"));
    const std::string header = read_file(dir.file("f.h"));
    EXPECT_NE(header.find("int f(loom_float16_scalar_t h, struct loom_buffer_t *f);"), std::string::npos) << header;
}

TEST(HalfScalarAot, ModuleArgumentsKeepTheTypes) {
    ImageParam in(Float(32), 1, "in");
    Param<float16_t> h("h", float16_t(1.0f));
    Param<bfloat16_t> b("b", bfloat16_t(1.0f));
    Func out("out");
    Var x("x");
    out(x) = cast<float16_t>(in(x) * b) * h;
    Module m = out.compile_to_module({in, h, b}, "halves");
    const std::vector<Argument> &args = m.functions()[0].args;
    ASSERT_EQ(args.size(), 4u);
    EXPECT_EQ(args[1].type, Float(16));
    EXPECT_EQ(args[1].kind, Argument::InputScalar);
    EXPECT_EQ(args[2].type, BFloat(16));
    EXPECT_EQ(args[3].type, Float(16));
}
