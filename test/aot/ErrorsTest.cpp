// User mistakes in compile_to_* raise a CompileError that names the thing to
// fix; nothing is written when any requested file cannot be made.

#include <gtest/gtest.h>

#include "AotPipelines.h"
#include "AotTestSupport.h"

using namespace loom;
using namespace loom_test;

namespace {

/** The CompileError message fn throws, or "<no error>". */
template<typename F>
std::string compile_error(F fn) {
    try {
        fn();
    } catch (const CompileError &e) {
        return e.what();
    }
    return "<no error>";
}

#define EXPECT_CONTAINS(haystack, needle) \
    EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "in: " << (haystack)

const Target kX86("x86-64-linux");

TEST(AotErrors, MissingParamIsNamedWithTheFunction) {
    ScratchDir dir;
    BrightenPipeline p;
    const std::string m = compile_error(
        [&] { p.out.compile_to_object(dir.file("b.o"), {p.input, p.scale}, "my_brighten", kX86); });
    EXPECT_CONTAINS(m, "Param 'offset'");
    EXPECT_CONTAINS(m, "my_brighten");
    EXPECT_CONTAINS(m, "Add it to args");
    EXPECT_FALSE(file_exists(dir.file("b.o")));
}

TEST(AotErrors, MissingImageParamIsNamed) {
    ScratchDir dir;
    BrightenPipeline p;
    const std::string m =
        compile_error([&] { p.out.compile_to_static_library(dir.file("b"), {p.scale, p.offset}, "b", kX86); });
    EXPECT_CONTAINS(m, "input buffer");
    EXPECT_CONTAINS(m, "'input'");
    EXPECT_FALSE(file_exists(dir.file("b.a")));
    EXPECT_FALSE(file_exists(dir.file("b.h")));
}

TEST(AotErrors, FunctionNameMustBeACIdentifier) {
    ScratchDir dir;
    BrightenPipeline p;
    for (const char *bad : {"3d", "my-blur", "a.b", "int", "", "loom_blur"}) {
        if (std::string(bad).empty()) continue;  // "" means the default name
        const std::string m =
            compile_error([&] { p.out.compile_to_header(dir.file("b.h"), p.args(), bad, kX86); });
        EXPECT_CONTAINS(m, std::string("'") + bad + "'");
    }
    // The default is the Func's name, which must then be usable.
    Func odd("double");  // a C keyword
    Var x("x");
    odd(x) = x;
    EXPECT_CONTAINS(compile_error([&] { odd.compile_to_header(dir.file("o.h"), {}, "", kX86); }), "'double'");
    EXPECT_EQ(compile_error([&] { odd.compile_to_header(dir.file("o.h"), {}, "odd_name", kX86); }), "<no error>");
}

TEST(AotErrors, DuplicateArgumentNames) {
    ScratchDir dir;
    BrightenPipeline p;
    EXPECT_CONTAINS(compile_error([&] {
                        p.out.compile_to_header(dir.file("b.h"), {p.input, p.scale, p.scale, p.offset}, "b", kX86);
                    }),
                    "named 'scale'");
    Param<int> impostor("scale");
    EXPECT_CONTAINS(compile_error([&] {
                        p.out.compile_to_header(dir.file("b.h"), {p.input, impostor, p.offset}, "b", kX86);
                    }),
                    "'scale'");
    ImageParam clash(Float(32), 1, "brighten");  // the output's name
    EXPECT_CONTAINS(compile_error([&] {
                        p.out.compile_to_header(dir.file("b.h"), {p.input, p.scale, p.offset, clash}, "b", kX86);
                    }),
                    "'brighten'");
}

TEST(AotErrors, UnwritablePathIsNamed) {
    BrightenPipeline p;
    const std::string missing_dir = "/nonexistent_loom_dir/sub";
    for (OutputFileType kind : {OutputFileType::object, OutputFileType::c_header, OutputFileType::static_library,
                                OutputFileType::assembly, OutputFileType::llvm_assembly, OutputFileType::stmt}) {
        const std::string path = missing_dir + "/out" + output_file_info().at(kind).extension;
        EXPECT_CONTAINS(compile_error([&] { p.out.compile_to({{kind, path}}, p.args(), "b", kX86); }), path);
    }
}

TEST(AotErrors, UnknownOutputFileTypeAndEmptyRequest) {
    ScratchDir dir;
    BrightenPipeline p;
    EXPECT_CONTAINS(compile_error([&] {
                        p.out.compile_to({{OutputFileType(42), dir.file("x")}}, p.args(), "b", kX86);
                    }),
                    "unknown OutputFileType 42");
    EXPECT_CONTAINS(compile_error([&] { p.out.compile_to({}, p.args(), "b", kX86); }), "no output files");
    EXPECT_FALSE(file_exists(dir.file("x")));
}

TEST(AotErrors, StaticLibraryNeedsARuntimeForTheTarget) {
    ScratchDir dir;
    BrightenPipeline p;
    const std::string m = compile_error([&] {
        p.out.compile_to({{OutputFileType::object, dir.file("b.o")}, {OutputFileType::static_library, dir.file("b.a")}},
                         p.args(), "b", Target("x86-64-windows"));
    });
    EXPECT_CONTAINS(m, "No Loom runtime for target x86-64-windows");
    EXPECT_FALSE(file_exists(dir.file("b.o"))) << "nothing is written when one output fails";
}

TEST(AotErrors, UndefinedPipelineAndArgument) {
    ScratchDir dir;
    Func undefined("nothing");
    EXPECT_CONTAINS(compile_error([&] { undefined.compile_to_object(dir.file("n.o"), {}, "n", kX86); }), "nothing");
    Pipeline empty;
    EXPECT_CONTAINS(compile_error([&] { empty.compile_to_object(dir.file("n.o"), {}, "n", kX86); }), "undefined");
    BrightenPipeline p;
    EXPECT_CONTAINS(compile_error([&] {
                        p.out.compile_to_object(dir.file("n.o"), {p.input, Argument(), p.scale, p.offset}, "n", kX86);
                    }),
                    "Argument 1");
}

}  // namespace
