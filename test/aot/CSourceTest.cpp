// The C back end (compile_to_c, OutputFileType::c_source): for a set of
// pipelines (pointwise with Params, a blur with compute_at + vectorize +
// parallel, an update/reduction, a Tuple output, uint8 saturating math, a
// select/clamp boundary) the emitted source compiles with the host C++
// compiler (-std=c++17 -O2 -Wall -Werror) next to a main() that includes
// the generated header, links against a Loom runtime, runs, and matches a
// plain C++ reference loop computed here.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "CSourceTestSupport.h"

using namespace loom;
using namespace loom_test;

namespace {

/** Writes NAME.loom_generated.cpp and NAME.h for f, builds them with main,
 * runs the program. */
ProgramRun run_c_pipeline(const ScratchDir &dir, Pipeline p, const std::vector<Argument> &args,
                          const std::string &name, const std::string &main_source) {
    p.compile_to({{OutputFileType::c_source, dir.file(name + ".loom_generated.cpp")},
                  {OutputFileType::c_header, dir.file(name + ".h")}},
                 args, name);
    return build_and_run(dir, compile_c_source_command(name), "#include \"" + name + ".h\"\n", main_source);
}

#define EXPECT_PROGRAM_RAN(run)                      \
    do {                                             \
        ASSERT_TRUE(run.built) << run.log;           \
        ASSERT_EQ(run.exit_code, 0) << run.output;   \
    } while (0)

// ------------------------------------------------------------------ pointwise, Params, argv, metadata, errors

constexpr int kW = 37, kH = 19;

int32_t pointwise_input(int x, int y) { return (x * 7 - y * 13) % 50; }

const char *kPointwiseMain = R"(
static void report(void *, const char *message) { std::printf("error-message %s\n", message); }

int main() {
    loom::Runtime::Buffer<int32_t> in(37, 19), out(37, 19);
    for (int y = 0; y < 19; y++)
        for (int x = 0; x < 37; x++) in(x, y) = (x * 7 - y * 13) % 50;
    int rc = pointwise(in, -3, (int8_t)-5, out);
    std::printf("rc %d\n", rc);
    for (int y = 0; y < 19; y++)
        for (int x = 0; x < 37; x++) std::printf("%d\n", out(x, y));
    // The argv form, with every argument passed by address.
    loom::Runtime::Buffer<int32_t> out2(37, 19);
    int32_t k = -3;
    int8_t small = -5;
    void *args[] = {in.raw_buffer(), &k, &small, out2.raw_buffer()};
    rc = pointwise_argv(args);
    int same = 1;
    for (int y = 0; y < 19; y++)
        for (int x = 0; x < 37; x++) same = same && out2(x, y) == out(x, y);
    std::printf("argv %d %d\n", rc, same);
    const loom_pipeline_metadata_t *m = pointwise_metadata();
    std::printf("metadata %d %d %s\n", m->version, m->num_arguments, m->name);
    for (int i = 0; i < m->num_arguments; i++)
        std::printf("argument %s %d %d %d %d\n", m->arguments[i].name, m->arguments[i].kind,
                    m->arguments[i].dimensions, m->arguments[i].type.code, m->arguments[i].type.bits);
    // An input smaller than the output: a negative code, and the message
    // reaches the installed handler.
    loom_set_error_handler(report);
    loom::Runtime::Buffer<int32_t> small_in(10, 19);
    rc = pointwise(small_in, 1, (int8_t)0, out);
    std::printf("too-small %d\n", rc);
    return 0;
}
)";

