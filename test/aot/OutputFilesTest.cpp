// Each kind of ahead-of-time output exists and is what it claims to be: ELF
// objects for x86-64 and AArch64 (checked with readelf / llvm-objdump), the
// C header (compiled as C and C++), LLVM assembly (parsed by llvm-as), target
// assembly (per x86 feature level), the lowered statement, and static
// libraries whose symbols nm lists as the pipeline's plus weak runtime ones.

#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "AotPipelines.h"
#include "AotTestSupport.h"

using namespace loom;
using namespace loom_test;

namespace {

const Target kX86("x86-64-linux");
const Target kArm("arm-64-linux");

std::string readelf_header(const std::string &path) { return run_command("readelf -h '" + path + "' 2>&1").output; }

/** Defined global symbols of an object or archive: name -> nm type letter. */
std::map<std::string, char> defined_symbols(const std::string &path) {
    std::map<std::string, char> symbols;
    std::istringstream lines(run_command("nm -g --defined-only '" + path + "' 2>&1").output);
    std::string line;
    while (std::getline(lines, line)) {
        std::istringstream fields(line);
        std::string address, type, name;
        if (!(fields >> address >> type >> name)) continue;  // member headers, blank lines
        symbols[name] = type[0];
    }
    return symbols;
}

TEST(AotOutputs, ObjectForX86IsX86ElfWithTheFunctions) {
    ASSERT_TRUE(have_tool("readelf") && have_tool("nm")) << kToolsHint;
    ScratchDir dir;
    BrightenPipeline p;
    p.out.compile_to_object(dir.file("brighten.o"), p.args(), "brighten", kX86);
    const std::string header = readelf_header(dir.file("brighten.o"));
    EXPECT_NE(header.find("ELF64"), std::string::npos) << header;
    EXPECT_NE(header.find("REL (Relocatable file)"), std::string::npos) << header;
    EXPECT_NE(header.find("X86-64"), std::string::npos) << header;
    auto symbols = defined_symbols(dir.file("brighten.o"));
    EXPECT_EQ(symbols["brighten"], 'T');
    EXPECT_EQ(symbols["brighten_argv"], 'T');
    EXPECT_EQ(symbols["brighten_metadata"], 'T');
    for (const auto &[name, type] : symbols) {
        EXPECT_NE(name.rfind("loom_", 0), 0u) << "an object file carries no runtime, but defines " << name;
    }
}

TEST(AotOutputs, ObjectForArm64IsAArch64Elf) {
    ASSERT_TRUE(have_tool("readelf")) << kToolsHint;
    ScratchDir dir;
    BrightenPipeline p;
    p.out.compile_to_object(dir.file("brighten_arm.o"), p.args(), "brighten", kArm);
    const std::string header = readelf_header(dir.file("brighten_arm.o"));
    EXPECT_NE(header.find("ELF64"), std::string::npos) << header;
    EXPECT_NE(header.find("AArch64"), std::string::npos) << header;
    const std::string objdump = find_tool({"llvm-objdump-19", "llvm-objdump"});
    ASSERT_FALSE(objdump.empty()) << kToolsHint;
    CommandResult d = run_command(objdump + " -d '" + dir.file("brighten_arm.o") + "' 2>&1");
    EXPECT_EQ(d.exit_code, 0) << d.output;
    EXPECT_NE(d.output.find("file format elf64-littleaarch64"), std::string::npos) << d.output.substr(0, 400);
    EXPECT_NE(d.output.find("<brighten>:"), std::string::npos);
    EXPECT_NE(d.output.find("ret"), std::string::npos);  // an AArch64 instruction, decoded
}

TEST(AotOutputs, StaticLibraryExportsTheFunctionAndOnlyWeakRuntimeSymbols) {
    ASSERT_TRUE(have_tool("nm")) << kToolsHint;
    for (const Target &t : {kX86, kArm}) {
        SCOPED_TRACE(t.to_string());
        ScratchDir dir;
        BrightenPipeline p;
        p.out.compile_to_static_library(dir.file("brighten"), p.args(), "brighten", t);
        ASSERT_TRUE(file_exists(dir.file("brighten.a")));
        ASSERT_TRUE(file_exists(dir.file("brighten.h")));
        EXPECT_EQ(read_file(dir.file("brighten.a")).substr(0, 8), "!<arch>\n");
        auto symbols = defined_symbols(dir.file("brighten.a"));
        EXPECT_EQ(symbols["brighten"], 'T');
        EXPECT_EQ(symbols["brighten_argv"], 'T');
        EXPECT_EQ(symbols["brighten_metadata"], 'T');
        int runtime_symbols = 0;
        for (const auto &[name, type] : symbols) {
            if (name == "brighten" || name == "brighten_argv" || name == "brighten_metadata") continue;
            EXPECT_EQ(name.rfind("loom_", 0), 0u) << "unexpected symbol " << name;
            EXPECT_TRUE(type == 'W' || type == 'V') << name << " is '" << type << "', not weak";
            runtime_symbols++;
        }
        for (const char *needed : {"loom_error", "loom_set_error_handler", "loom_malloc", "loom_free",
                                   "loom_do_par_for", "loom_set_num_threads", "loom_msg_append_int"}) {
            EXPECT_TRUE(symbols.count(needed)) << needed << " missing from the library";
        }
        EXPECT_GT(runtime_symbols, 10);
        // Everything else comes from libc and libpthread (libm for math).
        const std::set<std::string> system = {
            "aligned_alloc", "fflush", "fputs", "free", "getenv", "memcpy", "memmove", "memset", "snprintf",
            "stderr", "stdout", "strlen", "strtol", "sysconf", "__tls_get_addr", "pthread_cond_broadcast",
            "pthread_cond_wait", "pthread_create", "pthread_join", "pthread_mutex_lock", "pthread_mutex_unlock",
            "clock_gettime", "nanosleep",  // nanosleep: the profiler's sampling thread (e0b4bf9)
            "fopen", "fwrite", "fclose"};  // Func::debug_to_file (runtime/DebugToFile.c)
        std::istringstream undefined(run_command("nm -u '" + dir.file("brighten.a") + "' 2>&1").output);
        std::string type, name;
        while (undefined >> type) {
            if (type != "U" || !(undefined >> name)) continue;
            EXPECT_TRUE(system.count(name)) << "the library needs " << name;
        }
        if (t == kArm && have_tool("readelf")) {
            EXPECT_NE(readelf_header(dir.file("brighten.a")).find("AArch64"), std::string::npos);
        }
    }
}

TEST(AotOutputs, HeaderDeclaresTheFunctionAndCompilesAsCAndCpp) {
    ScratchDir dir;
    BrightenPipeline p;
    p.out.compile_to_header(dir.file("brighten.h"), p.args(), "brighten", kX86);
    const std::string h = read_file(dir.file("brighten.h"));
    EXPECT_NE(h.find("int brighten(struct loom_buffer_t *input, int32_t scale, int32_t offset, "
                     "struct loom_buffer_t *brighten);"),
              std::string::npos)
        << h;
    EXPECT_NE(h.find("int brighten_argv(void **args);"), std::string::npos);
    EXPECT_NE(h.find("const struct loom_pipeline_metadata_t *brighten_metadata(void);"), std::string::npos);
    EXPECT_NE(h.find("x86-64-linux"), std::string::npos);  // the target, in the comment

    ASSERT_TRUE(have_tool("cc") && have_tool("c++")) << kToolsHint;
    // Twice in one translation unit, and next to the installed runtime header.
    write_file(dir.file("use.c"), "#include \"brighten.h\"\n#include \"brighten.h\"\nint main(void) { return 0; }\n");
    CommandResult c = run_command("cc -std=c99 -Wall -Werror -fsyntax-only -I'" + dir.path() + "' '" +
                                  dir.file("use.c") + "' 2>&1");
    EXPECT_EQ(c.exit_code, 0) << c.output;
    write_file(dir.file("use.cpp"), "#include <loom/runtime/loom_runtime.h>\n#include \"brighten.h\"\n"
                                    "int main() { return brighten_argv(nullptr); }\n");
    CommandResult cpp = run_command("c++ -std=c++17 -Wall -Werror -fsyntax-only -I'" + dir.path() + "' -I'" +
                                    repository_root() + "/include' '" + dir.file("use.cpp") + "' 2>&1");
    EXPECT_EQ(cpp.exit_code, 0) << cpp.output;
}

TEST(AotOutputs, TupleOutputsGetCSafeNamesInTheHeader) {
    ScratchDir dir;
    BlurPipeline b;
    b.pipeline().compile_to_header(dir.file("blur.h"), b.args(), "blur", kX86);
    const std::string h = read_file(dir.file("blur.h"));
    EXPECT_NE(h.find("int blur(struct loom_buffer_t *image, float weight, struct loom_buffer_t *blur_y, "
                     "struct loom_buffer_t *pair_0, struct loom_buffer_t *pair_1);"),
              std::string::npos)
        << h;
}

TEST(AotOutputs, LlvmAssemblyParses) {
    ScratchDir dir;
    BrightenPipeline p;
    p.out.compile_to_llvm_assembly(dir.file("brighten.ll"), p.args(), "brighten", kX86);
    const std::string ll = read_file(dir.file("brighten.ll"));
    EXPECT_NE(ll.find("define"), std::string::npos);
    EXPECT_NE(ll.find("@brighten("), std::string::npos);
    EXPECT_NE(ll.find("target triple = \"x86_64"), std::string::npos);
    const std::string llvm_as = find_tool({"llvm-as-19", "llvm-as"});
    ASSERT_FALSE(llvm_as.empty()) << kToolsHint;
    CommandResult r = run_command(llvm_as + " '" + dir.file("brighten.ll") + "' -o /dev/null 2>&1");
    EXPECT_EQ(r.exit_code, 0) << r.output;
}

/** Assembly of a float pipeline vectorized by 16, for target t. */
std::string vector_assembly(const Target &t, const ScratchDir &dir) {
    ImageParam in(Float(32), 1, "in");
    Var x("x");
    Func scaled("scaled");
    scaled(x) = in(x) * 3.0f + 1.0f;
    scaled.vectorize(x, 16);
    const std::string path = dir.file("scaled_" + t.to_string() + ".s");
    scaled.compile_to_assembly(path, {in}, "scaled", t);
    return read_file(path);
}

TEST(AotOutputs, AssemblyFollowsTheX86FeatureLevel) {
    ScratchDir dir;
    const std::string sse = vector_assembly(Target("x86-64-linux-sse41"), dir);
    const std::string avx2 = vector_assembly(Target("x86-64-linux-avx-avx2-fma-f16c"), dir);
    const std::string avx512 = vector_assembly(Target("x86-64-linux-avx512_skylake"), dir);
    for (const std::string *s : {&sse, &avx2, &avx512}) {
        EXPECT_NE(s->find("scaled:"), std::string::npos);
        EXPECT_NE(s->find(".globl\tscaled"), std::string::npos);
    }
    EXPECT_EQ(sse.find("%ymm"), std::string::npos);
    EXPECT_NE(sse.find("%xmm"), std::string::npos);
    EXPECT_NE(avx2.find("%ymm"), std::string::npos);
    EXPECT_EQ(avx2.find("%zmm"), std::string::npos);
    EXPECT_NE(avx512.find("%zmm"), std::string::npos);
}

TEST(AotOutputs, LoweredStmtListsArgumentsInTheGivenOrder) {
    ScratchDir dir;
    BrightenPipeline p;
    // Lowering alone would sort the inputs by name (input, offset, scale).
    p.out.compile_to_lowered_stmt(dir.file("brighten.stmt"), {p.offset, p.input, p.scale}, kX86);
    const std::string s = read_file(dir.file("brighten.stmt"));
    EXPECT_EQ(s.rfind("// pipeline brighten(offset: int32, input: buffer<uint8, 2D>, scale: int32, "
                      "brighten: output buffer<uint8, 2D>)\n",
                      0),
              0u)
        << s.substr(0, 200);
    EXPECT_NE(s.find("parallel"), std::string::npos);
}

TEST(AotOutputs, CompileToWritesEveryRequestedFile) {
    ScratchDir dir;
    BlurPipeline b;
    std::map<OutputFileType, std::string> files;
    for (const auto &[kind, info] : output_file_info()) files[kind] = dir.file("blur" + info.extension);
    b.pipeline().compile_to(files, b.args(), "blur", kX86);
    for (const auto &[kind, path] : files) {
        EXPECT_TRUE(file_exists(path)) << path;
        EXPECT_GT(read_file(path).size(), 100u) << path;
    }
    EXPECT_EQ(read_file(files[OutputFileType::object]).substr(0, 4), "\x7f" "ELF");
}

TEST(AotOutputs, OutputFileInfoNamesAndExtensions) {
    const auto &info = output_file_info();
    EXPECT_EQ(info.size(), 9u);
    EXPECT_EQ(info.at(OutputFileType::static_library).name, "static_library");
    EXPECT_EQ(info.at(OutputFileType::static_library).extension, ".a");
    EXPECT_EQ(info.at(OutputFileType::c_header).name, "h");
    EXPECT_EQ(info.at(OutputFileType::object).extension, ".o");
    EXPECT_EQ(info.at(OutputFileType::llvm_assembly).extension, ".ll");
    EXPECT_EQ(info.at(OutputFileType::assembly).extension, ".s");
    EXPECT_EQ(info.at(OutputFileType::stmt).extension, ".stmt");
    EXPECT_EQ(info.at(OutputFileType::stmt_html).extension, ".stmt.html");
    EXPECT_EQ(info.at(OutputFileType::bitcode).name, "bitcode");
    EXPECT_EQ(info.at(OutputFileType::bitcode).extension, ".bc");
    EXPECT_EQ(info.at(OutputFileType::c_source).name, "c_source");
    EXPECT_EQ(info.at(OutputFileType::c_source).extension, ".loom_generated.cpp");
}

TEST(AotOutputs, CompileToFileWritesObjectAndHeader) {
    ScratchDir dir;
    BrightenPipeline p;
    p.out.compile_to_file(dir.file("b"), p.args(), "brighten", kX86);
    EXPECT_TRUE(file_exists(dir.file("b.o")));
    EXPECT_TRUE(file_exists(dir.file("b.h")));
}

TEST(AotOutputs, UnusedArgumentsStayInTheSignature) {
    ScratchDir dir;
    BrightenPipeline p;
    Param<double> unused("unused");
    ImageParam spare(Int(16), 3, "spare");
    p.out.compile_to_header(dir.file("b.h"), {p.input, unused, p.scale, spare, p.offset}, "brighten", kX86);
    EXPECT_NE(read_file(dir.file("b.h"))
                  .find("int brighten(struct loom_buffer_t *input, double unused, int32_t scale, "
                        "struct loom_buffer_t *spare, int32_t offset, struct loom_buffer_t *brighten);"),
              std::string::npos);
}

}  // namespace
