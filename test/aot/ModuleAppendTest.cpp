// Module::append (Halide's): a Module holding two pipelines, compiled into one
// static library (one runtime) and one C header, linked into a C++ program
// (compiled with c++ at test time) that calls both functions and compares
// them with plain C++ loops; the object and stmt files hold both; Buffers
// appended to a Module become globals of the library the program passes to
// its functions; misuse is a CompileError.

#include <gtest/gtest.h>

#include <sstream>

#include "AotTestSupport.h"
#include "loom/Loom.h"

using namespace loom;
using namespace loom_test;

namespace {

constexpr int W = 23, H = 13;

/** blur(x, y) = (in(x - 1, y) + in(x, y) + in(x + 1, y)) / 3 on the interior, uint16. */
Module blur_module(const Target &t) {
    ImageParam in(UInt(16), 2, "in");
    Func clamped("clamped"), blur("blur");
    Var x("x"), y("y");
    clamped = BoundaryConditions::repeat_edge(in);
    blur(x, y) = (clamped(x - 1, y) + clamped(x, y) + clamped(x + 1, y)) / 3;
    blur.vectorize(x, 8);
    return blur.compile_to_module({in}, "blur", t);
}

/** scale(x) = in(x) * k + bias, float; a Param of each kind. */
Module scale_module(const Target &t) {
    ImageParam in(Float(32), 1, "in");
    Param<float> k("k");
    Param<int> bias("bias");
    Func scale("scale");
    Var x("x");
    scale(x) = in(x) * k + cast<float>(bias);
    scale.parallel(x);
    return scale.compile_to_module({in, k, bias}, "scale", t);
}

const char *kProgram = R"(
#include <algorithm>
#include <cstdio>
#include "filters.h"
#include "loom/runtime/Buffer.h"
int main() {
    loom::Runtime::Buffer<uint16_t> img(WIDTH, HEIGHT), blurred(WIDTH, HEIGHT);
    for (int y = 0; y < HEIGHT; y++)
        for (int x = 0; x < WIDTH; x++) img(x, y) = (uint16_t)((x * 97 + y * 31) % 1000);
    int rc_blur = blur(img, blurred);
    int blur_mismatches = 0;
    for (int y = 0; y < HEIGHT; y++)
        for (int x = 0; x < WIDTH; x++) {
            int l = std::max(x - 1, 0), r = std::min(x + 1, WIDTH - 1);
            uint16_t expected = (uint16_t)((img(l, y) + img(x, y) + img(r, y)) / 3);
            blur_mismatches += blurred(x, y) != expected;
        }
    loom::Runtime::Buffer<float> v(100), scaled(100);
    for (int x = 0; x < 100; x++) v(x) = x * 0.25f - 7.0f;
    int rc_scale = scale(v, 1.5f, -3, scaled);
    int scale_mismatches = 0;
    for (int x = 0; x < 100; x++) scale_mismatches += scaled(x) != v(x) * 1.5f + (float)-3;
    std::printf("rc %d %d mismatches %d %d\n", rc_blur, rc_scale, blur_mismatches, scale_mismatches);
    return 0;
}
)";

}  // namespace

TEST(ModuleAppend, TwoPipelinesInOneStaticLibraryAndHeader) {
    const Target t = get_target_from_environment();
    Module filters("filters", t);
    EXPECT_EQ(filters.name(), "filters");
    EXPECT_TRUE(filters.functions().empty());
    filters.append(blur_module(t));
    filters.append(scale_module(t));
    const std::vector<ModuleFunction> &fns = filters.functions();
    ASSERT_EQ(fns.size(), 2u);
    EXPECT_EQ(fns[0].name, "blur");
    EXPECT_EQ(fns[1].name, "scale");
    ASSERT_EQ(fns[1].args.size(), 4u);
    EXPECT_EQ(fns[1].args[1].name, "k");
    EXPECT_EQ(filters.get_function_by_name("scale").args[2].type, Int(32));

    ScratchDir dir;
    filters.compile({{OutputFileType::static_library, dir.file("filters.a")},
                     {OutputFileType::c_header, dir.file("filters.h")},
                     {OutputFileType::stmt, dir.file("filters.stmt")}});
    const std::string header = read_file(dir.file("filters.h"));
    EXPECT_NE(header.find("#ifndef LOOM_GENERATED_FILTERS_H"), std::string::npos) << header;
    EXPECT_NE(header.find("int blur(struct loom_buffer_t *in, struct loom_buffer_t *blur);"), std::string::npos)
        << header;
    EXPECT_NE(header.find("int scale(struct loom_buffer_t *in, float k, int32_t bias, struct loom_buffer_t *scale);"),
              std::string::npos)
        << header;
    EXPECT_NE(header.find("const struct loom_pipeline_metadata_t *scale_metadata(void);"), std::string::npos);
    const std::string stmt = read_file(dir.file("filters.stmt"));
    EXPECT_EQ(stmt, fns[0].stmt + "\n" + fns[1].stmt);

    // One archive member, with both functions and one runtime.
    CommandResult nm = run_command("nm '" + dir.file("filters.a") + "' 2>&1");
    EXPECT_NE(nm.output.find("filters.o:"), std::string::npos) << nm.output << "\n" << kToolsHint;
    for (const char *symbol : {" T blur\n", " T scale\n", " T blur_argv\n", " T scale_metadata\n"}) {
        EXPECT_NE(nm.output.find(symbol), std::string::npos) << symbol << "\n" << nm.output;
    }

    write_file(dir.file("main.cpp"), kProgram);
    CommandResult build = run_command("cd '" + dir.path() + "' && c++ -std=c++17 -O1 -DWIDTH=" + std::to_string(W) +
                                      " -DHEIGHT=" + std::to_string(H) + " -I'" + repository_root() +
                                      "/include' -o main main.cpp filters.a -lpthread -ldl -lm 2>&1");
    ASSERT_EQ(build.exit_code, 0) << build.output << "\n" << kToolsHint;
    CommandResult run = run_command("'" + dir.file("main") + "' 2>&1");
    EXPECT_EQ(run.exit_code, 0) << run.output;
    EXPECT_EQ(run.output, "rc 0 0 mismatches 0 0\n");
}