TEST(CSource, PointwiseWithParamsMatchesTheReference) {
    ImageParam in(Int(32), 2, "in");
    Param<int32_t> k("k");
    Param<int8_t> small("small");
    Var x("x"), y("y");
    Func f("pointwise");
    f(x, y) = in(x, y) * k + x - 2 * y + cast<int32_t>(small);
    ScratchDir dir;
    ProgramRun run = run_c_pipeline(dir, Pipeline(f), {in, k, small}, "pointwise", kPointwiseMain);
    EXPECT_PROGRAM_RAN(run);
    std::istringstream out(run.output);
    std::string word;
    int rc = 1;
    out >> word >> rc;
    ASSERT_EQ(word, "rc");
    ASSERT_EQ(rc, 0) << run.output.substr(0, 500);
    int mismatches = 0;
    for (int yy = 0; yy < kH; yy++) {
        for (int xx = 0; xx < kW; xx++) {
            int v = 0;
            out >> v;
            const int expected = pointwise_input(xx, yy) * -3 + xx - 2 * yy - 5;
            if (v != expected && mismatches++ < 5) ADD_FAILURE() << "(" << xx << ", " << yy << ") = " << v;
        }
    }
    EXPECT_EQ(mismatches, 0);
    int argv_rc = 1, same = 0;
    out >> word >> argv_rc >> same;
    EXPECT_EQ(word, "argv");
    EXPECT_EQ(argv_rc, 0);
    EXPECT_EQ(same, 1);
    EXPECT_NE(run.output.find("metadata 1 4 pointwise"), std::string::npos) << run.output;
    EXPECT_NE(run.output.find("argument in 1 2 0 32"), std::string::npos) << run.output;
    EXPECT_NE(run.output.find("argument k 0 0 0 32"), std::string::npos) << run.output;
    EXPECT_NE(run.output.find("argument small 0 0 0 8"), std::string::npos) << run.output;
    EXPECT_NE(run.output.find("argument pointwise 2 2 0 32"), std::string::npos) << run.output;
    // The LLVM back end's message for the same check.
    EXPECT_NE(run.output.find("error-message Input buffer in"), std::string::npos) << run.output;
    const size_t at = run.output.find("too-small ");
    ASSERT_NE(at, std::string::npos) << run.output;
    EXPECT_LT(std::stoi(run.output.substr(at + 10)), 0) << run.output;
}

// ------------------------------------------------------------------ blur: compute_at, vectorize, parallel

float blur_input(int x, int y) { return (float)(((x + 1) * 31 + (y + 1) * 17) % 100) / 10.0f; }

const char *kBlurMain = R"(
int main() {
    loom::Runtime::Buffer<float> in(37, 19), out(37, 19);
    for (int y = 0; y < 19; y++)
        for (int x = 0; x < 37; x++) in(x, y) = (float)(((x + 1) * 31 + (y + 1) * 17) % 100) / 10.0f;
    int rc = blur(in, 0.5f, out);
    std::printf("rc %d\n", rc);
    for (int y = 0; y < 19; y++)
        for (int x = 0; x < 37; x++) std::printf("%.9g\n", out(x, y));
    return 0;
}
)";

TEST(CSource, BlurComputeAtVectorizeParallelMatchesTheReference) {
    ImageParam in(Float(32), 2, "in");
    Param<float> w("w");
    Var x("x"), y("y"), yo("yo"), yi("yi");
    Func clamped = BoundaryConditions::repeat_edge(in);
    Func bx("bx"), by("blur");
    bx(x, y) = clamped(x - 1, y) + clamped(x, y) * w + clamped(x + 1, y);
    by(x, y) = bx(x, y - 1) + bx(x, y) * w + bx(x, y + 1);
    by.split(y, yo, yi, 4).parallel(yo).vectorize(x, 8);
    bx.compute_at(by, yi).vectorize(x, 8);
    ScratchDir dir;
    ProgramRun run = run_c_pipeline(dir, Pipeline(by), {in, w}, "blur", kBlurMain);
    EXPECT_PROGRAM_RAN(run);
    // Portable: clang accepts it too, with -Wextra.
    CommandResult clang = run_command("clang++-19 -std=c++17 -Wall -Wextra -Werror -fsyntax-only '" +
                                      dir.file("blur.loom_generated.cpp") + "' 2>&1");
    EXPECT_EQ(clang.exit_code, 0) << clang.output;
    // The generated code really has a parallel loop and vectors.
    const std::string source = read_file(dir.file("blur.loom_generated.cpp"));
    EXPECT_NE(source.find("loom_par_for("), std::string::npos);
    EXPECT_NE(source.find("loom_vec<float, 8>"), std::string::npos);

    auto at = [](int x, int y) { return blur_input(std::clamp(x, 0, kW - 1), std::clamp(y, 0, kH - 1)); };
    auto row = [&](int x, int y) { return at(x - 1, y) + at(x, y) * 0.5f + at(x + 1, y); };
    std::vector<double> v = run.numbers();
    ASSERT_EQ(v.size(), 1u + kW * kH) << run.output.substr(0, 500);
    EXPECT_EQ(v[0], 0);
    int mismatches = 0;
    for (int yy = 0; yy < kH; yy++) {
        for (int xx = 0; xx < kW; xx++) {
            const float expected = row(xx, yy - 1) + row(xx, yy) * 0.5f + row(xx, yy + 1);
            const double got = v[1 + xx + yy * kW];
            if (std::fabs(got - expected) > 1e-5 * std::fabs(expected) + 1e-6 && mismatches++ < 5) {
                ADD_FAILURE() << "blur(" << xx << ", " << yy << ") = " << got << ", expected " << expected;
            }
        }
    }
    EXPECT_EQ(mismatches, 0);
}

