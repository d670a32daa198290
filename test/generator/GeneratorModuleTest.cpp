// GeneratorBase::build_module (Halide's): a generator lowered once into a
// Module, whose files are written later, linked into a C++ program and
// compared with a C++ loop; and its errors carry the generator's name.

#include <gtest/gtest.h>

#include <algorithm>

#include "aot/AotTestSupport.h"
#include "gens/TestGenerators.h"
#include "lang/LangTestUtil.h"
#include "loom/Loom.h"

using namespace loom;

TEST(GeneratorModule, BuildModuleThenCompileALibraryThatMatchesTheReference) {
    std::unique_ptr<GeneratorBase> g = GeneratorRegistry::create("brighten");
    g->set_generator_param("offset", "3");
    g->set_generator_param("mode", "multiply");
    g->set_generator_param("vectorize", "false");
    Module m = g->build_module();
    EXPECT_EQ(m.name(), "brighten");  // the generator's name by default
    EXPECT_EQ(m.target(), g->get_target());
    const std::vector<Argument> expected = g->arguments();
    ASSERT_EQ(m.functions().size(), 1u);
    const std::vector<Argument> args = m.functions()[0].args;  // functions() returns a copy
    ASSERT_EQ(args.size(), expected.size());
    for (size_t i = 0; i < args.size(); i++) {
        EXPECT_EQ(args[i].name, expected[i].name);
        EXPECT_EQ(args[i].kind, expected[i].kind);
        EXPECT_EQ(args[i].type, expected[i].type);
    }

    loom_test::ScratchDir dir;
    m.compile({{OutputFileType::static_library, dir.file("brighten.a")},
               {OutputFileType::c_header, dir.file("brighten.h")}});
    loom_test::write_file(dir.file("main.cpp"), R"(
#include <algorithm>
#include <cstdio>
#include "brighten.h"
#include "loom/runtime/Buffer.h"
int main() {
    loom::Runtime::Buffer<uint8_t> in(21, 6), out(21, 6);
    for (int y = 0; y < 6; y++)
        for (int x = 0; x < 21; x++) in(x, y) = (uint8_t)(x * 11 + y * 5);
    int rc = brighten(in, 0.5f, out);
    int mismatches = 0;
    for (int y = 0; y < 6; y++)
        for (int x = 0; x < 21; x++) {
            float v = (float)in(x, y) * 0.5f;
            v = v * 3.0f;
            mismatches += out(x, y) != (uint8_t)std::min(std::max(v, 0.0f), 255.0f);
        }
    std::printf("rc %d mismatches %d\n", rc, mismatches);
    return rc == 0 && mismatches == 0 ? 0 : 1;
}
)");
    loom_test::CommandResult build = loom_test::run_command(
        "cd '" + dir.path() + "' && c++ -std=c++17 -O1 -I'" + loom_test::repository_root() +
        "/include' -o main main.cpp brighten.a -lpthread -ldl -lm 2>&1");
    ASSERT_EQ(build.exit_code, 0) << build.output;
    loom_test::CommandResult run = loom_test::run_command("'" + dir.file("main") + "' 2>&1");
    EXPECT_EQ(run.exit_code, 0) << run.output;
    EXPECT_EQ(run.output, "rc 0 mismatches 0\n");
}

TEST(GeneratorModule, ErrorsNameTheGenerator) {
    std::unique_ptr<GeneratorBase> g = GeneratorRegistry::create("brighten");
    EXPECT_COMPILE_ERROR(g->build_module("not-a-c-name"), "Generator 'brighten'", "not-a-c-name");
    std::unique_ptr<GeneratorBase> open = GeneratorRegistry::create("func_inputs");
    EXPECT_COMPILE_ERROR(open->build_module(), "Generator 'func_inputs'", "Input 'in' has no type yet");
}