TEST(ModuleAppend, CopiesShareTheFunctionsAsInHalide) {
    const Target t = get_target_from_environment();
    Module a = blur_module(t);
    Module copy = a;
    const std::vector<ModuleFunction> &before = a.functions();
    ASSERT_EQ(before.size(), 1u);
    copy.append(scale_module(t));
    EXPECT_EQ(a.functions().size(), 2u);  // the same Module
    EXPECT_EQ(&before, &a.functions());   // the same vector, made anew
    EXPECT_EQ(a.name(), "blur");
    // Compiling the combined Module to an object keeps both.
    ScratchDir dir;
    a.compile({{OutputFileType::object, dir.file("both.o")}});
    CommandResult nm = run_command("nm '" + dir.file("both.o") + "' 2>&1");
    EXPECT_NE(nm.output.find(" T blur\n"), std::string::npos) << nm.output << "\n" << kToolsHint;
    EXPECT_NE(nm.output.find(" T scale\n"), std::string::npos) << nm.output;
}

TEST(ModuleAppend, MistakesAreCompileErrors) {
    const Target t = get_target_from_environment();
    Module filters("filters", t);
    auto message = [](auto &&call) -> std::string {
        try {
            call();
        } catch (const CompileError &e) {
            return e.what();
        }
        return "<no error>";
    };
    EXPECT_NE(message([&] { filters.append(Module()); }).find("undefined"), std::string::npos);
    EXPECT_NE(message([&] { filters.compile({{OutputFileType::object, "/tmp/none.o"}}); })
                  .find("Module 'filters' holds no functions"),
              std::string::npos);
    filters.append(blur_module(t));
    std::string m = message([&] { filters.append(blur_module(t)); });
    EXPECT_NE(m.find("already holds a function 'blur'"), std::string::npos) << m;
    m = message([&] { filters.append(filters); });
    EXPECT_NE(m.find("appended to itself"), std::string::npos) << m;
    m = message([&] { filters.append(scale_module(Target("arm-64-linux"))); });
    EXPECT_NE(m.find("was lowered for arm-64-linux"), std::string::npos) << m;
    // A function named like another's _argv symbol would define it twice.
    Func argv_clash("blur_argv");
    Var x("x");
    argv_clash(x) = x;
    m = message([&] { filters.append(argv_clash.compile_to_module({}, "blur_argv", t)); });
    EXPECT_NE(m.find("clash"), std::string::npos) << m;
    filters.append(scale_module(t));
    m = message([&] { filters.compile({{OutputFileType::stmt_html, "/tmp/none.html"}}); });
    EXPECT_NE(m.find("holds 2 functions, and stmt_html shows one"), std::string::npos) << m;
    m = message([&] { Module bad("not a name", t); });
    EXPECT_NE(m.find("'not a name' is not a C identifier"), std::string::npos) << m;
    EXPECT_EQ(filters.functions().size(), 2u);  // the failed appends added nothing
    m = message([&] { (void)filters.get_function_by_name("sharpen"); });
    EXPECT_NE(m.find("has no function 'sharpen'; it holds 'blur', 'scale'"), std::string::npos) << m;
}