// ------------------------------------------------------------------ an update: histogram

uint8_t histogram_input(int x, int y) { return (uint8_t)((x * 37 + y * 101 + x * y) % 256); }

const char *kHistogramMain = R"(
int main() {
    loom::Runtime::Buffer<uint8_t> in(37, 19);
    loom::Runtime::Buffer<int32_t> out(16);
    for (int y = 0; y < 19; y++)
        for (int x = 0; x < 37; x++) in(x, y) = (uint8_t)((x * 37 + y * 101 + x * y) % 256);
    int rc = histogram(in, out);
    std::printf("rc %d\n", rc);
    for (int i = 0; i < 16; i++) std::printf("%d\n", out(i));
    return 0;
}
)";

TEST(CSource, UpdateAndReductionMatchTheReference) {
    ImageParam in(UInt(8), 2, "in");
    Var i("i"), io("io"), ii("ii");
    RDom r(0, in.width(), 0, in.height(), "r");
    Func hist("histogram");
    hist(i) = 0;
    hist(cast<int32_t>(in(r.x, r.y)) / 16) += 1;
    hist(i) = hist(i) * 2 + i;  // a second, vectorized update
    hist.update(1).vectorize(i, 4);
    ScratchDir dir;
    ProgramRun run = run_c_pipeline(dir, Pipeline(hist), {in}, "histogram", kHistogramMain);
    EXPECT_PROGRAM_RAN(run);
    std::vector<int> expected(16, 0);
    for (int y = 0; y < kH; y++) {
        for (int x = 0; x < kW; x++) expected[histogram_input(x, y) / 16]++;
    }
    for (int b = 0; b < 16; b++) expected[b] = expected[b] * 2 + b;
    std::vector<double> v = run.numbers();
    ASSERT_EQ(v.size(), 17u) << run.output;
    EXPECT_EQ(v[0], 0);
    for (int b = 0; b < 16; b++) EXPECT_EQ(v[1 + b], expected[b]) << "bin " << b;
}

// ------------------------------------------------------------------ Tuple output

const char *kTupleMain = R"(
int main() {
    loom::Runtime::Buffer<int32_t> a(13, 5);
    loom::Runtime::Buffer<float> b(13, 5);
    loom::Runtime::Buffer<uint16_t> c(13, 5);
    a.set_min(-3, 2);
    b.set_min(-3, 2);
    c.set_min(-3, 2);
    int rc = tuple_out(a, b, c);
    std::printf("rc %d\n", rc);
    for (int y = 2; y < 7; y++)
        for (int x = -3; x < 10; x++) std::printf("%d %.9g %d\n", a(x, y), b(x, y), (int)c(x, y));
    return 0;
}
)";

TEST(CSource, TupleOutputMatchesTheReference) {
    Var x("x"), y("y");
    Func t("tuple_out");
    t(x, y) = Tuple(x * 3 - y, cast<float>(x + y) / 4.0f, cast<uint16_t>(x * y));
    t.vectorize(x, 4);
    ScratchDir dir;
    ProgramRun run = run_c_pipeline(dir, Pipeline(t), {}, "tuple_out", kTupleMain);
    EXPECT_PROGRAM_RAN(run);
    std::vector<double> v = run.numbers();
    ASSERT_EQ(v.size(), 1u + 3 * 13 * 5) << run.output;
    EXPECT_EQ(v[0], 0);
    size_t n = 1;
    for (int y = 2; y < 7; y++) {
        for (int x = -3; x < 10; x++) {
            EXPECT_EQ(v[n++], x * 3 - y) << x << ", " << y;
            EXPECT_EQ(v[n++], (float)(x + y) / 4.0f) << x << ", " << y;
            EXPECT_EQ(v[n++], (uint16_t)(x * y)) << x << ", " << y;
        }
    }
}

// ------------------------------------------------------------------ uint8 saturating math

uint8_t saturating_input(int x) { return (uint8_t)((x * 53 + 11) % 256); }

const char *kSaturatingMain = R"(
int main() {
    loom::Runtime::Buffer<uint8_t> in(100), sum(100), scaled(100), difference(100), distance(100);
    for (int x = 0; x < 100; x++) in(x) = (uint8_t)((x * 53 + 11) % 256);
    int rc = saturating(in, (uint8_t)100, sum, scaled, difference, distance);
    std::printf("rc %d\n", rc);
    for (int x = 0; x < 100; x++)
        std::printf("%d %d %d %d\n", (int)sum(x), (int)scaled(x), (int)difference(x), (int)distance(x));
    return 0;
}
)";

