// LLVM bitcode (compile_to_bitcode, OutputFileType::bitcode, Module::compile,
// the generator driver's `-e bitcode`) and the driver's `-e c_source`: the
// .bc parses with llvm-dis-19, compiles with clang-19 into an object that,
// linked with a Loom runtime, computes what a C++ reference loop does; the
// driver writes both files under their names.

#include <gtest/gtest.h>

#include <sstream>

#include "CSourceTestSupport.h"
#include "lang/GeneratorDriver.h"
#include "loom/Generator.h"

using namespace loom;
using namespace loom_test;

namespace {

/** out(x) = in(x) * factor + x, vectorized. */
class CSourceScale : public Generator<CSourceScale> {
public:
    Input<Buffer<int32_t>> input{"input", 1};
    Input<int32_t> factor{"factor"};
    Output<Buffer<int32_t>> output{"output", 1};
    void generate() { output(x) = input(x) * factor + x; }
    void schedule() { output.vectorize(x, 4); }
    Var x{"x"};
};

}  // namespace

LOOM_REGISTER_GENERATOR(CSourceScale, c_source_scale)

namespace {

const char *kScaleMain = R"(
int main() {
    loom::Runtime::Buffer<int32_t> in(23), out(23);
    for (int x = 0; x < 23; x++) in(x) = x * x - 40;
    int rc = scale(in, -7, out);
    std::printf("rc %d\n", rc);
    for (int x = 0; x < 23; x++) std::printf("%d\n", out(x));
    return 0;
}
)";

void expect_scale_output(const ProgramRun &run) {
    ASSERT_TRUE(run.built) << run.log;
    ASSERT_EQ(run.exit_code, 0) << run.output;
    std::vector<double> v = run.numbers();
    ASSERT_EQ(v.size(), 24u) << run.output;
    EXPECT_EQ(v[0], 0);
    for (int x = 0; x < 23; x++) EXPECT_EQ(v[1 + x], (x * x - 40) * -7 + x) << x;
}

struct ScalePipeline {
    ImageParam in{Int(32), 1, "in"};
    Param<int32_t> factor{"factor"};
    Var x{"x"};
    Func out{"scale"};
    ScalePipeline() {
        out(x) = in(x) * factor + x;
        out.vectorize(x, 4);
    }
    std::vector<Argument> args() const { return {in, factor}; }
};

TEST(Bitcode, ParsesCompilesAndMatchesTheReference) {
    ScalePipeline p;
    ScratchDir dir;
    p.out.compile_to_bitcode(dir.file("scale.bc"), p.args(), "scale");
    p.out.compile_to_header(dir.file("scale.h"), p.args(), "scale");
    const std::string bytes = read_file(dir.file("scale.bc"));
    ASSERT_GE(bytes.size(), 4u);
    EXPECT_EQ(bytes.substr(0, 4), std::string("BC\xC0\xDE", 4)) << "not a raw bitcode file";
    CommandResult dis = run_command("llvm-dis-19 '" + dir.file("scale.bc") + "' -o - 2>&1");
    ASSERT_EQ(dis.exit_code, 0) << dis.output;
    EXPECT_NE(dis.output.find("define i32 @scale("), std::string::npos);
    EXPECT_NE(dis.output.find("@scale_argv("), std::string::npos);
    EXPECT_NE(dis.output.find("@scale_metadata("), std::string::npos);
    // The pipeline only: the runtime comes from elsewhere.
    EXPECT_EQ(dis.output.find("define weak_odr"), std::string::npos);
    ProgramRun run = build_and_run(dir, "clang-19 -c scale.bc -o generated.o", "#include \"scale.h\"\n", kScaleMain);
    expect_scale_output(run);
}

TEST(Bitcode, CSourceAndBitcodeTogetherThroughModuleCompile) {
    ScalePipeline p;
    ScratchDir dir;
    Module m = p.out.compile_to_module(p.args(), "scale");
    m.compile({{OutputFileType::bitcode, dir.file("scale.bc")},
               {OutputFileType::c_source, dir.file("scale.loom_generated.cpp")},
               {OutputFileType::c_header, dir.file("scale.h")}});
    CommandResult dis = run_command("llvm-dis-19 '" + dir.file("scale.bc") + "' -o /dev/null 2>&1");
    EXPECT_EQ(dis.exit_code, 0) << dis.output;
    ProgramRun run = build_and_run(dir, compile_c_source_command("scale"), "#include \"scale.h\"\n", kScaleMain);
    expect_scale_output(run);
}

TEST(Bitcode, PipelineCompileToBitcodeAndC) {
    ScalePipeline p;
    ScratchDir dir;
    Pipeline(p.out).compile_to_bitcode(dir.file("scale.bc"), p.args(), "scale");
    Pipeline(p.out).compile_to_c(dir.file("scale.loom_generated.cpp"), p.args(), "scale");
    EXPECT_EQ(read_file(dir.file("scale.bc")).substr(0, 2), "BC");
    EXPECT_NE(read_file(dir.file("scale.loom_generated.cpp")).find("extern \"C\" int scale("), std::string::npos);
}

TEST(GeneratorDriverEmits, BitcodeAndCSource) {
    ScratchDir dir;
    using namespace loom::internal;
    GeneratorCommand command = parse_generator_command(
        {"-g", "c_source_scale", "-o", dir.path(), "-e", "bitcode,c_source,h", "-f", "scale"});
    std::ostringstream out, err;
    ASSERT_EQ(run_generator_command(command, out, err), 0) << err.str();
    // The base name is the function's (-f): scale.bc, scale.loom_generated.cpp.
    EXPECT_EQ(read_file(dir.file("scale.bc")).substr(0, 2), "BC");
    ASSERT_TRUE(file_exists(dir.file("scale.loom_generated.cpp")));
    ProgramRun run = build_and_run(dir, compile_c_source_command("scale"), "#include \"scale.h\"\n", kScaleMain);
    expect_scale_output(run);
}

TEST(GeneratorDriverEmits, UnknownKindListsTheNewOnes) {
    using namespace loom::internal;
    try {
        parse_generator_command({"-g", "c_source_scale", "-o", "d", "-e", "c_sauce"});
        ADD_FAILURE() << "no error for an unknown emit";
    } catch (const CompileError &e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("c_source"), std::string::npos) << message;
        EXPECT_NE(message.find("bitcode"), std::string::npos) << message;
    }
}

}  // namespace