namespace {

const char *kTablesProgram = R"(
#include <cstdio>
#include "tables.h"
#include "loom/runtime/Buffer.h"
int main() {
    // table and weights are globals of tables.a (Module::append(Buffer)).
    std::printf("table %d %d %d %d\n", table.dimensions, table.dim[0].min, table.dim[0].extent, table.dim[0].stride);
    std::printf("weights %d %d %d %d\n", weights.dimensions, weights.dim[1].min, weights.dim[1].extent,
                weights.dim[1].stride);
    loom::Runtime::Buffer<int32_t> idx(40);
    loom::Runtime::Buffer<int16_t> out(40);
    for (int x = 0; x < 40; x++) idx(x) = x - 20;
    int rc = lookup(&table, idx, out);
    int mismatches = 0;
    for (int x = 0; x < 40; x++) {
        int i = idx(x) < -8 ? -8 : idx(x) > 7 ? 7 : idx(x);
        mismatches += out(x) != (int16_t)((i * i - 3) * 2);
    }
    const float *w = (const float *)weights.host;
    float sum = 0;
    for (int i = 0; i < 12; i++) sum += w[i] * (float)(i + 1);
    std::printf("rc %d mismatches %d weights %g\n", rc, mismatches, sum);
    return 0;
}
)";

}  // namespace

TEST(ModuleAppend, BuffersBecomeGlobalsOfTheLibrary) {
    const Target t = get_target_from_environment();
    ImageParam lut(Int(16), 1, "lut");
    ImageParam idx(Int(32), 1, "idx");
    Func lookup("lookup");
    Var x("x");
    lookup(x) = lut(clamp(idx(x), -8, 7)) * cast<int16_t>(2);
    Module tables("tables", t);
    tables.append(lookup.compile_to_module({lut, idx}, "lookup", t));

    Buffer<int16_t> table({16}, "table");
    table.set_min({-8});
    for (int i = -8; i < 8; i++) table(i) = (int16_t)(i * i - 3);
    tables.append(table);
    // A 4 x 3 view of a 6 x 3 buffer: embedded dense, rows of 4.
    Buffer<float> wide({6, 3}, "wide");
    for (int y = 0; y < 3; y++)
        for (int xx = 0; xx < 6; xx++) wide(xx, y) = (float)(y * 6 + xx);
    Buffer<float> weights = wide.cropped(0, 1, 4);
    weights.set_name("weights");
    tables.append(weights);
    ASSERT_EQ(tables.buffers().size(), 2u);
    EXPECT_EQ(tables.buffers()[0].name(), "table");

    ScratchDir dir;
    tables.compile({{OutputFileType::static_library, dir.file("tables.a")},
                    {OutputFileType::c_header, dir.file("tables.h")}});
    const std::string header = read_file(dir.file("tables.h"));
    EXPECT_NE(header.find("extern struct loom_buffer_t table;"), std::string::npos) << header;
    EXPECT_NE(header.find("extern struct loom_buffer_t weights;"), std::string::npos) << header;
    CommandResult nm = run_command("nm '" + dir.file("tables.a") + "' 2>&1");
    EXPECT_NE(nm.output.find(" D table\n"), std::string::npos) << nm.output << "\n" << kToolsHint;

    write_file(dir.file("main.cpp"), kTablesProgram);
    CommandResult build = run_command("cd '" + dir.path() + "' && c++ -std=c++17 -O1 -I'" + repository_root() +
                                      "/include' -o main main.cpp tables.a -lpthread -ldl -lm 2>&1");
    ASSERT_EQ(build.exit_code, 0) << build.output << "\n" << kToolsHint;
    CommandResult run = run_command("'" + dir.file("main") + "' 2>&1");
    EXPECT_EQ(run.exit_code, 0) << run.output;
    float sum = 0;
    for (int y = 0; y < 3; y++)
        for (int xx = 1; xx < 5; xx++) sum += (float)(y * 6 + xx) * (float)(y * 4 + (xx - 1) + 1);
    char expected[128];
    std::snprintf(expected, sizeof expected, "rc 0 mismatches 0 weights %g\n", sum);
    EXPECT_EQ(run.output, "table 1 -8 16 1\nweights 2 0 3 4\n" + std::string(expected));
}

TEST(ModuleAppend, BufferMistakesAreCompileErrors) {
    const Target t = get_target_from_environment();
    Module m = blur_module(t);
    auto message = [](auto &&call) -> std::string {
        try {
            call();
        } catch (const CompileError &e) {
            return e.what();
        }
        return "<no error>";
    };
    std::string e = message([&] { m.append(Buffer<>()); });
    EXPECT_NE(e.find("the Buffer is undefined"), std::string::npos) << e;
    e = message([&] { m.append(Buffer<uint8_t>({4}, "not a name")); });
    EXPECT_NE(e.find("must be a C identifier"), std::string::npos) << e;
    e = message([&] { m.append(Buffer<uint8_t>({4}, "loom_table")); });
    EXPECT_NE(e.find("not starting with 'loom_'"), std::string::npos) << e;
    e = message([&] { m.append(Buffer<uint8_t>({4}, "blur_argv")); });
    EXPECT_NE(e.find("already holds a function 'blur', whose symbols clash with the appended buffer 'blur_argv'"),
              std::string::npos)
        << e;
    m.append(Buffer<uint8_t>({4}, "table"));
    e = message([&] { m.append(Buffer<uint8_t>({2}, "table")); });
    EXPECT_NE(e.find("already holds a buffer 'table'"), std::string::npos) << e;
    EXPECT_EQ(m.buffers().size(), 1u);
}