TEST(CSource, Uint8SaturatingMathMatchesTheReference) {
    ImageParam in(UInt(8), 1, "in");
    Param<uint8_t> add("add");
    Var x("x");
    Func f("saturating");
    f(x) = Tuple(saturating_add(in(x), add), u8_sat(cast<int16_t>(in(x)) * 3 - 100), saturating_sub(in(x), add),
                 absd(in(x), cast<uint8_t>(128)));
    f.vectorize(x, 16);
    ScratchDir dir;
    ProgramRun run = run_c_pipeline(dir, Pipeline(f), {in, add}, "saturating", kSaturatingMain);
    EXPECT_PROGRAM_RAN(run);
    std::vector<double> v = run.numbers();
    ASSERT_EQ(v.size(), 1u + 4 * 100) << run.output;
    EXPECT_EQ(v[0], 0);
    for (int xx = 0; xx < 100; xx++) {
        const int a = saturating_input(xx);
        EXPECT_EQ(v[1 + 4 * xx], std::min(a + 100, 255)) << xx;
        EXPECT_EQ(v[2 + 4 * xx], std::clamp(a * 3 - 100, 0, 255)) << xx;
        EXPECT_EQ(v[3 + 4 * xx], std::max(a - 100, 0)) << xx;
        EXPECT_EQ(v[4 + 4 * xx], std::abs(a - 128)) << xx;
    }
}

// ------------------------------------------------------------------ select / clamp at a boundary

int16_t bounded_input(int x, int y) { return (int16_t)((x * 11 + y * 29) % 160 - 60); }

const char *kBoundedMain = R"(
int main() {
    loom::Runtime::Buffer<int16_t> in(37, 19), out(37 + 4, 19 + 6);
    for (int y = 0; y < 19; y++)
        for (int x = 0; x < 37; x++) in(x, y) = (int16_t)((x * 11 + y * 29) % 160 - 60);
    out.set_min(-2, -3);
    int rc = bounded(in, out);
    std::printf("rc %d\n", rc);
    for (int y = -3; y < 19 + 3; y++)
        for (int x = -2; x < 37 + 2; x++) std::printf("%d\n", (int)out(x, y));
    return 0;
}
)";

TEST(CSource, SelectAndClampAtABoundaryMatchTheReference) {
    ImageParam in(Int(16), 2, "in");
    Var x("x"), y("y");
    Func e = BoundaryConditions::constant_exterior(in, cast<int16_t>(7));
    Func f("bounded");
    f(x, y) = select(e(x, y) > 50, clamp(e(x, y) * cast<int16_t>(3), cast<int16_t>(-100), cast<int16_t>(200)),
                     -e(x, y));
    f.vectorize(x, 8);
    ScratchDir dir;
    ProgramRun run = run_c_pipeline(dir, Pipeline(f), {in}, "bounded", kBoundedMain);
    EXPECT_PROGRAM_RAN(run);
    std::vector<double> v = run.numbers();
    ASSERT_EQ(v.size(), 1u + (kW + 4) * (kH + 6)) << run.output.substr(0, 500);
    EXPECT_EQ(v[0], 0);
    size_t n = 1;
    int mismatches = 0;
    for (int yy = -3; yy < kH + 3; yy++) {
        for (int xx = -2; xx < kW + 2; xx++) {
            const bool inside = xx >= 0 && xx < kW && yy >= 0 && yy < kH;
            const int value = inside ? bounded_input(xx, yy) : 7;
            const int expected = value > 50 ? std::clamp(value * 3, -100, 200) : -value;
            if (v[n++] != expected && mismatches++ < 5) {
                ADD_FAILURE() << "bounded(" << xx << ", " << yy << ") = " << v[n - 1] << ", expected " << expected;
            }
        }
    }
    EXPECT_EQ(mismatches, 0);
}

}  // namespace

// ------------------------------------------------------------------ math, print, require, bounds query

