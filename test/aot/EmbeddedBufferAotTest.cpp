// A concrete Buffer that a pipeline reads directly and that is not in the
// argument list is embedded in the object, as in Halide: the library holds a
// dense copy of its elements (as they were at compile time) and the
// function reads it itself, so the caller passes only the other inputs. A
// C++ program linked with the library is compared with C++ loops; a Buffer
// listed in args stays an argument; an ImageParam left out is still an
// error; a Buffer without host memory can't be embedded.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "AotTestSupport.h"
#include "loom/Loom.h"

using namespace loom;
using namespace loom_test;

namespace {

constexpr int N = 40;

const char *kProgram = R"(
#include <cstdio>
#include "embedded_lookup.h"
#include "embedded_pair.h"
#include "loom/runtime/Buffer.h"
int main() {
    loom::Runtime::Buffer<int32_t> idx(N);
    for (int x = 0; x < N; x++) idx(x) = (x * 7) % 23 - 11;
    loom::Runtime::Buffer<float> out(N);
    int rc = embedded_lookup(idx, out);
    std::printf("rc %d\n", rc);
    for (int x = 0; x < N; x++) std::printf("%d %g\n", x, out(x));
    loom::Runtime::Buffer<int32_t> first(N), second(N);
    rc = embedded_first(first) | embedded_second(second);
    std::printf("rc %d\n", rc);
    for (int x = 0; x < N; x++) std::printf("%d %d %d\n", x, first(x), second(x));
    return 0;
}
)";

int16_t lut_value(int i) { return (int16_t)(i * i - 3); }
float weight_value(int x, int y) { return (float)(y * 6 + x) * 0.5f; }

}  // namespace

TEST(EmbeddedBufferAot, ABufferReadDirectlyIsEmbeddedInTheLibrary) {
    ASSERT_TRUE(have_tool("c++") && have_tool("nm")) << kToolsHint;
    const Target t = get_target_from_environment();
    // A 1-D table with min -8, and a cropped 2-D view (not dense: rows of 6,
    // x in [1, 5)), both read directly.
    Buffer<int16_t> lut({16}, "emb_lut");
    lut.set_min({-8});
    for (int i = -8; i < 8; i++) lut(i) = lut_value(i);
    Buffer<float> wide({6, 3}, "emb_wide");
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 6; x++) wide(x, y) = weight_value(x, y);
    Buffer<float> weights = wide.cropped(0, 1, 4);
    ImageParam idx(Int(32), 1, "idx");
    Var x("x");
    Func lookup("embedded_lookup");
    lookup(x) = cast<float>(lut(clamp(idx(x), -8, 7))) * weights(1 + x % 4, x % 3);

    ScratchDir dir;
    lookup.compile_to_static_library(dir.file("embedded_lookup"), {idx}, "embedded_lookup", t);
    // The same table embedded by two functions of one Module.
    Func first("embedded_first"), second("embedded_second");
    first(x) = cast<int32_t>(lut(x % 16 - 8)) + 1;
    second(x) = cast<int32_t>(lut(7 - x % 16)) * 2;
    Module pair("embedded_pair", t);
    pair.append(first.compile_to_module({}, "embedded_first", t));
    pair.append(second.compile_to_module({}, "embedded_second", t));
    pair.compile({{OutputFileType::static_library, dir.file("embedded_pair.a")},
                  {OutputFileType::c_header, dir.file("embedded_pair.h")}});
    // The copy is taken at compile time.
    for (int i = -8; i < 8; i++) lut(i) = -1;

    const std::string header = read_file(dir.file("embedded_lookup.h"));
    EXPECT_NE(header.find("int embedded_lookup(struct loom_buffer_t *idx, struct loom_buffer_t *embedded_lookup);"),
              std::string::npos)
        << header;
    EXPECT_EQ(header.find("emb_lut"), std::string::npos) << header;
    // Private to the object: no symbol of the Buffer's name is exported.
    CommandResult nm = run_command("nm -g '" + dir.file("embedded_lookup.a") + "' 2>&1");
    EXPECT_EQ(nm.exit_code, 0) << nm.output;
    EXPECT_EQ(nm.output.find("emb_"), std::string::npos) << nm.output;

    write_file(dir.file("main.cpp"), "enum { N = " + std::to_string(N) + " };\n" + kProgram);
    CommandResult build = run_command("cd '" + dir.path() + "' && c++ -std=c++17 -O1 -I'" + repository_root() +
                                      "/include' -o main main.cpp embedded_lookup.a embedded_pair.a -lpthread -ldl "
                                      "-lm 2>&1");
    ASSERT_EQ(build.exit_code, 0) << build.output;
    CommandResult run = run_command("timeout 60 '" + dir.file("main") + "' 2>&1");
    ASSERT_EQ(run.exit_code, 0) << run.output;

    std::string expected = "rc 0\n";
    char line[128];
    for (int i = 0; i < N; i++) {
        const int at = std::min(std::max((i * 7) % 23 - 11, -8), 7);
        std::snprintf(line, sizeof line, "%d %g\n", i, (float)lut_value(at) * weight_value(1 + i % 4, i % 3));
        expected += line;
    }
    expected += "rc 0\n";
    for (int i = 0; i < N; i++) {
        std::snprintf(line, sizeof line, "%d %d %d\n", i, lut_value(i % 16 - 8) + 1, lut_value(7 - i % 16) * 2);
        expected += line;
    }
    EXPECT_EQ(run.output, expected);
}

TEST(EmbeddedBufferAot, ABufferInTheArgumentListStaysAnArgument) {
    Buffer<int32_t> table({8}, "listed_table");
    Var x("x");
    Func f("listed_f");
    f(x) = table(x % 8) + 1;
    ScratchDir dir;
    f.compile_to_header(dir.file("listed.h"), {table}, "listed", get_target_from_environment());
    const std::string header = read_file(dir.file("listed.h"));
    EXPECT_NE(header.find("int listed(struct loom_buffer_t *listed_table, struct loom_buffer_t *listed_f);"),
              std::string::npos)
        << header;
}

TEST(EmbeddedBufferAot, Errors) {
    const Target t = get_target_from_environment();
    auto message = [](auto &&call) -> std::string {
        try {
            call();
        } catch (const CompileError &e) {
            return e.what();
        }
        return "<no error>";
    };
    ScratchDir dir;
    // An ImageParam is never embedded: it has no contents at compile time.
    ImageParam in(Int(32), 1, "emb_err_in");
    in.set(Buffer<int32_t>({4}));
    Var x("x");
    Func f("emb_err_f");
    f(x) = in(x);
    std::string e = message([&] { f.compile_to_static_library(dir.file("err"), {}, "emb_err", t); });
    EXPECT_NE(e.find("uses input buffer"), std::string::npos) << e;
    EXPECT_NE(e.find("'emb_err_in'"), std::string::npos) << e;
    EXPECT_NE(e.find("Add it to args"), std::string::npos) << e;

    // A Buffer without host memory.
    Buffer<int32_t> gone({4}, "emb_gone");
    Func g("emb_err_g");
    g(x) = gone(x % 4);
    gone.deallocate();
    e = message([&] { g.compile_to_static_library(dir.file("gone"), {}, "emb_gone_fn", t); });
    EXPECT_NE(e.find("Buffer 'emb_gone' has no host memory to embed"), std::string::npos) << e;
    EXPECT_NE(e.find("add it to args"), std::string::npos) << e;
    EXPECT_FALSE(file_exists(dir.file("gone.a")));
}