namespace {

float math_input(int x) { return (float)x * 0.75f; }

const char *kMathMain = R"(
static void report(void *, const char *message) { std::printf("error-message %s\n", message); }
static void print_line(void *, const char *message) { std::printf("printed %s", message); }

int main() {
    loom_set_error_handler(report);
    loom_set_print_handler(print_line);
    loom::Runtime::Buffer<float> in(20), out(20);
    for (int x = 0; x < 20; x++) in(x) = (float)x * 0.75f;
    int rc = math(in, out);
    std::printf("rc %d\n", rc);
    for (int x = 0; x < 20; x++) std::printf("%.9g\n", out(x));
    // A bounds query: the input's host is NULL, its dims receive the region read.
    loom_dimension_t dim = {0, 0, 0, 0};
    loom_buffer_t query = {};
    query.type.code = loom_type_float;
    query.type.bits = 32;
    query.type.lanes = 1;
    query.dimensions = 1;
    query.dim = &dim;
    loom::Runtime::Buffer<float> out2(7);
    out2.set_min(3);
    rc = math(&query, out2);
    std::printf("query %d %d %d\n", rc, dim.min, dim.extent);
    // require() fails on a negative input.
    in(5) = -1.0f;
    rc = math(in, out);
    std::printf("require %d\n", rc);
    return 0;
}
)";

TEST(CSource, MathPrintRequireAndBoundsQuery) {
    ImageParam in(Float(32), 1, "in");
    Var x("x");
    Func f("math");
    Expr v = in(x);
    f(x) = require(v >= 0.0f, sqrt(v) + sin(v) * pow(v, 1.5f) - floor(v), "negative input", v);
    f(x) = print_when(x == 3, f(x), "at three");
    ScratchDir dir;
    ProgramRun run = run_c_pipeline(dir, Pipeline(f), {in}, "math", kMathMain);
    EXPECT_PROGRAM_RAN(run);
    const std::string &o = run.output;
    ASSERT_NE(o.find("rc 0\n"), std::string::npos) << o;
    std::istringstream out(o.substr(o.find("rc 0\n") + 5));
    for (int xx = 0; xx < 20; xx++) {
        const float a = math_input(xx);
        const float expected = std::sqrt(a) + std::sin(a) * std::pow(a, 1.5f) - std::floor(a);
        double got = 0;
        out >> got;
        EXPECT_NEAR(got, expected, 1e-5 * std::fabs(expected) + 1e-5) << xx;
    }
    // print_when: the value and the message, once (x == 3), as the LLVM back end prints them.
    EXPECT_NE(o.find("printed 2.126 at three\n"), std::string::npos) << o;  // f(3), "%g"
    EXPECT_NE(o.find("query 0 3 7"), std::string::npos) << o;
    EXPECT_NE(o.find("error-message"), std::string::npos) << o;
    EXPECT_NE(o.find("negative input"), std::string::npos) << o;
    EXPECT_NE(o.find("require -8"), std::string::npos) << o;  // loom_error_code_user_assertion
}

}  // namespace

// ------------------------------------------------------------------ a Module of two functions

namespace {

const char *kTwoFunctionsMain = R"(
int main() {
    loom::Runtime::Buffer<int32_t> in(10), doubled(10), shifted(10);
    for (int x = 0; x < 10; x++) in(x) = x * x;
    int rc1 = first_fn(in, doubled);
    int rc2 = second_fn(in, 5, shifted);
    std::printf("rc %d %d\n", rc1, rc2);
    for (int x = 0; x < 10; x++) std::printf("%d %d\n", doubled(x), shifted(x));
    std::printf("%s %s\n", first_fn_metadata()->name, second_fn_metadata()->name);
    return 0;
}
)";

TEST(CSource, ModuleWithTwoFunctionsInOneSource) {
    ImageParam in(Int(32), 1, "in");
    Param<int32_t> offset("offset");
    Var x("x");
    Func a("a"), b("b");
    a(x) = in(x) * 2;
    b(x) = in(x) + offset;
    b.vectorize(x, 4);
    Module m = a.compile_to_module({in}, "first_fn");
    m.append(b.compile_to_module({in, offset}, "second_fn"));
    ScratchDir dir;
    m.compile({{OutputFileType::c_source, dir.file("two.loom_generated.cpp")},
               {OutputFileType::c_header, dir.file("two.h")}});
    ProgramRun run = build_and_run(dir, compile_c_source_command("two"), "#include \"two.h\"\n", kTwoFunctionsMain);
    EXPECT_PROGRAM_RAN(run);
    std::vector<double> v = run.numbers();
    ASSERT_EQ(v.size(), 2u + 20u) << run.output;
    EXPECT_EQ(v[0], 0);
    EXPECT_EQ(v[1], 0);
    for (int xx = 0; xx < 10; xx++) {
        EXPECT_EQ(v[2 + 2 * xx], xx * xx * 2) << xx;
        EXPECT_EQ(v[3 + 2 * xx], xx * xx + 5) << xx;
    }
    EXPECT_NE(run.output.find("first_fn second_fn"), std::string::npos) << run.output;
}

}  // namespace
